"""Time to Live (issue 25, item 4): UpdateTimeToLive / DescribeTimeToLive as DynamoDB
answers them, and expired items deleted in the background on the emulator's clock, free
of capacity, readable until deleted."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from emulator.server.expiry import SWEEP_EVERY_S
from tests.emulator.server.conftest import client, key_table

SPEC = {"Enabled": True, "AttributeName": "expires"}


def test_update_and_describe_time_to_live(ddb: Any) -> None:
    key_table(ddb, sk_type=None)
    assert ddb.describe_time_to_live(TableName="tbl")["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "DISABLED"
    }
    reply = ddb.update_time_to_live(TableName="tbl", TimeToLiveSpecification=SPEC)
    assert reply["TimeToLiveSpecification"] == SPEC
    assert ddb.describe_time_to_live(TableName="tbl")["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED",
        "AttributeName": "expires",
    }
    refusals = [
        (SPEC, "TimeToLive is already enabled"),
        (
            {"Enabled": False, "AttributeName": "other"},
            "TimeToLive is active on a different AttributeName: current AttributeName is expires",
        ),
    ]
    for spec, message in refusals:
        with pytest.raises(ClientError) as excinfo:
            ddb.update_time_to_live(TableName="tbl", TimeToLiveSpecification=spec)
        assert excinfo.value.response["Error"] == {
            "Code": "ValidationException",
            "Message": message,
        }
    ddb.update_time_to_live(
        TableName="tbl", TimeToLiveSpecification={"Enabled": False, "AttributeName": "expires"}
    )
    with pytest.raises(ClientError) as excinfo:
        ddb.update_time_to_live(
            TableName="tbl", TimeToLiveSpecification={"Enabled": False, "AttributeName": "x"}
        )
    assert excinfo.value.response["Error"]["Message"] == "TimeToLive is already disabled"
    with pytest.raises(ClientError) as excinfo:
        ddb.describe_time_to_live(TableName="missing")
    assert excinfo.value.response["Error"]["Code"] == "ResourceNotFoundException"


class _Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def timed() -> Iterator[tuple[EmulatorServer, _Clock]]:
    clock = _Clock()
    with EmulatorServer(EmulatorOptions(create_delay_s=0), clock=clock) as server:
        yield server, clock
        assert server.service.internal_errors == 0


def test_expired_items_are_readable_until_the_background_sweep_deletes_them_for_free(
    timed: tuple[EmulatorServer, _Clock],
) -> None:
    server, clock = timed
    ddb = client(server.endpoint_url)
    key_table(ddb, sk_type=None)
    ddb.update_time_to_live(TableName="tbl", TimeToLiveSpecification=SPEC)
    epoch = server.service.state.epoch(server.service.state.now())
    items = {
        "past": {"N": str(int(epoch) - 10)},
        "future": {"N": str(int(epoch) + 3600)},
        "text": {"S": str(int(epoch) - 10)},  # not a Number: never expires
        "millis": {"N": str(int(epoch * 1000))},  # far future as seconds: not expired
        "ancient": {"N": str(int(epoch) - 6 * 365 * 86400)},  # over 5 years ago: ignored
    }
    for name, expires in items.items():
        ddb.put_item(TableName="tbl", Item={"pk": {"S": name}, "expires": expires})
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "none"}})
    before = server.metrics(table="tbl")["tables"]["tbl"]["indexes"]["$table"]["totals"]
    # Expired, not yet deleted: still read back (as on DynamoDB, until the deletion runs).
    assert "Item" in ddb.get_item(TableName="tbl", Key={"pk": {"S": "past"}})
    clock.now += SWEEP_EVERY_S
    remaining = {i["pk"]["S"] for i in ddb.scan(TableName="tbl")["Items"]}
    assert remaining == {"future", "text", "millis", "ancient", "none"}
    after = server.metrics(table="tbl")["tables"]["tbl"]["indexes"]["$table"]["totals"]
    assert after["consumed_wcu"] == before["consumed_wcu"]  # deletion costs no capacity
    assert ddb.describe_table(TableName="tbl")["Table"]["ItemCount"] == 5


def test_the_sweep_follows_skipped_time(ddb: Any, emu: EmulatorServer) -> None:
    key_table(ddb, sk_type=None)
    ddb.update_time_to_live(TableName="tbl", TimeToLiveSpecification=SPEC)
    epoch = emu.service.state.epoch(emu.service.state.now())
    ddb.put_item(
        TableName="tbl", Item={"pk": {"S": "soon"}, "expires": {"N": str(int(epoch) + 300)}}
    )
    emu.skip(300 + 2 * SWEEP_EVERY_S)
    assert "Item" not in ddb.get_item(TableName="tbl", Key={"pk": {"S": "soon"}})
