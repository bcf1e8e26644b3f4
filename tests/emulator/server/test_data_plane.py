"""Data plane through boto3: items round-trip exactly, expressions behave as DynamoDB's."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from boto3.dynamodb.types import Binary
from botocore.exceptions import ClientError

from emulator.server import EmulatorServer
from tests.emulator.server.conftest import key_table

EVERY_TYPE = {
    "pk": {"S": "k"},
    "sk": {"S": "s"},
    "s": {"S": "héllo"},
    "n": {"N": "-12.5"},
    "b": {"B": b"\x00\xff"},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2.5"]},
    "bs": {"BS": [b"x", b"y"]},
    "m": {"M": {"inner": {"L": [{"NULL": True}, {"BOOL": False}, {"N": "3"}]}}},
    "l": {"L": [{"S": ""}, {"M": {}}]},
    "t": {"BOOL": True},
    "z": {"NULL": True},
}


def _key(pk: str = "k", sk: str = "s") -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}


def test_every_attribute_type_reads_back_as_written(ddb: Any) -> None:
    key_table(ddb)
    ddb.put_item(TableName="tbl", Item=EVERY_TYPE)
    item = ddb.get_item(TableName="tbl", Key=_key(), ConsistentRead=True)["Item"]
    assert item == EVERY_TYPE
    projected = ddb.get_item(
        TableName="tbl",
        Key=_key(),
        # `inner` is a reserved word: named through a placeholder, as on DynamoDB.
        ProjectionExpression="#m.#i[2], n",
        ExpressionAttributeNames={"#m": "m", "#i": "inner"},
    )["Item"]
    assert projected == {"m": {"M": {"inner": {"L": [{"N": "3"}]}}}, "n": {"N": "-12.5"}}


def test_items_survive_through_the_resource_api(emu: EmulatorServer) -> None:
    import boto3

    resource = boto3.resource(
        "dynamodb",
        endpoint_url=emu.endpoint_url,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
    )
    table = resource.create_table(
        TableName="res",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    item = {
        "pk": "a",
        "n": Decimal("1.5"),
        "b": Binary(b"\x01"),
        "ss": {"x", "y"},
        "m": {"l": [1, "two", None, True]},
    }
    table.put_item(Item=item)
    assert table.get_item(Key={"pk": "a"})["Item"] == item


def test_update_expression_set_remove_add_delete(ddb: Any) -> None:
    key_table(ddb)
    ddb.put_item(
        TableName="tbl",
        Item={
            **_key(),
            "count": {"N": "5"},
            "tags": {"SS": ["a", "b"]},
            "oldtags": {"SS": ["a", "b"]},
            "gone": {"S": "x"},
            "list": {"L": [{"N": "1"}]},
        },
    )
    out = ddb.update_item(
        TableName="tbl",
        Key=_key(),
        UpdateExpression=(
            "SET #c = #c + :one, fresh = if_not_exists(fresh, :zero), "
            "#l = list_append(#l, :more), nested = :map "
            "REMOVE gone ADD tags :new, visits :one DELETE oldtags :old"
        ),
        # `count` and `list` are reserved words: named through placeholders.
        ExpressionAttributeNames={"#c": "count", "#l": "list"},
        ExpressionAttributeValues={
            ":one": {"N": "1"},
            ":zero": {"N": "0"},
            ":more": {"L": [{"N": "2"}]},
            ":new": {"SS": ["c"]},
            ":old": {"SS": ["a"]},
            ":map": {"M": {"x": {"N": "1"}}},
        },
        ReturnValues="ALL_NEW",
    )["Attributes"]
    assert out["count"] == {"N": "6"}
    assert out["fresh"] == {"N": "0"}
    assert out["list"] == {"L": [{"N": "1"}, {"N": "2"}]}
    assert sorted(out["tags"]["SS"]) == ["a", "b", "c"]
    assert out["oldtags"] == {"SS": ["b"]}
    assert out["visits"] == {"N": "1"}
    assert "gone" not in out
    old = ddb.update_item(
        TableName="tbl",
        Key=_key(),
        UpdateExpression="SET nested.x = :v",
        ExpressionAttributeValues={":v": {"N": "9"}},
        ReturnValues="UPDATED_OLD",
    )["Attributes"]
    assert old == {"nested": {"M": {"x": {"N": "1"}}}}
    with pytest.raises(ClientError) as err:
        ddb.update_item(
            TableName="tbl",
            Key=_key(),
            UpdateExpression="SET pk = :v",
            ExpressionAttributeValues={":v": {"S": "other"}},
        )
    assert "part of the key" in err.value.response["Error"]["Message"]
    created = ddb.update_item(
        TableName="tbl",
        Key=_key("new"),
        UpdateExpression="ADD n :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="ALL_NEW",
    )["Attributes"]
    assert created == {**_key("new"), "n": {"N": "1"}}


@pytest.mark.parametrize(
    ("condition", "values", "passes"),
    [
        ("n = :five", {":five": {"N": "5.0"}}, True),
        ("n <> :five", {":five": {"N": "5"}}, False),
        ("n < :x AND n >= :y", {":x": {"N": "6"}, ":y": {"N": "5"}}, True),
        ("n BETWEEN :a AND :b", {":a": {"N": "1"}, ":b": {"N": "4"}}, False),
        ("s IN (:a, :b)", {":a": {"S": "zz"}, ":b": {"S": "hello"}}, True),
        ("begins_with(s, :p)", {":p": {"S": "hel"}}, True),
        ("contains(tags, :t)", {":t": {"S": "b"}}, True),
        ("contains(s, :t)", {":t": {"S": "xyz"}}, False),
        ("attribute_exists(n) AND attribute_not_exists(absent)", None, True),
        ("NOT (attribute_exists(n) OR s > :s)", {":s": {"S": "a"}}, False),
        ("size(tags) = :two", {":two": {"N": "2"}}, True),
        ("attribute_type(n, :t)", {":t": {"S": "N"}}, True),
    ],
)
def test_condition_expressions(
    ddb: Any, condition: str, values: dict[str, Any] | None, passes: bool
) -> None:
    key_table(ddb)
    ddb.put_item(
        TableName="tbl",
        Item={**_key(), "n": {"N": "5"}, "s": {"S": "hello"}, "tags": {"SS": ["a", "b"]}},
    )
    kwargs: dict[str, Any] = {"ConditionExpression": condition}
    if values:
        kwargs["ExpressionAttributeValues"] = values
    if passes:
        ddb.delete_item(TableName="tbl", Key=_key(), **kwargs)
        assert "Item" not in ddb.get_item(TableName="tbl", Key=_key())
    else:
        with pytest.raises(ddb.exceptions.ConditionalCheckFailedException) as err:
            ddb.delete_item(
                TableName="tbl", Key=_key(), ReturnValuesOnConditionCheckFailure="ALL_OLD", **kwargs
            )
        assert err.value.response["Error"]["Message"] == "The conditional request failed"
        assert err.value.response["Item"]["n"] == {"N": "5"}


def test_put_returns_old_and_consumed_capacity(ddb: Any) -> None:
    key_table(
        ddb,
        GlobalSecondaryIndexes=[
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    first = ddb.put_item(
        TableName="tbl", Item={**_key(), "g": {"S": "x"}}, ReturnConsumedCapacity="INDEXES"
    )
    assert first["ConsumedCapacity"]["CapacityUnits"] == 2.0
    assert first["ConsumedCapacity"]["Table"]["CapacityUnits"] == 1.0
    assert first["ConsumedCapacity"]["GlobalSecondaryIndexes"]["byG"]["CapacityUnits"] == 1.0
    moved = ddb.put_item(
        TableName="tbl",
        Item={**_key(), "g": {"S": "y"}},
        ReturnValues="ALL_OLD",
        ReturnConsumedCapacity="INDEXES",
    )
    assert moved["Attributes"]["g"] == {"S": "x"}
    # The GSI key changed: a delete and a put on the index.
    assert moved["ConsumedCapacity"]["GlobalSecondaryIndexes"]["byG"]["CapacityUnits"] == 2.0
    sparse = ddb.put_item(TableName="tbl", Item=_key("other"), ReturnConsumedCapacity="TOTAL")
    assert sparse["ConsumedCapacity"] == {
        "TableName": "tbl",
        "CapacityUnits": 1.0,
        "WriteCapacityUnits": 1.0,
    }
    big = ddb.put_item(
        TableName="tbl",
        Item={**_key("big"), "p": {"S": "x" * 3000}},
        ReturnConsumedCapacity="TOTAL",
    )
    assert big["ConsumedCapacity"]["CapacityUnits"] == 3.0
    read = ddb.get_item(TableName="tbl", Key=_key("big"), ReturnConsumedCapacity="TOTAL")
    assert read["ConsumedCapacity"]["CapacityUnits"] == 0.5


def test_query_key_conditions_pages_and_index(ddb: Any) -> None:
    key_table(
        ddb,
        GlobalSecondaryIndexes=[
            {
                "IndexName": "byG",
                "KeySchema": [
                    {"AttributeName": "g", "KeyType": "HASH"},
                    {"AttributeName": "sk", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    for i in range(10):
        item = {**_key("p", f"item{i:02d}"), "n": {"N": str(i)}}
        if i % 2:
            item["g"] = {"S": "odd"}
        ddb.put_item(TableName="tbl", Item=item)
    ddb.put_item(TableName="tbl", Item=_key("q", "item00"))

    def query(**kw: Any) -> dict[str, Any]:
        result: dict[str, Any] = ddb.query(TableName="tbl", **kw)
        return result

    vals = {":p": {"S": "p"}, ":a": {"S": "item03"}, ":b": {"S": "item06"}}
    between = query(
        KeyConditionExpression="pk = :p AND sk BETWEEN :a AND :b", ExpressionAttributeValues=vals
    )
    assert [i["sk"]["S"] for i in between["Items"]] == ["item03", "item04", "item05", "item06"]
    prefix = query(
        KeyConditionExpression="pk = :p AND begins_with(sk, :x)",
        ExpressionAttributeValues={":p": {"S": "p"}, ":x": {"S": "item0"}},
        ScanIndexForward=False,
        Limit=3,
    )
    assert [i["sk"]["S"] for i in prefix["Items"]] == ["item09", "item08", "item07"]
    assert prefix["LastEvaluatedKey"] == _key("p", "item07")
    nxt = query(
        KeyConditionExpression="pk = :p AND begins_with(sk, :x)",
        ExpressionAttributeValues={":p": {"S": "p"}, ":x": {"S": "item0"}},
        ScanIndexForward=False,
        Limit=3,
        ExclusiveStartKey=prefix["LastEvaluatedKey"],
    )
    assert [i["sk"]["S"] for i in nxt["Items"]] == ["item06", "item05", "item04"]
    filtered = query(
        KeyConditionExpression="pk = :p",
        FilterExpression="n >= :five",
        ExpressionAttributeValues={":p": {"S": "p"}, ":five": {"N": "5"}},
    )
    assert filtered["Count"] == 5 and filtered["ScannedCount"] == 10
    pages = ddb.get_paginator("query").paginate(
        TableName="tbl",
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "p"}},
        PaginationConfig={"PageSize": 4},
    )
    assert sum(len(page["Items"]) for page in pages) == 10
    index = query(
        IndexName="byG",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "odd"}},
        Limit=2,
    )
    assert [i["sk"]["S"] for i in index["Items"]] == ["item01", "item03"]
    assert set(index["LastEvaluatedKey"]) == {"g", "sk", "pk"}
    rest = query(
        IndexName="byG",
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "odd"}},
        ExclusiveStartKey=index["LastEvaluatedKey"],
    )
    assert [i["sk"]["S"] for i in rest["Items"]] == ["item05", "item07", "item09"]
    count = query(
        KeyConditionExpression="pk = :p",
        Select="COUNT",
        ExpressionAttributeValues={":p": {"S": "p"}},
    )
    assert count["Count"] == 10 and "Items" not in count


def test_scan_paginates_over_every_item(ddb: Any) -> None:
    key_table(ddb, sk_type=None)
    for i in range(25):
        ddb.put_item(TableName="tbl", Item={"pk": {"S": f"k{i}"}, "n": {"N": str(i)}})
    seen = [
        item["pk"]["S"]
        for page in ddb.get_paginator("scan").paginate(
            TableName="tbl", PaginationConfig={"PageSize": 7}
        )
        for item in page["Items"]
    ]
    assert sorted(seen) == sorted(f"k{i}" for i in range(25))
    assert len(seen) == 25
    filtered = ddb.scan(
        TableName="tbl",
        FilterExpression="n < :three",
        ExpressionAttributeValues={":three": {"N": "3"}},
    )
    assert filtered["Count"] == 3 and filtered["ScannedCount"] == 25
    segments = [ddb.scan(TableName="tbl", Segment=s, TotalSegments=3)["Count"] for s in range(3)]
    assert sum(segments) == 25


def test_batch_write_and_get(ddb: Any) -> None:
    key_table(ddb)
    puts = [{"PutRequest": {"Item": {**_key("b", f"{i}"), "v": {"N": str(i)}}}} for i in range(20)]
    assert ddb.batch_write_item(RequestItems={"tbl": puts})["UnprocessedItems"] == {}
    ddb.batch_write_item(RequestItems={"tbl": [{"DeleteRequest": {"Key": _key("b", "0")}}]})
    got = ddb.batch_get_item(
        RequestItems={
            "tbl": {
                "Keys": [_key("b", "0"), _key("b", "1"), _key("b", "2")],
                "ProjectionExpression": "v",
            }
        }
    )
    assert sorted(i["v"]["N"] for i in got["Responses"]["tbl"]) == ["1", "2"]
    assert got["UnprocessedKeys"] == {}
    with pytest.raises(ClientError) as err:
        ddb.batch_write_item(RequestItems={"tbl": [puts[0], puts[0]]})
    assert "duplicates" in err.value.response["Error"]["Message"]


def test_numbers_keep_38_significant_digits(ddb: Any) -> None:
    """Python's default decimal context keeps 28 digits; DynamoDB keeps 38. Two keys that
    differ in the 38th digit are two items, an ADD keeps every digit, and a 39th
    significant digit is refused."""
    ddb.create_table(
        TableName="n38",
        BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "N"}],
    )
    first, second = "1" * 37 + "1", "1" * 37 + "2"
    for pk in (first, second):
        ddb.put_item(TableName="n38", Item={"pk": {"N": pk}, "v": {"N": pk}})
    assert ddb.scan(TableName="n38")["Count"] == 2
    got = ddb.get_item(TableName="n38", Key={"pk": {"N": second}})["Item"]
    assert got["v"]["N"] == second
    new = ddb.update_item(
        TableName="n38",
        Key={"pk": {"N": first}},
        UpdateExpression="ADD v :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="UPDATED_NEW",
    )["Attributes"]
    assert new["v"]["N"] == second
    with pytest.raises(ClientError) as err:
        ddb.put_item(TableName="n38", Item={"pk": {"N": "1" * 39}})
    assert "38 significant digits" in err.value.response["Error"]["Message"]
