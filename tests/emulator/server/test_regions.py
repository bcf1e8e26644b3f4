"""Tables per region and account (issue 41, item 3): a request reaches the tables of the
region its SigV4 credential scope names, and of the account a 12-digit access key names;
ARNs carry both; one clock for all."""

from __future__ import annotations

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.server import EmulatorServer
from tests.emulator.server.conftest import client, key_table, streams_client


def _missing(call: Any) -> None:
    with pytest.raises(ClientError) as caught:
        call()
    assert caught.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_a_table_lives_in_its_region_and_its_arn_says_so(emu: EmulatorServer) -> None:
    us, eu = client(emu.endpoint_url), client(emu.endpoint_url, "eu-west-1")
    made = key_table(us, sk_type=None)
    assert made["TableArn"] == "arn:aws:dynamodb:us-east-1:000000000000:table/tbl"
    _missing(lambda: eu.describe_table(TableName="tbl"))
    _missing(lambda: eu.put_item(TableName="tbl", Item={"pk": {"S": "a"}}))
    _missing(lambda: eu.describe_table(TableName=made["TableArn"]))
    assert eu.list_tables()["TableNames"] == []
    # The same name in another region is another table, with its own items and ARN.
    other = key_table(eu, sk_type=None)
    assert other["TableArn"] == "arn:aws:dynamodb:eu-west-1:000000000000:table/tbl"
    eu.put_item(TableName="tbl", Item={"pk": {"S": "in-eu"}})
    assert us.scan(TableName="tbl")["Items"] == []
    assert eu.scan(TableName="tbl")["Items"] == [{"pk": {"S": "in-eu"}}]
    # A table's ARN from its own region finds it; another region's does not.
    assert us.describe_table(TableName=made["TableArn"])["Table"]["TableName"] == "tbl"
    _missing(lambda: us.describe_table(TableName=other["TableArn"]))
    tags = eu.list_tags_of_resource(ResourceArn=other["TableArn"])
    assert tags["Tags"] == []
    _missing(lambda: us.list_tags_of_resource(ResourceArn=other["TableArn"]))


def test_a_twelve_digit_access_key_is_its_own_account(emu: EmulatorServer) -> None:
    mine = client(emu.endpoint_url, key="111111111111")
    theirs = client(emu.endpoint_url, key="222222222222")
    anyone = client(emu.endpoint_url, key="AKIAEXAMPLE")
    made = key_table(mine, sk_type=None)
    assert made["TableArn"] == "arn:aws:dynamodb:us-east-1:111111111111:table/tbl"
    _missing(lambda: theirs.describe_table(TableName="tbl"))
    _missing(lambda: anyone.describe_table(TableName="tbl"))
    assert key_table(anyone, sk_type=None)["TableArn"].split(":")[4] == "000000000000"


def test_streams_metrics_and_partitions_are_per_region(emu: EmulatorServer) -> None:
    eu = client(emu.endpoint_url, "eu-west-1")
    key_table(
        eu,
        sk_type=None,
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
    )
    eu.put_item(TableName="tbl", Item={"pk": {"S": "a"}})
    assert streams_client(emu.endpoint_url).list_streams()["Streams"] == []
    listed = streams_client(emu.endpoint_url, "eu-west-1").list_streams()["Streams"]
    assert [s["StreamArn"].split(":")[3] for s in listed] == ["eu-west-1"]
    assert emu.metrics()["tables"] == {}
    assert "tbl" in emu.service.metrics_view(region="eu-west-1")["tables"]
    assert emu.service.partitions_view("tbl", region="eu-west-1")["table"] == "tbl"


def test_an_unsigned_request_reaches_the_default_region(emu: EmulatorServer) -> None:
    key_table(client(emu.endpoint_url), sk_type=None)
    status, body = emu.service.handle(
        "DynamoDB_20120810.DescribeTable", json.dumps({"TableName": "tbl"}).encode()
    )
    assert status == 200 and json.loads(body)["Table"]["TableName"] == "tbl"
    skipped = emu.service.regions.named("eu-west-1")
    before = skipped.now()
    emu.skip(60)  # one clock for every region
    assert skipped.now() - before >= 60
