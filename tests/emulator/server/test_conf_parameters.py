"""Conformance, issue 16 item 10: request parameters the conformance table marks supported
that no behaviour test exercises on that operation, each with DynamoDB's result."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.emulator.server.conftest import key_table

KEY = {"pk": {"S": "k"}}
ITEM = {**KEY, "count": {"N": "1"}, "name": {"S": "x"}}


@pytest.fixture
def table(ddb: Any) -> Any:
    key_table(ddb, sk_type=None)
    ddb.put_item(TableName="tbl", Item=ITEM)
    return ddb


def test_put_item_with_names_values_and_return_values(table: Any) -> None:
    reply = table.put_item(
        TableName="tbl",
        Item={**KEY, "count": {"N": "2"}},
        ConditionExpression="#c = :one",
        ExpressionAttributeNames={"#c": "count"},
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="ALL_OLD",
        ReturnConsumedCapacity="TOTAL",
    )
    assert reply["Attributes"] == ITEM
    assert reply["ConsumedCapacity"] == {
        "TableName": "tbl",
        "CapacityUnits": 1.0,
        "WriteCapacityUnits": 1.0,
    }


def test_delete_item_with_names_values_and_return_values(table: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.delete_item(
            TableName="tbl",
            Key=KEY,
            ConditionExpression="#c = :two",
            ExpressionAttributeNames={"#c": "count"},
            ExpressionAttributeValues={":two": {"N": "2"}},
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    assert excinfo.value.response["Item"] == ITEM
    reply = table.delete_item(
        TableName="tbl",
        Key=KEY,
        ConditionExpression="#c = :one",
        ExpressionAttributeNames={"#c": "count"},
        ExpressionAttributeValues={":one": {"N": "1"}},
        ReturnValues="ALL_OLD",
        ReturnConsumedCapacity="TOTAL",
    )
    assert reply["Attributes"] == ITEM
    assert reply["ConsumedCapacity"]["CapacityUnits"] == 1.0
    assert "Item" not in table.get_item(TableName="tbl", Key=KEY)


def test_update_item_condition_and_consumed_capacity(table: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.update_item(
            TableName="tbl",
            Key=KEY,
            UpdateExpression="SET #n = :y",
            ConditionExpression="attribute_not_exists(#n)",
            ExpressionAttributeNames={"#n": "name"},
            ExpressionAttributeValues={":y": {"S": "y"}},
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    assert excinfo.value.response["Item"] == ITEM
    reply = table.update_item(
        TableName="tbl",
        Key=KEY,
        UpdateExpression="SET #n = :y",
        ConditionExpression="attribute_exists(#n)",
        ExpressionAttributeNames={"#n": "name"},
        ExpressionAttributeValues={":y": {"S": "y"}},
        ReturnConsumedCapacity="INDEXES",
    )
    assert reply["ConsumedCapacity"]["Table"] == {"CapacityUnits": 1.0, "WriteCapacityUnits": 1.0}


def test_update_item_legacy_conditional_operator(table: Any) -> None:
    table.update_item(
        TableName="tbl",
        Key=KEY,
        AttributeUpdates={"name": {"Action": "PUT", "Value": {"S": "z"}}},
        Expected={"count": {"Value": {"N": "9"}}, "name": {"Value": {"S": "x"}}},
        ConditionalOperator="OR",
    )
    assert table.get_item(TableName="tbl", Key=KEY)["Item"]["name"] == {"S": "z"}


def test_get_item_consumed_capacity(table: Any) -> None:
    reply = table.get_item(
        TableName="tbl", Key=KEY, ConsistentRead=True, ReturnConsumedCapacity="TOTAL"
    )
    assert reply["ConsumedCapacity"]["CapacityUnits"] == 1.0


def test_batch_operations_report_consumed_capacity(table: Any) -> None:
    wrote = table.batch_write_item(
        RequestItems={"tbl": [{"PutRequest": {"Item": {"pk": {"S": "j"}}}}]},
        ReturnConsumedCapacity="TOTAL",
    )
    assert wrote["ConsumedCapacity"] == [
        {"TableName": "tbl", "CapacityUnits": 1.0, "WriteCapacityUnits": 1.0}
    ]
    read = table.batch_get_item(
        RequestItems={"tbl": {"Keys": [KEY, {"pk": {"S": "j"}}], "ConsistentRead": True}},
        ReturnConsumedCapacity="TOTAL",
    )
    assert read["ConsumedCapacity"] == [
        {"TableName": "tbl", "CapacityUnits": 2.0, "ReadCapacityUnits": 2.0}
    ]


def test_query_projection_names_consistency_and_capacity(table: Any) -> None:
    reply = table.query(
        TableName="tbl",
        KeyConditionExpression="pk = :k",
        ProjectionExpression="#c",
        ExpressionAttributeNames={"#c": "count"},
        ExpressionAttributeValues={":k": {"S": "k"}},
        ConsistentRead=True,
        ReturnConsumedCapacity="TOTAL",
    )
    assert reply["Items"] == [{"count": {"N": "1"}}]
    assert reply["ConsumedCapacity"]["CapacityUnits"] == 1.0


def test_query_legacy_conditional_operator(table: Any) -> None:
    reply = table.query(
        TableName="tbl",
        KeyConditions={"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "k"}]}},
        QueryFilter={
            "count": {"ComparisonOperator": "GT", "AttributeValueList": [{"N": "5"}]},
            "name": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "x"}]},
        },
        ConditionalOperator="OR",
    )
    assert reply["Count"] == 1


def test_scan_with_names(table: Any) -> None:
    reply = table.scan(
        TableName="tbl",
        FilterExpression="#c > :zero",
        ExpressionAttributeNames={"#c": "count"},
        ExpressionAttributeValues={":zero": {"N": "0"}},
    )
    assert reply["Items"] == [ITEM]


def test_create_table_keeps_and_describes_local_secondary_indexes(ddb: Any) -> None:
    lsi = {
        "IndexName": "byL",
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "l", "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "KEYS_ONLY"},
    }
    ddb.create_table(
        TableName="tbl",
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "l", "AttributeType": "N"},
        ],
        BillingMode="PAY_PER_REQUEST",
        LocalSecondaryIndexes=[lsi],
    )
    described = ddb.describe_table(TableName="tbl")["Table"]["LocalSecondaryIndexes"]
    assert [i["IndexName"] for i in described] == ["byL"]
