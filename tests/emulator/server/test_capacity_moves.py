"""Capacity that moves, over the endpoint: UpdateTable under DynamoDB's rules (the table
UPDATING while a change applies, the old capacity shown and served meanwhile, the
refusals in DynamoDB's words), auto scaling set through `/_hotbench/tables/T/auto-scaling`
and seen in DescribeTable, `/_hotbench/capacity` and the metrics as it moves. Time passes
on the emulator's clock, which here only skipping moves."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.emulator_options import EmulatorOptions
from emulator.params import DEFAULT_PARAMS
from emulator.server import EmulatorServer
from tests.emulator.server.conftest import key_table

P = DEFAULT_PARAMS
NOON_UTC = 1_767_268_800.0
"""2026-01-01 12:00:00 UTC."""
POLICY = {
    "Write": {
        "MinCapacity": 1,
        "MaxCapacity": 100,
        "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 70},
    }
}


def _http(emu: EmulatorServer, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(emu.endpoint_url + path, data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _error(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = exc.value.response["Error"]
    return error["Code"], error["Message"]


def _throughput(ddb: Any) -> dict[str, Any]:
    return dict(ddb.describe_table(TableName="tbl")["Table"]["ProvisionedThroughput"])


def _provisioned(ddb: Any, wcu: int = 1) -> None:
    key_table(
        ddb,
        billing="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": wcu},
    )


def _update(ddb: Any, wcu: int, rcu: int = 1) -> dict[str, Any]:
    description: dict[str, Any] = ddb.update_table(
        TableName="tbl",
        ProvisionedThroughput={"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu},
    )["TableDescription"]
    return description


class Clock:
    """The emulator's clock, moved only by the test: requests take no emulator time, so
    a window of seconds (a 2 s UPDATING) is hit however slow the machine."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def emu() -> Iterator[EmulatorServer]:
    """This module's emulator: CREATING for no time, on a clock only `skip` moves."""
    with EmulatorServer(EmulatorOptions(create_delay_s=0), clock=Clock()) as server:
        # Started at noon UTC, so no test's hours cross the midnight the decreases reset at.
        server.service.state.started_epoch = server.model.epoch_s = NOON_UTC
        yield server
        assert server.service.internal_errors == 0


def test_describe_table_shows_auto_scaling_move_the_capacity(emu: EmulatorServer, ddb: Any) -> None:
    _provisioned(ddb)
    status, body = _http(emu, "PUT", "/_hotbench/tables/tbl/auto-scaling", POLICY)
    assert status == 200 and body["auto_scaling"] == {
        "Write": {
            "MinCapacity": 1,
            "MaxCapacity": 100,
            "TargetTrackingScalingPolicyConfiguration": {
                "TargetValue": 70.0,
                "ScaleOutCooldown": 0.0,
                "ScaleInCooldown": 0.0,
                "DisableScaleIn": False,
            },
        }
    }
    # 70 1-WCU writes a minute on a table of 1 WCU (its burst pool serves them): two
    # datapoints over 70 % (42 units), then the alarm's delay, and it scales out.
    item = {"pk": {"S": "k"}, "sk": {"S": "s"}}
    emu.skip(61)  # a second into the first whole minute
    for _minute in range(2):
        for _ in range(70):
            ddb.put_item(TableName="tbl", Item=item)
        emu.skip(60)
    assert ddb.describe_table(TableName="tbl")["Table"]["TableStatus"] == "ACTIVE"
    emu.skip(P.autoscale_alarm_delay_s)
    table = ddb.describe_table(TableName="tbl")["Table"]
    assert table["TableStatus"] == "UPDATING"
    assert table["ProvisionedThroughput"]["WriteCapacityUnits"] == 1  # still the old one
    emu.skip(P.update_throughput_s)
    table = ddb.describe_table(TableName="tbl")["Table"]
    assert table["TableStatus"] == "ACTIVE"
    assert table["ProvisionedThroughput"]["WriteCapacityUnits"] == 2  # ceil(1 / 0.7)
    assert "LastIncreaseDateTime" in table["ProvisionedThroughput"]
    status, view = _http(emu, "GET", "/_hotbench/capacity?table=tbl")
    events = view["indexes"]["$table"]["events"]
    assert status == 200 and [e["what"] for e in events] == ["auto scaling", "write"]
    assert events[1]["from"] == 1 and events[1]["to"] == 2
    assert events[1]["cause"].startswith("auto scaling: scale-out alarm (2 x 1 min > 70 %")
    assert view["indexes"]["$table"]["series"][-1]["write"] == 2
    metrics = emu.metrics(seconds=600, table="tbl")["tables"]["tbl"]
    assert metrics["auto_scaling"] is True
    assert metrics["indexes"]["$table"]["provisioned"]["write"] == 2
    assert [e["what"] for e in metrics["indexes"]["$table"]["capacity_events"]][-1] == "write"
    # Another UpdateTable is the user's own: the capacity auto scaling set is its base.
    with pytest.raises(ClientError) as exc:
        _update(ddb, wcu=2)
    assert "will not change" in _error(exc)[1]


def test_a_change_while_the_table_is_updating_is_refused(emu: EmulatorServer, ddb: Any) -> None:
    _provisioned(ddb, wcu=5)
    up = _update(ddb, wcu=10)
    assert up["TableStatus"] == "UPDATING"
    assert up["ProvisionedThroughput"]["WriteCapacityUnits"] == 5
    for attempt in (
        lambda: _update(ddb, wcu=20),
        lambda: ddb.update_table(TableName="tbl", BillingMode="PAY_PER_REQUEST"),
    ):
        with pytest.raises(ClientError) as exc:
            attempt()
        assert _error(exc) == (
            "ResourceInUseException",
            "Attempt to change a resource which is still in use: Table IOPS are currently "
            "being updated. Table: tbl",
        )
    with pytest.raises(ClientError) as exc:
        ddb.delete_table(TableName="tbl")
    assert _error(exc)[0] == "ResourceInUseException"
    emu.skip(P.update_throughput_s + 1)
    assert _throughput(ddb)["WriteCapacityUnits"] == 10
    _update(ddb, wcu=20)


def test_a_fifth_decrease_in_the_hour_is_refused_with_the_next_time(
    emu: EmulatorServer, ddb: Any
) -> None:
    _provisioned(ddb, wcu=10)
    for wcu in (9, 8, 7, 6):
        _update(ddb, wcu=wcu)
        emu.skip(P.update_throughput_s + 1)
    assert _throughput(ddb)["NumberOfDecreasesToday"] == 4
    with pytest.raises(ClientError) as exc:
        ddb.update_table(
            TableName="tbl",
            ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 5},
        )
    code, message = _error(exc)
    assert code == "LimitExceededException"
    assert message.startswith(
        "Subscriber limit exceeded: Provisioned throughput decreases are limited within a "
        "given UTC day. After the first 4 decreases, each subsequent decrease in the same UTC "
        "day can be performed at most once every 3600 seconds. Number of decreases today: 4. "
    )
    assert "Next decrease can be made at " in message
    emu.skip(P.decrease_interval_s)
    _update(ddb, wcu=5)


def test_switches_to_on_demand_are_limited(emu: EmulatorServer, ddb: Any) -> None:
    _provisioned(ddb)
    for n in range(P.switches_to_on_demand):
        ddb.update_table(TableName="tbl", BillingMode="PAY_PER_REQUEST")
        table = ddb.describe_table(TableName="tbl")["Table"]
        assert table["TableStatus"] == "UPDATING"
        assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
        emu.skip((P.switch_to_on_demand_s if n == 0 else P.switch_back_to_on_demand_s) + 1)
        _update_mode = ddb.update_table(
            TableName="tbl",
            BillingMode="PROVISIONED",
            ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
        )
        assert _update_mode["TableDescription"]["TableStatus"] == "UPDATING"
        emu.skip(P.switch_to_provisioned_s + 1)
    with pytest.raises(ClientError) as exc:
        ddb.update_table(TableName="tbl", BillingMode="PAY_PER_REQUEST")
    code, message = _error(exc)
    assert code == "LimitExceededException"
    assert message.startswith(
        "Subscriber limit exceeded: Update to PayPerRequest mode are limited to 4 times in "
        "1 day(s). Last update at "
    )


def test_an_on_demand_maximum_on_a_provisioned_table_is_refused(ddb: Any) -> None:
    _provisioned(ddb)
    with pytest.raises(ClientError) as exc:
        ddb.update_table(TableName="tbl", OnDemandThroughput={"MaxWriteRequestUnits": 10})
    assert _error(exc) == (
        "ValidationException",
        "One or more parameter values were invalid: MaxWriteRequestUnits for "
        "OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED",
    )


def test_a_gsi_change_shows_in_its_index_status(emu: EmulatorServer, ddb: Any) -> None:
    gsi = {
        "IndexName": "byG",
        "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"},
        "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
    }
    key_table(
        ddb,
        billing="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
        GlobalSecondaryIndexes=[gsi],
    )
    ddb.update_table(
        TableName="tbl",
        GlobalSecondaryIndexUpdates=[
            {
                "Update": {
                    "IndexName": "byG",
                    "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 7},
                }
            }
        ],
    )
    table = ddb.describe_table(TableName="tbl")["Table"]
    [index] = table["GlobalSecondaryIndexes"]
    assert table["TableStatus"] == "ACTIVE" and index["IndexStatus"] == "UPDATING"
    assert index["ProvisionedThroughput"]["WriteCapacityUnits"] == 1
    emu.skip(P.update_throughput_s + 1)
    [index] = ddb.describe_table(TableName="tbl")["Table"]["GlobalSecondaryIndexes"]
    assert index["IndexStatus"] == "ACTIVE"
    assert index["ProvisionedThroughput"]["WriteCapacityUnits"] == 7
    assert "LastIncreaseDateTime" in index["ProvisionedThroughput"]
    status, body = _http(emu, "PUT", "/_hotbench/tables/tbl/auto-scaling?index=byG", POLICY)
    assert status == 200 and body["index"] == "byG" and body["auto_scaling"]["Write"]


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "error"),
    [
        (
            "PUT",
            "/_hotbench/tables/tbl/auto-scaling",
            {"Write": {"MinCapacity": 1}},
            400,
            "auto scaling.Write.TargetTrackingScalingPolicyConfiguration is required",
        ),
        (
            "PUT",
            "/_hotbench/tables/tbl/auto-scaling",
            {"Reads": {}},
            400,
            "unknown field 'Reads' (valid: Read, Write)",
        ),
        ("PUT", "/_hotbench/tables/nope/auto-scaling", POLICY, 404, None),
        (
            "PUT",
            "/_hotbench/tables/tbl/auto-scaling?index=nope",
            POLICY,
            404,
            "Requested resource not found: Index: nope of table tbl",
        ),
        ("GET", "/_hotbench/capacity", None, 400, "give ?table=NAME"),
    ],
)
def test_the_control_routes_name_what_is_wrong(
    emu: EmulatorServer,
    ddb: Any,
    method: str,
    path: str,
    body: Any,
    status: int,
    error: str | None,
) -> None:
    _provisioned(ddb)
    got, answer = _http(emu, method, path, body)
    assert got == status
    if error is not None:
        assert error in answer["error"]


def test_auto_scaling_can_be_shown_and_removed(emu: EmulatorServer, ddb: Any) -> None:
    _provisioned(ddb)
    assert _http(emu, "GET", "/_hotbench/tables/tbl/auto-scaling")[1]["auto_scaling"] is None
    _http(emu, "PUT", "/_hotbench/tables/tbl/auto-scaling", POLICY)
    assert _http(emu, "GET", "/_hotbench/tables/tbl/auto-scaling")[1]["auto_scaling"]["Write"]
    status, body = _http(emu, "DELETE", "/_hotbench/tables/tbl/auto-scaling")
    assert status == 200 and body["auto_scaling"] is None
    assert emu.model.tables["tbl"].scalers == []
