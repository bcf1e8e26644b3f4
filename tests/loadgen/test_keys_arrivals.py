"""Key generation and the arrival process, shared by the simulation and the worker."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from loadgen.format.playbook import LoadSpec, Phase
from loadgen.load.arrivals import Schedule
from loadgen.load.keys import ItemGenerator, sampler_for


def _dist(spec: dict[str, object]):  # type: ignore[no-untyped-def]
    return LoadSpec.model_validate(
        {"attributes": {"a": spec}, "phases": [{"rate": 1, "duration_s": 1}]}
    ).attributes["a"]


def test_weighted_draws_match_weights() -> None:
    s = sampler_for(_dist({"dist": "weighted", "weights": {"T": 80, "O": 10, "F": 10}}))
    idx = s.draw(np.random.default_rng(1), 100_000, 0)
    counts = Counter(s.render(int(i)) for i in idx[:100_000])
    assert counts["T"] / 100_000 == pytest.approx(0.8, abs=0.01)
    assert counts["O"] / 100_000 == pytest.approx(0.1, abs=0.01)


@pytest.mark.parametrize(
    "spec",
    [
        {"dist": "weighted", "weights": {"A": 5, "B": 70, "C": 25}},
        {"dist": "zipf", "count": 200, "s": 1.1},
        {
            "dist": "composite",
            "format": "{w}#{z}",
            "parts": {
                "w": {"dist": "weighted", "weights": {"x": 1, "y": 3}},
                "z": {"dist": "zipf", "count": 50, "s": 1.2},
            },
        },
    ],
)
def test_top_is_the_most_drawn_value_and_its_share(spec: dict[str, object]) -> None:
    s = sampler_for(_dist(spec))
    assert s.top is not None
    index, share = s.top
    idx = s.draw(np.random.default_rng(3), 200_000, 0)
    counts = Counter(int(i) for i in idx)
    assert counts.most_common(1)[0][0] == index
    assert counts[index] / 200_000 == pytest.approx(share, abs=0.01)


def test_top_is_none_for_never_repeating_values() -> None:
    assert sampler_for(_dist({"dist": "uuid"})).top is None


def test_uniform_renders_with_format_and_stays_in_range() -> None:
    s = sampler_for(_dist({"dist": "uniform", "count": 5000, "format": "SKU-{:05d}"}))
    idx = s.draw(np.random.default_rng(2), 50_000, 0)
    assert idx.min() >= 0 and idx.max() < 5000
    assert s.render(42) == "SKU-00042"
    assert len(set(idx.tolist())) > 4900


def test_zipf_is_skewed_towards_the_first_ranks() -> None:
    s = sampler_for(_dist({"dist": "zipf", "count": 1000, "s": 1.2}))
    idx = s.draw(np.random.default_rng(3), 100_000, 0)
    top = np.mean(idx == 0)
    assert top > 10 * np.mean(idx == 99)
    assert top > 0.1


def test_uuid_never_repeats_and_renders_as_uuid4() -> None:
    s = sampler_for(_dist({"dist": "uuid"}))
    idx = s.draw(np.random.default_rng(4), 100_000, 0)
    assert len(set(idx.tolist())) == 100_000
    text = str(s.render(int(idx[0])))
    assert len(text) == 36 and text[14] == "4"
    assert s.render(int(idx[0])) == text  # the same index is the same key everywhere


def test_monotonic_rises_and_sorts_as_it_rises() -> None:
    s = sampler_for(_dist({"dist": "monotonic"}))
    first = s.draw(np.random.default_rng(5), 10, 0)
    later = s.draw(np.random.default_rng(5), 10, 10)
    assert list(first) == list(range(10)) and later[0] == 10
    rendered = [str(s.render(i)) for i in range(8, 12)]
    assert rendered == sorted(rendered)


def test_composite_builds_sharded_keys() -> None:
    s = sampler_for(
        _dist(
            {
                "dist": "composite",
                "format": "{wh}#{shard}",
                "parts": {
                    "wh": {"dist": "weighted", "weights": {"TOKYO": 1}},
                    "shard": {"dist": "uniform", "count": 10},
                },
            }
        )
    )
    values = {s.render(int(i)) for i in s.draw(np.random.default_rng(6), 1000, 0)}
    assert values == {f"TOKYO#{i}" for i in range(10)}


def test_per_item_attributes_are_fixed_per_item() -> None:
    load = LoadSpec.model_validate(
        {
            "attributes": {
                "pk": {"dist": "uniform", "count": 50},
                "shelf": {"dist": "uniform", "count": 200, "type": "N", "per_item": True},
            },
            "phases": [{"rate": 1, "duration_s": 1}],
        }
    )
    gen = ItemGenerator(load.attributes, ["pk", "shelf"], ["pk"])
    idx = gen.draw(np.random.default_rng(7), 5000, 0)
    shelf_of: dict[int, set[int]] = {}
    for pk, shelf in zip(idx["pk"].tolist(), idx["shelf"].tolist(), strict=True):
        shelf_of.setdefault(pk, set()).add(shelf)
    assert all(len(s) == 1 for s in shelf_of.values())
    assert len({next(iter(s)) for s in shelf_of.values()}) > 30


def test_constant_rate_schedule_counts_and_times() -> None:
    sched = Schedule.for_phase(Phase(rate=4000, duration_s=120))
    assert sched.total == 480_000
    assert sched.due_by(1.0) == 4000
    assert sched.send_time(4000) == pytest.approx(1.0)


def test_linear_ramp_integrates_the_rate() -> None:
    sched = Schedule.for_phase(
        Phase.model_validate({"ramp": {"start": 1000, "end": 3000}, "duration_s": 10})
    )
    assert sched.total == 20_000
    k = sched.due_by(5.0)
    assert k == 7500  # 1000*5 + (200/s^2)*25/2*... = 7,500
    assert sched.send_time(k) == pytest.approx(5.0, abs=1e-3)


def test_step_ramp_is_flat_windows() -> None:
    sched = Schedule.for_phase(
        Phase.model_validate({"ramp": {"start": 1000, "end": 4000, "steps": 4}, "duration_s": 40})
    )
    assert [sched.rate_at(t) for t in (5, 15, 25, 35)] == [1000, 2000, 3000, 4000]
    assert sched.total == 100_000


def test_worker_shares_partition_the_schedule_exactly() -> None:
    sched = Schedule.for_phase(Phase(rate=1000, duration_s=3))
    shares = [sched.worker_times(w, 7) for w in range(7)]
    assert sum(len(s) for s in shares) == sched.total
    merged = sorted(t for s in shares for t in s)
    assert merged == [sched.send_time(k) for k in range(sched.total)]
    assert all(a <= b for s in shares for a, b in itertools.pairwise(s))


def test_scaled_schedule_offers_a_fraction() -> None:
    assert Schedule.for_phase(Phase(rate=4000, duration_s=10), scale=0.1).total == 4000
