"""Conformance, issue 16 item 9: DeleteTable's reply, BillingModeSummary, warm
throughput minimums, UpdateTable while UPDATING, and what a Scan is charged."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from tests.emulator.server.conftest import client, key_table


def _error(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = excinfo.value.response["Error"]
    return error["Code"], error["Message"]


def test_delete_table_returns_the_short_description(ddb: Any) -> None:
    created = key_table(ddb)
    deleted = ddb.delete_table(TableName="tbl")["TableDescription"]
    assert deleted["TableStatus"] == "DELETING"
    assert deleted["TableArn"] == created["TableArn"]
    assert set(deleted) <= {
        "TableName",
        "TableArn",
        "TableId",
        "TableStatus",
        "ProvisionedThroughput",
        "BillingModeSummary",
        "TableSizeBytes",
        "ItemCount",
        "DeletionProtectionEnabled",
    }
    assert "KeySchema" not in deleted and "AttributeDefinitions" not in deleted


def test_on_demand_billing_summary_has_last_update_to_pay_per_request(ddb: Any) -> None:
    key_table(ddb)
    table = ddb.describe_table(TableName="tbl")["Table"]
    summary = table["BillingModeSummary"]
    assert summary["BillingMode"] == "PAY_PER_REQUEST"
    assert summary["LastUpdateToPayPerRequestDateTime"] == table["CreationDateTime"]


@pytest.mark.parametrize(
    ("warm", "unit"),
    [
        ({"ReadUnitsPerSecond": 11999}, "ReadUnitsPerSecond"),
        ({"WriteUnitsPerSecond": 3999}, "WriteUnitsPerSecond"),
    ],
)
def test_warm_throughput_below_the_on_demand_minimum_is_refused(
    ddb: Any, warm: dict[str, int], unit: str
) -> None:
    with pytest.raises(ClientError) as excinfo:
        key_table(ddb, WarmThroughput=warm)
    code, message = _error(excinfo)
    assert code == "ValidationException"
    assert message.startswith(
        f"One or more parameter values were invalid: Requested {unit} for WarmThroughput "
        "for table is lower than initial throughput for OnDemand."
    )
    index = {
        "IndexName": "byG",
        "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"},
        "WarmThroughput": warm,
    }
    with pytest.raises(ClientError) as excinfo:
        key_table(ddb, GlobalSecondaryIndexes=[index])
    assert "for WarmThroughput for index byG is lower" in _error(excinfo)[1]
    key_table(ddb, WarmThroughput={"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000})


def test_update_table_cannot_lower_warm_throughput(ddb: Any) -> None:
    key_table(ddb)
    with pytest.raises(ClientError) as excinfo:
        ddb.update_table(TableName="tbl", WarmThroughput={"ReadUnitsPerSecond": 6000})
    assert _error(excinfo) == (
        "ValidationException",
        "One or more parameter values were invalid: Requested ReadUnitsPerSecond for "
        "WarmThroughput for table is lower than current WarmThroughput, decreasing "
        "WarmThroughput is not supported",
    )
    with pytest.raises(ClientError) as excinfo:
        ddb.update_table(TableName="tbl", WarmThroughput={})
    assert _error(excinfo) == (
        "ValidationException",
        "One or more parameter values were invalid: WarmThroughput must have at least one of "
        "ReadUnitsPerSecond or WriteUnitsPerSecond specified for table",
    )


def test_update_table_while_updating_is_refused() -> None:
    with EmulatorServer(EmulatorOptions(create_delay_s=30)) as emu:
        ddb = client(emu.endpoint_url)
        key_table(ddb)
        emu.service.skip(31)
        ddb.update_table(
            TableName="tbl",
            AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[
                {
                    "Create": {
                        "IndexName": "byG",
                        "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                        "Projection": {"ProjectionType": "ALL"},
                    }
                }
            ],
        )
        assert ddb.describe_table(TableName="tbl")["Table"]["TableStatus"] == "UPDATING"
        with pytest.raises(ClientError) as excinfo:
            ddb.update_table(TableName="tbl", WarmThroughput={"ReadUnitsPerSecond": 20000})
        assert _error(excinfo) == (
            "ResourceInUseException",
            "Attempt to change a resource which is still in use: Table is being updated: tbl",
        )
        emu.service.skip(31)
        ddb.update_table(TableName="tbl", WarmThroughput={"ReadUnitsPerSecond": 20000})


@pytest.mark.parametrize(("consistent", "units"), [(True, 4.0), (False, 2.0)])
def test_scan_of_a_new_on_demand_table_is_charged_per_partition(
    ddb: Any, consistent: bool, units: float
) -> None:
    key_table(ddb, sk_type=None)
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "k"}, "animal": {"S": "cat"}})
    reply = ddb.scan(TableName="tbl", ConsistentRead=consistent, ReturnConsumedCapacity="TOTAL")
    assert reply["Count"] == 1
    assert reply["ConsumedCapacity"]["CapacityUnits"] == units


def test_scan_of_a_small_provisioned_table_costs_the_read_minimum(ddb: Any) -> None:
    key_table(ddb, sk_type=None, billing="PROVISIONED")
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "k"}})
    reply = ddb.scan(TableName="tbl", ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    assert reply["ConsumedCapacity"]["CapacityUnits"] == 1.0


def test_on_demand_table_refuses_provisioned_throughput(ddb: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        key_table(ddb, ProvisionedThroughput={"ReadCapacityUnits": 10, "WriteCapacityUnits": 10})
    assert _error(excinfo) == (
        "ValidationException",
        "One or more parameter values were invalid: Neither ReadCapacityUnits nor "
        "WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
    )
