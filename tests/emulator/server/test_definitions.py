"""Table definitions DynamoDB refuses, refused in its words; UpdateTable's capacity change
through UPDATING with its dates; a Query's ExclusiveStartKey outside its key condition
(issue 25). The messages are DynamoDB's answers to dynalite's request tests run on AWS."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from tests.emulator.server.conftest import client, key_table

INVALID = "One or more parameter values were invalid: "


def _message(exc: pytest.ExceptionInfo[ClientError]) -> str:
    assert exc.value.response["Error"]["Code"] == "ValidationException"
    message: str = exc.value.response["Error"]["Message"]
    return message


def _create(ddb: Any, **extra: Any) -> None:
    request: dict[str, Any] = {
        "TableName": "defs",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "x", "AttributeType": "S"},
        ],
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "BillingMode": "PAY_PER_REQUEST",
    }
    ddb.create_table(**{**request, **extra})


def _index(name: str, *keys: tuple[str, str], projection: Any = None) -> dict[str, Any]:
    return {
        "IndexName": name,
        "KeySchema": [{"AttributeName": a, "KeyType": k} for a, k in keys],
        "Projection": {"ProjectionType": "ALL"} if projection is None else projection,
    }


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            {
                "AttributeDefinitions": [
                    {"AttributeName": "pk", "AttributeType": "S"},
                    {"AttributeName": "sk", "AttributeType": "S"},
                ],
                "KeySchema": [
                    {"AttributeName": "sk", "KeyType": "RANGE"},
                    {"AttributeName": "pk", "KeyType": "HASH"},
                ],
            },
            "Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
        ),
        (
            {
                "AttributeDefinitions": [
                    {"AttributeName": "pk", "AttributeType": "S"},
                    {"AttributeName": "sk", "AttributeType": "S"},
                ],
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "sk", "KeyType": "HASH"},
                ],
            },
            "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type",
        ),
        (
            {
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "pk", "KeyType": "RANGE"},
                ],
            },
            "Both the Hash Key and the Range Key element in the KeySchema have the same name",
        ),
        (
            {"LocalSecondaryIndexes": [_index("lsi", ("pk", "HASH"))]},
            INVALID + "Index KeySchema does not have a range key for index: lsi",
        ),
        (
            {"GlobalSecondaryIndexes": [_index("gsi", ("x", "HASH"), projection={})]},
            INVALID + "Unknown ProjectionType: null",
        ),
        (
            {
                "GlobalSecondaryIndexes": [
                    _index(
                        "gsi",
                        ("x", "HASH"),
                        projection={"ProjectionType": "ALL", "NonKeyAttributes": ["a"]},
                    )
                ]
            },
            INVALID + "ProjectionType is ALL, but NonKeyAttributes is specified",
        ),
        (
            {
                "GlobalSecondaryIndexes": [
                    _index("gsi", ("x", "HASH")),
                    _index("gsi", ("x", "HASH")),
                ]
            },
            INVALID + "Duplicate index name: gsi",
        ),
        (
            {
                "LocalSecondaryIndexes": [
                    _index(f"l{i:02}", ("pk", "HASH"), ("x", "RANGE")) for i in range(6)
                ]
            },
            INVALID + "Number of LocalSecondaryIndexes exceeds per-table limit of 5",
        ),
        (
            {"GlobalSecondaryIndexes": [_index(f"g{i:02}", ("x", "HASH")) for i in range(21)]},
            INVALID + "GlobalSecondaryIndex count exceeds the per-table limit of 20",
        ),
        (
            {"GlobalSecondaryIndexes": []},
            INVALID + "List of GlobalSecondaryIndexes is empty",
        ),
        (
            # DynamoDB's words, as ScyllaDB's Alternator team observed them on AWS
            # (scylladb/scylladb#13870); DynamoDB Local says "Cannot have two attributes
            # with the same name", which PynamoDB's integration tests expect.
            {
                "AttributeDefinitions": [
                    {"AttributeName": "pk", "AttributeType": "S"},
                    {"AttributeName": "sk", "AttributeType": "S"},
                    {"AttributeName": "sk", "AttributeType": "N"},
                ]
            },
            "Attribute Name is duplicated: sk",
        ),
        (
            {
                "GlobalSecondaryIndexes": [
                    {
                        **_index("gsi", ("x", "HASH")),
                        "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
                    }
                ]
            },
            INVALID + "ProvisionedThroughput should not be specified for index: gsi when "
            "BillingMode is PAY_PER_REQUEST",
        ),
    ],
)
def test_definitions_dynamodb_refuses(ddb: Any, extra: dict[str, Any], message: str) -> None:
    with pytest.raises(ClientError) as exc:
        _create(ddb, **extra)
    assert _message(exc) == message
    assert ddb.list_tables()["TableNames"] == []


def test_update_table_to_the_current_capacity_is_refused(ddb: Any) -> None:
    key_table(
        ddb,
        billing="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 7},
    )
    with pytest.raises(ClientError) as exc:
        ddb.update_table(
            TableName="tbl",
            ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 7},
        )
    assert _message(exc) == (
        "The provisioned throughput for the table will not change. The requested value "
        "equals the current value. Current ReadCapacityUnits provisioned for the table: 5. "
        "Requested ReadCapacityUnits: 5. Current WriteCapacityUnits provisioned for the "
        "table: 7. Requested WriteCapacityUnits: 7. Refer to the Amazon DynamoDB Developer "
        "Guide for current limits and how to request higher limits."
    )


class Clock:
    """The emulator's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_capacity_change_goes_through_updating_and_is_dated() -> None:
    clock = Clock()
    with EmulatorServer(EmulatorOptions(create_delay_s=5), clock=clock) as emu:
        ddb = client(emu.endpoint_url)
        key_table(
            ddb,
            billing="PROVISIONED",
            ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        )
        clock.now += 6
        assert ddb.describe_table(TableName="tbl")["Table"]["TableStatus"] == "ACTIVE"
        up = ddb.update_table(
            TableName="tbl",
            ProvisionedThroughput={"ReadCapacityUnits": 10, "WriteCapacityUnits": 5},
        )["TableDescription"]
        assert up["TableStatus"] == "UPDATING"
        throughput = up["ProvisionedThroughput"]
        # [3P] the answer shows the capacity in force, the old one, with the new date.
        assert throughput["ReadCapacityUnits"] == 5
        assert "LastIncreaseDateTime" in throughput and "LastDecreaseDateTime" not in throughput
        # A second change while UPDATING is refused; the data plane keeps working.
        with pytest.raises(ClientError) as exc:
            ddb.update_table(
                TableName="tbl",
                ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
            )
        assert exc.value.response["Error"]["Code"] == "ResourceInUseException"
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "a"}, "sk": {"S": "b"}})
        clock.now += 6
        after = ddb.describe_table(TableName="tbl")["Table"]
        assert after["TableStatus"] == "ACTIVE"
        assert after["ProvisionedThroughput"]["ReadCapacityUnits"] == 10
        down = ddb.update_table(
            TableName="tbl",
            ProvisionedThroughput={"ReadCapacityUnits": 10, "WriteCapacityUnits": 1},
        )["TableDescription"]["ProvisionedThroughput"]
        assert down["NumberOfDecreasesToday"] == 1
        assert down["LastDecreaseDateTime"] > throughput["LastIncreaseDateTime"]
        assert emu.service.internal_errors == 0


def test_an_exclusive_start_key_outside_the_key_condition_is_refused(ddb: Any) -> None:
    key_table(ddb)
    base = {
        "TableName": "tbl",
        "KeyConditionExpression": "pk = :p AND sk > :s",
        "ExpressionAttributeValues": {":p": {"S": "a"}, ":s": {"S": "m"}},
    }
    with pytest.raises(ClientError) as exc:
        ddb.query(**base, ExclusiveStartKey={"pk": {"S": "b"}, "sk": {"S": "z"}})
    assert _message(exc) == (
        "The provided starting key is outside query boundaries based on provided conditions"
    )
    with pytest.raises(ClientError) as exc:
        ddb.query(**base, ExclusiveStartKey={"pk": {"S": "a"}, "sk": {"S": "c"}})
    assert _message(exc) == "The provided starting key does not match the range key predicate"
    assert ddb.query(**base, ExclusiveStartKey={"pk": {"S": "a"}, "sk": {"S": "n"}})["Items"] == []
