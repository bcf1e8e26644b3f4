"""A write that moves an item between GSI keys: the endpoint charges the index two
writes, the delete on the OLD key's partition and the put on the new one's [AWS GSI.html,
"Write capacity units"], and its partition view shows each where it landed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from emulator.emulator_options import EmulatorOptions
from emulator.keyspace import partition_hash
from emulator.server import Service
from emulator.wire import TARGET_PREFIX

TABLE = {
    "TableName": "orders",
    "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
    "AttributeDefinitions": [
        {"AttributeName": "id", "AttributeType": "S"},
        {"AttributeName": "status", "AttributeType": "S"},
    ],
    "BillingMode": "PROVISIONED",
    "ProvisionedThroughput": {"ReadCapacityUnits": 100, "WriteCapacityUnits": 1000},
    "GlobalSecondaryIndexes": [
        {
            "IndexName": "byStatus",
            "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
            # 8,000 WCU: eight index partitions, so two statuses can live apart.
            "ProvisionedThroughput": {"ReadCapacityUnits": 100, "WriteCapacityUnits": 8000},
        }
    ],
}


def _call(service: Service, operation: str, request: dict[str, Any]) -> dict[str, Any]:
    status, body = service.handle(TARGET_PREFIX + operation, json.dumps(request).encode())
    assert status == 200, body
    out: dict[str, Any] = json.loads(body)
    return out


def _index_use(service: Service) -> dict[str, float]:
    """Each byStatus partition's total use (fractions of a partition-second), by id."""
    view = service.partitions_view("orders")
    index = next(i for i in view["indexes"] if i["index"] == "byStatus")
    return {p["id"]: p["utilisation_total"] for p in index["partitions"]}


def _apart(service: Service) -> tuple[str, str, int, int]:
    """Two status values whose index entries live on different partitions."""
    keyspace = service.state.model.tables["orders"].gsis["byStatus"].keyspace
    first = "S0"
    home = keyspace.locate(partition_hash(first), 0.0).pid
    for i in range(1, 200):
        other = f"S{i}"
        there = keyspace.locate(partition_hash(other), 0.0).pid
        if there != home:
            return first, other, home, there
    raise AssertionError("no two statuses on different partitions")


def test_a_key_change_deletes_on_the_old_partition_and_puts_on_the_new() -> None:
    now = [0.0]
    service = Service(EmulatorOptions(create_delay_s=0), clock=lambda: now[0])
    _call(service, "CreateTable", TABLE)
    old, new, old_pid, new_pid = _apart(service)
    _call(
        service,
        "PutItem",
        {"TableName": "orders", "Item": {"id": {"S": "a"}, "status": {"S": old}}},
    )
    before = _index_use(service)
    out = _call(
        service,
        "UpdateItem",
        {
            "TableName": "orders",
            "Key": {"id": {"S": "a"}},
            "UpdateExpression": "SET #s = :s",
            "ExpressionAttributeNames": {"#s": "status"},
            "ExpressionAttributeValues": {":s": {"S": new}},
            "ReturnConsumedCapacity": "INDEXES",
        },
    )
    after = _index_use(service)
    # Two index writes of one unit each: a delete and a put.
    assert out["ConsumedCapacity"]["GlobalSecondaryIndexes"]["byStatus"]["CapacityUnits"] == 2
    one_unit = 1 / 1000  # a write unit is 1/1,000 of a partition-second
    assert after[old_pid] - before[old_pid] == pytest.approx(one_unit, abs=1e-9)
    assert after[new_pid] - before[new_pid] == pytest.approx(one_unit, abs=1e-9)
    untouched = set(after) - {old_pid, new_pid}
    assert all(after[p] == before[p] for p in untouched)


def test_a_rewrite_with_the_same_index_key_writes_once_on_its_partition() -> None:
    now = [0.0]
    service = Service(EmulatorOptions(create_delay_s=0), clock=lambda: now[0])
    _call(service, "CreateTable", TABLE)
    old, _, old_pid, _ = _apart(service)
    item = {"id": {"S": "a"}, "status": {"S": old}, "n": {"N": "1"}}
    _call(service, "PutItem", {"TableName": "orders", "Item": item})
    before = _index_use(service)
    out = _call(
        service,
        "PutItem",
        {
            "TableName": "orders",
            "Item": {**item, "n": {"N": "2"}},
            "ReturnConsumedCapacity": "INDEXES",
        },
    )
    after = _index_use(service)
    assert out["ConsumedCapacity"]["GlobalSecondaryIndexes"]["byStatus"]["CapacityUnits"] == 1
    assert after[old_pid] - before[old_pid] == pytest.approx(1 / 1000, abs=1e-9)
    assert sum(after.values()) - sum(before.values()) == pytest.approx(1 / 1000, abs=1e-9)
