"""Conformance, issue 16 item 8: key and attribute-name sizes, table and index names,
Select, a parallel Scan's ExclusiveStartKey, and the size of request headers."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.server import EmulatorServer
from tests.emulator.server.conftest import key_table


def _error(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = excinfo.value.response["Error"]
    return error["Code"], error["Message"]


HASHKEY_MESSAGE = (
    "One or more parameter values were invalid: Size of hashkey has exceeded the maximum "
    "size limit of2048 bytes"
)
RANGEKEY_MESSAGE = (
    "One or more parameter values were invalid: Aggregated size of all range keys has "
    "exceeded the size limit of 1024 bytes"
)


def test_partition_key_of_2048_bytes_is_the_largest(ddb: Any) -> None:
    key_table(ddb, sk_type=None)
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "é" * 1024}})  # 2,048 bytes
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "é" * 1024 + "x"}})
    assert _error(excinfo) == ("ValidationException", HASHKEY_MESSAGE)
    with pytest.raises(ClientError) as excinfo:
        ddb.get_item(TableName="tbl", Key={"pk": {"S": "x" * 2049}})
    assert _error(excinfo) == ("ValidationException", HASHKEY_MESSAGE)


def test_sort_key_of_1024_bytes_is_the_largest(ddb: Any) -> None:
    key_table(ddb, sk_type="B")
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "k"}, "sk": {"B": b"\x01" * 1024}})
    for write in ("put", "delete", "batch"):
        with pytest.raises(ClientError) as excinfo:
            too_big = {"pk": {"S": "k"}, "sk": {"B": b"\x01" * 1025}}
            if write == "put":
                ddb.put_item(TableName="tbl", Item=too_big)
            elif write == "delete":
                ddb.delete_item(TableName="tbl", Key=too_big)
            else:
                ddb.batch_write_item(RequestItems={"tbl": [{"PutRequest": {"Item": too_big}}]})
        assert _error(excinfo) == ("ValidationException", RANGEKEY_MESSAGE)


def test_attribute_names_are_at_most_65535_bytes(ddb: Any) -> None:
    key_table(ddb, sk_type=None)
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "k"}, "a" * 65535: {"N": "1"}})
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "k"}, "a" * 65536: {"N": "1"}})
    code, message = _error(excinfo)
    assert code == "ValidationException" and "65535" in message
    with pytest.raises(ClientError) as excinfo:
        ddb.get_item(
            TableName="tbl",
            Key={"pk": {"S": "k"}},
            ProjectionExpression="#n",
            ExpressionAttributeNames={"#n": "a" * 65536},
        )
    assert _error(excinfo)[0] == "ValidationException"


@pytest.mark.parametrize(
    ("name", "constraint"),
    [
        ("ab", "Member must have length greater than or equal to 3"),
        ("x" * 256, "Member must have length less than or equal to 255"),
        ("a b", "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"),
    ],
)
def test_table_names_are_3_to_255_of_the_allowed_characters(
    ddb: Any, name: str, constraint: str
) -> None:
    expected = (
        "ValidationException",
        f"1 validation error detected: Value '{name}' at 'tableName' failed to satisfy "
        f"constraint: {constraint}",
    )
    with pytest.raises(ClientError) as excinfo:
        key_table(ddb, name=name)
    assert _error(excinfo) == expected
    with pytest.raises(ClientError) as excinfo:  # checked before the table is looked for
        ddb.get_item(TableName=name, Key={"pk": {"S": "k"}})
    assert _error(excinfo) == expected
    key_table(ddb, name="Aa0_.-" + "z" * 249)  # 255 of the allowed characters


def test_index_names_follow_the_same_rule(ddb: Any) -> None:
    index = {
        "IndexName": "by g",
        "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"},
    }
    with pytest.raises(ClientError) as excinfo:
        key_table(ddb, GlobalSecondaryIndexes=[index])
    assert _error(excinfo) == (
        "ValidationException",
        "1 validation error detected: Value 'by g' at "
        "'globalSecondaryIndexes.1.member.indexName' failed to satisfy constraint: "
        "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+",
    )


@pytest.mark.parametrize(
    ("members", "message"),
    [
        (
            {"Select": "SPECIFIC_ATTRIBUTES"},
            "Must specify the AttributesToGet or ProjectionExpression when choosing to get "
            "SPECIFIC_ATTRIBUTES",
        ),
        (
            {"Select": "COUNT", "ProjectionExpression": "a"},
            "Cannot specify the ProjectionExpression when choosing to get COUNT",
        ),
        (
            {"Select": "ALL_ATTRIBUTES", "AttributesToGet": ["a"]},
            "Cannot specify the AttributesToGet when choosing to get ALL_ATTRIBUTES",
        ),
        (
            {"Select": "ALL_PROJECTED_ATTRIBUTES"},
            "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
        ),
    ],
)
def test_an_invalid_select_is_refused(ddb: Any, members: dict[str, Any], message: str) -> None:
    key_table(ddb, sk_type=None)
    with pytest.raises(ClientError) as excinfo:
        ddb.scan(TableName="tbl", **members)
    assert _error(excinfo) == ("ValidationException", message)


def test_parallel_scan_refuses_a_start_key_of_another_segment(ddb: Any) -> None:
    key_table(ddb, sk_type=None)
    for i in range(40):
        ddb.put_item(TableName="tbl", Item={"pk": {"S": f"k{i}"}})
    first = ddb.scan(TableName="tbl", Segment=0, TotalSegments=2, Limit=1)
    start = first["LastEvaluatedKey"]
    ddb.scan(TableName="tbl", Segment=0, TotalSegments=2, ExclusiveStartKey=start)
    with pytest.raises(ClientError) as excinfo:
        ddb.scan(TableName="tbl", Segment=1, TotalSegments=2, ExclusiveStartKey=start)
    assert _error(excinfo) == (
        "ValidationException",
        "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use "
        "ExclusiveStartKey with correct Segment. TotalSegments: 2 Segment: 1",
    )


def _status(emu: EmulatorServer, extra_headers: bytes) -> int:
    """The HTTP status of a ListTables (answered 200 when served) sent with extra headers."""
    host, port = emu.endpoint_url.removeprefix("http://").split(":")
    body = b"{}"
    request = (
        b"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\n"
        b"Content-Type: application/x-amz-json-1.0\r\n"
        + extra_headers
        + b"Content-Length: "
        + str(len(body)).encode()
        + b"\r\nConnection: close\r\n\r\n"
        + body
    )
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return int(reply.split(b" ", 2)[1])


def test_request_headers_over_16_kb_get_a_400(emu: EmulatorServer) -> None:
    assert _status(emu, b"X-One: " + b"x" * 8000 + b"\r\n") == 200
    big = b"X-One: " + b"x" * 8192 + b"\r\nX-Two: " + b"y" * 8192 + b"\r\n"
    assert _status(emu, big) == 400


def test_expression_size_and_nesting_are_named(ddb: Any) -> None:
    key_table(ddb, sk_type=None)
    with pytest.raises(ClientError) as excinfo:
        ddb.scan(TableName="tbl", FilterExpression="a = a AND " * 500 + "a = a")
    code, message = _error(excinfo)
    assert code == "ValidationException"
    assert message.startswith(
        "Invalid FilterExpression: Expression size has exceeded the maximum allowed size; "
        "expression size: "
    )
    # Deep nesting is parsed; one past the parser's depth is the expression's error.
    ddb.scan(TableName="tbl", FilterExpression="(" * 100 + "a = a" + ")" * 100)
    with pytest.raises(ClientError) as excinfo:
        ddb.scan(TableName="tbl", FilterExpression="(" * 4096)
    assert _error(excinfo)[1].startswith("Invalid FilterExpression")


def test_empty_attribute_name_and_start_key_types(ddb: Any) -> None:
    key_table(ddb, sk_type="N")
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "k"}, "sk": {"N": "1"}, "": {"N": "1"}})
    assert _error(excinfo) == (
        "ValidationException",
        "One or more parameter values were invalid: Empty attribute name",
    )
    with pytest.raises(ClientError) as excinfo:
        ddb.query(
            TableName="tbl",
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "k"}},
            ExclusiveStartKey={"pk": {"S": "k"}, "sk": {"S": "1"}},
        )
    assert _error(excinfo) == (
        "ValidationException",
        "The provided starting key is invalid: The provided key element does not match the schema",
    )
