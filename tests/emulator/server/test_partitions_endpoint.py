"""The partition rules through the endpoint (docs/model.md#how-partitions-are-made): the
counts the partition view shows after CreateTable and UpdateTable, a table's history
given by the `hotbench:history` tag, and strongly vs eventually consistent GetItem on one
hot item. In process, on a clock that moves only when the test skips it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from emulator.emulator_options import EmulatorOptions
from emulator.params import DEFAULT_PARAMS
from emulator.server import Service
from emulator.tableconfig import TableHistory
from emulator.wire import TARGET_PREFIX
from tests.emulator.server.conftest import key_table_request, refusal

HEADROOM = DEFAULT_PARAMS.ondemand_headroom


def _service(scale: float = 1.0) -> Service:
    return Service(EmulatorOptions(create_delay_s=0, scale=scale), clock=lambda: 0.0)


def _call(service: Service, operation: str, request: dict[str, Any]) -> dict[str, Any]:
    status, body = service.handle(TARGET_PREFIX + operation, json.dumps(request).encode())
    assert status == 200, body
    out: dict[str, Any] = json.loads(body)
    return out


def _base(service: Service, table: str = "tbl") -> dict[str, Any]:
    view: dict[str, Any] = service.partitions_view(table)["indexes"][0]
    return view


def _update(service: Service, request: dict[str, Any]) -> None:
    """An UpdateTable, then time enough for it to have applied (an UPDATING table takes
    no other)."""
    _call(service, "UpdateTable", {"TableName": "tbl", **request})
    service.skip(3600)


def _throughput(rcu: int, wcu: int) -> dict[str, Any]:
    return {"ProvisionedThroughput": {"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu}}


def test_a_new_on_demand_table_shows_four_partitions() -> None:
    service = _service()
    _call(service, "CreateTable", key_table_request())
    base = _base(service)
    assert base["partition_count"] == 4
    assert base["on_demand_ceiling"]["write"] == pytest.approx(4000 * HEADROOM)


def test_update_table_doubles_the_partitions_and_a_decrease_keeps_them() -> None:
    service = _service()
    _call(
        service, "CreateTable", key_table_request(billing="PROVISIONED", **_throughput(5000, 2000))
    )
    assert _base(service)["partition_count"] == 4
    _update(service, _throughput(8000, 2000))
    assert _base(service)["partition_count"] == 8
    _update(service, _throughput(100, 100))
    assert _base(service)["partition_count"] == 8
    warm = _call(service, "DescribeTable", {"TableName": "tbl"})["Table"]["WarmThroughput"]
    assert (warm["ReadUnitsPerSecond"], warm["WriteUnitsPerSecond"]) == (8000, 2000)
    # 20,000 WCU need 21 by the formula: 8 -> 16 -> 32.
    _update(service, _throughput(1000, 20000))
    assert _base(service)["partition_count"] == 32
    # Switched to on demand, it takes at once what it was provisioned at (AWS's way to
    # pre-warm an on-demand table), and keeps its partitions.
    _update(service, {"BillingMode": "PAY_PER_REQUEST"})
    ceiling = _base(service)["on_demand_ceiling"]
    assert ceiling["read"] == pytest.approx(12000 * HEADROOM)
    assert ceiling["write"] == pytest.approx(20000 * HEADROOM)
    assert _base(service)["partition_count"] == 32


def test_the_history_tag_sets_partitions_ceiling_and_warm_throughput() -> None:
    service = _service()
    history = TableHistory(previous_on_demand_peak_write=5000)
    _call(service, "CreateTable", key_table_request(Tags=[history.tag()]))
    base = _base(service)
    assert base["partition_count"] == 10
    assert base["on_demand_ceiling"]["write"] == pytest.approx(10000 * HEADROOM)
    assert service.partitions_view("tbl")["history"] == {"previous_on_demand_peak_write": 5000.0}
    warm = _call(service, "DescribeTable", {"TableName": "tbl"})["Table"]["WarmThroughput"]
    assert (warm["ReadUnitsPerSecond"], warm["WriteUnitsPerSecond"]) == (12000, 10000)
    # Lower warm throughput than the history left it with is refused, as any decrease.
    kind, message = refusal(
        service,
        "UpdateTable",
        {"TableName": "tbl", "WarmThroughput": {"WriteUnitsPerSecond": 8000}},
    )
    assert kind == "ValidationException" and "decreasing WarmThroughput" in message


def test_a_malformed_history_tag_is_refused_naming_the_field() -> None:
    service = _service()
    for value, words in (
        (
            "previous_on_demand_peak_write=-5",
            "previous_on_demand_peak_write must be a non-negative",
        ),
        ("previous_peak=5", "is not NAME=UNITS"),
    ):
        kind, message = refusal(
            service,
            "CreateTable",
            key_table_request(Tags=[{"Key": "hotbench:history", "Value": value}]),
        )
        assert kind == "ValidationException"
        assert "hotbench:history" in message or "history" in message
        assert words in message
    assert _call(service, "ListTables", {})["TableNames"] == []


def _gets_until_throttled(service: Service, consistent: bool) -> int:
    for i in range(1000):
        status, body = service.handle(
            TARGET_PREFIX + "GetItem",
            json.dumps(
                {
                    "TableName": "tbl",
                    "Key": {"pk": {"S": "hot"}, "sk": {"S": "1"}},
                    "ConsistentRead": consistent,
                }
            ).encode(),
        )
        if status != 200:
            assert b"KeyRangeThroughputExceeded" in body, body
            return i
    raise AssertionError("no throttle in 1,000 reads")


@pytest.mark.parametrize(("consistent", "admitted"), [(True, 30), (False, 90)])
def test_one_hot_item_takes_half_again_as_many_eventually_consistent_reads(
    consistent: bool, admitted: int
) -> None:
    """At scale 0.01 a partition serves 30 RCU/s, one second deep. Strongly consistent
    GetItems of a small item (1 RCU each) get 30; eventually consistent ones (0.5 RCU)
    get 90, not 60: any replica serves them (1.5 times the partition's read rate)."""
    service = _service(scale=0.01)
    _call(service, "CreateTable", key_table_request())
    _call(service, "PutItem", {"TableName": "tbl", "Item": {"pk": {"S": "hot"}, "sk": {"S": "1"}}})
    service.skip(5)  # the put's share of the partition refills
    assert _gets_until_throttled(service, consistent) == admitted
    service.skip(1)
    assert _gets_until_throttled(service, consistent) == admitted
