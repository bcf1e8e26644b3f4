"""DynamoDB's validation order (issue 25): what a request alone can refuse is refused
before its table is looked up, for every operation, so a malformed request to a table
that does not exist answers the ValidationException, not ResourceNotFoundException; what
needs the table (keys against its schema, an index's name) is checked only after it is
found. The requests and DynamoDB's words are those of dynalite's tests, which were run
against AWS (test/query.js, test/scan.js, test/getItem.js, test/batchGetItem.js,
test/batchWriteItem.js, test/updateTable.js); "abc" never exists here.

In process (Service.handle): no sockets, each case a few milliseconds."""

from __future__ import annotations

import json
from typing import Any

import pytest

from emulator.emulator_options import EmulatorOptions
from emulator.server.service import Service
from tests.emulator.server.conftest import refusal

TARGET = "DynamoDB_20120810."
VALUES = {":a": {"N": "1"}, ":b": {"N": "1"}}
"""Placeholders of the key-condition cases that use both (an unused one is refused)."""
ONE = {":a": {"N": "1"}}
STRINGS = {":a": {"S": "1"}, ":b": {"S": "1"}}


def _query(expression: str, **extra: Any) -> dict[str, Any]:
    return {"TableName": "abc", "KeyConditionExpression": expression, **extra}


REFUSED_BEFORE_LOOKUP: list[tuple[str, str, dict[str, Any], str]] = [
    # (case, operation, request, DynamoDB's message)
    (
        "query syntax",
        "Query",
        _query("things are not gonna be ok"),
        'Invalid KeyConditionExpression: Syntax error; token: "are"',
    ),
    (
        "query without a key condition",
        "Query",
        {"TableName": "abc"},
        "Either the KeyConditions or KeyConditionExpression parameter must be specified in "
        "the request.",
    ),
    (
        "query OR",
        "Query",
        _query("a > b and size(b) > c or a > c"),
        "Invalid operator used in KeyConditionExpression: OR",
    ),
    (
        "query IN",
        "Query",
        _query("a in (b, size(c), d)"),
        "Invalid operator used in KeyConditionExpression: IN",
    ),
    (
        "query NOT",
        "Query",
        _query("not a > b"),
        "Invalid operator used in KeyConditionExpression: NOT",
    ),
    (
        "query <>",
        "Query",
        _query("a <> b"),
        "Invalid operator used in KeyConditionExpression: <>",
    ),
    (
        "query attribute_exists",
        "Query",
        _query("attribute_exists(a)"),
        "Invalid operator used in KeyConditionExpression: attribute_exists",
    ),
    (
        "query between without the key first",
        "Query",
        _query(":a between size(b) and size(a) and b > :b", ExpressionAttributeValues=VALUES),
        "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key "
        "attribute as its first operand",
    ),
    (
        "query begins_with without the key first",
        "Query",
        _query("begins_with(:a, b) and a > :b", ExpressionAttributeValues=STRINGS),
        "Invalid condition in KeyConditionExpression: begins_with operator must have the key "
        "attribute as its first operand",
    ),
    (
        "query nested operation",
        "Query",
        _query("size(b) > a AND a.b > b AND b > c"),
        "KeyConditionExpressions cannot contain nested operations",
    ),
    (
        "query two attribute names",
        "Query",
        _query("b > a.b"),
        "Invalid condition in KeyConditionExpression: Multiple attribute names used in one "
        "condition",
    ),
    (
        "query nested attribute",
        "Query",
        _query("b[0] > a"),
        "KeyConditionExpressions cannot have conditions on nested attributes",
    ),
    (
        "query no key attribute",
        "Query",
        _query(":b > :a AND a < :b", ExpressionAttributeValues=VALUES),
        "Invalid condition in KeyConditionExpression: No key attribute specified",
    ),
    (
        "query one key twice",
        "Query",
        _query("b > :a AND b < :a and c = :a and d = :a", ExpressionAttributeValues=ONE),
        "KeyConditionExpressions must only contain one condition per key",
    ),
    (
        "query three keys",
        "Query",
        _query("a = :a AND b = :a and c = :a", ExpressionAttributeValues=ONE),
        "Conditions can be of length 1 or 2 only",
    ),
    (
        "query empty filter",
        "Query",
        _query(
            "attribute_type(a, :a)",
            FilterExpression="",
            ExpressionAttributeValues={":a": {"S": "N"}},
        ),
        "Invalid FilterExpression: The expression can not be empty;",
    ),
    (
        "query unused value",
        "Query",
        _query("a = :a", ExpressionAttributeValues={":a": {"S": "a"}, ":c": {"S": "c"}}),
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:c}",
    ),
    (
        "query select with a projection",
        "Query",
        _query(
            "a = :a",
            ExpressionAttributeValues={":a": {"S": "a"}},
            ProjectionExpression="x",
            Select="COUNT",
        ),
        "Cannot specify the ProjectionExpression when choosing to get COUNT",
    ),
    (
        "query projected attributes of no index",
        "Query",
        _query(
            "a = :a",
            ExpressionAttributeValues={":a": {"S": "a"}},
            Select="ALL_PROJECTED_ATTRIBUTES",
        ),
        "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
    ),
    (
        "query mixed styles",
        "Query",
        _query("a = :a", ExpressionAttributeValues={":a": {"S": "a"}}, AttributesToGet=["x"]),
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributesToGet} Expression parameters: "
        "{KeyConditionExpression}",
    ),
    (
        "query legacy three conditions",
        "Query",
        {"TableName": "abc", "KeyConditions": {k: {"ComparisonOperator": "NULL"} for k in "abc"}},
        "Conditions can be of length 1 or 2 only",
    ),
    (
        "query start key value",
        "Query",
        _query("a = :a", ExpressionAttributeValues={":a": {"S": "a"}}, ExclusiveStartKey={"a": {}}),
        "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes",
    ),
    (
        "scan segment without a total",
        "Scan",
        {"TableName": "abc", "Segment": 1},
        "The TotalSegments parameter is required but was not present in the request when "
        "Segment parameter is present",
    ),
    (
        "scan segment past the total",
        "Scan",
        {"TableName": "abc", "Segment": 3, "TotalSegments": 2},
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
        "Segment: 3 is not less than TotalSegments: 2",
    ),
    (
        "scan filter syntax",
        "Scan",
        {"TableName": "abc", "FilterExpression": "a >"},
        'Invalid FilterExpression: Syntax error; token: "<EOF>", near: "a >"',
    ),
    (
        "scan specific attributes of nothing",
        "Scan",
        {"TableName": "abc", "Select": "SPECIFIC_ATTRIBUTES"},
        "Must specify the AttributesToGet or ProjectionExpression when choosing to get "
        "SPECIFIC_ATTRIBUTES",
    ),
    (
        "scan unused name",
        "Scan",
        {"TableName": "abc", "FilterExpression": "a > b", "ExpressionAttributeNames": {"#x": "x"}},
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#x}",
    ),
    (
        "get key value",
        "GetItem",
        {"TableName": "abc", "Key": {"a": {"N": "x"}}},
        "The parameter cannot be converted to a numeric value: x",
    ),
    (
        "delete key value",
        "DeleteItem",
        {"TableName": "abc", "Key": {"a": {"S": "x", "N": "1"}}},
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of "
        "the supported datatypes",
    ),
    (
        "update key value",
        "UpdateItem",
        {"TableName": "abc", "Key": {"a": {"N": "x"}}},
        "The parameter cannot be converted to a numeric value: x",
    ),
    (
        "batch get duplicate keys",
        "BatchGetItem",
        {"RequestItems": {"abc": {"Keys": [{"a": {"S": "x"}}, {"a": {"S": "x"}}]}}},
        "Provided list of item keys contains duplicates",
    ),
    (
        "batch get projection",
        "BatchGetItem",
        {"RequestItems": {"abc": {"Keys": [{"a": {"S": "x"}}], "ProjectionExpression": ""}}},
        "Invalid ProjectionExpression: The expression can not be empty;",
    ),
    (
        "batch write empty request",
        "BatchWriteItem",
        {"RequestItems": {"abc": [{}]}},
        "Supplied AttributeValue has more than one datatypes set, must contain exactly one of "
        "the supported datatypes",
    ),
    (
        "batch write item value",
        "BatchWriteItem",
        {"RequestItems": {"abc": [{"PutRequest": {"Item": {"a": {"N": "x"}}}}]}},
        "The parameter cannot be converted to a numeric value: x",
    ),
    (
        "transact write condition syntax",
        "TransactWriteItems",
        {
            "TransactItems": [
                {
                    "ConditionCheck": {
                        "TableName": "abc",
                        "Key": {"a": {"S": "x"}},
                        "ConditionExpression": "a >",
                    }
                }
            ]
        },
        'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "a >"',
    ),
    (
        "transact write update syntax",
        "TransactWriteItems",
        {
            "TransactItems": [
                {
                    "Update": {
                        "TableName": "abc",
                        "Key": {"a": {"S": "x"}},
                        "UpdateExpression": "SET",
                    }
                }
            ]
        },
        'Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "SET"',
    ),
    (
        "transact get projection",
        "TransactGetItems",
        {
            "TransactItems": [
                {"Get": {"TableName": "abc", "Key": {"a": {"S": "x"}}, "ProjectionExpression": ""}}
            ]
        },
        "Invalid ProjectionExpression: The expression can not be empty;",
    ),
    (
        "update table of nothing",
        "UpdateTable",
        {"TableName": "abc"},
        "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, "
        "GlobalSecondaryIndexUpdates, SSESpecification, OnDemandThroughput or WarmThroughput "
        "is required",
    ),
    (
        "update table empty index update",
        "UpdateTable",
        {"TableName": "abc", "GlobalSecondaryIndexUpdates": [{}]},
        "One or more parameter values were invalid: One of GlobalSecondaryIndexUpdate.Update, "
        "GlobalSecondaryIndexUpdate.Create, GlobalSecondaryIndexUpdate.Delete must not be null",
    ),
    (
        "update table one index twice",
        "UpdateTable",
        {
            "TableName": "abc",
            "GlobalSecondaryIndexUpdates": [
                {"Delete": {"IndexName": "abc"}},
                {"Delete": {"IndexName": "abc"}},
            ],
        },
        "One or more parameter values were invalid: Only one global secondary index update "
        "per index is allowed simultaneously. Index: abc",
    ),
    (
        "update table out of bounds",
        "UpdateTable",
        {
            "TableName": "abc",
            "ProvisionedThroughput": {
                "ReadCapacityUnits": 1000000000001,
                "WriteCapacityUnits": 1,
            },
        },
        "Given value 1000000000001 for ReadCapacityUnits is out of bounds",
    ),
]


@pytest.mark.parametrize(
    ("operation", "body", "message"),
    [case[1:] for case in REFUSED_BEFORE_LOOKUP],
    ids=[case[0] for case in REFUSED_BEFORE_LOOKUP],
)
def test_a_malformed_request_to_a_missing_table_is_refused_as_malformed(
    operation: str, body: dict[str, Any], message: str
) -> None:
    service = Service(EmulatorOptions(create_delay_s=0))
    code, got = refusal(service, operation, body)
    assert code == "ValidationException", got
    assert message in got  # some carry DynamoDB's "One or more parameter values..." prefix
    assert service.internal_errors == 0


@pytest.mark.parametrize(
    "condition",
    [
        {"KeyConditions": {"z": {"ComparisonOperator": "NULL"}}},
        {"KeyConditionExpression": "z = :a", "ExpressionAttributeValues": {":a": {"N": "1"}}},
        {
            "KeyConditionExpression": "b between :a and :b",
            "ExpressionAttributeValues": {":a": {"N": "1"}, ":b": {"N": "1"}},
        },
    ],
)
@pytest.mark.parametrize("start", [{}, {"b": {"S": "a"}}, {"a": {"S": "a"}, "b": {"S": "a"}}])
def test_what_needs_the_key_schema_is_checked_after_the_table_is_found(
    condition: dict[str, Any], start: dict[str, Any]
) -> None:
    """dynalite's "should check table exists before checking key validity": a key
    condition or start key that no schema could take is still a missing table first."""
    service = Service(EmulatorOptions(create_delay_s=0))
    body = {"TableName": "abc", "ExclusiveStartKey": start, **condition}
    assert refusal(service, "Query", body) == (
        "ResourceNotFoundException",
        "Requested resource not found",
    )


def test_the_key_schema_checks_still_run_once_the_table_is_found() -> None:
    """The key condition's shape is checked before the lookup, its fit to the schema
    after: both refusals reach a request to a table that exists."""
    service = Service(EmulatorOptions(create_delay_s=0))
    status, _ = service.handle(
        TARGET + "CreateTable",
        json.dumps(
            {
                "TableName": "tbl",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "BillingMode": "PAY_PER_REQUEST",
            }
        ).encode(),
    )
    assert status == 200
    shape = _query("pk = :a AND b = :a AND c = :a", ExpressionAttributeValues=ONE)
    shape["TableName"] = "tbl"
    assert refusal(service, "Query", shape) == (
        "ValidationException",
        "Conditions can be of length 1 or 2 only",
    )
    schema = _query("elsewhere = :a", ExpressionAttributeValues={":a": {"S": "x"}})
    schema["TableName"] = "tbl"
    assert refusal(service, "Query", schema) == (
        "ValidationException",
        "Query condition missed key schema element",
    )


def _put(**extra: Any) -> dict[str, Any]:
    return {"TableName": "abc", "Item": {}, "ConditionExpression": "", **extra}


BIG = {"a": {"S": "a"}, "b": {"S": "x" * (400 * 1024)}}
"""An item past DynamoDB's 400 KB."""

WORDS: list[tuple[str, str, dict[str, Any], str]] = [
    # DynamoDB's words for refusals made before the lookup (dynalite's test/putItem.js,
    # test/batchWriteItem.js): (case, operation, request, message).
    (
        "empty names first",
        "PutItem",
        _put(ExpressionAttributeNames={}, ExpressionAttributeValues={}),
        "ExpressionAttributeNames must not be empty",
    ),
    (
        "a name key without #",
        "PutItem",
        _put(ExpressionAttributeNames={"a": "a"}, ExpressionAttributeValues={}),
        'ExpressionAttributeNames contains invalid key: Syntax error; key: "a"',
    ),
    (
        "empty values",
        "PutItem",
        _put(ExpressionAttributeValues={}),
        "ExpressionAttributeValues must not be empty",
    ),
    (
        "a value key without :",
        "PutItem",
        _put(ExpressionAttributeValues={"a": {"S": "a"}}),
        'ExpressionAttributeValues contains invalid key: Syntax error; key: "a"',
    ),
    (
        "a string set twice",
        "PutItem",
        {"TableName": "abc", "Item": {"a": {"SS": ["a", "a"]}}},
        "One or more parameter values were invalid: Input collection [a, a] contains duplicates.",
    ),
    (
        "a binary set twice",
        "PutItem",
        {"TableName": "abc", "Item": {"a": {"BS": ["Yg==", "Yg=="]}}},
        "One or more parameter values were invalid: Input collection [Yg==, Yg==]of type BS "
        "contains duplicates.",
    ),
    (
        "a number set twice",
        "PutItem",
        {"TableName": "abc", "Item": {"a": {"NS": ["1", "1.0"]}}},
        "One or more parameter values were invalid: Input collection contains duplicates",
    ),
    (
        "an item too big",
        "PutItem",
        {"TableName": "abc", "Item": BIG},
        "Item size has exceeded the maximum allowed size",
    ),
    (
        "a batch item too big",
        "BatchWriteItem",
        {"RequestItems": {"abc": [{"PutRequest": {"Item": BIG}}]}},
        "Item size has exceeded the maximum allowed size",
    ),
]


@pytest.mark.parametrize(
    ("operation", "body", "message"),
    [case[1:] for case in WORDS],
    ids=[case[0] for case in WORDS],
)
def test_request_refusals_are_in_dynamodbs_words(
    operation: str, body: dict[str, Any], message: str
) -> None:
    assert refusal(Service(EmulatorOptions(create_delay_s=0)), operation, body) == (
        "ValidationException",
        message,
    )
