"""Conformance, issue 16 items 2-5: conditions and filters, key conditions, update
expressions and projections, with DynamoDB's results and error messages."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.emulator.server.conftest import key_table

KEY = {"pk": {"S": "k"}}


def _error(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = excinfo.value.response["Error"]
    return error["Code"], error["Message"]


def _n(value: int | str) -> dict[str, str]:
    return {"N": str(value)}


@pytest.fixture
def table(ddb: Any) -> Any:
    key_table(ddb, sk_type=None)
    ddb.put_item(
        TableName="tbl",
        Item={**KEY, "n": _n(5), "flag": {"BOOL": True}, "s": {"S": "hello"}},
    )
    return ddb


def _get(ddb: Any) -> dict[str, Any]:
    return ddb.get_item(TableName="tbl", Key=KEY, ConsistentRead=True).get("Item", {})


def _holds(ddb: Any, condition: str, values: dict[str, Any] | None = None) -> bool:
    """Whether a ConditionExpression holds of the stored item (a PutItem of it as is)."""
    request: dict[str, Any] = {
        "TableName": "tbl",
        "Item": _get(ddb),
        "ConditionExpression": condition,
    }
    if values:
        request["ExpressionAttributeValues"] = values
    try:
        ddb.put_item(**request)
    except ClientError as exc:
        if exc.response["Error"]["Code"] == "ConditionalCheckFailedException":
            return False
        raise
    return True


# --- item 2: conditions and filters ---------------------------------------------------------


def test_not_equal_holds_for_a_missing_attribute(table: Any) -> None:
    one = {":v": _n(1)}
    assert _holds(table, "absent <> :v", one)
    assert _holds(table, ":v <> absent", one)
    assert not _holds(table, "NOT absent <> :v", one)
    assert _holds(table, "absent <> :v AND n <> :v", one)
    assert _holds(table, "absent = :v OR absent <> :v", one)
    assert not _holds(table, "absent = :v", one)


def test_attribute_type_with_an_unknown_type_is_refused(table: Any) -> None:
    # Refused even where the attribute is missing (nothing is compared).
    with pytest.raises(ClientError) as excinfo:
        _holds(table, "attribute_type(absent, :t)", {":t": {"S": "STRING"}})
    assert _error(excinfo) == (
        "ValidationException",
        "Invalid ConditionExpression: Invalid attribute type name found; type: STRING, "
        "valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}",
    )


def test_size_of_a_number_or_boolean_matches_nothing(table: Any) -> None:
    zero = {":z": _n(0)}
    assert not _holds(table, "size(n) > :z", zero)
    assert not _holds(table, "size(flag) >= :z", zero)
    assert _holds(table, "NOT size(n) > :z", zero)
    assert _holds(table, "size(s) > :z", zero)
    page = table.scan(
        TableName="tbl", FilterExpression="size(n) > :z", ExpressionAttributeValues=zero
    )
    assert (page["Count"], page["ScannedCount"]) == (0, 1)


def test_query_filter_may_not_name_a_key_attribute(ddb: Any) -> None:
    key_table(ddb, sk_type="S")
    with pytest.raises(ClientError) as excinfo:
        ddb.query(
            TableName="tbl",
            KeyConditionExpression="pk = :p",
            FilterExpression="sk = :s",
            ExpressionAttributeValues={":p": {"S": "k"}, ":s": {"S": "x"}},
        )
    assert _error(excinfo) == (
        "ValidationException",
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk",
    )


# --- item 3: key conditions -----------------------------------------------------------------


def test_key_condition_operands_in_either_order(ddb: Any) -> None:
    key_table(ddb, sk_type="N")
    for sk in range(4):
        ddb.put_item(TableName="tbl", Item={**KEY, "sk": _n(sk)})
    page = ddb.query(
        TableName="tbl",
        KeyConditionExpression=":p = pk AND :two > sk",
        ExpressionAttributeValues={":p": {"S": "k"}, ":two": _n(2)},
    )
    assert [i["sk"] for i in page["Items"]] == [_n(0), _n(1)]


@pytest.mark.parametrize(
    "condition",
    ["pk = :p AND sk = :wrong", "pk = :wrong", "pk = :p AND sk BETWEEN :wrong AND :wrong"],
)
def test_key_condition_value_of_the_wrong_type_is_refused(ddb: Any, condition: str) -> None:
    key_table(ddb, sk_type="S")
    values = {":p": {"S": "k"}, ":s": {"S": "a"}, ":wrong": _n(1)}
    used = {k: v for k, v in values.items() if k in condition}
    with pytest.raises(ClientError) as excinfo:
        ddb.query(TableName="tbl", KeyConditionExpression=condition, ExpressionAttributeValues=used)
    assert _error(excinfo) == (
        "ValidationException",
        "One or more parameter values were invalid: Condition parameter type does not match "
        "schema type",
    )


# --- item 4: update expressions -------------------------------------------------------------


def test_remove_only_update_of_a_missing_item_creates_nothing(ddb: Any) -> None:
    key_table(ddb, sk_type=None)
    reply = ddb.update_item(
        TableName="tbl", Key=KEY, UpdateExpression="REMOVE a, b.c", ReturnValues="ALL_NEW"
    )
    assert "Attributes" not in reply
    assert _get(ddb) == {}
    assert ddb.scan(TableName="tbl")["Count"] == 0
    # An update with no action at all does create the key-only item.
    ddb.update_item(TableName="tbl", Key=KEY)
    assert _get(ddb) == KEY


def test_updated_old_and_new_return_only_the_nested_path(table: Any) -> None:
    table.put_item(
        TableName="tbl",
        Item={**KEY, "m": {"M": {"x": _n(1), "y": _n(2)}}, "other": {"S": "o"}},
    )
    request = {
        "TableName": "tbl",
        "Key": KEY,
        "UpdateExpression": "SET m.x = :v",
        "ExpressionAttributeValues": {":v": _n(10)},
    }
    old = table.update_item(**request, ReturnValues="UPDATED_OLD")["Attributes"]
    assert old == {"m": {"M": {"x": _n(1)}}}
    request["ExpressionAttributeValues"] = {":v": _n(11)}
    new = table.update_item(**request, ReturnValues="UPDATED_NEW")["Attributes"]
    assert new == {"m": {"M": {"x": _n(11)}}}


def test_set_past_the_end_of_a_list_appends_in_index_order(table: Any) -> None:
    table.put_item(TableName="tbl", Item={**KEY, "l": {"L": [{"S": "a"}]}})
    table.update_item(
        TableName="tbl",
        Key=KEY,
        UpdateExpression="SET l[84] = :x, l[37] = :y, l[17] = :z",
        ExpressionAttributeValues={":x": {"S": "x"}, ":y": {"S": "y"}, ":z": {"S": "z"}},
    )
    assert _get(table)["l"] == {"L": [{"S": "a"}, {"S": "z"}, {"S": "y"}, {"S": "x"}]}


@pytest.mark.parametrize(
    ("expression", "a", "b"),
    [
        ("SET r = :a + :b", "9e125", "9e125"),
        ("SET r = :a - :b", "9e125", "-9e125"),
        ("SET r = :a + :b", "1e50", "1"),  # 51 significant digits: not storable
        ("ADD n :a", "1e50", "0"),
    ],
)
def test_arithmetic_overflow_or_lost_precision_is_refused(
    table: Any, expression: str, a: str, b: str
) -> None:
    values = {":a": _n(a), ":b": _n(b)}
    used = {k: v for k, v in values.items() if k in expression}
    with pytest.raises(ClientError) as excinfo:
        table.update_item(
            TableName="tbl", Key=KEY, UpdateExpression=expression, ExpressionAttributeValues=used
        )
    assert _error(excinfo) == (
        "ValidationException",
        "Number overflow. Attempting to store a number with magnitude larger than supported range",
    )
    assert _get(table)["n"] == _n(5)


def test_exact_arithmetic_keeps_every_digit(table: Any) -> None:
    table.update_item(
        TableName="tbl",
        Key=KEY,
        UpdateExpression="SET r = :a + :b",
        ExpressionAttributeValues={":a": _n(1), ":b": _n("10000000000000000000000")},
    )
    assert _get(table)["r"] == _n("10000000000000000000001")


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        (
            "SET a = list_append(list_append(:l, :l), :l)",
            "Invalid UpdateExpression: The function is not allowed to be used this way in an "
            "expression; function: list_append",
        ),
        ("SET _123 = :l", 'Invalid UpdateExpression: Syntax error; token: "_", near: "SET _123 ="'),
    ],
)
def test_nested_functions_and_bad_name_tokens_are_refused(
    table: Any, expression: str, message: str
) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.update_item(
            TableName="tbl",
            Key=KEY,
            UpdateExpression=expression,
            ExpressionAttributeValues={":l": {"L": []}},
        )
    code, text = _error(excinfo)
    assert code == "ValidationException"
    assert text.startswith(message.split(" near")[0])


def test_nested_if_not_exists_inside_list_append_is_allowed(table: Any) -> None:
    table.update_item(
        TableName="tbl",
        Key=KEY,
        UpdateExpression="SET l = list_append(if_not_exists(l, :empty), :one)",
        ExpressionAttributeValues={":empty": {"L": []}, ":one": {"L": [_n(1)]}},
    )
    assert _get(table)["l"] == {"L": [_n(1)]}


@pytest.mark.parametrize("expression", ["REMOVE s.c", "REMOVE s[0]", "REMOVE absent.c"])
def test_remove_through_a_non_container_is_refused(table: Any, expression: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.update_item(TableName="tbl", Key=KEY, UpdateExpression=expression)
    assert _error(excinfo) == (
        "ValidationException",
        "The document path provided in the update expression is invalid for update",
    )


def test_remove_of_a_missing_leaf_is_no_error(table: Any) -> None:
    table.put_item(TableName="tbl", Item={**KEY, "m": {"M": {"x": _n(1)}}})
    table.update_item(TableName="tbl", Key=KEY, UpdateExpression="REMOVE m.y, nothing")
    assert _get(table) == {**KEY, "m": {"M": {"x": _n(1)}}}


# --- item 5: projections --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("projection", "message"),
    [
        (
            "s, s",
            "Invalid ProjectionExpression: Two document paths overlap with each other; must "
            "remove or rewrite one of these paths; path one: [s], path two: [s]",
        ),
        (
            "m, m.x",
            "Invalid ProjectionExpression: Two document paths overlap with each other; must "
            "remove or rewrite one of these paths; path one: [m], path two: [m, x]",
        ),
        (
            "m.x, m[0]",
            "Invalid ProjectionExpression: Two document paths conflict with each other; must "
            "remove or rewrite one of these paths; path one: [m, x], path two: [m, [0]]",
        ),
    ],
)
def test_overlapping_or_conflicting_projection_paths_are_refused(
    table: Any, projection: str, message: str
) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.get_item(TableName="tbl", Key=KEY, ProjectionExpression=projection)
    assert _error(excinfo) == ("ValidationException", message)


# --- further rules of DynamoDB's condition parser, as run against DynamoDB ----------------


def test_two_missing_attributes_are_not_equal(table: Any) -> None:
    assert _holds(table, "q <> z")
    assert not _holds(table, "q = z")


@pytest.mark.parametrize(
    ("condition", "values", "message"),
    [
        (
            "n < :l",
            {":l": {"L": []}},
            "Invalid ConditionExpression: Incorrect operand type for operator or function; "
            "operator or function: <, operand type: L",
        ),
        (
            "n BETWEEN :two AND :one",
            {":one": _n(1), ":two": _n(2)},
            "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be "
            "greater than or equal to lower bound",
        ),
        (
            "size(:n) > :n",
            {":n": _n(1)},
            "Invalid ConditionExpression: Incorrect operand type for operator or function; "
            "operator or function: size, operand type: N",
        ),
        (
            "size(s, s) > :n",
            {":n": _n(1)},
            "Invalid ConditionExpression: Incorrect number of operands for operator or "
            "function; operator or function: size, number of operands: 2",
        ),
        (
            "attribute_exists(:n)",
            {":n": _n(1)},
            "Invalid ConditionExpression: Operator or function requires a document path; "
            "operator or function: attribute_exists",
        ),
    ],
)
def test_a_constant_the_condition_cannot_use_is_refused(
    table: Any, condition: str, values: dict[str, Any], message: str
) -> None:
    with pytest.raises(ClientError) as excinfo:
        _holds(table, condition, values)
    code, text = _error(excinfo)
    assert code == "ValidationException" and text.startswith(message)


def test_bounds_read_from_the_item_out_of_order_make_a_false_condition(table: Any) -> None:
    assert not _holds(table, "n BETWEEN n AND :one", {":one": _n(1)})


def test_functions_take_a_constant_first(table: Any) -> None:
    assert _holds(table, "begins_with(:text, s)", {":text": {"S": "hello world"}})
    assert _holds(table, "attribute_type(:n, :type)", {":n": _n(1), ":type": {"S": "N"}})
    assert _holds(table, "size(:text) = :three", {":text": {"S": "abc"}, ":three": _n(3)})


@pytest.mark.parametrize(
    ("condition", "message"),
    [
        ("pk = :p AND pk = :p", "KeyConditionExpressions must only contain one condition per key"),
        ("pk = :p AND sk <> :p", "Invalid operator used in KeyConditionExpression: <>"),
        ("pk = :p OR sk = :p", "Invalid operator used in KeyConditionExpression: OR"),
        (
            "pk = :p AND attribute_exists(sk)",
            "Invalid operator used in KeyConditionExpression: attribute_exists",
        ),
        (
            "pk = :p AND sk.x = :p",
            "KeyConditionExpressions cannot have conditions on nested attributes",
        ),
    ],
)
def test_key_condition_refusals_name_the_operator(ddb: Any, condition: str, message: str) -> None:
    key_table(ddb, sk_type="S")
    with pytest.raises(ClientError) as excinfo:
        ddb.query(
            TableName="tbl",
            KeyConditionExpression=condition,
            ExpressionAttributeValues={":p": {"S": "k"}},
        )
    assert _error(excinfo) == ("ValidationException", message)


def test_remove_of_a_map_key_from_a_list_is_refused(table: Any) -> None:
    table.put_item(TableName="tbl", Item={**KEY, "l": {"L": [_n(1)]}})
    with pytest.raises(ClientError) as excinfo:
        table.update_item(TableName="tbl", Key=KEY, UpdateExpression="REMOVE l.c")
    assert _error(excinfo) == (
        "ValidationException",
        "The document path provided in the update expression is invalid for update",
    )


def test_a_value_that_is_not_a_number_is_refused_in_dynamodbs_words(table: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.put_item(TableName="tbl", Item={**KEY, "n": {"N": "dog"}})
    assert _error(excinfo) == (
        "ValidationException",
        "The parameter cannot be converted to a numeric value: dog",
    )
