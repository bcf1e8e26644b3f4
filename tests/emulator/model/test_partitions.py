"""Partitions as DynamoDB makes them (docs/model.md#how-partitions-are-made): how many a
table starts with, how an increase splits them, what a table's history leaves it with,
and which replica serves a read. Each test drives the model on its own clock."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from emulator.keyspace import partition_hash
from emulator.model import CapacityModel, ModelError
from emulator.params import DEFAULT_PARAMS
from emulator.partitioning import classic_count, either_count
from emulator.tableconfig import TableConfig, TableConfigError, TableHistory

TICK_S = 0.05
HEADROOM = DEFAULT_PARAMS.ondemand_headroom


def _request(name: str = "t", billing: str = "PAY_PER_REQUEST", **extra: Any) -> dict[str, Any]:
    req: dict[str, Any] = {
        "TableName": name,
        "BillingMode": billing,
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        **extra,
    }
    return req


def _provisioned(rcu: float, wcu: float, name: str = "t") -> dict[str, Any]:
    return _request(
        name,
        "PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu},
    )


def _update(model: CapacityModel, req: dict[str, Any], now: float) -> float:
    """An UpdateTable, and the clock run on until it has landed (an increase that needs
    partitions takes `update_split_s`: docs/model.md, capacity that moves); the time then."""
    model.update_capacity(req["TableName"], TableConfig.from_request(req), now)
    landed = now + model.params.update_split_s + 2.0
    model.advance(landed)
    return landed


def _drive_writes(
    model: CapacityModel,
    table: Any,
    rate: float,
    seconds: float,
    start: float,
    seed: int = 1,
    tick_s: float = TICK_S,
) -> tuple[int, int, set[str]]:
    """`rate` writes a second of 1 WCU to fresh uniformly random keys, for `seconds` from
    `start`, grouped per partition each tick as the simulation does: (accepted, refused,
    throttle reasons)."""
    rng = np.random.default_rng(seed)
    accepted = refused = 0
    reasons: set[str] = set()
    ticks = round(seconds / tick_s)
    per_tick = rate * tick_s
    for k in range(1, ticks + 1):
        now = start + k * tick_s
        model.advance(now)
        n = int(round(per_tick * k) - round(per_tick * (k - 1)))
        hashes = rng.integers(0, 2**63, size=n, dtype=np.uint64) * np.uint64(2)
        keyspace = table.base.keyspace
        pids = keyspace.locate_many(hashes, np.zeros(n))
        for pid, count in zip(*np.unique(pids, return_counts=True), strict=True):
            part = keyspace.all[int(pid)]
            first = int(hashes[pids == pid][0])
            decision = model.write(table, first, None, 1, count=int(count), now=now, part=part)
            accepted += decision.accepted
            refused += decision.refused
            if decision.throttle is not None:
                reasons.add(decision.throttle.reason)
    return accepted, refused, reasons


# --- the counting rules --------------------------------------------------------------------


def test_the_counting_rules_on_the_documented_examples() -> None:
    p = DEFAULT_PARAMS
    assert classic_count(1000, 500, p) == 1  # developer guide: 0.83 -> 1
    assert classic_count(1000, 1000, p) == 2  # 1.33 -> 2
    assert classic_count(5000, 2000, p) == 4  # 3.67 -> 4
    assert either_count(12000, 4000, p) == 4  # a new on-demand table
    assert either_count(12000, 10000, p) == 10
    assert classic_count(3000.0000001, 0, p) == 1  # float noise asks for no extra partition


# --- rule 1: a provisioned increase doubles, a decrease keeps -------------------------------


def test_a_provisioned_table_starts_with_the_classic_count_and_an_increase_doubles_it() -> None:
    model = CapacityModel()
    table = model.create_table(_provisioned(5000, 2000), now=0.0)
    assert table.base.keyspace.count == 4
    # 8,000 RCU need 5 partitions by the formula; four cannot carry it, so each splits in
    # two: 8 (the developer guide's own example).
    _update(model, _provisioned(8000, 2000), now=1.0)
    assert table.base.keyspace.count == 8
    assert classic_count(8000, 2000, DEFAULT_PARAMS) == 5
    # The halves are equal: every partition split at its middle.
    widths = {p.hi - p.lo for p in table.base.keyspace.parts}
    assert max(widths) - min(widths) <= 1


def test_the_paper_example_raise_within_then_beyond_then_lower() -> None:
    model = CapacityModel()
    table = model.create_table(_provisioned(1, 3200), now=0.0)
    assert table.base.keyspace.count == 4
    _update(model, _provisioned(1, 3600), now=1.0)  # four partitions carry 3,600
    assert table.base.keyspace.count == 4
    _update(model, _provisioned(1, 6000), now=2.0)  # they do not carry 6,000: eight
    assert table.base.keyspace.count == 8
    _update(model, _provisioned(1, 5000), now=3.0)  # never merged
    assert table.base.keyspace.count == 8
    _update(model, _provisioned(1, 6000), now=4.0)  # raised back: nothing more to split
    assert table.base.keyspace.count == 8
    assert table.base.keyspace.splits == 4


def test_a_lowered_table_keeps_its_partitions_and_its_warm_throughput() -> None:
    model = CapacityModel()
    table = model.create_table(_provisioned(1000, 10000), now=0.0)
    assert table.base.keyspace.count == 11
    _update(model, _provisioned(100, 100), now=1.0)
    assert table.base.keyspace.count == 11
    # [AWS] a provisioned table's warm throughput is its highest provisioned capacity.
    assert table.base.warm_values() == (1000.0, 10000.0)
    # ... which is what it takes at once when switched to on demand.
    _update(model, _request(), now=2.0)
    assert table.base.ceiling_write == pytest.approx(10000 * HEADROOM)
    assert table.base.keyspace.count == 11


def test_each_child_of_a_doubling_is_a_whole_partition() -> None:
    """After 4 -> 8 at 6,000 WCU, one hot key on one child takes 1,000 WCU/s, not the
    6,000 / 8 = 750 a child was allocated before global admission control."""
    model = CapacityModel()
    table = model.create_table(_provisioned(1, 3200), now=0.0)
    landed = _update(model, _provisioned(1, 6000), now=0.0)
    hot = partition_hash(b"one-hot-key")
    accepted = 0
    for second in range(1, 61):
        model.advance(landed + second)
        accepted += model.write(table, hot, None, 1, count=1500, now=landed + second).accepted
    assert accepted == pytest.approx(60 * 1000, rel=0.001)


def test_raising_warm_throughput_doubles_the_partitions_when_it_lands() -> None:
    model = CapacityModel()
    req = _request()
    table = model.create_table(req, now=0.0)
    assert table.base.keyspace.count == 4
    warmer = {**req, "WarmThroughput": {"WriteUnitsPerSecond": 10000}}
    model.update_capacity(req["TableName"], TableConfig.from_request(warmer), 1.0)
    assert table.base.keyspace.count == 4  # pre-splitting (UPDATING)
    model.advance(1.0 + DEFAULT_PARAMS.warm_update_s + 1)
    assert table.base.keyspace.count == 16  # 10 needed: 4 -> 8 -> 16


# --- rule 2: a new on-demand table has 4 partitions, split for consumption under load ------


def test_a_new_on_demand_table_and_its_gsi_start_with_four_partitions() -> None:
    model = CapacityModel()
    table = model.create_table(
        _request(
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "g",
                    "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ]
        ),
        now=0.0,
    )
    assert table.base.keyspace.count == 4
    assert table.gsis["g"].keyspace.count == 4
    assert table.base.ceiling_write == pytest.approx(4000 * HEADROOM)
    assert table.base.ceiling_read == pytest.approx(12000 * HEADROOM)


def test_four_partitions_take_4000_writes_then_split_so_the_ceiling_is_what_binds() -> None:
    model = CapacityModel()
    table = model.create_table(_request(), now=0.0)
    accepted, refused, _ = _drive_writes(model, table, 4000, 30, start=0.0)
    assert refused == 0 and table.base.keyspace.count == 4  # at their limit, no throttle
    # Above what four partitions carry, they throttle, then split within seconds...
    accepted, refused, reasons = _drive_writes(model, table, 6000, 5, start=40.0, seed=2)
    assert reasons == {"TableWriteKeyRangeThroughputExceeded"}
    assert table.base.keyspace.count == 8
    # ... after which the table's ceiling of 4,130 writes a second is what refuses.
    accepted, refused, _ = _drive_writes(model, table, 6000, 30, start=45.0, seed=3)
    assert accepted / 30 == pytest.approx(4000 * HEADROOM, rel=0.02)
    assert table.base.keyspace.count == 8


def test_what_an_on_demand_table_grew_to_is_its_warm_throughput_from_then_on() -> None:
    model = CapacityModel()
    table = model.create_table(_request(), now=0.0)
    # M3's first step: 8 minutes of overload raise the ceiling by 1,000 writes a second.
    seconds = DEFAULT_PARAMS.ondemand_growth_first_s + 10
    _drive_writes(model, table, 6000, seconds, start=0.0, tick_s=0.5)
    assert table.base.ceiling_write == pytest.approx(4000 * HEADROOM + 1000)
    assert table.base.warm_values()[1] == pytest.approx((4000 * HEADROOM + 1000) / HEADROOM)
    assert table.base.keyspace.count == 8  # split for consumption in the first seconds


# --- rule 3: a table's history --------------------------------------------------------------


def test_a_previous_on_demand_peak_admits_double_at_once_and_not_more() -> None:
    history = TableHistory(previous_on_demand_peak_write=5000)
    model = CapacityModel()
    table = model.create_table(_request(), now=0.0, history=history)
    assert table.base.warm_values() == (12000.0, 10000.0)
    assert table.base.ceiling_write == pytest.approx(10000 * HEADROOM)
    assert table.base.keyspace.count == 10
    accepted, refused, _ = _drive_writes(model, table, 10000, 20, start=0.0)
    assert refused == 0  # double the previous peak, from the first second
    model_new = CapacityModel()  # a new table, for contrast, serves 4,130
    fresh = model_new.create_table(_request(), now=0.0)
    accepted_new, _, _ = _drive_writes(model_new, fresh, 10000, 20, start=0.0)
    assert accepted_new / 20 == pytest.approx(4000 * HEADROOM, rel=0.06)
    # Past double: the ceiling refuses the rest, as a new table's does past 4,130.
    accepted, refused, reasons = _drive_writes(model, table, 15000, 30, start=30.0, seed=4)
    assert accepted == pytest.approx(10000 * HEADROOM * (30 + 1), rel=0.01)  # + 1 s of grace
    assert refused > 0.25 * 15000 * 30
    assert reasons == {"TableWriteKeyRangeThroughputExceeded"}


def test_history_comes_through_the_tag_of_the_create_table_request() -> None:
    history = TableHistory(previous_on_demand_peak_read=9000, previous_provisioned_write=6000)
    assert TableHistory.from_tag_value(history.tag_value()) == history
    model = CapacityModel()
    table = model.create_table(_request(Tags=[{"Key": "x", "Value": "y"}, history.tag()]), 0.0)
    assert table.config.history == history
    assert table.base.warm_values() == (18000.0, 6000.0)
    assert table.base.ceiling_read == pytest.approx(18000 * HEADROOM)
    assert table.base.ceiling_write == pytest.approx(6000 * HEADROOM)
    # The 6,000 WCU it was provisioned at needed 6 partitions; they are still there.
    assert table.base.keyspace.count == 6
    assert model.partition_map("t")["history"] == {
        "previous_on_demand_peak_read": 9000.0,
        "previous_provisioned_write": 6000.0,
    }


def test_previous_provisioned_and_warm_throughput_set_the_start_and_cannot_be_lowered() -> None:
    history = TableHistory(
        previous_provisioned_read=3000, previous_provisioned_write=9000, previous_warm_write=12000
    )
    model = CapacityModel()
    table = model.create_table(_provisioned(100, 100), now=0.0, history=history)
    # 10 for the capacity it was provisioned at, 12 for the warm throughput set since.
    assert classic_count(3000, 9000, DEFAULT_PARAMS) == 10
    assert table.base.keyspace.count == either_count(3000, 12000, DEFAULT_PARAMS) == 12
    assert table.base.warm_values() == (3000.0, 12000.0)
    lowered = {**_provisioned(100, 100), "WarmThroughput": {"WriteUnitsPerSecond": 10000}}
    with pytest.raises(ModelError, match="cannot be decreased"):
        _update(model, lowered, now=1.0)


def test_history_is_capped_by_the_table_quota_and_refused_when_malformed() -> None:
    model = CapacityModel()
    huge = TableHistory(previous_on_demand_peak_write=1e9)
    table = model.create_table(_request(), now=0.0, history=huge)
    assert table.base.ceiling_write == DEFAULT_PARAMS.table_quota_units
    assert table.base.keyspace.count == 40
    with pytest.raises(TableConfigError, match="previous_warm_read must be a non-negative"):
        TableHistory(previous_warm_read=-1)
    for bad, words in (
        ("previous_peak=5", "not NAME=UNITS"),
        ("previous_warm_write=lots", "must be a number"),
        ("previous_warm_write", "not NAME=UNITS"),
    ):
        with pytest.raises(ModelError, match=words):
            model.create_table(
                _request("bad", Tags=[{"Key": "hotbench:history", "Value": bad}]), 0.0
            )
    assert set(model.tables) == {"t"}


# --- rule 4: which replica serves a read ------------------------------------------------------


def _reads_on_one_hot_partition(consistent: bool, units: float) -> int:
    """Reads admitted in 10 s of 20,000 a second to one key after the grace is spent."""
    model = CapacityModel()
    table = model.create_table(_request(), now=0.0)
    hot = partition_hash(b"hot")
    model.read(table, hot, None, units, count=100_000, now=0.0, consistent=consistent)
    accepted = 0
    for second in range(1, 11):
        model.advance(float(second))
        decision = model.read(
            table, hot, None, units, count=20_000, now=float(second), consistent=consistent
        )
        accepted += decision.accepted
    return accepted


def test_eventually_consistent_reads_of_one_hot_partition_take_one_and_a_half_times() -> None:
    strong = _reads_on_one_hot_partition(True, 1.0)
    eventual = _reads_on_one_hot_partition(False, 0.5)
    assert strong == pytest.approx(10 * 3000, rel=0.001)  # the leader's 3,000 RCU/s
    # Any replica serves them: 9,000 eventually consistent reads a second, 4,500 RCU/s,
    # as AWS measured on one hot partition; 6,000 if they were the leader's alone.
    assert eventual == pytest.approx(10 * 9000, rel=0.001)


def test_a_gsi_read_is_always_eventually_consistent() -> None:
    model = CapacityModel()
    table = model.create_table(
        _request(
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "g",
                    "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ]
        ),
        now=0.0,
    )
    hot = partition_hash(b"hot")
    decision = model.read(table, hot, None, 0.5, "g", count=100_000, now=0.0, consistent=True)
    # grace of one second at 1.5 x 3,000 RCU: 9,000 reads of 0.5 RCU
    assert decision.accepted == pytest.approx(9000, abs=1)
