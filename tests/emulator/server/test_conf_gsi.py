"""Conformance, issue 16 item 7: a KEYS_ONLY or INCLUDE index returns only its projected
attributes and a read of it is charged on their size; a write whose index key has the
wrong type or is empty is refused."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.emulator.server.conftest import key_table

BIG = "x" * 20_000
"""A non-key attribute large enough that charging it would cost 5 read units."""


def _index(name: str, projection: dict[str, Any]) -> dict[str, Any]:
    return {
        "IndexName": name,
        "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
        "Projection": projection,
    }


@pytest.fixture
def indexed(ddb: Any) -> Any:
    key_table(
        ddb,
        sk_type=None,
        GlobalSecondaryIndexes=[
            _index("keys", {"ProjectionType": "KEYS_ONLY"}),
            _index("some", {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["kept"]}),
            _index("all", {"ProjectionType": "ALL"}),
        ],
    )
    ddb.put_item(
        TableName="tbl",
        Item={
            "pk": {"S": "k"},
            "g": {"S": "G"},
            "kept": {"S": "yes"},
            "big": {"S": BIG},
        },
    )
    return ddb


def _query(ddb: Any, index: str) -> dict[str, Any]:
    reply: dict[str, Any] = ddb.query(
        TableName="tbl",
        IndexName=index,
        KeyConditionExpression="g = :g",
        ExpressionAttributeValues={":g": {"S": "G"}},
        ReturnConsumedCapacity="TOTAL",
    )
    return reply


def test_keys_only_and_include_indexes_return_only_projected_attributes(indexed: Any) -> None:
    assert _query(indexed, "keys")["Items"] == [{"pk": {"S": "k"}, "g": {"S": "G"}}]
    assert _query(indexed, "some")["Items"] == [
        {"pk": {"S": "k"}, "g": {"S": "G"}, "kept": {"S": "yes"}}
    ]
    assert set(_query(indexed, "all")["Items"][0]) == {"pk", "g", "kept", "big"}
    scanned = indexed.scan(TableName="tbl", IndexName="keys")["Items"]
    assert scanned == [{"pk": {"S": "k"}, "g": {"S": "G"}}]


def test_index_reads_are_charged_on_the_projected_size(indexed: Any) -> None:
    # Eventually consistent: 0.5 unit per 4 KB. The ALL index reads the 20 KB item
    # (5 x 4 KB -> 2.5 units); KEYS_ONLY and INCLUDE read a few bytes (0.5 unit).
    assert _query(indexed, "all")["ConsumedCapacity"]["CapacityUnits"] == 2.5
    assert _query(indexed, "keys")["ConsumedCapacity"]["CapacityUnits"] == 0.5
    assert _query(indexed, "some")["ConsumedCapacity"]["CapacityUnits"] == 0.5


def test_select_all_attributes_is_refused_on_a_narrow_index(indexed: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        indexed.query(
            TableName="tbl",
            IndexName="keys",
            Select="ALL_ATTRIBUTES",
            KeyConditionExpression="g = :g",
            ExpressionAttributeValues={":g": {"S": "G"}},
        )
    error = excinfo.value.response["Error"]
    assert (error["Code"], error["Message"]) == (
        "ValidationException",
        "One or more parameter values were invalid: Select type ALL_ATTRIBUTES is not "
        "supported for global secondary index keys because its projection type is not ALL",
    )


@pytest.mark.parametrize(
    ("write", "message"),
    [
        (
            "put",
            "One or more parameter values were invalid: Type mismatch for Index Key g "
            "Expected: S Actual: N IndexName: all",
        ),
        (
            "batch",
            "One or more parameter values were invalid: Type mismatch for Index Key g "
            "Expected: S Actual: N IndexName: all",
        ),
        (
            "empty",
            "One or more parameter values are not valid. A value specified for a secondary "
            "index key is not supported. The AttributeValue for a key attribute cannot "
            "contain an empty string value. IndexName: all, IndexKey: g",
        ),
        (
            "update",
            "One or more parameter values are not valid. The update expression attempted to "
            "update a secondary index key to a value that is not supported. The "
            "AttributeValue for a key attribute cannot contain an empty string value. "
            "IndexName: all, IndexKey: g",
        ),
    ],
)
def test_a_write_with_a_bad_index_key_is_refused(indexed: Any, write: str, message: str) -> None:
    wrong = {"pk": {"S": "j"}, "g": {"N": "1"}}
    with pytest.raises(ClientError) as excinfo:
        if write == "put":
            indexed.put_item(TableName="tbl", Item=wrong)
        elif write == "batch":
            indexed.batch_write_item(RequestItems={"tbl": [{"PutRequest": {"Item": wrong}}]})
        elif write == "empty":
            indexed.put_item(TableName="tbl", Item={"pk": {"S": "j"}, "g": {"S": ""}})
        else:
            indexed.update_item(
                TableName="tbl",
                Key={"pk": {"S": "k"}},
                UpdateExpression="SET g = :e",
                ExpressionAttributeValues={":e": {"S": ""}},
            )
    # Three indexes are keyed on g: DynamoDB names the alphabetically first.
    error = excinfo.value.response["Error"]
    assert (error["Code"], error["Message"]) == ("ValidationException", message)
    assert indexed.scan(TableName="tbl")["Count"] == 1
