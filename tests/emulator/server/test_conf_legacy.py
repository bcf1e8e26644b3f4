"""Conformance, issue 16 item 1: DynamoDB's legacy parameters run through the expression
engine, with DynamoDB's results and errors [AWS LegacyConditionalParameters.html]."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.emulator.server.conftest import key_table


def _error(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = excinfo.value.response["Error"]
    return error["Code"], error["Message"]


def _n(value: int | str) -> dict[str, str]:
    return {"N": str(value)}


def _item(ddb: Any, pk: str = "k") -> dict[str, Any]:
    return ddb.get_item(TableName="tbl", Key={"pk": {"S": pk}}, ConsistentRead=True).get("Item", {})


@pytest.fixture
def table(ddb: Any) -> Any:
    key_table(ddb, sk_type=None)
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "k"}, "a": _n(1), "s": {"S": "hello"}})
    return ddb


def test_attribute_updates_put_add_delete(table: Any) -> None:
    table.update_item(
        TableName="tbl",
        Key={"pk": {"S": "k"}},
        AttributeUpdates={
            "a": {"Action": "ADD", "Value": _n(2)},
            "s": {"Action": "DELETE"},
            "tags": {"Action": "ADD", "Value": {"SS": ["x", "y"]}},
            "l": {"Action": "ADD", "Value": {"L": [{"S": "first"}]}},
            "new": {"Value": {"S": "put by default"}},
        },
    )
    table.update_item(
        TableName="tbl",
        Key={"pk": {"S": "k"}},
        AttributeUpdates={
            "tags": {"Action": "DELETE", "Value": {"SS": ["x"]}},
            "l": {"Action": "ADD", "Value": {"L": [{"S": "second"}]}},
        },
    )
    assert _item(table) == {
        "pk": {"S": "k"},
        "a": _n(3),
        "tags": {"SS": ["y"]},
        "l": {"L": [{"S": "first"}, {"S": "second"}]},
        "new": {"S": "put by default"},
    }


def test_attribute_updates_refuse_add_of_a_string(table: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.update_item(
            TableName="tbl",
            Key={"pk": {"S": "k"}},
            AttributeUpdates={"s": {"Action": "ADD", "Value": {"S": "x"}}},
        )
    assert _error(excinfo) == (
        "ValidationException",
        "One or more parameter values were invalid: ADD action is not supported for the type S",
    )


@pytest.mark.parametrize(
    ("expected", "ok"),
    [
        ({"a": {"Value": _n(1)}}, True),
        ({"a": {"Value": _n(2)}}, False),
        ({"a": {"Exists": True, "Value": _n(1)}}, True),
        ({"zz": {"Exists": False}}, True),
        ({"a": {"Exists": False}}, False),
        ({"a": {"ComparisonOperator": "NE", "AttributeValueList": [_n(1)]}}, False),
        # NE is true of a missing attribute, NOT_CONTAINS is not.
        ({"zz": {"ComparisonOperator": "NE", "AttributeValueList": [_n(1)]}}, True),
        ({"zz": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [_n(1)]}}, False),
        ({"s": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [{"S": "z"}]}}, True),
        ({"s": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [{"S": "ell"}]}}, True),
        ({"s": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [{"S": "he"}]}}, True),
        ({"a": {"ComparisonOperator": "IN", "AttributeValueList": [_n(5), _n(1)]}}, True),
        ({"a": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [_n(0), _n(1)]}}, True),
        ({"a": {"ComparisonOperator": "LT", "AttributeValueList": [_n(1)]}}, False),
        ({"a": {"ComparisonOperator": "GE", "AttributeValueList": [_n(1)]}}, True),
        ({"a": {"ComparisonOperator": "NOT_NULL"}}, True),
        ({"a": {"ComparisonOperator": "NULL"}}, False),
    ],
)
def test_expected_conditions(table: Any, expected: dict[str, Any], ok: bool) -> None:
    request = {
        "TableName": "tbl",
        "Key": {"pk": {"S": "k"}},
        "AttributeUpdates": {"b": {"Action": "PUT", "Value": _n(9)}},
        "Expected": expected,
    }
    if ok:
        table.update_item(**request)
        assert _item(table)["b"] == _n(9)
    else:
        with pytest.raises(ClientError) as excinfo:
            table.update_item(**request)
        assert _error(excinfo) == (
            "ConditionalCheckFailedException",
            "The conditional request failed",
        )
        assert "b" not in _item(table)


def test_expected_with_conditional_operator_or_on_put_and_delete(table: Any) -> None:
    either = {
        "a": {"Value": _n(7)},
        "s": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "hello"}]},
    }
    with pytest.raises(ClientError) as excinfo:
        table.put_item(TableName="tbl", Item={"pk": {"S": "k"}}, Expected=either)
    assert _error(excinfo)[0] == "ConditionalCheckFailedException"
    table.put_item(
        TableName="tbl",
        Item={"pk": {"S": "k"}, "v": _n(1)},
        Expected=either,
        ConditionalOperator="OR",
    )
    table.delete_item(TableName="tbl", Key={"pk": {"S": "k"}}, Expected={"v": {"Value": _n(1)}})
    assert _item(table) == {}


@pytest.mark.parametrize(
    ("expected", "message"),
    [
        (
            {"a": {"ComparisonOperator": "EQ", "AttributeValueList": [_n(1), _n(2)]}},
            "One or more parameter values were invalid: Invalid number of argument(s) for the "
            "EQ ComparisonOperator",
        ),
        (
            {"a": {"ComparisonOperator": "LE", "AttributeValueList": [{"L": []}]}},
            "One or more parameter values were invalid: ComparisonOperator LE is not valid for "
            "L AttributeValue type",
        ),
        (
            {"a": {"Exists": True}},
            "One or more parameter values were invalid: Value must be provided when Exists is "
            "true for Attribute: a",
        ),
        (
            {"a": {"Exists": False, "Value": _n(1)}},
            "One or more parameter values were invalid: Value cannot be used when Exists is "
            "false for Attribute: a",
        ),
    ],
)
def test_expected_refuses_malformed_conditions(
    table: Any, expected: dict[str, Any], message: str
) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.put_item(TableName="tbl", Item={"pk": {"S": "k"}}, Expected=expected)
    assert _error(excinfo) == ("ValidationException", message)


def test_conditional_operator_needs_expected(table: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.put_item(TableName="tbl", Item={"pk": {"S": "k"}}, ConditionalOperator="OR")
    code, message = _error(excinfo)
    assert code == "ValidationException" and "ConditionalOperator" in message


@pytest.mark.parametrize(
    ("operation", "members", "legacy", "expression"),
    [
        (
            "update_item",
            {
                "Key": {"pk": {"S": "k"}},
                "UpdateExpression": "SET a = :v",
                "ExpressionAttributeValues": {":v": _n(2)},
                "Expected": {"a": {"Value": _n(1)}},
            },
            "Expected",
            "UpdateExpression",
        ),
        (
            "get_item",
            {
                "Key": {"pk": {"S": "k"}},
                "AttributesToGet": ["a"],
                "ProjectionExpression": "a",
            },
            "AttributesToGet",
            "ProjectionExpression",
        ),
        (
            "scan",
            {"ScanFilter": {"a": {"ComparisonOperator": "NOT_NULL"}}, "FilterExpression": "a = a"},
            "ScanFilter",
            "FilterExpression",
        ),
    ],
)
def test_mixing_legacy_and_expression_parameters_is_refused(
    table: Any, operation: str, members: dict[str, Any], legacy: str, expression: str
) -> None:
    with pytest.raises(ClientError) as excinfo:
        getattr(table, operation)(TableName="tbl", **members)
    assert _error(excinfo) == (
        "ValidationException",
        "Can not use both expression and non-expression parameters in the same request: "
        f"Non-expression parameters: {{{legacy}}} Expression parameters: {{{expression}}}",
    )


def test_legacy_request_refuses_expression_placeholders(table: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.put_item(
            TableName="tbl",
            Item={"pk": {"S": "k"}},
            Expected={"a": {"Value": _n(1)}},
            ExpressionAttributeNames={"#a": "a"},
        )
    assert _error(excinfo) == (
        "ValidationException",
        "ExpressionAttributeNames can only be specified when using expressions",
    )


def test_key_conditions_query_filter_and_attributes_to_get(ddb: Any) -> None:
    key_table(ddb, sk_type="N")
    for sk in range(5):
        ddb.put_item(
            TableName="tbl",
            Item={"pk": {"S": "p"}, "sk": _n(sk), "odd": {"BOOL": sk % 2 == 1}, "x": _n(sk)},
        )
    page = ddb.query(
        TableName="tbl",
        KeyConditions={
            "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]},
            "sk": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [_n(1), _n(4)]},
        },
        QueryFilter={"odd": {"ComparisonOperator": "EQ", "AttributeValueList": [{"BOOL": True}]}},
        AttributesToGet=["sk", "x"],
        ScanIndexForward=False,
    )
    assert page["Items"] == [{"sk": _n(3), "x": _n(3)}, {"sk": _n(1), "x": _n(1)}]
    assert page["ScannedCount"] == 4


def test_key_conditions_refuse_an_operator_the_key_cannot_take(ddb: Any) -> None:
    key_table(ddb, sk_type="N")
    with pytest.raises(ClientError) as excinfo:
        ddb.query(
            TableName="tbl",
            KeyConditions={"pk": {"ComparisonOperator": "LT", "AttributeValueList": [{"S": "p"}]}},
        )
    assert _error(excinfo) == ("ValidationException", "Query key condition not supported")
    with pytest.raises(ClientError) as excinfo:
        ddb.query(
            TableName="tbl",
            KeyConditions={
                "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]},
                "sk": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [_n(1)]},
            },
        )
    assert _error(excinfo) == (
        "ValidationException",
        "One or more parameter values were invalid: ComparisonOperator BEGINS_WITH is not "
        "valid for N AttributeValue type",
    )


def test_scan_filter_with_conditional_operator(table: Any) -> None:
    table.put_item(TableName="tbl", Item={"pk": {"S": "j"}, "a": _n(5)})
    page = table.scan(
        TableName="tbl",
        ScanFilter={
            "a": {"ComparisonOperator": "GT", "AttributeValueList": [_n(3)]},
            "s": {"ComparisonOperator": "NOT_NULL"},
        },
        ConditionalOperator="OR",
    )
    assert sorted(i["pk"]["S"] for i in page["Items"]) == ["j", "k"]
    page = table.scan(
        TableName="tbl",
        ScanFilter={
            "a": {"ComparisonOperator": "GT", "AttributeValueList": [_n(3)]},
            "s": {"ComparisonOperator": "NOT_NULL"},
        },
    )
    assert page["Items"] == []


def test_batch_get_item_with_attributes_to_get(table: Any) -> None:
    reply = table.batch_get_item(
        RequestItems={"tbl": {"Keys": [{"pk": {"S": "k"}}], "AttributesToGet": ["a"]}}
    )
    assert reply["Responses"]["tbl"] == [{"a": _n(1)}]


def test_key_conditions_go_with_expressions_when_no_key_condition_expression(ddb: Any) -> None:
    """DynamoDB's one exception to the mixing rule (a Query's KeyConditions with a
    ProjectionExpression or FilterExpression)."""
    key_table(ddb, sk_type=None)
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "p"}, "a": _n(1), "b": _n(2)})
    page = ddb.query(
        TableName="tbl",
        KeyConditions={"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p"}]}},
        ProjectionExpression="a",
        FilterExpression="b = :two",
        ExpressionAttributeValues={":two": _n(2)},
    )
    assert page["Items"] == [{"a": _n(1)}]


def test_placeholders_without_an_expression_are_refused(table: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.put_item(
            TableName="tbl", Item={"pk": {"S": "k"}}, ExpressionAttributeValues={":v": _n(1)}
        )
    assert _error(excinfo) == (
        "ValidationException",
        "ExpressionAttributeValues can only be specified when using expressions: "
        "ConditionExpression is null",
    )


def test_legacy_in_needs_values_of_one_type_and_type_mismatch_is_named(table: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.put_item(
            TableName="tbl",
            Item={"pk": {"S": "k"}},
            Expected={"a": {"ComparisonOperator": "IN", "AttributeValueList": [_n(1), {"S": "x"}]}},
        )
    assert _error(excinfo) == (
        "ValidationException",
        "One or more parameter values were invalid: AttributeValues inside AttributeValueList "
        "must be of same type",
    )
    with pytest.raises(ClientError) as excinfo:
        table.update_item(
            TableName="tbl",
            Key={"pk": {"S": "k"}},
            AttributeUpdates={"s": {"Action": "DELETE", "Value": {"SS": ["h"]}}},
        )
    assert _error(excinfo) == (
        "ValidationException",
        "One or more parameter values were invalid: Type mismatch for attribute to update",
    )
