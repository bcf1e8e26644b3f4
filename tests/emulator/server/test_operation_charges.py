"""The endpoint charges the new operations by the one rule (emulator.units), as DynamoDB
documents them: a Query's pages at 1 MB, each page's items summed then rounded up to
4 KB, on a GSI the projected entries; batch items rounded one by one; a failed
conditional write still charged (reference.md#what-each-operation-costs). The
expectations come from `emulator.units`' description-based functions, the ones the
simulation uses, so both paths are held to the same figures."""

from __future__ import annotations

from typing import Any

import pytest

from emulator.itemsize import item_size
from emulator.params import DEFAULT_PARAMS as P
from emulator.server import EmulatorServer
from emulator.units import (
    CollectionRead,
    TableWrite,
    batch_write_units,
    collection_read_cost,
    page_read_units,
)
from tests.emulator.server.conftest import key_table

PAD = 10_000
"""Filler per item: about 10 KB, so 300 items take three 1 MB pages."""


def _item(i: int) -> dict[str, Any]:
    return {
        "pk": {"S": "coll"},
        "sk": {"S": f"{i:05d}"},
        "g": {"S": "FILE"},
        "pad": {"S": "x" * PAD},
    }


def _fill(emu: EmulatorServer, ddb: Any, count: int) -> int:
    """Write `count` items into one collection with BatchWriteItem; their summed size.
    The emulator's clock skips a second after each batch: 250 WCU on one partition key
    would otherwise outrun its partition's 1,000 WCU/s."""
    items = [_item(i) for i in range(count)]
    for start in range(0, count, 25):
        emu.skip(1.0)
        chunk = items[start : start + 25]
        reply = ddb.batch_write_item(
            RequestItems={"tbl": [{"PutRequest": {"Item": it}} for it in chunk]},
            ReturnConsumedCapacity="INDEXES",
        )
        assert reply["UnprocessedItems"] == {}
        writes = [TableWrite(0, item_size(it)) for it in chunk]
        # each ~10 KB item rounded up on its own: 10 WCU each on the table (plus its GSI put)
        consumed = reply["ConsumedCapacity"][0]["Table"]["CapacityUnits"]
        assert consumed == batch_write_units(writes, P) == 25 * 10
    return sum(item_size(it) for it in items)


def _query_all(ddb: Any, **extra: Any) -> tuple[int, float]:
    """Follow LastEvaluatedKey to the end: (pages, units consumed)."""
    pages, units = 0, 0.0
    args: dict[str, Any] = {"TableName": "tbl", "ReturnConsumedCapacity": "TOTAL", **extra}
    while True:
        reply = ddb.query(**args)
        pages += 1
        units += reply["ConsumedCapacity"]["CapacityUnits"]
        if "LastEvaluatedKey" not in reply:
            return pages, units
        args["ExclusiveStartKey"] = reply["LastEvaluatedKey"]


@pytest.fixture
def collection_table(ddb: Any) -> Any:
    key_table(
        ddb,
        GlobalSecondaryIndexes=[
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
    )
    return ddb


def test_a_collection_query_pages_at_1_mb_and_sums_each_page(
    emu: EmulatorServer, collection_table: Any
) -> None:
    ddb = collection_table
    total = _fill(emu, ddb, 300)
    for consistent in (True, False):
        emu.skip(1.0)
        pages, units = _query_all(
            ddb,
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "coll"}},
            ConsistentRead=consistent,
        )
        expected = collection_read_cost(CollectionRead(300, total, consistent), P)
        assert (pages, units) == (expected.pages, expected.units)
        assert pages == 3  # 10 KB items: 1 MB is 103 of them


def test_a_gsi_query_is_charged_on_the_projected_entries(
    emu: EmulatorServer, collection_table: Any
) -> None:
    ddb = collection_table
    _fill(emu, ddb, 300)
    keys_only = {"g": {"S": "FILE"}, "pk": {"S": "coll"}, "sk": {"S": "00000"}}
    entry = item_size(keys_only)  # every entry is this size (sk has 5 digits each)
    pages, units = _query_all(
        ddb,
        IndexName="byG",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "FILE"}},
    )
    # 300 small entries: one page, their summed size rounded up once, not 3 MB of items
    assert (pages, units) == (1, page_read_units(300 * entry, False, P))
    assert units == collection_read_cost(CollectionRead(300, 300 * entry, False), P).units


def test_a_failed_conditional_write_is_still_charged(emu: EmulatorServer, ddb: Any) -> None:
    key_table(ddb, sk_type=None)
    big = {"pk": {"S": "lock"}, "pad": {"S": "x" * 2500}}
    ddb.put_item(TableName="tbl", Item=big)
    before = _consumed_wcu(emu)
    small = {"pk": {"S": "lock"}, "owner": {"S": "me"}}
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException):
        ddb.put_item(TableName="tbl", Item=small, ConditionExpression="attribute_not_exists(pk)")
    # charged as the write it attempted: the larger of the stored 2.5 KB item and the new
    expected = TableWrite(item_size(big), item_size(small))
    assert _consumed_wcu(emu) - before == 3 == batch_write_units([expected], P)
    # a conditional delete of an absent item that fails: the minimum, 1 WCU
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException):
        ddb.delete_item(
            TableName="tbl", Key={"pk": {"S": "none"}}, ConditionExpression="attribute_exists(pk)"
        )
    assert _consumed_wcu(emu) - before == 3 + 1


def _consumed_wcu(emu: EmulatorServer) -> float:
    totals = emu.metrics(table="tbl")
    found: float = _find(totals, "consumed_wcu")
    return found


def _find(view: Any, name: str) -> Any:
    """The table's own totals in the metrics view (its `$table` index)."""
    return view["tables"]["tbl"]["indexes"]["$table"]["totals"][name]
