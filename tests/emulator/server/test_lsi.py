"""Local secondary indexes (issue 25, item 3): created with the table (up to 5),
described, queried with their projections, charged on the base table, and the 10 GB item
collection limit reported as DynamoDB reports it."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.server import EmulatorServer, lsi
from tests.emulator.server.conftest import client

BY_RANK = {
    "IndexName": "byRank",
    "KeySchema": [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "rank", "KeyType": "RANGE"},
    ],
    "Projection": {"ProjectionType": "KEYS_ONLY"},
}
BY_NAME = {
    "IndexName": "byName",
    "KeySchema": [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "name", "KeyType": "RANGE"},
    ],
    "Projection": {"ProjectionType": "ALL"},
}
ATTRS = [
    {"AttributeName": "pk", "AttributeType": "S"},
    {"AttributeName": "sk", "AttributeType": "S"},
    {"AttributeName": "rank", "AttributeType": "N"},
    {"AttributeName": "name", "AttributeType": "S"},
]
SCHEMA = [
    {"AttributeName": "pk", "KeyType": "HASH"},
    {"AttributeName": "sk", "KeyType": "RANGE"},
]


def _create(ddb: Any, lsis: list[dict[str, Any]], **extra: Any) -> None:
    ddb.create_table(
        TableName="tbl",
        KeySchema=extra.pop("KeySchema", SCHEMA),
        AttributeDefinitions=extra.pop("AttributeDefinitions", ATTRS),
        BillingMode="PAY_PER_REQUEST",
        LocalSecondaryIndexes=lsis,
        **extra,
    )


def _item(sk: str, rank: int, name: str, **more: Any) -> dict[str, Any]:
    return {
        "pk": {"S": "p"},
        "sk": {"S": sk},
        "rank": {"N": str(rank)},
        "name": {"S": name},
        **more,
    }


@pytest.fixture
def table(ddb: Any) -> Any:
    _create(ddb, [BY_RANK, BY_NAME])
    for sk, rank, name in (("a", 3, "x"), ("b", 1, "z"), ("c", 2, "y")):
        ddb.put_item(TableName="tbl", Item=_item(sk, rank, name, extra={"S": "e"}))
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "p"}, "sk": {"S": "d"}})  # in no index
    return ddb


def test_lsis_are_described_with_their_projection_size_and_count(table: Any) -> None:
    described = table.describe_table(TableName="tbl")["Table"]["LocalSecondaryIndexes"]
    assert [d["IndexName"] for d in described] == ["byRank", "byName"]
    rank = described[0]
    assert rank["Projection"] == {"ProjectionType": "KEYS_ONLY"}
    assert rank["KeySchema"] == BY_RANK["KeySchema"]
    assert rank["ItemCount"] == 3
    assert rank["IndexSizeBytes"] > 0
    assert rank["IndexArn"].endswith(":table/tbl/index/byRank")


def test_query_an_lsi_in_its_order_with_its_projection(table: Any) -> None:
    reply = table.query(
        TableName="tbl",
        IndexName="byRank",
        KeyConditionExpression="pk = :p AND #r >= :one",
        ExpressionAttributeNames={"#r": "rank"},
        ExpressionAttributeValues={":p": {"S": "p"}, ":one": {"N": "1"}},
        ConsistentRead=True,  # [AWS] an LSI, unlike a GSI, may be read consistently
        ReturnConsumedCapacity="INDEXES",
    )
    assert [i["sk"]["S"] for i in reply["Items"]] == ["b", "c", "a"]
    # KEYS_ONLY: the table's keys and the index's, nothing else.
    assert set(reply["Items"][0]) == {"pk", "sk", "rank"}
    assert reply["ConsumedCapacity"] == {
        "TableName": "tbl",
        "CapacityUnits": 1.0,
        "ReadCapacityUnits": 1.0,
        "LocalSecondaryIndexes": {"byRank": {"CapacityUnits": 1.0, "ReadCapacityUnits": 1.0}},
    }
    # [AWS] an LSI fetches what it does not project from the table.
    whole = table.query(
        TableName="tbl",
        IndexName="byRank",
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "p"}},
        Select="ALL_ATTRIBUTES",
        ScanIndexForward=False,
    )
    assert [i["sk"]["S"] for i in whole["Items"]] == ["a", "c", "b"]
    assert whole["Items"][0]["extra"] == {"S": "e"}
    by_name = table.query(
        TableName="tbl",
        IndexName="byName",
        KeyConditionExpression="pk = :p AND begins_with(#n, :y)",
        ExpressionAttributeNames={"#n": "name"},
        ExpressionAttributeValues={":p": {"S": "p"}, ":y": {"S": "y"}},
    )
    assert [i["sk"]["S"] for i in by_name["Items"]] == ["c"]


def test_lsi_writes_are_charged_on_the_base_table(table: Any, emu: EmulatorServer) -> None:
    before = emu.metrics(table="tbl")["tables"]["tbl"]["indexes"]["$table"]["totals"]
    reply = table.put_item(
        TableName="tbl", Item=_item("e", 9, "w"), ReturnConsumedCapacity="INDEXES"
    )
    # One write to the table and one to each LSI the item is in, all the table's capacity.
    assert reply["ConsumedCapacity"] == {
        "TableName": "tbl",
        "CapacityUnits": 3.0,
        "WriteCapacityUnits": 3.0,
        "Table": {"CapacityUnits": 1.0, "WriteCapacityUnits": 1.0},
        "LocalSecondaryIndexes": {
            "byRank": {"CapacityUnits": 1.0, "WriteCapacityUnits": 1.0},
            "byName": {"CapacityUnits": 1.0, "WriteCapacityUnits": 1.0},
        },
    }
    after = emu.metrics(table="tbl")["tables"]["tbl"]["indexes"]["$table"]["totals"]
    assert after["consumed_wcu"] - before["consumed_wcu"] == pytest.approx(3.0)


def test_lsi_definitions_dynamodb_refuses(ddb: Any) -> None:
    other_hash = {
        **BY_RANK,
        "KeySchema": [
            {"AttributeName": "rank", "KeyType": "HASH"},
            {"AttributeName": "name", "KeyType": "RANGE"},
        ],
    }
    six = [
        {**BY_NAME, "IndexName": f"idx{n}", "Projection": {"ProjectionType": "KEYS_ONLY"}}
        for n in range(6)
    ]
    cases = [
        (
            {"lsis": [BY_RANK], "KeySchema": SCHEMA[:1], "AttributeDefinitions": ATTRS[::2]},
            "One or more parameter values were invalid: Table KeySchema does not have a range "
            "key, which is required when specifying a LocalSecondaryIndex",
        ),
        (
            {"lsis": [other_hash]},
            "One or more parameter values were invalid: Index KeySchema does not have the same "
            "leading hash key as table KeySchema for index: byRank. index hash key: rank, "
            "table hash key: pk",
        ),
        (
            {"lsis": six, "AttributeDefinitions": ATTRS[:2] + ATTRS[3:]},
            "One or more parameter values were invalid: Number of LocalSecondaryIndexes "
            "exceeds per-table limit of 5",
        ),
    ]
    for extra, message in cases:
        with pytest.raises(ClientError) as excinfo:
            _create(ddb, extra.pop("lsis"), **extra)
        assert excinfo.value.response["Error"] == {
            "Code": "ValidationException",
            "Message": message,
        }
    assert ddb.list_tables()["TableNames"] == []


def test_an_item_collection_past_its_limit_is_refused(
    ddb: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _create(ddb, [BY_RANK], AttributeDefinitions=ATTRS[:3])
    monkeypatch.setattr(lsi, "COLLECTION_LIMIT_BYTES", 5000)  # 10 GB is not written here
    blob = {"S": "x" * 1000}
    reply = ddb.put_item(
        TableName="tbl", Item=_item("a", 1, "n", blob=blob), ReturnItemCollectionMetrics="SIZE"
    )
    metrics = reply["ItemCollectionMetrics"]
    assert metrics["ItemCollectionKey"] == {"pk": {"S": "p"}}
    assert len(metrics["SizeEstimateRangeGB"]) == 2
    with pytest.raises(ClientError) as excinfo:
        for n in range(10):
            ddb.put_item(TableName="tbl", Item=_item(f"b{n}", n, "n", blob=blob))
    assert excinfo.value.response["Error"] == {
        "Code": "ItemCollectionSizeLimitExceededException",
        "Message": "Collection size exceeded.",
    }
    # Another partition-key value is another collection; a write that shrinks one is taken.
    ddb.put_item(TableName="tbl", Item={**_item("a", 1, "n", blob=blob), "pk": {"S": "q"}})
    ddb.delete_item(TableName="tbl", Key={"pk": {"S": "p"}, "sk": {"S": "a"}})
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "tbl", "Item": _item("t1", 1, "n", blob=blob)}},
                {"Put": {"TableName": "tbl", "Item": _item("t2", 1, "n", blob=blob)}},
                {"Put": {"TableName": "tbl", "Item": _item("t3", 1, "n", blob=blob)}},
                {"Put": {"TableName": "tbl", "Item": _item("t4", 1, "n", blob=blob)}},
                {"Put": {"TableName": "tbl", "Item": _item("t5", 1, "n", blob=blob)}},
            ]
        )
    codes = [r["Code"] for r in excinfo.value.response["CancellationReasons"]]
    assert "ItemCollectionSizeLimitExceeded" in codes


def test_lsis_in_a_fresh_client(emu: EmulatorServer) -> None:
    """The same through a second client: LSIs are the table's, not one connection's."""
    ddb = client(emu.endpoint_url)
    _create(ddb, [BY_NAME], AttributeDefinitions=ATTRS[:2] + ATTRS[3:])
    ddb.put_item(TableName="tbl", Item=_item("a", 1, "n"))
    again = client(emu.endpoint_url)
    reply = again.scan(TableName="tbl", IndexName="byName")
    assert reply["Count"] == 1


def test_item_collection_metrics_on_update_and_delete(ddb: Any) -> None:
    _create(ddb, [BY_RANK], AttributeDefinitions=ATTRS[:3])
    ddb.put_item(TableName="tbl", Item=_item("a", 1, "n"))
    key = {"pk": {"S": "p"}, "sk": {"S": "a"}}
    updated = ddb.update_item(
        TableName="tbl",
        Key=key,
        UpdateExpression="SET #r = :two",
        ExpressionAttributeNames={"#r": "rank"},
        ExpressionAttributeValues={":two": {"N": "2"}},
        ReturnItemCollectionMetrics="SIZE",
    )
    assert updated["ItemCollectionMetrics"]["ItemCollectionKey"] == {"pk": {"S": "p"}}
    deleted = ddb.delete_item(TableName="tbl", Key=key, ReturnItemCollectionMetrics="SIZE")
    assert deleted["ItemCollectionMetrics"]["SizeEstimateRangeGB"] == [0.0, 1.0]
    # Without LSIs there is no item collection to report.
    ddb.create_table(
        TableName="plain",
        KeySchema=SCHEMA,
        AttributeDefinitions=ATTRS[:2],
        BillingMode="PAY_PER_REQUEST",
    )
    reply = ddb.put_item(TableName="plain", Item=key, ReturnItemCollectionMetrics="SIZE")
    assert "ItemCollectionMetrics" not in reply
