"""Control plane through boto3: what a team's provisioning code calls before a run."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.emulator_options import EmulatorOptions
from emulator.params import DEFAULT_PARAMS
from emulator.server import EmulatorServer
from tests.emulator.server.conftest import client, key_table


def test_create_table_is_creating_until_the_delay_passes() -> None:
    with EmulatorServer(EmulatorOptions(create_delay_s=30)) as emu:
        ddb = client(emu.endpoint_url)
        desc = key_table(ddb, billing="PROVISIONED")
        assert desc["TableStatus"] == "CREATING"
        with pytest.raises(ddb.exceptions.ResourceNotFoundException):
            ddb.put_item(TableName="tbl", Item={"pk": {"S": "a"}, "sk": {"S": "b"}})
        emu.skip(31)
        assert ddb.describe_table(TableName="tbl")["Table"]["TableStatus"] == "ACTIVE"
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "a"}, "sk": {"S": "b"}})


def test_describe_shows_capacity_warm_throughput_and_gsis(ddb: Any) -> None:
    key_table(
        ddb,
        billing="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1000, "WriteCapacityUnits": 10000},
        GlobalSecondaryIndexes=[
            {
                "IndexName": "gix",
                "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 7},
            }
        ],
        Tags=[{"Key": "team", "Value": "kiro"}],
    )
    table = ddb.describe_table(TableName="tbl")["Table"]
    assert table["TableStatus"] == "ACTIVE"
    assert table["ProvisionedThroughput"]["WriteCapacityUnits"] == 10000
    assert table["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
    assert table["WarmThroughput"] == {
        "ReadUnitsPerSecond": 1000,
        "WriteUnitsPerSecond": 10000,
        "Status": "ACTIVE",
    }
    (gsi,) = table["GlobalSecondaryIndexes"]
    assert gsi["IndexStatus"] == "ACTIVE"
    assert gsi["ProvisionedThroughput"]["WriteCapacityUnits"] == 7
    assert gsi["IndexArn"].endswith(":table/tbl/index/gix")
    tags = ddb.list_tags_of_resource(ResourceArn=table["TableArn"])["Tags"]
    assert tags == [{"Key": "team", "Value": "kiro"}]


def test_on_demand_table_reports_defaults_and_maximum(ddb: Any) -> None:
    key_table(ddb, OnDemandThroughput={"MaxWriteRequestUnits": 500})
    table = ddb.describe_table(TableName="tbl")["Table"]
    assert table["WarmThroughput"]["WriteUnitsPerSecond"] == 4000
    assert table["WarmThroughput"]["ReadUnitsPerSecond"] == 12000
    assert table["OnDemandThroughput"] == {"MaxReadRequestUnits": -1, "MaxWriteRequestUnits": 500}
    assert table["ProvisionedThroughput"]["ReadCapacityUnits"] == 0


def test_update_table_capacity_billing_warm_and_gsis(emu: EmulatorServer, ddb: Any) -> None:
    key_table(ddb, billing="PROVISIONED")
    out = ddb.update_table(
        TableName="tbl",
        ProvisionedThroughput={"ReadCapacityUnits": 3000, "WriteCapacityUnits": 2000},
    )["TableDescription"]
    # The old capacity serves (and shows) until the change is applied.
    assert out["TableStatus"] == "UPDATING"
    assert out["ProvisionedThroughput"]["WriteCapacityUnits"] == 100
    emu.skip(DEFAULT_PARAMS.update_split_s + 1)  # 3 partitions where there was 1
    assert emu.model.tables["tbl"].base.limits.wcu == 2000
    ddb.update_table(TableName="tbl", BillingMode="PAY_PER_REQUEST")
    emu.skip(DEFAULT_PARAMS.switch_to_on_demand_s + 1)
    table = ddb.describe_table(TableName="tbl")["Table"]
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert "LastUpdateToPayPerRequestDateTime" in table["BillingModeSummary"]
    assert not emu.model.tables["tbl"].base.limits.provisioned
    out = ddb.update_table(TableName="tbl", WarmThroughput={"WriteUnitsPerSecond": 8000})
    assert out["TableDescription"]["WarmThroughput"]["Status"] == "UPDATING"
    emu.skip(61)
    warm = ddb.describe_table(TableName="tbl")["Table"]["WarmThroughput"]
    assert warm == {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 8000, "Status": "ACTIVE"}
    with pytest.raises(ClientError) as err:
        ddb.update_table(TableName="tbl", WarmThroughput={"WriteUnitsPerSecond": 5000})
    assert err.value.response["Error"]["Code"] == "ValidationException"
    ddb.update_table(TableName="tbl", OnDemandThroughput={"MaxWriteRequestUnits": 100})
    assert emu.model.tables["tbl"].base.limits.max_write == 100
    ddb.update_table(
        TableName="tbl",
        AttributeDefinitions=[{"AttributeName": "gk", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "gix",
                    "KeySchema": [{"AttributeName": "gk", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    )
    assert "gix" in emu.model.tables["tbl"].gsis
    assert (
        ddb.describe_table(TableName="tbl")["Table"]["GlobalSecondaryIndexes"][0]["IndexName"]
        == "gix"
    )
    ddb.update_table(
        TableName="tbl", GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "gix"}}]
    )
    assert "gix" not in emu.model.tables["tbl"].gsis
    assert "GlobalSecondaryIndexes" not in ddb.describe_table(TableName="tbl")["Table"]


def test_switch_to_provisioned_needs_throughput(ddb: Any) -> None:
    key_table(ddb)
    with pytest.raises(ClientError) as err:
        ddb.update_table(TableName="tbl", BillingMode="PROVISIONED")
    assert err.value.response["Error"]["Code"] == "ValidationException"
    ddb.update_table(
        TableName="tbl",
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
    )
    assert (
        ddb.describe_table(TableName="tbl")["Table"]["ProvisionedThroughput"]["WriteCapacityUnits"]
        == 5
    )


def test_list_tables_paginates_and_delete_removes(emu: EmulatorServer, ddb: Any) -> None:
    for i in range(5):
        key_table(ddb, name=f"tab{i}")
    first = ddb.list_tables(Limit=2)
    assert first["TableNames"] == ["tab0", "tab1"]
    assert first["LastEvaluatedTableName"] == "tab1"
    rest = ddb.list_tables(ExclusiveStartTableName="tab1", Limit=10)
    assert rest["TableNames"] == ["tab2", "tab3", "tab4"]
    assert "LastEvaluatedTableName" not in rest
    names = [
        n
        for page in ddb.get_paginator("list_tables").paginate(PaginationConfig={"PageSize": 2})
        for n in page["TableNames"]
    ]
    assert names == [f"tab{i}" for i in range(5)]
    assert ddb.delete_table(TableName="tab0")["TableDescription"]["TableStatus"] == "DELETING"
    assert "tab0" not in emu.model.tables
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):
        ddb.describe_table(TableName="tab0")
    with pytest.raises(ddb.exceptions.ResourceInUseException):
        key_table(ddb, name="tab1")


def test_tags_and_limits(ddb: Any) -> None:
    arn = key_table(ddb)["TableArn"]
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}])
    ddb.untag_resource(ResourceArn=arn, TagKeys=["a"])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "b", "Value": "2"}]
    with pytest.raises(ddb.exceptions.ResourceNotFoundException):
        ddb.list_tags_of_resource(ResourceArn=arn + "x")
    limits = ddb.describe_limits()
    assert limits["TableMaxWriteCapacityUnits"] == 40000
