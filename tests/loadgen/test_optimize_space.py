"""The optimize section, the bounds the advice's arithmetic proves, and the search space:
what may vary, within which bounds, and how a configuration is written into a playbook."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from emulator.params import DEFAULT_PARAMS as P
from loadgen.analysis.advise import advise
from loadgen.analysis.optimize_bounds import (
    on_demand_refused,
    provisioned_refused,
    shard_refused,
    table_demand,
)
from loadgen.analysis.optimize_space import (
    ON_DEMAND,
    PROVISIONED,
    Capacity,
    OnDemandMax,
    Reserved,
    TableClass,
    WarmSetting,
    WriteShardCount,
    apply_all,
    normalized,
    table_space,
)
from loadgen.format.optimize_spec import MonthSpec, TableSearch
from loadgen.format.playbook import Playbook, PlaybookError, load_playbook, parse_playbook
from tests.conftest import PLAYBOOKS
from tests.loadgen.optimize_playbooks import HOT_KEY, LAUNCH, data


def _error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "pb.yaml"
    path.write_text(text)
    with pytest.raises(PlaybookError) as info:
        load_playbook(path)
    return str(info.value)


def _space(playbook: Playbook, name: str, month: MonthSpec | None = None) -> Any:
    search = (playbook.optimize.tables or {}).get(name) if playbook.optimize else None
    return table_space(
        playbook,
        name,
        search or TableSearch(),
        {a.table: a for a in advise(playbook)}[name],
        P,
        month=month,
    )


# --- the section ----------------------------------------------------------------------------


def test_the_section_is_optional_and_has_defaults() -> None:
    playbook = parse_playbook(yaml.safe_load(LAUNCH))
    assert playbook.optimize is not None
    assert playbook.optimize.month.peak_hours_per_day == 24
    assert playbook.optimize.month.seconds == pytest.approx(730 * 3600)
    assert playbook.optimize.max_throttle_rate == 0.01
    assert load_playbook(PLAYBOOKS / "hot-partition.yaml").optimize is None


@pytest.mark.parametrize(
    ("section", "line", "words"),
    [
        ("  tables:\n    nope: {}\n", 16, "no table 'nope' (tables: t)"),
        ("  tables:\n    t: {biling_modes: [PROVISIONED]}\n", 16, "did you mean 'billing_modes'?"),
        ("  tables:\n    t: {warm_throughput: {write: {min: 1000, max: 9000}}}\n", 16, "below"),
        (
            "  tables:\n    t: {capacity: {write: {min: 900, max: 100}}}\n",
            16,
            "min 900 is above max 100",
        ),
        ("  tables:\n    t:\n      write_shards: {key: id, max_shards: 4}\n", 17, "a uuid"),
        (
            "  tables:\n    t:\n      write_shards: {key: nope, max_shards: 4}\n",
            17,
            "no partition key",
        ),
        ("  month: {peak_hours_per_day: 25}\n", 15, "less than or equal to 24"),
        (
            "  tables:\n    t:\n      write_shards: {key: id, suffix: '#', max_shards: 4}\n",
            17,
            "{shard}",
        ),
        (  # a target Application Auto Scaling would refuse
            "  tables:\n    t: {auto_scaling: {write: {target_pct: {min: 10}}}}\n",
            16,
            "auto_scaling.write.target_pct.min",
        ),
    ],
)
def test_a_wrong_section_is_named_by_line_and_field(
    tmp_path: Path, section: str, line: int, words: str
) -> None:
    text = LAUNCH.split("optimize:")[0] + "optimize:\n" + section
    message = _error(tmp_path, text)
    assert f"line {line}: optimize." in message and words in message, message


def test_reserved_capacity_is_for_a_provisioned_standard_base(tmp_path: Path) -> None:
    table = LAUNCH.replace(
        "billing_mode: PAY_PER_REQUEST",
        "billing_mode: PROVISIONED\n    read_capacity: 100\n    write_capacity: 500",
    )
    ok = table.replace(
        "item_size_bytes: 1000", "item_size_bytes: 1000\n    reserved_capacity: {write: 500}"
    )
    assert parse_playbook(yaml.safe_load(ok)).tables[0].reserved_capacity is not None
    too_much = ok.replace("{write: 500}", "{write: 600}")
    assert "more than the table and its GSIs provision" in _error(tmp_path, too_much)
    blocks = ok.replace("{write: 500}", "{write: 250}")
    assert "multiple of 100" in _error(tmp_path, blocks)
    on_demand = LAUNCH.replace(
        "item_size_bytes: 1000", "item_size_bytes: 1000\n    reserved_capacity: {write: 500}"
    )
    assert "PROVISIONED tables of table_class STANDARD" in _error(tmp_path, on_demand)


def test_table_class_reaches_create_table() -> None:
    text = LAUNCH.replace(
        "item_size_bytes: 1000",
        "item_size_bytes: 1000\n    table_class: STANDARD_INFREQUENT_ACCESS",
    )
    table = parse_playbook(yaml.safe_load(text)).tables[0]
    assert table.create_table_request("x")["TableClass"] == "STANDARD_INFREQUENT_ACCESS"
    plain = parse_playbook(yaml.safe_load(LAUNCH)).tables[0]
    assert "TableClass" not in plain.create_table_request("x")


# --- the bounds -----------------------------------------------------------------------------


def test_warm_throughput_bound_lifts_the_ceiling_over_the_launch() -> None:
    playbook = parse_playbook(yaml.safe_load(LAUNCH))
    demand = table_demand(playbook, "t", advise(playbook)[0], P)
    refused = on_demand_refused(P, lambda ph: ph.write_units)
    # No throttle allowed: the ceiling (warm x 1.0325) must reach the 6,000 offered.
    assert demand.least(refused, 40_000) == pytest.approx(6000, abs=1e-3)
    space = _space(playbook, "t")
    warm = next(d for d in space.dims if isinstance(d, WarmSetting))
    assert warm.ranges[ON_DEMAND].low == math.ceil(6000 / P.ondemand_headroom / 100) * 100 == 5900
    assert warm.ranges[PROVISIONED].low == 4000  # a provisioned table needs no warming


def test_provisioned_bound_counts_the_burst_pool_and_the_month() -> None:
    playbook = parse_playbook(yaml.safe_load(LAUNCH))
    demand = table_demand(playbook, "t", advise(playbook)[0], P)
    # 5 s at 6,000 against C with a full pool of 300 x C: (6000 - C) x 5 <= 300 C.
    least = demand.least(provisioned_refused(P, lambda ph: ph.write_units), 40_000)
    assert least == pytest.approx(6000 * 5 / 305, rel=1e-6)
    brief = _space(playbook, "t", MonthSpec(peak_hours_per_day=0.01))
    capacity = next(d for d in brief.dims if isinstance(d, Capacity) and d.side == "write")
    assert capacity.bounds.low == 100  # 98.4, on the grid
    # A month of this load all day: the pool refills no more, the mean must be provisioned.
    all_day = _space(playbook, "t", MonthSpec())
    capacity = next(d for d in all_day.dims if isinstance(d, Capacity) and d.side == "write")
    assert capacity.bounds.low == 6000


def test_shard_bound_is_the_hot_key_over_one_partition() -> None:
    with_criteria = (
        HOT_KEY + "criteria:\n  - {name: c, metric: throttle_rate, table: bad, max: 0.01}\n"
    )
    playbook = parse_playbook(yaml.safe_load(with_criteria))
    demand = table_demand(playbook, "bad", advise(playbook)[0], P)
    refused = shard_refused(P, lambda ph: ph.hot_share * ph.write_units)
    # 80 % of 4,000 = 3,200 WCU/s on one key; 1 % of the requests may be lost: N >= 3.16.
    assert 3 < demand.least(refused, 9) <= 4
    space = _space(playbook, "bad")
    shards = next(d for d in space.dims if isinstance(d, WriteShardCount))
    assert shards.low == 4
    assert "3,200 WCU/s" in shards.proven and "fewer than 4 shards" in shards.proven


def test_without_a_criterion_nothing_is_ruled_out() -> None:
    playbook = parse_playbook(yaml.safe_load(LAUNCH.split("criteria:")[0]))
    demand = table_demand(playbook, "t", advise(playbook)[0], P)
    assert demand.allowances == []
    assert demand.least(on_demand_refused(P, lambda ph: ph.write_units), 40_000) == 0


def test_an_achieved_rate_allows_what_it_leaves() -> None:
    text = LAUNCH.replace(
        "{name: no throttles, metric: throttle_rate, table: t, max: 0}",
        "{name: served, metric: achieved_rate, table: t, min: 5700}",
    )
    playbook = parse_playbook(yaml.safe_load(text))
    demand = table_demand(playbook, "t", advise(playbook)[0], P)
    assert demand.allowances[0].allowed == pytest.approx(300 * 5)  # 6,000 - 5,700 a second


# --- the space ------------------------------------------------------------------------------


def test_the_space_has_each_dimension_and_the_priced_ones_price_only() -> None:
    playbook = parse_playbook(yaml.safe_load(LAUNCH))
    space = _space(playbook, "t", MonthSpec())
    kinds = {type(d) for d in space.dims}
    assert {Capacity, WarmSetting, OnDemandMax, TableClass, Reserved} <= kinds
    assert [d.simulated for d in space.dims if isinstance(d, TableClass | Reserved)] == [False] * 2
    provisioned = {"billing_mode": PROVISIONED, "write_capacity": 6000, "read_capacity": 1}
    options = space.priced(provisioned)
    assert {(o["table_class"], o["reserved_term"]) for o in options} == {
        ("STANDARD", 0),
        ("STANDARD", 1),
        ("STANDARD_INFREQUENT_ACCESS", 0),
    }
    on_demand = space.priced({"billing_mode": ON_DEMAND, "warm_write": 6000})
    assert {o["reserved_term"] for o in on_demand} == {0}


def test_a_configuration_is_written_into_the_playbook() -> None:
    base = data(LAUNCH)
    playbook = parse_playbook(base)
    space = _space(playbook, "t", MonthSpec())
    values = {
        "billing_mode": PROVISIONED,
        "write_capacity": 6000,
        "read_capacity": 1,
        "warm_write": 4000,
        "table_class": "STANDARD",
        "reserved_term": 1,
    }
    out = apply_all(base, [space], {"t": values})
    table = parse_playbook(out).tables[0]
    assert (table.billing_mode, table.write_capacity, table.read_capacity) == (PROVISIONED, 6000, 1)
    assert table.reserved_capacity is not None and table.reserved_capacity.write == 6000
    assert table.warm_throughput is None
    assert base["tables"][0]["billing_mode"] == ON_DEMAND  # a copy: the base is untouched
    back = apply_all(out, [space], {"t": {"billing_mode": ON_DEMAND, "warm_write": 7000}})
    table = parse_playbook(back).tables[0]
    assert table.billing_mode == ON_DEMAND and table.write_capacity is None
    assert table.reserved_capacity is None and table.warm_throughput.write == 7000  # type: ignore[union-attr]
    assert space.words(values) == "provisioned, 6,000 WCU, 1 RCU, reserved 6,000 WCU for 1 year"


def test_shards_are_written_as_the_composite_distribution() -> None:
    base = data(HOT_KEY)
    playbook = parse_playbook(base)
    space = _space(playbook, "bad")
    out = apply_all(base, [space], {"bad": {"billing_mode": PROVISIONED, "shards": 5}})
    sharded = parse_playbook(out)
    assert sharded.tables[0].partition_key.name == "warehouseIdShard"
    dist = sharded.load.attributes["warehouseIdShard"]
    assert dist.dist == "composite" and dist.format == "{key}#{shard}"
    assert dist.parts["shard"].count == 5  # type: ignore[union-attr]
    assert dist.parts["key"].weights["WH-TOKYO"] == 80  # type: ignore[union-attr]
    # the section's mark named the key it replaced: gone from the written playbook
    assert sharded.optimize is not None and sharded.optimize.tables is not None
    assert sharded.optimize.tables["bad"].write_shards is None
    assert space.words(
        {"billing_mode": PROVISIONED, "shards": 5, "write_capacity": 5000, "read_capacity": 1}
    ).startswith("provisioned, warehouseId in 5 shards")


def test_warm_throughput_at_or_below_a_provisioned_capacity_is_unset() -> None:
    values = {"billing_mode": PROVISIONED, "write_capacity": 6000, "warm_write": 5800}
    assert normalized(values)["warm_write"] == 4000
    assert normalized({**values, "warm_write": 8000})["warm_write"] == 8000
    on_demand = {"billing_mode": ON_DEMAND, "warm_write": 5800}
    assert normalized(on_demand) == on_demand


def test_the_naive_fix_provisions_the_peak_at_70_percent() -> None:
    playbook = parse_playbook(yaml.safe_load(LAUNCH))
    space = _space(playbook, "t")
    assert space.naive_values["billing_mode"] == PROVISIONED
    assert space.naive_values["write_capacity"] == 8600  # 6,000 / 0.7 = 8,571, on the grid
    assert space.naive_values["read_capacity"] == 1
    assert space.naive_values["reserved_term"] == 0


def test_seeds_start_at_the_proven_bounds_of_each_mode() -> None:
    playbook = parse_playbook(yaml.safe_load(LAUNCH))
    space = _space(playbook, "t", MonthSpec())
    seeds = space.seeds()
    assert {
        "billing_mode": ON_DEMAND,
        "warm_write": 5900,
        "warm_read": 12000,
        "on_demand_max_write": None,
        "on_demand_max_read": None,
    } in seeds
    provisioned = [s for s in seeds if s["billing_mode"] == PROVISIONED]
    assert [s["write_capacity"] for s in provisioned] == [6000, 7200]
    params = space.params("t.", provisioned[0])
    assert params == {
        "t.billing_mode": PROVISIONED,
        "t.write_capacity": 6000,
        "t.warm_write.pv": 4000,
    }


# --- the load the bounds see ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phase", "exact"),
    [
        ({"rate": 500, "duration_s": 60}, True),
        ({"ramp": {"start": 100, "end": 900}, "duration_s": 60}, False),
        ({"ramp": {"start": 900, "end": 100}, "duration_s": 60}, False),
        ({"ramp": {"start": 100, "end": 900, "steps": 4}, "duration_s": 60}, True),
        ({"rate": {"per_minute": [600, 0, 1200, 300]}}, False),
    ],
    ids=["constant", "ramp-up", "ramp-down", "steps", "per-minute-curve"],
)
def test_the_bounds_see_each_rate_forms_load_from_below(phase: dict[str, Any], exact: bool) -> None:
    """A phase's profile (what the bounds' arithmetic counts refusals over) is read from its
    kind's rate curve, whichever open arrival form wrote it: it lasts the phase, never
    offers more than the schedule sends (a lower bound: nothing provable is overstated),
    and misses at most a twentieth of a linear piece's requests; a population of users
    has no rate."""
    from loadgen.analysis.optimize_bounds import profile_of
    from loadgen.load.arrivals import Schedule

    text = {
        "name": "forms",
        "tables": [
            {
                "name": "t",
                "partition_key": {"name": "pk", "type": "S"},
                "billing_mode": "PAY_PER_REQUEST",
            }
        ],
        "load": {
            "attributes": {"pk": {"dist": "uniform", "count": 100, "format": "K{:03d}"}},
            "phases": [
                {"name": "p", "operation": "put", **phase},
                {"name": "users", "operation": "put", "users": 5, "think_s": 1, "duration_s": 30},
            ],
        },
    }
    first, users = parse_playbook(text, "<forms>").load.phases
    profile = profile_of(first)
    assert sum(d for _, d in profile) == pytest.approx(first.duration_s)
    offered = sum(r * d for r, d in profile)
    sent = Schedule.for_phase(first).total_area
    assert offered <= sent + 1e-6
    assert offered == pytest.approx(sent) if exact else offered >= 0.95 * sent
    assert max(r for r, _ in profile) <= first.kind.arrivals.peak_rate()
    assert profile_of(users) == [(0.0, 30.0)]


def test_auto_scaling_is_a_dimension_whose_minimum_the_lag_bounds() -> None:
    """optimize-auto-scaling.yaml: for the scaler's first two datapoints (120 s: the ramp
    and a minute at 400 writes/s) the table stands at its minimum M with a burst pool of
    300 M: the minute at 400 alone refuses 60 (400 - M) - 300 M > 0 below M = 66.7, so
    no minimum under 100 (the grid of 50) is simulated; the seeds start there and at
    sqrt(100 x 600) on the grid."""
    from loadgen.analysis.optimize_space import AutoScalingPolicy, Reserved

    playbook = load_playbook(PLAYBOOKS / "optimize-auto-scaling.yaml")
    space = _space(playbook, "t", playbook.optimize.month if playbook.optimize else None)
    (dim,) = [d for d in space.dims if isinstance(d, AutoScalingPolicy)]
    assert (dim.low.low, dim.low.high, dim.targets) == (100, 600, (20, 90))
    assert dim.high.low == 450  # 400 WCU/s at 90 %, on the grid
    assert any("minimum at least 100" in n for n in space.notes)
    scaled = [s for s in space.seeds() if s.get("scaling_write")]
    assert [s["scaling_write_min"] for s in scaled] == [100, 250]
    assert all(s["write_capacity"] == s["scaling_write_min"] for s in scaled)
    data = yaml.safe_load((PLAYBOOKS / "optimize-auto-scaling.yaml").read_text())
    out = apply_all(data, [space], {"t": {**scaled[0], "table_class": "STANDARD"}})
    entry = out["tables"][0]
    assert entry["auto_scaling"] == {"write": {"target_pct": 90, "min": 100, "max": 1200}}
    assert entry["write_capacity"] == 100
    assert parse_playbook(out).tables[0].auto_scaling is not None
    reserved = next(d for d in space.dims if isinstance(d, Reserved))
    assert reserved.options({**scaled[0], "table_class": "STANDARD"}) == [{"reserved_term": 0}]
