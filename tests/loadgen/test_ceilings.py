"""The ceilings no capacity setting lifts (loadgen.analysis.ceilings): one lock item, one
constant GSI key, a collection read whole as it grows; arithmetic checked by hand."""

from __future__ import annotations

import pytest

from emulator.params import DEFAULT_PARAMS as P
from emulator.units import CollectionRead, collection_read_cost
from loadgen.analysis.ceilings import (
    CollectionGrowth,
    LockLoad,
    collection_growth,
    constant_key_ceiling,
    growth_words,
    iterations_until_read_ceiling,
    lock_ceiling,
    lock_poll_units,
)


def test_one_lock_item_caps_iterations_at_one_per_hold() -> None:
    # M5 v2's shape: 10 users, one lock, a 14 s hold, a 60 s wait
    load = LockLoad(users=10, hold_s=14.0, cycle_s=15.0, wait_s=60.0)
    ceiling = lock_ceiling(load)
    assert ceiling.iterations_per_s == pytest.approx(1 / 14)
    assert ceiling.demanded_per_s == pytest.approx(10 / 15)
    assert ceiling.saturated
    assert ceiling.queue_wait_s == pytest.approx(9 * 14)  # > 60 s: most time out
    words = ceiling.words(load)
    assert "0.0714 iterations/s in all (0.00714 per user, 10 users)" in words
    assert "most iterations fail on the lock timeout" in words
    # one lock per user: never contended, not reached
    alone = LockLoad(users=1, hold_s=14.0, cycle_s=15.0, wait_s=60.0)
    assert not lock_ceiling(alone).saturated
    assert "not reached" in lock_ceiling(alone).words(alone)
    with pytest.raises(ValueError, match="must be > 0"):
        lock_ceiling(LockLoad(users=1, hold_s=0, cycle_s=1, wait_s=1))


def test_waiting_users_polls_are_charged_to_the_lock_item() -> None:
    # 9 waiters polling every 0.5 s with a 300-byte conditional put: 18 WCU/s, failed or not
    assert lock_poll_units(10, 0.5, 300, P) == 18.0
    assert lock_poll_units(10, 0.5, 1500, P) == 36.0  # 2 WCU each


def test_a_constant_gsi_key_is_one_partitions_writes() -> None:
    ceiling = constant_key_ceiling("byType", "FILE", entry_bytes=1500, params=P)
    assert (ceiling.units_per_write, ceiling.writes_per_s) == (2, 500.0)
    assert "at most 500 writes/s of 2 WCU; offered 750/s = 150%" in ceiling.words(750)


def test_a_collection_read_whole_costs_more_every_iteration() -> None:
    # 6 entries of 400 B per iteration (M5 v4's commit), read whole, eventually consistent
    growth = CollectionGrowth(entries_per_iteration=6, entry_bytes=400)
    points = collection_growth(growth, [1, 100, 1000], P)
    assert [p.entries for p in points] == [6, 600, 6000]
    # 240,000 B -> 59 blocks of 4 KB, halved; 6,000 entries: pages of 2,622 entries
    # (1 MB / 400 B, rounded up), 257 + 257 + 74 blocks, halved
    assert [p.read_units for p in points] == [0.5, 29.5, 294.0]
    assert [p.pages for p in points] == [1, 1, 3]
    assert (
        points[-1].read_units
        == collection_read_cost(CollectionRead(6000, 6000 * 400, False), P).units
    )
    assert "294.0 RCU in 3 pages at iteration 1,000 (6,000 entries)" in growth_words(growth, points)
    # at 17 iterations/s, the queries alone outrun one partition's 3,000 RCU/s once the
    # collection holds 3,000 / 17 / (400 / 4096 / 2) = 3,614 entries: iteration 603
    assert iterations_until_read_ceiling(growth, 17.0, P) == 603
    assert iterations_until_read_ceiling(CollectionGrowth(0, 400), 17.0, P) is None
