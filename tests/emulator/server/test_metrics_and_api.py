"""Metrics over HTTP and the Python API, scale reporting, latency, aiobotocore, the CLI."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import pytest

from console.cli import build_parser
from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer, Latency
from tests.emulator.server.conftest import client, key_table


def _get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=10) as response:
        payload: dict[str, Any] = json.loads(response.read())
        return payload


def test_metrics_are_full_scale_per_table_and_gsi() -> None:
    with EmulatorServer(EmulatorOptions(scale=0.1, create_delay_s=0)) as emu:
        ddb = client(emu.endpoint_url)
        key_table(
            ddb,
            GlobalSecondaryIndexes=[
                {
                    "IndexName": "byG",
                    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
        )
        for i in range(10):
            ddb.put_item(
                TableName="tbl", Item={"pk": {"S": f"k{i}"}, "sk": {"S": "s"}, "g": {"S": "x"}}
            )
        emu.skip(1.5)
        metrics = _get(f"{emu.endpoint_url}/_hotbench/metrics?seconds=5")
        api = json.loads(json.dumps(emu.metrics(seconds=5)))
        assert api["tables"] == metrics["tables"]
        assert metrics["scale"] == 0.1
        table = metrics["tables"]["tbl"]
        assert table["status"] == "ACTIVE"
        base, gsi = table["indexes"]["$table"], table["indexes"]["byG"]
        assert base["totals"]["accepted"] == pytest.approx(100)  # 10 requests / scale 0.1
        assert base["totals"]["consumed_wcu"] == pytest.approx(100)
        assert gsi["totals"]["consumed_wcu"] == pytest.approx(100)
        assert sum(s["accepted"] for s in base["seconds"]) == pytest.approx(100)
        assert base["on_demand_ceiling"] == {
            "read": 12000 * 4130 / 4000,
            "write": pytest.approx(4130),
        }
        assert base["warm_throughput"] == {"read": 12000, "write": 4000, "status": "ACTIVE"}
        assert base["partition_count"] == len(base["partitions"])
        partitions = _get(f"{emu.endpoint_url}/_hotbench/partitions?table=tbl")
        assert partitions["table"] == "tbl" and partitions["scale"] == 0.1
        assert [i["index"] for i in partitions["indexes"]] == [None, "byG"]
        with pytest.raises(urllib.error.HTTPError) as err:
            _get(f"{emu.endpoint_url}/_hotbench/partitions?table=nope")
        assert err.value.code == 400


def test_latency_models() -> None:
    assert Latency.parse("none").sample() == 0.0
    assert Latency.parse("fixed:4ms").sample() == pytest.approx(0.004)
    normal = Latency.parse("normal:4ms,1ms")
    assert normal.mean_s == pytest.approx(0.004) and normal.sd_s == pytest.approx(0.001)
    with pytest.raises(ValueError):
        Latency.parse("slow")
    with EmulatorServer(EmulatorOptions(create_delay_s=0), latency="fixed:20ms") as emu:
        ddb = client(emu.endpoint_url)
        t0 = time.perf_counter()
        ddb.list_tables()
        assert time.perf_counter() - t0 >= 0.02


async def test_aiobotocore_client_sees_the_same_errors(emu: EmulatorServer) -> None:
    from aiobotocore.session import get_session

    session = get_session()
    async with session.create_client(
        "dynamodb",
        endpoint_url=emu.endpoint_url,
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
    ) as ddb:
        await ddb.create_table(
            TableName="asy",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        await ddb.put_item(TableName="asy", Item={"pk": {"S": "a"}})
        got = await ddb.get_item(TableName="asy", Key={"pk": {"S": "a"}})
        assert got["Item"] == {"pk": {"S": "a"}}
        with pytest.raises(ddb.exceptions.ConditionalCheckFailedException):
            await ddb.put_item(
                TableName="asy",
                Item={"pk": {"S": "a"}},
                ConditionExpression="attribute_not_exists(pk)",
            )


def test_cli_parses_serve_options() -> None:
    args = build_parser().parse_args(
        ["emulator", "serve", "--port", "0", "--scale", "0.1", "--latency", "normal:4ms,1ms"]
    )
    assert (args.host, args.port, args.scale, args.latency) == (
        "127.0.0.1",
        0,
        0.1,
        "normal:4ms,1ms",
    )
    assert args.handler.__module__ == "console.commands.emulator"


def test_skip_advances_the_clock_and_refuses_a_bad_amount(emu: EmulatorServer) -> None:
    """POST /_hotbench/skip: the pauses between repeats of a run against an emulator in
    its own process, skipped as EmulatorServer.skip does in-process."""
    import httpx

    url = f"{emu.endpoint_url}/_hotbench/skip"
    before = emu.service.state.now()
    reply = httpx.post(url, params={"seconds": 600})
    assert reply.status_code == 200, reply.text
    assert reply.json()["skipped_s"] == 600
    assert emu.service.state.now() - before >= 600
    for bad in ("-1", "lots", "1e9"):
        refused = httpx.post(url, params={"seconds": bad})
        assert refused.status_code == 400 and "seconds" in refused.json()["error"]
    assert httpx.post(url).status_code == 400
