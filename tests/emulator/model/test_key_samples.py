"""KeySamples keeps what a deque(maxlen=SAMPLE_SIZE) of (pk_hash, sk_pos) would: the
split decisions read it, so its contents and order must be the same."""

from __future__ import annotations

import random
from collections import deque
from typing import Any

import pytest

from emulator.keyspace import SAMPLE_SIZE, KeySamples


@pytest.mark.parametrize(
    "count",
    [
        0,
        1,
        5,
        SAMPLE_SIZE - 1,
        SAMPLE_SIZE,
        SAMPLE_SIZE + 1,
        2 * SAMPLE_SIZE,
        2 * SAMPLE_SIZE + 1,
        3333,
    ],
)
def test_key_samples_hold_what_a_bounded_deque_holds(count: int) -> None:
    rng = random.Random(count)
    want: deque[tuple[int, Any]] = deque(maxlen=SAMPLE_SIZE)
    got = KeySamples()
    for i in range(count):
        pk_hash, sk_pos = rng.getrandbits(64), rng.choice([0.0, b"a", rng.random()])
        want.append((pk_hash, sk_pos))
        got.add(pk_hash, sk_pos)
        if i % 61 == 0:
            assert list(got) == list(want)
    assert list(got) == list(want)
    assert len(got) == len(want)
    copy_want: deque[tuple[int, Any]] = deque(maxlen=SAMPLE_SIZE)
    copy_want.extend(s for s in want if s[0] % 2)
    copy_got = KeySamples()
    copy_got.extend(s for s in got if s[0] % 2)
    assert list(copy_got) == list(copy_want)
