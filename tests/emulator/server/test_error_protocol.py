"""DynamoDB's error protocol (issue 25): a request is bound to its operation's shape
before any table is looked up; a member of the wrong JSON type is a
SerializationException; every violated constraint of one request is listed in one
ValidationException, in DynamoDB's words ("N validation errors detected: ...; ...").

Raw JSON over HTTP (botocore would refuse most of these before sending)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from emulator.server.service import Service
from tests.emulator.server.conftest import client, key_table, refusal


@pytest.fixture(scope="module")
def service() -> Iterator[Service]:
    with EmulatorServer(EmulatorOptions(create_delay_s=0)) as emu:
        key_table(client(emu.endpoint_url))
        yield emu.service
        assert emu.service.internal_errors == 0


def _violations(message: str) -> set[str]:
    head, _, rest = message.partition(" detected: ")
    parts = set(rest.split("; "))
    assert head == f"{len(parts)} validation error{'s' if len(parts) > 1 else ''}", message
    return parts


def test_every_violation_of_a_create_table_is_listed_in_one_message(service: Service) -> None:
    code, message = refusal(
        service,
        "CreateTable",
        {
            "TableName": "abc;",
            "KeySchema": [],
            "ProvisionedThroughput": {"ReadCapacityUnits": 0, "WriteCapacityUnits": -1},
            "BillingMode": "A",
        },
    )
    assert code == "ValidationException"
    assert _violations(message) == {
        "Value 'abc;' at 'tableName' failed to satisfy constraint: Member must satisfy "
        "regular expression pattern: [a-zA-Z0-9_.-]+",
        "Value null at 'attributeDefinitions' failed to satisfy constraint: "
        "Member must not be null",
        "Value '[]' at 'keySchema' failed to satisfy constraint: Member must have length "
        "greater than or equal to 1",
        "Value 'A' at 'billingMode' failed to satisfy constraint: Member must satisfy enum "
        "value set: [PROVISIONED, PAY_PER_REQUEST]",
        "Value '0' at 'provisionedThroughput.readCapacityUnits' failed to satisfy constraint: "
        "Member must have value greater than or equal to 1",
        "Value '-1' at 'provisionedThroughput.writeCapacityUnits' failed to satisfy "
        "constraint: Member must have value greater than or equal to 1",
    }


def test_nested_members_are_named_by_their_path(service: Service) -> None:
    code, message = refusal(
        service,
        "CreateTable",
        {
            "TableName": "abc",
            "AttributeDefinitions": [{"AttributeName": "a", "AttributeType": "SS"}, {}],
            "KeySchema": [{"KeyType": "HASH"}, {"AttributeName": "a"}, {"AttributeName": "b"}],
            "BillingMode": "PAY_PER_REQUEST",
        },
    )
    assert code == "ValidationException"
    parts = _violations(message)
    assert (
        "Value 'SS' at 'attributeDefinitions.1.member.attributeType' failed to satisfy "
        "constraint: Member must satisfy enum value set: [B, N, S]"
    ) in parts
    assert (
        "Value null at 'attributeDefinitions.2.member.attributeName' failed to satisfy "
        "constraint: Member must not be null"
    ) in parts
    assert (
        "Value null at 'keySchema.1.member.attributeName' failed to satisfy constraint: "
        "Member must not be null"
    ) in parts
    assert (
        "Value null at 'keySchema.2.member.keyType' failed to satisfy constraint: "
        "Member must not be null"
    ) in parts
    assert any(
        p.startswith("Value '[")
        and p.endswith(
            "at 'keySchema' failed to satisfy constraint: "
            "Member must have length less than or equal to 2"
        )
        for p in parts
    )


@pytest.mark.parametrize(
    ("operation", "body", "message"),
    [
        ("PutItem", {"TableName": 5, "Item": {}}, "NUMBER_VALUE cannot be converted to String"),
        (
            "CreateTable",
            {"TableName": "abc", "ProvisionedThroughput": {"ReadCapacityUnits": "5"}},
            "STRING_VALUE cannot be converted to Long",
        ),
        ("Query", {"TableName": "tbl", "Limit": True}, "TRUE_VALUE cannot be converted to Integer"),
        (
            "Query",
            {"TableName": "tbl", "ScanIndexForward": 1},
            "NUMBER_VALUE cannot be converted to Boolean",
        ),
        (
            "GetItem",
            {"TableName": "tbl", "Key": []},
            "Unrecognized collection type java.util.Map<java.lang.String, "
            "com.amazonaws.dynamodb.v20120810.AttributeValue>",
        ),
        (
            "CreateTable",
            {"TableName": "abc", "KeySchema": {"a": 1}},
            "Start of structure or map found where not expected",
        ),
        (
            "CreateTable",
            {"TableName": "abc", "KeySchema": ["x"]},
            "Unexpected value type in payload",
        ),
        (
            "CreateTable",
            {"TableName": "abc", "ProvisionedThroughput": {"ReadCapacityUnits": 2**63}},
            "Numeric value (9223372036854775808) out of range of long "
            "(-9223372036854775808 - 9223372036854775807)",
        ),
    ],
)
def test_a_member_of_the_wrong_json_type_is_a_serialization_exception(
    service: Service, operation: str, body: dict[str, Any], message: str
) -> None:
    assert refusal(service, operation, body) == ("SerializationException", message)


@pytest.mark.parametrize(
    ("operation", "body", "expected"),
    [
        (
            "PutItem",
            {"TableName": "missing"},
            "1 validation error detected: Value null at 'item' failed to satisfy constraint: "
            "Member must not be null",
        ),
        (
            "Query",
            {"TableName": "missing", "Limit": 0},
            "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: "
            "Member must have value greater than or equal to 1",
        ),
        (
            "UpdateItem",
            {"TableName": "missing", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "SET"},
            None,
        ),
        (
            "GetItem",
            {"TableName": "missing", "Key": {"pk": {"S": "a"}}, "ReturnConsumedCapacity": "ALL"},
            "1 validation error detected: Value 'ALL' at 'returnConsumedCapacity' failed to "
            "satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]",
        ),
        (
            "DescribeTable",
            {"TableName": "ab"},
            "1 validation error detected: Value 'ab' at 'tableName' failed to satisfy "
            "constraint: Member must have length greater than or equal to 3",
        ),
    ],
)
def test_a_malformed_request_to_a_missing_table_is_refused_as_malformed(
    service: Service, operation: str, body: dict[str, Any], expected: str | None
) -> None:
    code, message = refusal(service, operation, body)
    assert code == "ValidationException"
    if expected is not None:
        assert message == expected
    else:
        assert "Syntax error" in message


def test_two_violations_of_a_data_plane_request(service: Service) -> None:
    code, message = refusal(
        service,
        "Scan",
        {"TableName": "tbl", "Limit": 0, "Select": "EVERYTHING"},
    )
    assert code == "ValidationException"
    assert _violations(message) == {
        "Value '0' at 'limit' failed to satisfy constraint: Member must have value "
        "greater than or equal to 1",
        "Value 'EVERYTHING' at 'select' failed to satisfy constraint: Member must satisfy "
        "enum value set: [ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES, SPECIFIC_ATTRIBUTES, COUNT]",
    }
