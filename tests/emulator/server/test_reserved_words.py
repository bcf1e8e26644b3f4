"""Reserved words (issue 25, "a team's own application runs against the emulator"):
DynamoDB refuses an expression that names an attribute by one of its reserved words
written bare (`SET name = :v`, `ProjectionExpression: status`), so an application that
forgot a `#placeholder` must fail here as it fails on DynamoDB. The words are
https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ReservedWords.html; the
message and which error wins when there are several are those dynalite's tests, run
against AWS, expect (test/getItem.js, test/scan.js, test/updateItem.js: "should return
ValidationException for reserved keywords" and the syntax-error cases next to them).

In process (Service.handle): no sockets, each case a few milliseconds."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from emulator.emulator_options import EmulatorOptions
from emulator.server.reserved_words import RESERVED_WORDS
from emulator.server.service import Service
from emulator.wire import TARGET_PREFIX
from tests.emulator.server.conftest import refusal

KEY = {"name": {"S": "k"}}
"""The table's partition key is `name`, itself a reserved word (an application's table
may well be keyed so: a key condition must then name it through a placeholder)."""
V = {":v": {"S": "x"}}


@pytest.fixture
def service() -> Iterator[Service]:
    service = Service(EmulatorOptions(create_delay_s=0))
    _call(
        service,
        "CreateTable",
        {
            "TableName": "tbl",
            "KeySchema": [{"AttributeName": "name", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "name", "AttributeType": "S"}],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    _call(
        service,
        "PutItem",
        {"TableName": "tbl", "Item": {**KEY, "status": {"S": "old"}, "a": {"M": {}}}},
    )
    yield service
    assert service.internal_errors == 0


def _call(service: Service, operation: str, body: dict[str, Any]) -> dict[str, Any]:
    status, payload = service.handle(TARGET_PREFIX + operation, json.dumps(body).encode())
    assert status == 200, payload
    reply: dict[str, Any] = json.loads(payload)
    return reply


def _reserved(kind: str, word: str) -> tuple[str, str]:
    return (
        "ValidationException",
        f"Invalid {kind}: Attribute name is a reserved keyword; reserved keyword: {word}",
    )


def _request(
    kind: str, expression: str, names: dict[str, str] | None = None
) -> tuple[str, dict[str, Any]]:
    """(operation, request) sending `expression` as a `kind`, with what else it needs."""
    body: dict[str, Any] = {"TableName": "tbl"}
    if kind == "UpdateExpression":
        operation = "UpdateItem"
        body.update(Key=KEY, UpdateExpression=expression, ExpressionAttributeValues=V)
    elif kind == "ConditionExpression":
        operation = "PutItem"
        body.update(Item=KEY, ConditionExpression=expression, ExpressionAttributeValues=V)
    elif kind == "ProjectionExpression":
        operation = "GetItem"
        body.update(Key=KEY, ProjectionExpression=expression)
    elif kind == "FilterExpression":
        operation = "Scan"
        body.update(FilterExpression=expression, ExpressionAttributeValues=V)
    else:
        operation = "Query"
        body.update(
            KeyConditionExpression=expression, ExpressionAttributeValues={":v": KEY["name"]}
        )
    if names:
        body["ExpressionAttributeNames"] = names
    return operation, body


# (kind, the expression with `{}` where the attribute name goes)
KINDS = [
    ("UpdateExpression", "SET {} = :v"),
    ("ConditionExpression", "{} <> :v"),
    ("ProjectionExpression", "{}"),
    ("FilterExpression", "{} <> :v"),
    ("KeyConditionExpression", "{} = :v"),
]


@pytest.mark.parametrize(("kind", "template"), KINDS)
@pytest.mark.parametrize("word", ["status", "STATUS", "Name"])
def test_a_reserved_word_as_a_bare_name_is_refused_in_every_expression(
    service: Service, kind: str, template: str, word: str
) -> None:
    # The list is not case-sensitive; the message quotes the word as it was written.
    operation, body = _request(kind, template.format(word))
    assert refusal(service, operation, body) == _reserved(kind, word)


@pytest.mark.parametrize(("kind", "template"), KINDS)
def test_the_same_name_through_a_placeholder_is_taken(
    service: Service, kind: str, template: str
) -> None:
    # The key condition must name the key: `name`; the others `status`.
    attribute = "name" if kind == "KeyConditionExpression" else "status"
    operation, body = _request(kind, template.format("#n"), {"#n": attribute})
    _call(service, operation, body)


def test_a_placeholder_for_a_reserved_word_reads_and_writes_it(service: Service) -> None:
    _call(
        service,
        "UpdateItem",
        {
            "TableName": "tbl",
            "Key": KEY,
            "UpdateExpression": "SET #s = :v",
            "ConditionExpression": "#s = :old",
            "ExpressionAttributeNames": {"#s": "status"},
            "ExpressionAttributeValues": {**V, ":old": {"S": "old"}},
        },
    )
    item = _call(
        service,
        "GetItem",
        {
            "TableName": "tbl",
            "Key": KEY,
            "ProjectionExpression": "#s",
            "ExpressionAttributeNames": {"#s": "status"},
        },
    )["Item"]
    assert item == {"status": {"S": "x"}}


@pytest.mark.parametrize(
    ("expression", "word"),
    [
        ("a.abORt", "abORt"),  # dynalite's getItem.js, recorded against AWS
        ("a.status", "status"),
        ("status.a", "status"),
        ("a[0].name", "name"),
        ("a.b, c.Date", "Date"),
        ("#a.status", "status"),
    ],
)
def test_every_element_of_a_document_path_is_checked(
    service: Service, expression: str, word: str
) -> None:
    body = {"TableName": "tbl", "Key": KEY, "ProjectionExpression": expression}
    if "#a" in expression:
        body["ExpressionAttributeNames"] = {"#a": "a"}
    assert refusal(service, "GetItem", body) == _reserved("ProjectionExpression", word)


@pytest.mark.parametrize(
    "expression", ["a.b", "stat", "statuses", "named", "a.#s", "a[0].b", "x_status, name_1"]
)
def test_names_that_are_not_reserved_words_are_taken(service: Service, expression: str) -> None:
    body: dict[str, Any] = {"TableName": "tbl", "Key": KEY, "ProjectionExpression": expression}
    if "#s" in expression:
        body["ExpressionAttributeNames"] = {"#s": "status"}
    _call(service, "GetItem", body)


def test_function_names_are_not_attribute_names(service: Service) -> None:
    # SIZE is a reserved word, as an attribute's name; size(...) is the function.
    _call(
        service,
        "Scan",
        {
            "TableName": "tbl",
            "FilterExpression": "size(a) < :n AND attribute_exists(a) AND NOT begins_with(a, :v)",
            "ExpressionAttributeValues": {**V, ":n": {"N": "3"}},
        },
    )
    _call(
        service,
        "UpdateItem",
        {
            "TableName": "tbl",
            "Key": KEY,
            "UpdateExpression": "SET l = list_append(if_not_exists(l, :e), :e) REMOVE b",
            "ExpressionAttributeValues": {":e": {"L": []}},
        },
    )
    body = {"TableName": "tbl", "FilterExpression": "size > :v", "ExpressionAttributeValues": V}
    assert refusal(service, "Scan", body) == _reserved("FilterExpression", "size")


# What wins when an expression has a reserved word and something else wrong: the cases
# of dynalite's tests (recorded against AWS) on a table that does not exist (all of this
# is refused before the table is looked up).
@pytest.mark.parametrize(
    ("operation", "extra", "word"),
    [
        # Before an undefined placeholder and a second SET section.
        (
            "UpdateItem",
            {
                "Key": {},
                "UpdateExpression": " set #c = :c set abOrt = true ",
                "ExpressionAttributeValues": {":a": {"S": "a"}, ":b": {"S": "a"}},
                "ExpressionAttributeNames": {"#a": "a", "#b": "b"},
            },
            "abOrt",
        ),
        ("UpdateItem", {"Key": {}, "UpdateExpression": " remove Absolute "}, "Absolute"),
        ("GetItem", {"Key": {}, "ProjectionExpression": "#a,ABSoLUTE"}, "ABSoLUTE"),
        # Before the wrong number of operands and an undefined placeholder.
        ("Scan", {"FilterExpression": "attribute_exists(views, #a)"}, "views"),
        ("Scan", {"FilterExpression": ":a < abOrT"}, "abOrT"),
    ],
)
def test_a_reserved_word_is_reported_before_other_mistakes(
    service: Service, operation: str, extra: dict[str, Any], word: str
) -> None:
    kind = next(k for k in extra if k.endswith("Expression"))
    body = {"TableName": "abc", **extra}
    assert refusal(service, operation, body) == _reserved(kind, word)


@pytest.mark.parametrize(
    ("operation", "extra"),
    [
        # dynalite's "syntax error" cases: the syntax is answered, not the reserved word.
        ("GetItem", {"Key": {}, "ProjectionExpression": "abort,"}),
        ("UpdateItem", {"Key": {}, "UpdateExpression": "add abort b"}),
        # `set` is SET here, not a name (the emulator took it as one before).
        ("UpdateItem", {"Key": {}, "UpdateExpression": "set a=set"}),
        ("Scan", {"FilterExpression": "status > between"}),
    ],
)
def test_a_syntax_error_is_reported_before_a_reserved_word(
    service: Service, operation: str, extra: dict[str, Any]
) -> None:
    kind = next(k for k in extra if k.endswith("Expression"))
    code, message = refusal(service, operation, {"TableName": "abc", **extra})
    assert code == "ValidationException"
    assert message.startswith(f"Invalid {kind}: Syntax error; "), message


def test_in_a_condition_a_misused_function_is_reported_first(service: Service) -> None:
    # [AWS] dynalite's scan.js expects `a=a and attribute_exists((views), (#a)) > b` to
    # answer the function, though `views` is reserved; this is its `a between b and
    # attribute_exists(things)` case with a reserved word in it.
    body = {"TableName": "abc", "FilterExpression": "status between b and attribute_exists(c)"}
    assert refusal(service, "Scan", body) == (
        "ValidationException",
        "Invalid FilterExpression: The function is not allowed to be used this way in an "
        "expression; function: attribute_exists",
    )


def test_the_words_of_another_grammar_are_names(service: Service) -> None:
    # dynalite's grammars (written against AWS) keep out of a name's place only their
    # own words: SET is a condition's attribute name (reserved), AND an update's.
    cond = {"TableName": "abc", "FilterExpression": "Set = :v", "ExpressionAttributeValues": V}
    assert refusal(service, "Scan", cond) == _reserved("FilterExpression", "Set")
    update = {"TableName": "abc", "Key": {}, "UpdateExpression": "REMOVE a, and"}
    assert refusal(service, "UpdateItem", update) == _reserved("UpdateExpression", "and")


def test_partiql_names_every_attribute_through_a_placeholder(service: Service) -> None:
    # PartiQL quotes a reserved word as an identifier; its translation into an
    # expression must not leave it bare.
    _call(
        service,
        "ExecuteStatement",
        {"Statement": "UPDATE tbl SET \"status\" = 'new' WHERE \"name\" = 'k'"},
    )
    reply = _call(
        service,
        "ExecuteStatement",
        {"Statement": 'SELECT "status", a FROM tbl WHERE "name" = \'k\' AND "status" = \'new\''},
    )
    assert reply["Items"] == [{"status": {"S": "new"}, "a": {"M": {}}}]


def test_the_list_is_the_pages_573_words_upper_case() -> None:
    assert len(RESERVED_WORDS) == 573
    assert all(word == word.upper() for word in RESERVED_WORDS)
    assert {"ABORT", "NAME", "STATUS", "SIZE", "ZONE"} <= RESERVED_WORDS
    assert not {"ATTRIBUTE_EXISTS", "IF_NOT_EXISTS", "LIST_APPEND", "BEGINS_WITH"} & RESERVED_WORDS
