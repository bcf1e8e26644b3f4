"""The closed-loop engine: users, mixes and scenarios through the one capacity model in
virtual time. Small populations and short phases: each test is a fraction of a second
of CPU per simulated minute."""

from __future__ import annotations

from typing import Any

import yaml

from emulator.params import DEFAULT_LATENCY
from loadgen.format.playbook import parse_playbook
from loadgen.results.records import PlaybookResult
from loadgen.simulation.simulate import simulate

BASE = """
name: engine
tables:
  - name: t
    partition_key: {name: pk, type: S}
    sort_key: {name: sk, type: S}
    billing_mode: PROVISIONED
    read_capacity: 100
    write_capacity: 100
    item_size_bytes: 1000
    gsis:
      - name: byFile
        partition_key: {name: gsiPk, type: S}
        sort_key: {name: path, type: S}
        read_capacity: 3000
        write_capacity: 1000
load:
  attributes:
    pk: {dist: uniform, count: 1000}
    sk: {dist: constant, value: x}
  scenarios: {}
  phases: []
"""


def _run(
    phases: list[dict[str, Any]],
    scenarios: dict[str, Any] | None = None,
    attributes: dict[str, Any] | None = None,
) -> PlaybookResult:
    data = yaml.safe_load(BASE)
    data["load"]["attributes"].update(attributes or {})
    data["load"]["phases"] = phases
    data["load"]["scenarios"] = scenarios or {}
    return simulate(parse_playbook(data))


def _iterations(result: PlaybookResult) -> dict[str, Any]:
    return result.to_json()["runs"][0]["phases"][0]["iterations"]  # type: ignore[no-any-return]


def test_a_closed_loop_runs_at_users_over_latency_plus_think() -> None:
    # 5 users, each a get (3 ms) then 1 s of think: 5 / 1.003 iterations per second.
    result = _run([{"name": "p", "users": 5, "think_s": 1.0, "operation": "get", "duration_s": 60}])
    it = _iterations(result)
    expected = 5 / (1.0 + DEFAULT_LATENCY.read_s) * 60
    assert abs(it["ok"] - expected) <= 6, (it["ok"], expected)
    assert it["failed"] == 0 and it["unfinished"] <= 5
    run = result.runs[0]
    assert run.reconciled
    # every attempt DynamoDB saw is an operation the application completed
    assert it["operations"]["attempts"] == run.totals().sent


def test_one_lock_serializes_every_user_and_the_rest_time_out() -> None:
    scenarios = {
        "work": {
            "steps": [
                {
                    "name": "acquire",
                    "op": "lock",
                    "key": {"pk": "LOCK", "sk": "L"},
                    "ttl_s": 30,
                    "wait_s": 5,
                    "heartbeat_s": 10,
                },
                {"name": "command", "op": "think", "seconds": 2.0},
                {"name": "release", "op": "release", "lock": "acquire"},
            ]
        }
    }
    result = _run([{"name": "p", "users": 10, "scenario": "work", "duration_s": 120}], scenarios)
    it = _iterations(result)
    # The lock is held 2 s per iteration: at most 120 / 2 iterations succeed in all,
    # whatever the users; with 10 users most of the others' waits run out.
    assert 40 <= it["ok"] <= 60, it
    assert it["failed_by_reason"].get("lock_timeout", 0) > it["ok"]
    assert it["step_ms"]["command"]["p50"] == 2000.0


def test_a_collection_query_costs_more_as_writes_add_to_it() -> None:
    scenarios = {
        "sync": {
            "steps": [
                {
                    "name": "pull",
                    "op": "query",
                    "index": "byFile",
                    "key": {"gsiPk": "FILE"},
                    "collection": True,
                },
                {
                    "name": "push",
                    "op": "put",
                    "repeat": 5,
                    "key": {"pk": "ns-{user}", "sk": "f{seq}"},
                    "attributes": {"gsiPk": "FILE", "path": "p{seq}"},
                },
            ]
        }
    }
    result = _run(
        [{"name": "p", "users": 2, "think_s": 0.5, "scenario": "sync", "duration_s": 120}],
        scenarios,
    )
    run = result.runs[0]
    early = sum(run.second(t).consumed_rcu for t in range(0, 30))
    late = sum(run.second(t).consumed_rcu for t in range(90, 120))
    assert late > 3 * early > 0  # the same queries read a grown collection
    assert run.totals().throttled == 0
    assert run.totals().consumed_wcu_by_index["byFile"] > 0


def test_open_arrivals_with_no_free_user_are_dropped_iterations() -> None:
    scenarios = {
        "slow": {
            "steps": [
                {"name": "wait", "op": "think", "seconds": 1.0},
                {"name": "read", "op": "get"},
            ]
        }
    }
    # 20 iterations/s of 1 s each need 20 users; 5 are allowed: about 3/4 dropped.
    result = _run(
        [{"name": "p", "rate": 20, "max_users": 5, "scenario": "slow", "duration_s": 30}],
        scenarios,
    )
    it = _iterations(result)
    assert 0.7 < it["dropped"] / (it["dropped"] + it["started"]) < 0.8, it
    assert it["started"] == it["ok"] + it["unfinished"]


def test_standard_retries_turn_throttles_into_slower_successes() -> None:
    # 10 users writing 40 KB items (40 WCU) every ~0.05 s: ~7,000 WCU/s against the
    # 1,000 one partition serves.
    phase = {
        "name": "p",
        "users": 10,
        "think_s": 0.05,
        "duration_s": 10,
        "mix": [{"op": "put", "weight": 1, "size_bytes": 40000}],
    }
    none = _iterations(_run([phase]))
    retried = _iterations(_run([{**phase, "retry": "standard"}]))
    # Without retries iterations fail throttled; with the SDK's retries most succeed
    # after backoff, with more attempts than operations.
    assert none["failed_by_reason"].get("throttled", 0) > none["ok"]
    assert retried["operations"]["attempts"] > retried["operations"]["completed"]
    assert retried["operations"]["retried_ok"] > 0
    assert retried["failure_rate"] < none["failure_rate"]


def test_a_mix_and_todays_phase_in_one_run_keep_one_timeline() -> None:
    result = _run(
        [
            {"name": "warm", "operation": "put", "rate": 50, "duration_s": 10},
            {
                "name": "mixed",
                "users": 3,
                "think_s": 0.1,
                "duration_s": 10,
                "mix": [{"op": "get", "weight": 1}, {"op": "put", "weight": 1}],
            },
        ],
        attributes={"gsiPk": {"dist": "uniform", "count": 10}, "path": {"dist": "uuid"}},
    )
    run = result.to_json()["runs"][0]
    warm, mixed = run["phases"]
    assert warm["start_s"] == 0 and mixed["start_s"] == 10
    assert "iterations" not in warm and mixed["iterations"]["ok"] > 100
    assert mixed["operation"] == "mix"
    assert run["reconciled"]
