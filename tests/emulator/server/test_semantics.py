"""Expression and legacy semantics where the emulator differed from DynamoDB (issue 25):
a key attribute read by an update of a new item, parenthesised operands, projected list
elements in index order, and a legacy Expected with Value and a ComparisonOperator."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.emulator.server.conftest import key_table

KEY = {"pk": {"S": "k"}, "sk": {"S": "s"}}


def test_if_not_exists_reads_a_key_attribute_of_a_new_item(ddb: Any) -> None:
    key_table(ddb)
    out = ddb.update_item(
        TableName="tbl",
        Key=KEY,
        UpdateExpression="SET b = if_not_exists(b, pk), c = sk",
        ReturnValues="ALL_NEW",
    )["Attributes"]
    assert out == {**KEY, "b": {"S": "k"}, "c": {"S": "s"}}
    # On an existing item, b stays as it is.
    again = ddb.update_item(
        TableName="tbl",
        Key=KEY,
        UpdateExpression="SET b = if_not_exists(b, sk)",
        ReturnValues="ALL_NEW",
    )["Attributes"]
    assert again["b"] == {"S": "k"}


def test_parenthesised_operands_in_updates_and_conditions(ddb: Any) -> None:
    key_table(ddb)
    ddb.put_item(
        TableName="tbl",
        Item={**KEY, "x": {"N": "5"}, "l": {"L": [{"N": "2"}, {"N": "3"}]}},
    )
    out = ddb.update_item(
        TableName="tbl",
        Key=KEY,
        UpdateExpression="SET x = (x) + (l[0])",
        ConditionExpression="(size(l)) = :two AND ((x) < (:ten))",
        ExpressionAttributeValues={":two": {"N": "2"}, ":ten": {"N": "10"}},
        ReturnValues="UPDATED_NEW",
    )["Attributes"]
    assert out == {"x": {"N": "7"}}
    with pytest.raises(ClientError) as exc:
        ddb.update_item(
            TableName="tbl",
            Key=KEY,
            UpdateExpression="SET x = :two",
            ConditionExpression="(size(l)) = :three",
            ExpressionAttributeValues={":two": {"N": "2"}, ":three": {"N": "3"}},
        )
    assert exc.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    # A parenthesised operand alone is no condition.
    with pytest.raises(ClientError) as exc:
        ddb.scan(
            TableName="tbl",
            FilterExpression="(x) AND x = :two",
            ExpressionAttributeValues={":two": {"N": "2"}},
        )
    assert exc.value.response["Error"]["Message"].startswith(
        "Invalid FilterExpression: Syntax error"
    )


def test_a_parenthesised_sum_is_a_whole_value_of_set(ddb: Any) -> None:
    """[AWS] `SET b.c = (c[1] + b.a)` (issue 41): a sum in parentheses is the whole value;
    it is not an operand of another sum or of a function (dynalite's update grammar,
    tested against AWS)."""
    key_table(ddb)
    ddb.put_item(
        TableName="tbl",
        Item={
            **KEY,
            "b": {"M": {"a": {"N": "4"}}},
            "c": {"L": [{"N": "1"}, {"N": "10"}]},
        },
    )
    out = ddb.update_item(
        TableName="tbl",
        Key=KEY,
        UpdateExpression="SET b.c = (c[1] + b.a), d = ((c[0]) - b.a)",
        ReturnValues="UPDATED_NEW",
    )["Attributes"]
    assert out == {"b": {"M": {"c": {"N": "14"}}}, "d": {"N": "-3"}}
    for refused in (
        "SET d = (c[1] + b.a) + c[0]",
        "SET d = c[0] + (c[1] + b.a)",
        "SET d = list_append((c[0] + c[1]), c)",
    ):
        with pytest.raises(ClientError) as exc:
            ddb.update_item(TableName="tbl", Key=KEY, UpdateExpression=refused)
        message = exc.value.response["Error"]["Message"]
        assert message.startswith('Invalid UpdateExpression: Syntax error; token: "+"'), refused


def test_projected_list_elements_come_back_in_index_order(ddb: Any) -> None:
    key_table(ddb)
    ddb.put_item(
        TableName="tbl",
        Item={**KEY, "c": {"L": [{"S": "c0"}, {"S": "c1"}, {"S": "c2"}, {"S": "c3"}]}},
    )
    item = ddb.get_item(TableName="tbl", Key=KEY, ProjectionExpression="c[2], c[1]")["Item"]
    assert item == {"c": {"L": [{"S": "c1"}, {"S": "c2"}]}}
    item = ddb.get_item(TableName="tbl", Key=KEY, ProjectionExpression="c[3], pk, c[0]")["Item"]
    assert item == {"pk": {"S": "k"}, "c": {"L": [{"S": "c0"}, {"S": "c3"}]}}


def test_legacy_expected_with_value_and_a_comparison_operator(ddb: Any) -> None:
    key_table(ddb)
    ddb.put_item(TableName="tbl", Item={**KEY, "n": {"N": "1"}})
    ddb.put_item(
        TableName="tbl",
        Item={**KEY, "n": {"N": "2"}},
        Expected={"n": {"Value": {"N": "1"}, "ComparisonOperator": "EQ"}},
    )
    with pytest.raises(ClientError) as exc:
        ddb.put_item(
            TableName="tbl",
            Item={**KEY, "n": {"N": "3"}},
            Expected={"n": {"Value": {"N": "1"}, "ComparisonOperator": "EQ"}},
        )
    assert exc.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    with pytest.raises(ClientError) as exc:
        ddb.put_item(
            TableName="tbl",
            Item=KEY,
            Expected={"n": {"Value": {"N": "2"}, "ComparisonOperator": "EQ", "Exists": True}},
        )
    assert exc.value.response["Error"]["Message"] == (
        "One or more parameter values were invalid: Exists and ComparisonOperator cannot be "
        "used together for Attribute: n"
    )
    with pytest.raises(ClientError) as exc:
        ddb.put_item(
            TableName="tbl",
            Item=KEY,
            Expected={
                "n": {
                    "Value": {"N": "2"},
                    "AttributeValueList": [{"N": "2"}],
                    "ComparisonOperator": "EQ",
                }
            },
        )
    assert exc.value.response["Error"]["Message"] == (
        "One or more parameter values were invalid: Value and AttributeValueList cannot be "
        "used together for Attribute: n"
    )
    item = ddb.get_item(TableName="tbl", Key=KEY)["Item"]
    assert item["n"] == {"N": "2"}
