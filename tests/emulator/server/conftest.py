"""Fixtures: an emulator on loopback and boto3 clients that never retry (a throttle
must reach the test as the exception it is)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer, Service
from emulator.server.protocol import CORAL_SERVICE
from emulator.wire import TARGET_PREFIX

NO_RETRY = Config(retries={"total_max_attempts": 1, "mode": "standard"})
_SESSION = boto3.session.Session()
"""One session for all clients: loading the service model once keeps the suite fast."""


def client(endpoint_url: str, region: str = "us-east-1", key: str = "test") -> Any:
    return _SESSION.client(
        "dynamodb",
        endpoint_url=endpoint_url,
        region_name=region,
        aws_access_key_id=key,
        aws_secret_access_key="test",
        config=NO_RETRY,
    )


def streams_client(endpoint_url: str, region: str = "us-east-1") -> Any:
    """A boto3 `dynamodbstreams` client of the emulator (the Streams API on the same
    endpoint, as DynamoDB Local serves it)."""
    return _SESSION.client(
        "dynamodbstreams",
        endpoint_url=endpoint_url,
        region_name=region,
        aws_access_key_id="test",
        aws_secret_access_key="test",
        config=NO_RETRY,
    )


def refusal(service: Service, operation: str, body: dict[str, Any]) -> tuple[str, str]:
    """What the service answers a request it refuses, in process: (the error's type, its
    text). [AWS] the service layer's errors (SerializationException,
    UnknownOperationException) carry their text under "Message", every other error under
    "message": the one an error must use is read, and the other must be absent."""
    status, payload = service.handle(TARGET_PREFIX + operation, json.dumps(body).encode())
    assert status == 400, payload
    reply = json.loads(payload)
    kind: str = reply["__type"]
    key, other = (
        ("Message", "message") if kind.startswith(CORAL_SERVICE) else ("message", "Message")
    )
    assert other not in reply, reply
    return kind.rsplit("#", 1)[1], reply[key]


@pytest.fixture
def emu() -> Iterator[EmulatorServer]:
    with EmulatorServer(EmulatorOptions(create_delay_s=0)) as server:
        yield server
        assert server.service.internal_errors == 0


@pytest.fixture
def ddb(emu: EmulatorServer) -> Any:
    return client(emu.endpoint_url)


BY_RANK = {
    "IndexName": "byRank",
    "KeySchema": [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "rank", "KeyType": "RANGE"},
    ],
    "Projection": {"ProjectionType": "KEYS_ONLY"},
}
"""An LSI of a pk/sk table on `rank` (defined by the test, which picks its type)."""
BY_G = {
    "IndexName": "by_g",
    "KeySchema": [
        {"AttributeName": "g", "KeyType": "HASH"},
        {"AttributeName": "rank", "KeyType": "RANGE"},
    ],
    "Projection": {"ProjectionType": "ALL"},
}
"""A GSI of a pk/sk table on (g, rank), both strings (key_table_request defines them)."""


def key_table_request(
    name: str = "tbl",
    sk_type: str | None = "S",
    billing: str = "PAY_PER_REQUEST",
    **extra: Any,
) -> dict[str, Any]:
    """The CreateTable request of a table with pk (S) and an optional sk (for a test that
    sends it in process, or changes it first)."""
    schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
    attrs = [{"AttributeName": "pk", "AttributeType": "S"}]
    if sk_type:
        schema.append({"AttributeName": "sk", "KeyType": "RANGE"})
        attrs.append({"AttributeName": "sk", "AttributeType": sk_type})
    for gsi in extra.get("GlobalSecondaryIndexes", []):
        for k in gsi["KeySchema"]:
            if all(a["AttributeName"] != k["AttributeName"] for a in attrs):
                attrs.append({"AttributeName": k["AttributeName"], "AttributeType": "S"})
    req: dict[str, Any] = {
        "TableName": name,
        "KeySchema": schema,
        "AttributeDefinitions": attrs,
        "BillingMode": billing,
        **extra,
    }
    if billing == "PROVISIONED" and "ProvisionedThroughput" not in req:
        req["ProvisionedThroughput"] = {"ReadCapacityUnits": 100, "WriteCapacityUnits": 100}
    return req


def key_table(
    ddb: Any,
    name: str = "tbl",
    sk_type: str | None = "S",
    billing: str = "PAY_PER_REQUEST",
    **extra: Any,
) -> dict[str, Any]:
    """Create a table with pk (S) and an optional sk; returns the TableDescription."""
    req = key_table_request(name, sk_type, billing, **extra)
    description: dict[str, Any] = ddb.create_table(**req)["TableDescription"]
    return description
