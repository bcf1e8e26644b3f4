"""Local secondary indexes (issue 25, item 3): created with the table (up to 5),
described, queried with their projections, charged on the base table, and the 10 GB item
collection limit reported as DynamoDB reports it."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer, lsi
from emulator.server.service import Service
from tests.emulator.server.conftest import BY_RANK, client

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


def _service_with_lsis(store: str) -> Service:
    service = Service(EmulatorOptions(create_delay_s=0, store=store))
    _send(
        service,
        "CreateTable",
        {
            "TableName": "tbl",
            "KeySchema": SCHEMA,
            "AttributeDefinitions": ATTRS,
            "BillingMode": "PAY_PER_REQUEST",
            "LocalSecondaryIndexes": [BY_RANK, BY_NAME],
        },
    )
    return service


def _send(service: Service, operation: str, body: dict[str, Any]) -> dict[str, Any]:
    status, payload = service.handle(f"DynamoDB_20120810.{operation}", json.dumps(body).encode())
    assert status == 200, payload
    reply: dict[str, Any] = json.loads(payload)
    return reply


def _writes(seed: int) -> list[tuple[str, dict[str, Any]]]:
    """A seeded mix of every kind of write on three collections: new items, rewrites that
    enter or leave an LSI, updates, deletes, batches and transactions."""
    rng = random.Random(seed)
    out: list[tuple[str, dict[str, Any]]] = []
    for n in range(300):
        pk = {"S": rng.choice("pqr")}
        key = {"pk": pk, "sk": {"S": f"s{rng.randrange(40)}"}}
        item: dict[str, Any] = {**key, "blob": {"S": "x" * rng.randrange(200)}}
        if rng.random() < 0.7:
            item["rank"] = {"N": str(rng.randrange(9))}
        if rng.random() < 0.5:
            item["name"] = {"S": f"n{rng.randrange(9)}"}
        kind = rng.randrange(5)
        if kind == 0:
            out.append(("PutItem", {"TableName": "tbl", "Item": item}))
        elif kind == 1:
            out.append(("DeleteItem", {"TableName": "tbl", "Key": key}))
        elif kind == 2:
            update = "SET #b = :b REMOVE #n" if n % 2 else "SET #n = :v, #b = :b"
            values: dict[str, Any] = {":b": {"S": "y" * rng.randrange(300)}}
            if not n % 2:
                values[":v"] = {"S": "m"}
            out.append(
                (
                    "UpdateItem",
                    {
                        "TableName": "tbl",
                        "Key": key,
                        "UpdateExpression": update,
                        # `name` and `blob` are reserved words: named through placeholders.
                        "ExpressionAttributeNames": {"#n": "name", "#b": "blob"},
                        "ExpressionAttributeValues": values,
                    },
                )
            )
        elif kind == 3:
            other = {**item, "sk": {"S": f"b{n}"}}
            batch = [{"PutRequest": {"Item": other}}, {"DeleteRequest": {"Key": key}}]
            out.append(("BatchWriteItem", {"RequestItems": {"tbl": batch}}))
        else:
            actions = [
                {"Put": {"TableName": "tbl", "Item": {**item, "sk": {"S": f"t{n}"}}}},
                {"Delete": {"TableName": "tbl", "Key": key}},
            ]
            out.append(("TransactWriteItems", {"TransactItems": actions}))
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_item_collection_sizes_are_kept_as_items_are_written(seed: int) -> None:
    """The running size of each item collection (what the 10 GB check reads, in constant
    time) equals a walk of the collection after every kind of write, and the keys store,
    which keeps less of each item, keeps the same sizes as the full one."""
    full, keys = _service_with_lsis("full"), _service_with_lsis("keys")
    for operation, body in _writes(seed):
        for service in (full, keys):
            _send(service, operation, body)
    table = full.state.tables["tbl"]
    weigh = lsi.weigher(table.lsis)
    collections = 0
    for name in "pqr":
        pk = {"S": name}
        walked = sum(weigh(item, size) for item, size in table.store.collection(pk))
        kept = lsi.collection_bytes(table, {"pk": pk})
        assert kept == walked
        assert lsi.collection_bytes(keys.state.tables["tbl"], {"pk": pk}) == kept
        collections += walked > 0
    assert collections == 3
    for item, _size in list(table.store.all_items()):
        _send(full, "DeleteItem", {"TableName": "tbl", "Key": table.schema.key_of(item)})
    assert all(lsi.collection_bytes(table, {"pk": {"S": n}}) == 0 for n in "pqr")


def test_a_batch_past_an_item_collections_limit_is_refused_whole(
    ddb: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """BatchWriteItem answers ItemCollectionSizeLimitExceededException, as DynamoDB lists
    among its errors, and writes none of the batch."""
    _create(ddb, [BY_RANK], AttributeDefinitions=ATTRS[:3])
    monkeypatch.setattr(lsi, "COLLECTION_LIMIT_BYTES", 5000)  # 10 GB is not written here
    blob = {"S": "x" * 1000}
    batch = [{"PutRequest": {"Item": _item(f"b{n}", n, "n", blob=blob)}} for n in range(6)]
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_write_item(RequestItems={"tbl": batch})
    assert excinfo.value.response["Error"] == {
        "Code": "ItemCollectionSizeLimitExceededException",
        "Message": "Collection size exceeded.",
    }
    assert ddb.scan(TableName="tbl")["Count"] == 0
    ddb.batch_write_item(RequestItems={"tbl": batch[:3]})
    assert ddb.scan(TableName="tbl")["Count"] == 3
