"""Mechanisms of the capacity model on cases that are not in the reference study, so
that the model is shown to generalise rather than to be fitted to M1-M3."""

from __future__ import annotations

import random
from typing import Any

import pytest

from emulator.buckets import TokenBucket, admit
from emulator.keyspace import key_bytes, partition_hash
from emulator.model import CapacityModel, GsiWrite, ModelError
from emulator.params import DEFAULT_PARAMS
from emulator.throttle import ON_DEMAND_MESSAGE, TABLE_PROVISIONED_MESSAGE
from loadgen.simulation.simulate import simulate
from tests.conftest import make_playbook


def _table(name: str = "t", sort_key: bool = True, **extra: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": name, "partition_key": {"name": "pk"}, "item_size_bytes": 1000}
    if sort_key:
        spec["sort_key"] = {"name": "sk"}
    spec.update(extra)
    return spec


def _run(
    tables: list[dict[str, Any]],
    attributes: dict[str, Any],
    phases: list[dict[str, Any]],
    runs: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    result = simulate(make_playbook(tables, attributes, phases, runs)).to_json()
    return list(result["runs"])


def _tail_rate(run: dict[str, Any], seconds: int) -> float:
    series = run["series"][-(seconds // 10) :]
    return sum(p["succeeded_per_s"] for p in series) / len(series)


def test_single_partition_table_spends_its_burst_pool_then_holds_its_rate() -> None:
    # 100 WCU provisioned: one partition; 300 writes/s drains the 300 s burst pool
    # (30,000 units) at 200/s, i.e. in ~150 s, then the table serves 100/s.
    [run] = _run(
        [_table(billing_mode="PROVISIONED", read_capacity=100, write_capacity=100)],
        {"pk": {"dist": "uuid"}, "sk": {"dist": "uniform", "count": 10}},
        [{"operation": "put", "rate": 300, "duration_s": 240}],
    )
    assert run["succeeded"] == pytest.approx(100 * 240 + 30_000, rel=0.01)
    assert _tail_rate(run, 60) == pytest.approx(100, rel=0.02)
    assert set(run["throttles_by_reason"]) == {"TableWriteProvisionedThroughputExceeded"}
    assert 140 <= run["first_throttle_s"] <= 160


def test_uniform_keys_well_under_the_limits_never_throttle() -> None:
    runs = _run(
        [_table(billing_mode="PAY_PER_REQUEST")],
        {"pk": {"dist": "uuid"}, "sk": {"dist": "uniform", "count": 100}},
        [
            {"name": "w", "operation": "put", "rate": 2000, "duration_s": 120},
            {"name": "r", "operation": "get", "rate": 6000, "duration_s": 60},
        ],
    )
    assert runs[0]["throttled"] == 0
    assert runs[0]["succeeded"] == runs[0]["offered"]


def test_gsi_with_one_partition_key_value_throttles_base_writes_at_one_partition() -> None:
    table = _table(
        billing_mode="PAY_PER_REQUEST",
        sort_key=False,
        gsis=[
            {"name": "byStatus", "partition_key": {"name": "status"}, "sort_key": {"name": "pk"}}
        ],
    )
    [run] = _run(
        [table],
        {"pk": {"dist": "uuid"}, "status": {"dist": "constant", "value": "OPEN"}},
        [{"operation": "put", "rate": 3000, "duration_s": 300}],
    )
    # The base table spreads; the index's single value is one partition: once its
    # propagation log is full, it applies 1,000 writes/s and the base table gets no more.
    assert _tail_rate(run, 60) == pytest.approx(1000, rel=0.03)
    assert set(run["throttles_by_reason"]) == {"IndexWriteKeyRangeThroughputExceeded"}
    assert set(run["throttles_by_exception"]) == {"ThrottlingException"}


def _hot_key_runs(sort: dict[str, Any]) -> list[dict[str, Any]]:
    table = _table(billing_mode="PAY_PER_REQUEST")
    return _run(
        [table],
        {"pk": {"dist": "constant", "value": "device-1"}, "sk": sort},
        [{"operation": "put", "rate": 2000, "duration_s": 120}],
        runs=[{"table": "t", "repeats": 2, "pause_s": 600}],
    )


def test_hot_key_with_a_spread_sort_key_splits_for_heat_between_runs() -> None:
    first, second = _hot_key_runs({"dist": "uniform", "count": 100_000})
    assert first["throttle_rate"] == pytest.approx(0.5, abs=0.02)
    assert second["throttle_rate"] == pytest.approx(0.0, abs=0.01)


def test_monotonic_sort_key_cannot_split() -> None:
    first, second = _hot_key_runs({"dist": "monotonic"})
    assert first["throttle_rate"] == pytest.approx(0.5, abs=0.02)
    assert second["throttle_rate"] == pytest.approx(0.5, abs=0.02)


def test_single_hot_item_without_sort_key_cannot_split() -> None:
    table = _table(billing_mode="PAY_PER_REQUEST", sort_key=False)
    first, second = _run(
        [table],
        {"pk": {"dist": "constant", "value": "item-1"}},
        [{"operation": "put", "rate": 1500, "duration_s": 120}],
        runs=[{"table": "t", "repeats": 2, "pause_s": 600}],
    )
    assert first["throttle_rate"] == pytest.approx(1 / 3, abs=0.02)
    assert second["throttle_rate"] == pytest.approx(1 / 3, abs=0.02)


def test_no_split_lands_within_the_first_two_minutes_of_heat() -> None:
    table = _table(billing_mode="PAY_PER_REQUEST")
    [run] = _run(
        [table],
        {"pk": {"dist": "constant", "value": "k"}, "sk": {"dist": "uniform", "count": 1000}},
        [{"operation": "put", "rate": 2000, "duration_s": 470}],
    )
    assert _tail_rate(run, 60) == pytest.approx(1000, rel=0.02)


def test_on_demand_maximum_caps_the_table_with_its_own_message() -> None:
    model = CapacityModel()
    table = model.create_table(
        {
            "TableName": "capped",
            "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "OnDemandThroughput": {"MaxWriteRequestUnits": 500},
        },
        now=0.0,
    )
    accepted = 0
    last = None
    for step in range(100):  # 10 s at 2,000 writes/s, 200 per 100 ms
        now = step * 0.1
        model.advance(now)
        for i in range(200):
            h = partition_hash(key_bytes(f"k{step}-{i}"))
            decision = model.write(table, h, None, 1, now=now)
            accepted += decision.accepted
            last = decision.throttle or last
    assert accepted == pytest.approx(500 * 10 + 500, rel=0.05)
    assert last is not None
    assert last.reason == "TableWriteMaxOnDemandThroughputExceeded"
    assert last.exception == "ThrottlingException"
    assert "maximum OnDemandThroughput" in last.message


def test_warm_throughput_presplits_so_launch_day_does_not_throttle() -> None:
    warm = _table(
        name="warm", billing_mode="PAY_PER_REQUEST", warm_throughput={"write": 20000, "read": 30000}
    )
    cold = _table(name="cold", billing_mode="PAY_PER_REQUEST")
    runs = _run(
        [warm, cold],
        {"pk": {"dist": "uuid"}, "sk": {"dist": "uniform", "count": 9}},
        [{"operation": "put", "rate": 15000, "duration_s": 60}],
    )
    by_name = {r["table"]: r for r in runs}
    assert by_name["warm"]["throttled"] == 0
    assert by_name["cold"]["throttle_rate"] > 0.6


def test_warm_throughput_update_is_updating_then_active_and_cannot_be_lowered() -> None:
    model = CapacityModel()
    request = {
        "TableName": "t",
        "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    }
    table = model.create_table(request, now=0.0)
    assert table.base.keyspace.count == 4  # ceil(max(12,000/3,000, 4,000/1,000))
    from emulator.tableconfig import TableConfig

    raised = TableConfig.from_request({**request, "WarmThroughput": {"WriteUnitsPerSecond": 10000}})
    model.update_capacity("t", raised, now=10.0)
    assert table.base.warm_status == "UPDATING"
    model.advance(10.0 + DEFAULT_PARAMS.warm_update_s + 1)
    assert table.base.warm_status == "ACTIVE"
    assert table.base.warm_values()[1] == 10000
    assert table.base.ceiling_write == pytest.approx(10000 * DEFAULT_PARAMS.ondemand_headroom)
    assert table.base.keyspace.count == 16  # 10,000 writes need 10: 4 doubled twice
    lowered = TableConfig.from_request({**request, "WarmThroughput": {"WriteUnitsPerSecond": 5000}})
    with pytest.raises(ModelError, match="cannot be decreased"):
        model.update_capacity("t", lowered, now=100.0)


def test_per_table_quota_shows_as_account_limit() -> None:
    model = CapacityModel()
    table = model.create_table(
        {
            "TableName": "big",
            "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "WarmThroughput": {"WriteUnitsPerSecond": 40000},
        },
        now=0.0,
    )
    assert table.base.ceiling_write == 40000
    # Its 40 partitions carry exactly the quota, so at first they refuse first; once they
    # have split for consumption, the quota is what refuses.
    reasons: list[set[str]] = []
    for step in range(150):  # 15 s of 48,000 writes/s over 1,000 keys spread over the hash space
        now = step * 0.1
        model.advance(now)
        seen = set()
        for i in range(1000):
            key = i * ((1 << 64) // 1000) + 7
            decision = model.write(table, key, None, 1, count=4 + (i % 10 < 8), now=now)
            if decision.throttle is not None:
                seen.add(decision.throttle.reason)
        reasons.append(seen)
    assert "TableWriteKeyRangeThroughputExceeded" in set().union(*reasons[:60])
    assert table.base.keyspace.count > 40
    assert set().union(*reasons[-50:]) == {"TableWriteAccountLimitExceeded"}


def test_reads_and_writes_share_a_partition_as_a_linear_combination() -> None:
    model = CapacityModel()
    table = model.create_table(
        {
            "TableName": "t",
            "BillingMode": "PROVISIONED",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "ProvisionedThroughput": {"ReadCapacityUnits": 40000, "WriteCapacityUnits": 40000},
        },
        now=0.0,
    )
    h = partition_hash(b"hot")
    # Drain the 1 s grace, then per second: 600 WCU (0.6) + 1,200 strongly consistent
    # RCU (0.4) fit exactly.
    model.write(table, h, None, 1, count=1000, now=0.0)
    for second in range(1, 6):
        w = model.write(table, h, None, 1, count=600, now=float(second))
        r = model.read(table, h, None, 1.0, count=1200, now=float(second), consistent=True)
        assert (w.accepted, r.accepted) == (600, 1200)
    over = model.read(table, h, None, 1.0, count=1000, now=6.0, consistent=True)
    w = model.write(table, h, None, 1, count=700, now=6.0)
    assert over.accepted + 3 * w.accepted == pytest.approx(3000, abs=3)
    assert w.throttle is not None and w.throttle.reason == "TableWriteKeyRangeThroughputExceeded"
    assert w.throttle.exception == "ProvisionedThroughputExceededException"
    assert w.throttle.message == TABLE_PROVISIONED_MESSAGE


def test_classic_partition_count_for_provisioned_tables() -> None:
    model = CapacityModel()
    table = model.create_table(
        {
            "TableName": "t",
            "BillingMode": "PROVISIONED",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "ProvisionedThroughput": {"ReadCapacityUnits": 1000, "WriteCapacityUnits": 10000},
        },
        now=0.0,
    )
    assert table.base.keyspace.count == 11


def test_a_group_of_n_is_exactly_n_sequential_requests() -> None:
    rng = random.Random(7)
    for _ in range(200):
        rates = [rng.uniform(1, 50) for _ in range(3)]
        costs = [rng.choice([0.5, 1.0, 2.0]) for _ in range(3)]
        n = rng.randint(0, 120)

        def fresh(rates: list[float] = rates) -> list[TokenBucket]:
            return [TokenBucket(r, r, 0.0) for r in rates]

        grouped = fresh()
        accepted, binding = admit(grouped, costs, n, 0.0)
        single = fresh()
        one_by_one = sum(admit(single, costs, 1, 0.0)[0] for _ in range(n))
        assert accepted == one_by_one
        assert [b.tokens for b in grouped] == pytest.approx([b.tokens for b in single])
        if accepted < n:
            assert binding >= 0


def test_gsi_write_units_come_from_the_index_not_the_table() -> None:
    model = CapacityModel()
    table = model.create_table(
        {
            "TableName": "t",
            "BillingMode": "PROVISIONED",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "ProvisionedThroughput": {"ReadCapacityUnits": 100, "WriteCapacityUnits": 40000},
            "GlobalSecondaryIndexes": [
                {
                    "IndexName": "g",
                    "KeySchema": [{"AttributeName": "x", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                    "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
                }
            ],
        },
        now=0.0,
    )
    accepted = 0
    decision = None
    for i in range(100):  # 50 writes to each of 100 table keys, all in one index value
        gw = GsiWrite("g", partition_hash(b"x"), None, 1)
        decision = model.write(table, i * ((1 << 64) // 100), None, 1, [gw], count=50, now=0.0)
        accepted += decision.accepted
    # the index's 5 WCU x 300 s burst pool is what binds, and it says so
    assert accepted == 1500
    assert decision is not None and decision.throttle is not None
    assert decision.throttle.reason == "IndexWriteProvisionedThroughputExceeded"
    assert decision.throttle.resource.endswith(":table/t/index/g")
    assert "global secondary indexes" in decision.throttle.message


def test_throttle_body_matches_botocore_exception_shapes() -> None:
    import botocore.session

    shapes = botocore.session.get_session().get_service_model("dynamodb")
    model = CapacityModel()
    table = model.create_table(
        {
            "TableName": "t",
            "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        },
        now=0.0,
    )
    decision = model.write(table, 1, None, 1, count=10_000, now=0.0)
    assert decision.throttle is not None
    body = decision.throttle.body()
    name = str(body["__type"]).split("#")[1]
    members = set(shapes.shape_for(name).members)
    assert set(body) - {"__type"} <= members
    assert body["message"] == ON_DEMAND_MESSAGE
    reasons = body["throttlingReasons"]
    assert isinstance(reasons, list)
    assert set(reasons[0]) == set(shapes.shape_for("ThrottlingReason").members)


def test_unknown_table_and_bad_config_are_model_errors() -> None:
    model = CapacityModel()
    with pytest.raises(ModelError, match="not found"):
        model.table("missing")
    with pytest.raises(ModelError, match="ProvisionedThroughput"):
        model.create_table(
            {"TableName": "t", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}]}, 0.0
        )


def test_partition_hash_is_the_same_for_a_string_and_its_bytes_and_survives_a_full_cache() -> None:
    from emulator import keyspace

    first = partition_hash(b"warehouse-7")
    assert partition_hash("warehouse-7") == first == partition_hash(key_bytes("warehouse-7"))
    for i in range(keyspace.HASH_CACHE_SIZE + 10):  # fills the cache past its bound
        partition_hash(f"filler-{i}")
    assert len(keyspace._HASHES) <= keyspace.HASH_CACHE_SIZE
    assert partition_hash("warehouse-7") == first
    assert partition_hash("é") == partition_hash("é".encode())
