"""Every throttle cause as boto3 sees it, checked against botocore's own service model:
the exception class per capacity mode, the message, and the reasons member."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import botocore.session
import pytest
from botocore.exceptions import ClientError

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from emulator.throttle import (
    INDEX_PROVISIONED_MESSAGE,
    MAX_ON_DEMAND_MESSAGE,
    ON_DEMAND_MESSAGE,
    TABLE_PROVISIONED_MESSAGE,
)
from tests.emulator.server.conftest import client, key_table

SCALE = 0.01
"""Every capacity figure times 0.01: a partition takes 10 WCU/s, so a few dozen writes
reach any limit."""
SERVICE_MODEL = botocore.session.get_session().get_service_model("dynamodb")


@pytest.fixture
def small() -> Iterator[EmulatorServer]:
    with EmulatorServer(EmulatorOptions(scale=SCALE, create_delay_s=0)) as server:
        yield server
        assert server.service.internal_errors == 0


def _first_throttle(call: Any, count: int = 60) -> ClientError:
    for i in range(count):
        try:
            call(i)
        except ClientError as exc:
            return exc
    raise AssertionError(f"no throttle in {count} requests")


def _check_shape(
    exc: ClientError, code: str, message: str, reason: str, resource_suffix: str
) -> None:
    error = exc.response["Error"]
    assert error["Code"] == code
    assert error["Message"] == message
    assert exc.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    shape = SERVICE_MODEL.shape_for(code)
    member = "ThrottlingReasons" if code.startswith("Provisioned") else "throttlingReasons"
    assert member in shape.members, f"{member} is not a member of {code} in botocore's model"
    reasons = exc.response[member]
    assert reasons == [{"reason": reason, "resource": reasons[0]["resource"]}]
    assert reasons[0]["resource"].endswith(resource_suffix)
    assert set(reasons[0]) <= set(shape.members[member].member.members)


def _put(ddb: Any, table: str, pk: str, sk: str, **attrs: Any) -> None:
    ddb.put_item(TableName=table, Item={"pk": {"S": pk}, "sk": {"S": sk}, **attrs})


def test_provisioned_hot_key_is_key_range(small: EmulatorServer) -> None:
    ddb = client(small.endpoint_url)
    key_table(
        ddb,
        billing="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1000, "WriteCapacityUnits": 10000},
    )
    exc = _first_throttle(lambda i: _put(ddb, "tbl", "hot", f"{i}"))
    assert isinstance(exc, ddb.exceptions.ProvisionedThroughputExceededException)
    _check_shape(
        exc,
        "ProvisionedThroughputExceededException",
        TABLE_PROVISIONED_MESSAGE,
        "TableWriteKeyRangeThroughputExceeded",
        ":table/tbl",
    )


def test_provisioned_table_rate(small: EmulatorServer) -> None:
    ddb = client(small.endpoint_url)
    key_table(
        ddb,
        billing="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
    )
    exc = _first_throttle(lambda i: _put(ddb, "tbl", f"k{i}", "s"))
    _check_shape(
        exc,
        "ProvisionedThroughputExceededException",
        TABLE_PROVISIONED_MESSAGE,
        "TableWriteProvisionedThroughputExceeded",
        ":table/tbl",
    )
    small.skip(200)  # 0.01 WCU/s at this scale: 200 s refill 2 write units
    _put(ddb, "tbl", "r", "s")  # reads are throttled independently of writes
    read = _first_throttle(
        lambda i: ddb.get_item(
            TableName="tbl", ConsistentRead=True, Key={"pk": {"S": f"k{i}"}, "sk": {"S": "s"}}
        ),
        count=200,
    )
    _check_shape(
        read,
        "ProvisionedThroughputExceededException",
        TABLE_PROVISIONED_MESSAGE,
        "TableReadProvisionedThroughputExceeded",
        ":table/tbl",
    )


def test_provisioned_gsi_throttles_the_base_write(small: EmulatorServer) -> None:
    ddb = client(small.endpoint_url)
    key_table(
        ddb,
        billing="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1000, "WriteCapacityUnits": 10000},
        GlobalSecondaryIndexes=[
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
            }
        ],
    )
    exc = _first_throttle(lambda i: _put(ddb, "tbl", f"k{i}", "s", g={"S": f"g{i}"}))
    _check_shape(
        exc,
        "ProvisionedThroughputExceededException",
        INDEX_PROVISIONED_MESSAGE,
        "IndexWriteProvisionedThroughputExceeded",
        ":table/tbl/index/byG",
    )
    metrics = small.metrics()["tables"]["tbl"]["indexes"]
    assert metrics["byG"]["totals"]["throttled"] >= 1 / SCALE
    assert (
        metrics["byG"]["totals"]["throttles_by_reason"]["IndexWriteProvisionedThroughputExceeded"]
        >= 1 / SCALE
    )


def test_on_demand_hot_key_and_maximum(small: EmulatorServer) -> None:
    ddb = client(small.endpoint_url)
    key_table(ddb, name="odt")
    exc = _first_throttle(lambda i: _put(ddb, "odt", "hot", f"{i}"))
    assert isinstance(exc, ddb.exceptions.ThrottlingException)
    _check_shape(
        exc,
        "ThrottlingException",
        ON_DEMAND_MESSAGE,
        "TableWriteKeyRangeThroughputExceeded",
        ":table/odt",
    )
    key_table(ddb, name="capped", OnDemandThroughput={"MaxWriteRequestUnits": 300})
    exc = _first_throttle(lambda i: _put(ddb, "capped", f"k{i}", "s"))
    _check_shape(
        exc,
        "ThrottlingException",
        MAX_ON_DEMAND_MESSAGE,
        "TableWriteMaxOnDemandThroughputExceeded",
        ":table/capped",
    )


def test_batch_write_returns_throttled_items_as_unprocessed(small: EmulatorServer) -> None:
    ddb = client(small.endpoint_url)
    key_table(
        ddb,
        billing="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1000, "WriteCapacityUnits": 10000},
    )
    puts = [
        {"PutRequest": {"Item": {"pk": {"S": "hot"}, "sk": {"S": f"{i:02d}"}}}} for i in range(25)
    ]
    out = ddb.batch_write_item(RequestItems={"tbl": puts})
    unprocessed = out["UnprocessedItems"]["tbl"]
    assert 0 < len(unprocessed) < 25
    assert unprocessed == puts[25 - len(unprocessed) :]
    with pytest.raises(ddb.exceptions.ProvisionedThroughputExceededException):
        ddb.batch_write_item(RequestItems={"tbl": unprocessed})  # none fits: the batch fails
    small.skip(5)  # reads share the partition: let it refill
    written = ddb.query(
        TableName="tbl",
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "hot"}},
    )["Count"]
    assert written == 25 - len(unprocessed)
    small.skip(5)
    keys = [p["PutRequest"]["Item"] for p in puts]
    got = ddb.batch_get_item(RequestItems={"tbl": {"Keys": keys, "ConsistentRead": True}})
    unread = got["UnprocessedKeys"].get("tbl", {}).get("Keys", [])
    assert len(got["Responses"]["tbl"]) + len([k for k in unread if k in keys[:written]]) == written


def test_throttled_write_changes_nothing(small: EmulatorServer) -> None:
    ddb = client(small.endpoint_url)
    key_table(
        ddb,
        billing="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1000, "WriteCapacityUnits": 10000},
    )
    refused: list[str] = []
    for i in range(40):
        try:
            _put(ddb, "tbl", "hot", f"{i:02d}")
        except ddb.exceptions.ProvisionedThroughputExceededException:
            refused.append(f"{i:02d}")
    assert refused
    small.skip(5)
    stored = {
        i["sk"]["S"]
        for i in ddb.query(
            TableName="tbl",
            KeyConditionExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "hot"}},
        )["Items"]
    }
    assert stored.isdisjoint(refused)
    assert len(stored) == 40 - len(refused)


@pytest.mark.parametrize("provisioned", [True, False])
@pytest.mark.parametrize("on_index", [True, False])
@pytest.mark.parametrize("is_write", [True, False])
def test_a_throttle_error_sends_the_bytes_its_body_encodes_to(
    provisioned: bool, on_index: bool, is_write: bool
) -> None:
    """A throttle's wire bytes are encoded once, when its site is made: they must be what
    encoding the error's body would give."""
    from emulator.server.charging import throttle_error
    from emulator.server.protocol import DynamoError
    from emulator.throttle import Cause, ThrottleSite

    for cause in Cause:
        site = ThrottleSite(on_index, cause, "arn:aws:dynamodb:us-east-1:0:table/tbl", provisioned)
        error = throttle_error(site.throttle(is_write))
        fresh = DynamoError(error.name, error.message, error.prefix, error.extra)
        assert error.payload() == fresh.payload()
        assert site.throttle(is_write) == site._throttle(is_write)
