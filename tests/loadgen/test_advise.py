"""The advisor's arithmetic: shares of the hottest keys, the table-level limits from
emulator.params, and whether its verdict agrees with the simulation it summarises."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from emulator.params import DEFAULT_PARAMS as P
from loadgen.analysis.advise import advise, hottest
from loadgen.analysis.criteria import select
from loadgen.format.playbook import load_playbook, parse_playbook
from loadgen.load.keys import sampler_for
from loadgen.runners import SimulatedRunner
from tests.conftest import BUILT_IN_CHECKS, PLAYBOOKS


def _one_table(table: dict[str, Any], attributes: dict[str, Any], *phases: dict[str, Any]) -> Any:
    base = {"name": "t", "partition_key": {"name": "pk"}, "item_size_bytes": 1000}
    return parse_playbook(
        {
            "name": "p",
            "tables": [{**base, **table}],
            "load": {"attributes": attributes, "phases": [{"name": "rush", **p} for p in phases]},
        },
        "<test>",
    )


@pytest.mark.parametrize(
    "dist",
    [
        {"dist": "zipf", "count": 50_000, "s": 1.1},
        {"dist": "weighted", "weights": {"A": 5, "B": 3, "C": 2}},
        {
            "dist": "composite",
            "format": "{w}#{s}",
            "parts": {
                "w": {"dist": "weighted", "weights": {"A": 8, "B": 2}},
                "s": {"dist": "uniform", "count": 4},
            },
        },
    ],
    ids=["zipf", "weighted", "composite"],
)
def test_hottest_value_and_share_match_what_the_generator_draws(dist: dict[str, Any]) -> None:
    playbook = _one_table(
        {"billing_mode": "PAY_PER_REQUEST"}, {"pk": dist}, {"rate": 1, "duration_s": 1}
    )
    hot = hottest("pk", playbook.load.attributes, ["pk"])
    sampler = sampler_for(playbook.load.attributes["pk"])
    drawn = sampler.draw(np.random.default_rng(7), 400_000, 0)
    counts = Counter(str(sampler.render(i)) for i in drawn.tolist())
    top = counts.most_common(1)[0][1]
    # The advised value is drawn that often, and no value is drawn clearly more often
    # (equal shares, as of a uniform shard suffix, tie).
    assert hot.share == pytest.approx(counts[hot.value] / len(drawn), abs=0.004)
    assert counts[hot.value] / len(drawn) == pytest.approx(top / len(drawn), abs=0.004)


def test_a_per_item_index_key_is_spread_evenly_whatever_its_weights() -> None:
    attrs = {
        "pk": {"dist": "uniform", "count": 1000},
        "shelf": {"dist": "weighted", "weights": {"A": 99, "B": 1}, "per_item": True},
    }
    playbook = _one_table(
        {
            "billing_mode": "PAY_PER_REQUEST",
            "gsis": [{"name": "byShelf", "partition_key": {"name": "shelf"}}],
        },
        attrs,
        {"rate": 1000, "duration_s": 60},
    )
    assert hottest("shelf", playbook.load.attributes, ["pk"]).share == pytest.approx(0.5)


def test_provisioned_capacity_is_hit_when_the_burst_pool_runs_dry() -> None:
    table = {"billing_mode": "PROVISIONED", "read_capacity": 100, "write_capacity": 1000}
    uuid = {"pk": {"dist": "uuid"}}
    (advice,) = advise(_one_table(table, uuid, {"rate": 3000, "duration_s": 600}))
    first = advice.first_hit
    assert first is not None and first.limit == "provisioned write"
    # The pool holds burst_s seconds of the provisioned rate and drains at the excess.
    assert first.seconds_to_hit == pytest.approx(P.burst_s * 1000 / (3000 - 1000))
    assert "provision at least 3,000 WCU" in first.fix
    # A rush shorter than the pool lasts is absorbed: nothing is hit.
    (short,) = advise(_one_table(table, uuid, {"rate": 3000, "duration_s": 60}))
    assert short.first_hit is None


def test_on_demand_limits_ceiling_maximum_and_quota() -> None:
    uuid = {"pk": {"dist": "uuid"}}
    (cold,) = advise(
        _one_table({"billing_mode": "PAY_PER_REQUEST"}, uuid, {"rate": 5000, "duration_s": 60})
    )
    assert cold.first_hit is not None and cold.first_hit.limit == "new on-demand ceiling write"
    assert cold.first_hit.limit_units == pytest.approx(P.ondemand_initial_wcu * P.ondemand_headroom)
    assert "warm_throughput write to at least 5,000" in cold.first_hit.fix
    capped = {"billing_mode": "PAY_PER_REQUEST", "on_demand_max": {"write": 1000}}
    (cap,) = advise(_one_table(capped, uuid, {"rate": 2000, "duration_s": 60}))
    assert cap.first_hit is not None and cap.first_hit.limit == "on-demand maximum write"
    huge = {"billing_mode": "PAY_PER_REQUEST", "warm_throughput": {"write": 60000}}
    (quota,) = advise(_one_table(huge, uuid, {"rate": 50000, "duration_s": 60}))
    assert quota.first_hit is not None and quota.first_hit.limit == "table quota write"
    assert quota.first_hit.limit_units == P.table_quota_units


def test_a_hot_read_key_is_weighed_against_the_read_limit() -> None:
    one = {"pk": {"dist": "constant", "value": "celebrity"}}
    table = {"billing_mode": "PAY_PER_REQUEST"}
    (advice,) = advise(_one_table(table, one, {"operation": "get", "rate": 8000, "duration_s": 60}))
    # Eventually consistent: half a read unit per 1 KB item, 4,000 RCU/s, and any replica
    # serves it, so the partition takes 1.5 x 3,000: not hit.
    [check] = [c for c in advice.checks if c.limit.startswith("partition read")]
    assert check.offered_units == pytest.approx(4000)
    assert check.limit_units == P.partition_rcu * P.eventual_read_factor == 4500
    assert check.limit == "partition read (eventually consistent, any replica)"
    assert advice.first_hit is None
    (hotter,) = advise(
        _one_table(table, one, {"operation": "get", "rate": 10000, "duration_s": 60})
    )
    assert hotter.first_hit is not None and hotter.first_hit.limit_units == 4500
    assert "cache" in hotter.first_hit.fix


def test_a_strongly_consistent_hot_read_meets_the_leaders_limit() -> None:
    one = {"pk": {"dist": "constant", "value": "celebrity"}}
    table = {"billing_mode": "PAY_PER_REQUEST"}
    phase = {"operation": "get", "consistent_read": True, "rate": 4000, "duration_s": 60}
    (advice,) = advise(_one_table(table, one, phase))
    first = advice.first_hit
    assert first is not None and first.limit == "partition read"
    assert first.offered_units == pytest.approx(4000) and first.limit_units == P.partition_rcu


def test_a_tables_history_raises_its_on_demand_ceiling() -> None:
    uuid = {"pk": {"dist": "uuid"}}
    launch = {"rate": 7000, "duration_s": 60}
    (new,) = advise(_one_table({"billing_mode": "PAY_PER_REQUEST"}, uuid, launch))
    assert new.first_hit is not None and new.first_hit.limit == "new on-demand ceiling write"
    known = {
        "billing_mode": "PAY_PER_REQUEST",
        "history": {"previous_on_demand_peak": {"write": 4000}},
    }
    (served,) = advise(_one_table(known, uuid, launch))
    assert served.first_hit is None
    [ceiling] = [c for c in served.checks if c.limit == "history ceiling write"]
    # TableHistory: a previous peak of 4,000 is taken twice over at once.
    assert ceiling.limit_units == pytest.approx(8000 * P.ondemand_headroom)


def test_advise_says_how_far_auto_scaling_lags_a_launch_ramp() -> None:
    """Run by the model's own policy: the step from 150 to 1,400 writes/s outruns a
    target-tracking table at 70 % from 300 WCU; a minimum at 2,000 does not."""
    uuid = {"pk": {"dist": "uuid"}}
    phases = [
        {"name": "before", "rate": 150, "duration_s": 120},
        {"name": "launch", "rate": 1400, "duration_s": 1200},
    ]
    low = {
        "read_capacity": 5,
        "write_capacity": 300,
        "auto_scaling": {"write": {"target_pct": 70, "min": 300, "max": 4000}},
    }
    (advice,) = advise(_one_table(low, uuid, *phases))
    [note] = [n for n in advice.notes if n.startswith("auto scaling:")]
    assert "write auto scaling at 70 % from 300 WCU: scale-out reaches" in note
    assert "(the 1,400 WCU/s peak fits) ~" in note
    assert "set the minimum to 2,000 WCU before the launch" in note
    after = float(note.split(" s after the ramp")[0].rsplit("~", 1)[1].replace(",", ""))
    throttled = int(note.split(" throttled requests")[0].rsplit("~", 1)[1].replace(",", ""))
    assert 180 < after < 1200  # the alarm's minutes and the steps of 1/0.7
    assert throttled > 100_000
    assert "min to at least 2,000 WCU" in advice.verdict()
    high = {**low, "write_capacity": 2000}
    high["auto_scaling"] = {"write": {"target_pct": 70, "min": 2000, "max": 4000}}
    (fine,) = advise(_one_table(high, uuid, *phases))
    assert "holds the 1,400 WCU/s peak without a throttle" in " ".join(fine.notes)
    assert fine.first_hit is None
    # From 100 WCU, steps of 1/0.7 a few minutes apart do not reach 1,400 in 10 minutes.
    lower = {**low, "write_capacity": 100}
    lower["auto_scaling"] = {"write": {"target_pct": 70, "min": 100, "max": 4000}}
    brief = [{"name": "before", "rate": 50, "duration_s": 120}, {**phases[1], "duration_s": 600}]
    (short,) = advise(_one_table(lower, uuid, *brief))
    assert "scale-out reaches only" in " ".join(short.notes)


@pytest.mark.parametrize("name", BUILT_IN_CHECKS)
def test_advice_agrees_with_the_simulation(name: str) -> None:
    """A table the advice says will hit a limit throttles in simulation, one it clears
    barely does (the simulation adds what paper leaves out, e.g. shards that share a
    partition until isolated)."""
    playbook = load_playbook(PLAYBOOKS / name)
    result = SimulatedRunner().run(playbook)
    for table_advice in advise(playbook):
        runs = select(result, table_advice.table, None)
        throttled = sum(r.totals().throttled for r in runs) / sum(r.offered for r in runs)
        if table_advice.first_hit is not None:
            assert throttled > 0.05, table_advice.verdict()
        else:
            assert throttled < 0.01, table_advice.verdict()


def test_updates_that_move_index_keys_double_the_index_units_and_say_so() -> None:
    """The advice charges by the one rule: a rewrite that moves the item's index key costs
    the index a delete and a put (GSI.html), so 700 updates/s of items whose status is drawn
    per request ask ~1,380 WRU/s of an index capped at 1,000: a limit the advice must see
    (the simulation and the endpoint throttle about a quarter of them)."""
    from tests.loadgen.test_differential import HERE

    moving = advise(load_playbook(HERE / "gsi-key-moves.yaml"))[0]
    first = moving.first_hit
    assert first is not None
    assert (first.scope, first.limit) == ("index byStatus", "on-demand maximum write")
    # 2,000 seeded items, so every update rewrites one; 63 of 64 draws move it.
    assert first.offered_units == pytest.approx(700 * (1 + 63 / 64), rel=1e-6)
    assert any("2 writes" in n and "delete on the old key's partition" in n for n in moving.notes)
    fixed = advise(load_playbook(HERE / "gsi-key-fixed.yaml"))[0]
    assert fixed.first_hit is None
    index = next(c for c in fixed.checks if c.limit == "on-demand maximum write")
    assert index.offered_units == pytest.approx(700)  # one write per update: the item changed
    assert not any("2 writes" in n for n in fixed.notes)


def test_a_keys_only_index_costs_rewrites_nothing_when_its_keys_do_not_change() -> None:
    playbook = _one_table(
        {
            "seed_items": 100,
            "gsis": [
                {"name": "byShelf", "partition_key": {"name": "shelf"}, "projection": "KEYS_ONLY"}
            ],
            "billing_mode": "PAY_PER_REQUEST",
        },
        {
            "pk": {"dist": "uniform", "count": 100},
            "shelf": {"dist": "uniform", "count": 10, "per_item": True},
        },
        {"operation": "put", "rate": 1000, "duration_s": 60},
    )
    advice = advise(playbook)[0]
    index = next(c for c in advice.checks if c.scope == "index byShelf" and "ceiling" in c.limit)
    assert index.offered_units == pytest.approx(0.0)
    assert any("costs it nothing" in n for n in advice.notes)


def test_a_mix_of_plain_operations_is_weighed_as_its_operations_at_their_shares() -> None:
    # An imported day is a mix of the operations served together: each at its share of
    # the phase's rate meets the same arithmetic as a phase of that one operation.
    provisioned = {"billing_mode": "PROVISIONED", "read_capacity": 5000, "write_capacity": 1000}
    uuid = {"pk": {"dist": "uuid"}}
    mix = [{"op": "get", "weight": 60}, {"op": "put", "weight": 40}]
    (advice,) = advise(_one_table(provisioned, uuid, {"mix": mix, "rate": 5000, "duration_s": 600}))
    by_limit = {c.limit: c for c in advice.checks}
    assert by_limit["provisioned write"].offered_units == pytest.approx(2000)
    assert by_limit["provisioned read"].offered_units == pytest.approx(3000 * 0.5)
    first = advice.first_hit
    assert first is not None and first.limit == "provisioned write"
    # The same load as two phases of one operation each gets the same figures.
    (apart,) = advise(
        _one_table(
            provisioned,
            uuid,
            {"operation": "get", "rate": 3000, "duration_s": 600},
            {"operation": "put", "rate": 2000, "duration_s": 600},
        )
    )
    assert {c.limit: c.offered_units for c in apart.checks} == {
        c.limit: c.offered_units for c in advice.checks
    }
    # An entry that calls a scenario, or sets its own key, is not an operation of the
    # phase's keys: it is left to the scenario advice.
    keyed = [*mix, {"op": "get", "name": "one", "weight": 10, "key": {"pk": "one"}}]
    (partial,) = advise(
        _one_table(provisioned, uuid, {"mix": keyed, "rate": 5500, "duration_s": 600})
    )
    assert {c.limit: c for c in partial.checks}["provisioned write"].offered_units == (
        pytest.approx(2000)
    )
