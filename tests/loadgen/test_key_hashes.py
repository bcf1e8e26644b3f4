"""Where the simulation places a key: the values that carry load hash as the endpoint
hashes them, also in a value set too large to hash in full.

A live run hashes the value it sends; the simulation of a set larger than
PRECOMPUTE_LIMIT used a hash of the index for every value, so the prelaunch template's
busiest customers shared other partitions than live (1,033 writes/s on the busiest of
eight partitions instead of 1,207), and a check that throttled live passed simulated."""

from __future__ import annotations

import numpy as np
import pytest
import yaml

import loadgen.simulation.simulate as simulate_module
from emulator.keyspace import HASH_SPACE, key_bytes, partition_hash
from loadgen.format.playbook import LoadSpec, parse_playbook
from loadgen.load.keys import HEAVY_SHARE, mix64, sampler_for
from loadgen.simulation.simulate import KeyMapper, simulate
from tests.conftest import PLAYBOOKS


def _zipf(count: int, s: float = 1.0):  # type: ignore[no-untyped-def]
    spec = {"dist": "zipf", "count": count, "s": s, "format": "C{:07d}"}
    return sampler_for(
        LoadSpec.model_validate(
            {"attributes": {"a": spec}, "phases": [{"rate": 1, "duration_s": 1}]}
        ).attributes["a"]
    )


def _exact(sampler, idx: np.ndarray) -> np.ndarray:  # type: ignore[no-untyped-def]
    return np.array([partition_hash(key_bytes(sampler.render(int(i)))) for i in idx], np.uint64)


@pytest.mark.parametrize(("count", "s"), [(1_000_000, 1.0), (2_000_000, 0.5), (300_000, 2.0)])
def test_the_heavy_values_of_a_zipf_are_its_first_ranks_drawn_at_least_heavy_share(
    count: int, s: float
) -> None:
    sampler = _zipf(count, s)
    ranks = np.arange(1, count + 1, dtype=np.float64) ** -s
    shares = ranks / ranks.sum()
    assert 0 < sampler.heavy < count
    assert shares[sampler.heavy - 1] >= HEAVY_SHARE > shares[sampler.heavy]


def test_a_large_sets_heavy_values_hash_as_the_endpoint_does_and_the_rest_by_index() -> None:
    sampler = _zipf(1_000_000)
    mapper = KeyMapper(sampler)
    assert not mapper.exact and mapper.head == sampler.heavy  # 6,947 of a million
    heavy = np.arange(mapper.head)
    assert (mapper.hashes(heavy) == _exact(sampler, heavy)).all()
    rest = np.array([mapper.head, 123_456, 999_999], dtype=np.int64)
    assert (mapper.hashes(rest) == mix64(rest)).all()
    mixed = np.array([999_999, 0, 7, 500_000, 0], dtype=np.int64)
    assert (mapper.hashes(mixed) == mapper.hashes(mixed[::-1])[::-1]).all()


def test_the_partitions_load_is_the_endpoints_to_a_tenth_of_a_percent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Eight equal partitions under a zipf over more values than the simulation hashes
    in full: each takes the share of the load it takes with every value hashed exactly
    (the stand-in hash of the rare values only averages out). The limit is lowered so
    the exact reference is quick to compute."""
    monkeypatch.setattr(simulate_module, "PRECOMPUTE_LIMIT", 20_000)
    count = 100_000
    sampler = _zipf(count)
    idx = np.arange(count)
    weights = 1.0 / (idx + 1.0)
    weights /= weights.sum()

    def loads(hashes: np.ndarray) -> np.ndarray:
        part = (hashes // np.uint64(HASH_SPACE // 8)).astype(np.int64)
        return np.bincount(part, weights=weights, minlength=8)

    mapper = KeyMapper(sampler)
    assert not mapper.exact and 0 < mapper.head < count
    exact = loads(_exact(sampler, idx))
    simulated = loads(mapper.hashes(idx))
    assert np.abs(simulated - exact).max() < 0.001
    assert np.abs(loads(mix64(idx)) - exact).max() > 0.01  # what the index hash alone gave


def test_a_table_warmed_to_8000_throttles_the_templates_launch_as_live_does() -> None:
    """The prelaunch template at its earlier warm throughput, 8,000 writes/s (eight
    partitions): live on the emulator its busiest partition (1,207 writes/s) throttled
    0.5 % of the launch from 4.3 s in, until it split; the simulation must see it too."""
    data = yaml.safe_load((PLAYBOOKS / "prelaunch-template.yaml").read_text())
    data["tables"][0]["warm_throughput"] = {"write": 8000}
    data.pop("criteria")
    result = simulate(parse_playbook(data))
    launch = result.runs[0].phases[1]
    assert launch.name == "launch"
    assert launch.first_throttle_s is not None and 3.5 < launch.first_throttle_s < 6
    throttled = launch.counts.throttled / launch.offered
    assert 0.002 < throttled < 0.008
    assert set(launch.counts.by_reason) == {"TableWriteKeyRangeThroughputExceeded"}
