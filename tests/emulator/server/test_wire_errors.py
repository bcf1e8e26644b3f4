"""Client mistakes over raw HTTP (what botocore would refuse before sending): each gets
the DynamoDB error a real client would get, never a 5xx, never a dropped connection."""

from __future__ import annotations

import http.client
import json
import threading
import urllib.error
import urllib.request
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from tests.emulator.server.conftest import client, key_table

TARGET = "DynamoDB_20120810."


def post(url: str, body: bytes, target: str | None) -> tuple[int, dict[str, Any], str]:
    headers = {"Content-Type": "application/x-amz-json-1.0"}
    if target is not None:
        headers["X-Amz-Target"] = target
    request = urllib.request.Request(url + "/", data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read()), response.headers["Content-Type"]
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read()), err.headers["Content-Type"]


@pytest.fixture(scope="module")
def shared() -> Any:
    with EmulatorServer(EmulatorOptions(create_delay_s=0)) as server:
        key_table(client(server.endpoint_url), billing="PROVISIONED")
        yield server
        assert server.service.internal_errors == 0


@pytest.mark.parametrize(
    ("body", "target", "error_type", "text"),
    [
        (b"{not json", TARGET + "PutItem", "com.amazon.coral.service#SerializationException", ""),
        (b"[1, 2]", TARGET + "GetItem", "com.amazon.coral.service#SerializationException", ""),
        (b"{}", TARGET + "Frobnicate", "com.amazon.coral.service#UnknownOperationException", ""),
        (b"{}", None, "com.amazon.coral.service#UnknownOperationException", ""),
        (
            b"{}",
            TARGET + "CreateBackup",
            "com.amazon.coral.service#UnknownOperationException",
            "not supported",
        ),
        (
            b"{}",
            TARGET + "PutItem",
            "com.amazon.coral.validate#ValidationException",
            "Value null at 'tableName'",
        ),
        (
            b'{"TableName": 5}',
            TARGET + "PutItem",
            "com.amazon.coral.service#SerializationException",
            "NUMBER_VALUE cannot be converted to String",
        ),
        (
            b'{"TableName": "tbl", "Item": "x"}',
            TARGET + "PutItem",
            "com.amazon.coral.service#SerializationException",
            "Unexpected field type",
        ),
        (
            b'{"TableName": "tbl", "Item": {"pk": {"S": "a"}}}',
            TARGET + "PutItem",
            "com.amazon.coral.validate#ValidationException",
            "Missing the key sk",
        ),
        (
            b'{"TableName": "tbl", "Item": {"pk": {"N": "1"}, "sk": {"S": "a"}}}',
            TARGET + "PutItem",
            "com.amazon.coral.validate#ValidationException",
            "Type mismatch for key pk",
        ),
        (
            b'{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"S": "b"}, '
            b'"x": {"N": "abc"}}}',
            TARGET + "PutItem",
            "com.amazon.coral.validate#ValidationException",
            "cannot be converted to a numeric value",
        ),
        (
            b'{"TableName": "tbl", "Key": {"pk": {"S": "a"}}}',
            TARGET + "GetItem",
            "com.amazon.coral.validate#ValidationException",
            "does not match the schema",
        ),
        (
            b'{"TableName": "nope", "Key": {"pk": {"S": "a"}}}',
            TARGET + "GetItem",
            "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",
            "Requested resource not found",
        ),
        (
            b'{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"S": "b"}}, '
            b'"ConditionExpression": "attribute_exists("}',
            TARGET + "PutItem",
            "com.amazon.coral.validate#ValidationException",
            "Invalid ConditionExpression",
        ),
        (
            b'{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"S": "b"}}, '
            b'"ConditionExpression": "x = :missing"}',
            TARGET + "PutItem",
            "com.amazon.coral.validate#ValidationException",
            ":missing",
        ),
        (
            b'{"TableName": "tbl", "Item": {"pk": {"S": "a"}, "sk": {"S": "b"}}, '
            b'"ExpressionAttributeValues": {":u": {"S": "x"}}}',
            TARGET + "PutItem",
            "com.amazon.coral.validate#ValidationException",
            # DynamoDB's words when no expression could use the placeholders.
            "ExpressionAttributeValues can only be specified when using expressions",
        ),
    ],
)
def test_client_mistakes_get_dynamodb_errors(
    shared: EmulatorServer, body: bytes, target: str | None, error_type: str, text: str
) -> None:
    status, payload, content_type = post(shared.endpoint_url, body, target)
    assert status == 400
    assert content_type == "application/x-amz-json-1.0"
    assert payload["__type"] == error_type
    # [AWS] the service layer's errors carry "Message" (or nothing), the others "message".
    key = "Message" if error_type.startswith("com.amazon.coral.service#") else "message"
    assert set(payload) <= {"__type", key}
    assert text in payload.get(key, "")


def test_oversize_item_is_refused(shared: EmulatorServer) -> None:
    item = {"pk": {"S": "a"}, "sk": {"S": "b"}, "big": {"S": "x" * (400 * 1024)}}
    body = json.dumps({"TableName": "tbl", "Item": item}).encode()
    status, payload, _ = post(shared.endpoint_url, body, TARGET + "PutItem")
    assert status == 400
    assert payload["message"] == "Item size has exceeded the maximum allowed size"
    ddb = client(shared.endpoint_url)
    with pytest.raises(ddb.exceptions.ClientError) as err:
        ddb.put_item(TableName="tbl", Item=item)
    assert err.value.response["Error"]["Code"] == "ValidationException"


def test_request_over_16_mb_is_a_4xx(shared: EmulatorServer) -> None:
    status, payload, _ = post(shared.endpoint_url, b"x" * (17 * 1024 * 1024), TARGET + "PutItem")
    assert 400 <= status < 500
    assert payload["__type"].endswith("ValidationException")


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "TableName",
                    "Item",
                    "Key",
                    "S",
                    "N",
                    "B",
                    "M",
                    "L",
                    "SS",
                    "pk",
                    "sk",
                    "ConditionExpression",
                    "UpdateExpression",
                    "KeyConditionExpression",
                    "ExpressionAttributeValues",
                    "ExpressionAttributeNames",
                    "Limit",
                    "RequestItems",
                    ":v",
                    "#n",
                    "ExclusiveStartKey",
                    "IndexName",
                ]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)
OPERATIONS = [
    "PutItem",
    "GetItem",
    "UpdateItem",
    "DeleteItem",
    "Query",
    "Scan",
    "BatchWriteItem",
    "BatchGetItem",
    "CreateTable",
    "UpdateTable",
    "DescribeTable",
    "ListTables",
    "TagResource",
    "Nope",
    "",
]


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    operation=st.sampled_from(OPERATIONS),
    body=JSONISH,
    table=st.sampled_from(["tbl", "missing", ""]),
    raw=st.binary(max_size=64),
    use_raw=st.booleans(),
)
def test_random_requests_never_5xx(
    shared: EmulatorServer, operation: str, body: Any, table: str, raw: bytes, use_raw: bool
) -> None:
    if isinstance(body, dict) and table:
        body.setdefault("TableName", table)
    data = raw if use_raw else json.dumps(body).encode()
    status, payload, _ = post(shared.endpoint_url, data, TARGET + operation)
    assert status < 500, payload
    assert status == 200 or "__type" in payload
    assert shared.service.internal_errors == 0


def test_still_serves_after_the_fuzz(shared: EmulatorServer) -> None:
    status, payload, _ = post(
        shared.endpoint_url, b'{"TableName": "tbl"}', TARGET + "DescribeTable"
    )
    assert status == 200 and payload["Table"]["TableName"] == "tbl"


def test_conditional_race_has_exactly_one_winner(emu: EmulatorServer) -> None:
    key_table(client(emu.endpoint_url))
    clients = [client(emu.endpoint_url) for _ in range(8)]
    start = threading.Barrier(len(clients))
    outcomes: list[str] = []

    def attempt(i: int) -> None:
        ddb = clients[i]
        start.wait()
        try:
            ddb.put_item(
                TableName="tbl",
                Item={"pk": {"S": "seat"}, "sk": {"S": "1A"}, "owner": {"S": f"client{i}"}},
                ConditionExpression="attribute_not_exists(pk)",
            )
            outcomes.append(f"won:{i}")
        except ddb.exceptions.ConditionalCheckFailedException:
            outcomes.append("lost")

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [o for o in outcomes if o.startswith("won")]
    assert len(winners) == 1 and outcomes.count("lost") == len(clients) - 1
    item = clients[0].get_item(TableName="tbl", Key={"pk": {"S": "seat"}, "sk": {"S": "1A"}})
    assert item["Item"]["owner"]["S"] == "client" + winners[0].split(":")[1]


@pytest.mark.parametrize(
    ("body", "target", "expected"),
    [
        (b"hi", None, {"__type": "com.amazon.coral.service#SerializationException"}),
        (
            b"hi",
            TARGET + "ListTables",
            {"__type": "com.amazon.coral.service#SerializationException"},
        ),
        (b"{}", None, {"__type": "com.amazon.coral.service#UnknownOperationException"}),
        (
            b"{}",
            TARGET + "ListTable",
            {"__type": "com.amazon.coral.service#UnknownOperationException"},
        ),
        (
            b'{"TableName": 5}',
            TARGET + "DescribeTable",
            {
                "__type": "com.amazon.coral.service#SerializationException",
                "Message": "NUMBER_VALUE cannot be converted to String",
            },
        ),
    ],
)
def test_service_layer_errors_have_dynamodbs_bodies(
    shared: EmulatorServer, body: bytes, target: str | None, expected: dict[str, Any]
) -> None:
    """The body is read before the target (a body that is not JSON is a
    SerializationException whatever the target), and the service layer's errors carry
    "Message" or no text at all: DynamoDB's answers to dynalite's test/connection.js."""
    status, payload, _ = post(shared.endpoint_url, body, target)
    assert (status, payload) == (400, expected)


def test_error_bodies_are_the_bytes_dynamodb_sends(shared: EmulatorServer) -> None:
    """[AWS] compact JSON, so the body and its x-amz-crc32 are DynamoDB's to the byte
    (dynalite's test/connection.js, run against DynamoDB: a body that is not JSON gets
    exactly this SerializationException, crc32 3948637019)."""
    connection = http.client.HTTPConnection(shared.endpoint_url.removeprefix("http://"), timeout=10)
    for target, expected, crc in [
        (None, b'{"__type":"com.amazon.coral.service#SerializationException"}', "3948637019"),
        (
            TARGET + "ListTable",
            b'{"__type":"com.amazon.coral.service#UnknownOperationException"}',
            None,
        ),
    ]:
        headers = {"Content-Type": "application/x-amz-json-1.0"}
        if target is not None:
            headers["X-Amz-Target"] = target
        connection.request("POST", "/", body=b"hi" if target is None else b"{}", headers=headers)
        reply = connection.getresponse()
        body = reply.read()
        assert (reply.status, body) == (400, expected)
        assert reply.headers["Content-Length"] == str(len(expected))
        if crc is not None:
            assert reply.headers["x-amz-crc32"] == crc
    connection.request(
        "POST",
        "/",
        body=b'{"TableName": "missing"}',
        headers={"X-Amz-Target": TARGET + "DescribeTable"},
    )
    body = connection.getresponse().read()
    assert body == json.dumps(json.loads(body), separators=(",", ":")).encode()
    connection.close()


def test_an_empty_body_and_a_plain_json_request_are_answered_as_dynamodb_does(
    shared: EmulatorServer,
) -> None:
    """[AWS] no body: an unknown target first, then the missing body is a bare
    SerializationException; a request sent as application/json is answered as
    application/json (dynalite's test/connection.js and test/listTables.js, run on AWS)."""
    connection = http.client.HTTPConnection(shared.endpoint_url.removeprefix("http://"), timeout=10)

    def send(target: str | None, body: bytes, kind: str | None) -> tuple[int, str, bytes]:
        headers = {} if kind is None else {"Content-Type": kind}
        if target is not None:
            headers["X-Amz-Target"] = target
        connection.request("POST", "/", body=body, headers=headers)
        reply = connection.getresponse()
        return reply.status, reply.headers["Content-Type"], reply.read()

    assert send(TARGET + "ListTables", b"", None) == (
        400,
        "application/x-amz-json-1.0",
        b'{"__type":"com.amazon.coral.service#SerializationException"}',
    )
    assert send(None, b"", None)[2] == (
        b'{"__type":"com.amazon.coral.service#UnknownOperationException"}'
    )
    status, kind, body = send(TARGET + "ListTables", b"{}", "application/json")
    assert (status, kind) == (200, "application/json") and b"TableNames" in body
    assert send(TARGET + "ListTables", b"{}", "application/json;charset=utf-8")[1] == (
        "application/json"
    )
    assert send(TARGET + "ListTables", b"{}", "application/x-amz-json-1.0")[1] == (
        "application/x-amz-json-1.0"
    )
    connection.close()
