"""Bounded work per request (issue 25): capacities past DynamoDB's bound or quotas are
refused as DynamoDB refuses them, the partitions a table gets stay bounded by the quotas
whatever it asks for, and SIGINT / SIGTERM stop a serving emulator."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.params import DEFAULT_PARAMS
from emulator.server import EmulatorServer
from tests.emulator.server.conftest import key_table

ROOT = Path(__file__).resolve().parents[3]


def _error(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = exc.value.response["Error"]
    return error["Code"], error["Message"]


def _provisioned(ddb: Any, name: str, rcu: int, wcu: int, **extra: Any) -> dict[str, Any]:
    return key_table(
        ddb,
        name,
        billing="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu},
        **extra,
    )


def test_capacity_past_ten_to_the_twelve_is_out_of_bounds(ddb: Any) -> None:
    with pytest.raises(ClientError) as exc:
        _provisioned(ddb, "huge", 10**12 + 1, 1)
    assert _error(exc) == (
        "ValidationException",
        "Given value 1000000000001 for ReadCapacityUnits is out of bounds",
    )
    with pytest.raises(ClientError) as exc:
        _provisioned(ddb, "huge", 5, 10**12 + 1)
    assert _error(exc)[1] == "Given value 1000000000001 for WriteCapacityUnits is out of bounds"
    key_table(ddb, "small", billing="PROVISIONED")
    with pytest.raises(ClientError) as exc:
        ddb.update_table(
            TableName="small",
            ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 10**15},
        )
    assert _error(exc)[1] == "Given value 1000000000000000 for WriteCapacityUnits is out of bounds"
    assert ddb.list_tables()["TableNames"] == ["small"]


def test_capacity_past_the_table_quota_is_a_limit_exceeded(ddb: Any, emu: EmulatorServer) -> None:
    quota = ddb.describe_limits()["TableMaxWriteCapacityUnits"]
    assert quota == 40000
    with pytest.raises(ClientError) as exc:
        _provisioned(ddb, "big", 1, 10**12)
    code, message = _error(exc)
    assert code == "LimitExceededException"
    assert message.startswith("Subscriber limit exceeded: ") and "40000 write" in message
    # At the quota itself the table is made, with the partitions the formula gives.
    _provisioned(ddb, "big", 40000, 40000)
    assert emu.partitions("big")["indexes"][0]["partition_count"] == 54
    with pytest.raises(ClientError) as exc:
        ddb.update_table(
            TableName="big",
            ProvisionedThroughput={"ReadCapacityUnits": 40000, "WriteCapacityUnits": 40001},
        )
    assert _error(exc)[0] == "LimitExceededException"
    # Warm throughput pre-splits as much as capacity: bounded by the same quota.
    with pytest.raises(ClientError) as exc:
        key_table(ddb, "warm", WarmThroughput={"WriteUnitsPerSecond": 10**15})
    assert _error(exc)[0] == "LimitExceededException"
    assert emu.partitions("big")["indexes"][0]["partition_count"] == 54


def test_the_account_quota_sums_every_provisioned_table_and_index(ddb: Any) -> None:
    limits = ddb.describe_limits()
    assert limits["AccountMaxWriteCapacityUnits"] == 80000
    _provisioned(ddb, "one", 10, 40000)
    gsi = {
        "IndexName": "by_g",
        "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"},
        "ProvisionedThroughput": {"ReadCapacityUnits": 10, "WriteCapacityUnits": 30000},
    }
    _provisioned(ddb, "two", 10, 10000, GlobalSecondaryIndexes=[gsi])
    with pytest.raises(ClientError) as exc:
        _provisioned(ddb, "three", 10, 1)
    code, message = _error(exc)
    assert code == "LimitExceededException"
    assert "80001 write" in message and "80000" in message
    # On demand counts for nothing against it; and deleting a table gives its units back.
    key_table(ddb, "ondemand")
    ddb.delete_table(TableName="one")
    _provisioned(ddb, "three", 10, 40000)


def test_a_table_asking_for_any_capacity_gets_a_bounded_partition_count(
    ddb: Any, emu: EmulatorServer
) -> None:
    """The work of CreateTable / UpdateTable is O(partitions), and partitions are bounded
    by the quota whatever the request asks: every refused request leaves the model as it
    was, and the largest accepted increase doubles the count to the first power of two
    past the formula's 54 (docs/model.md#how-partitions-are-made)."""
    key_table(ddb, "tbl", billing="PROVISIONED")
    for units in (10**7, 10**12, 10**12 + 1, 10**15):
        with pytest.raises(ClientError):
            ddb.update_table(
                TableName="tbl",
                ProvisionedThroughput={"ReadCapacityUnits": units, "WriteCapacityUnits": units},
            )
        assert emu.partitions("tbl")["indexes"][0]["partition_count"] == 1
    ddb.update_table(
        TableName="tbl",
        ProvisionedThroughput={"ReadCapacityUnits": 40000, "WriteCapacityUnits": 40000},
    )
    emu.skip(DEFAULT_PARAMS.update_split_s + 1)  # the new partitions come with the change
    assert emu.partitions("tbl")["indexes"][0]["partition_count"] == 64


def _serve(tmp_path: Path) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOTBENCH_PURE": "1"}
    log = tmp_path / "serve.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "console.cli", "emulator", "serve", "--port", "0"],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=ROOT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"listening on (http://\S+)", log.read_text())
        if found:
            return proc, found.group(1)
        assert proc.poll() is None, log.read_text()
        time.sleep(0.1)
    proc.kill()
    raise AssertionError(f"the emulator did not start: {log.read_text()}")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_the_server_after_out_of_bounds_requests(
    tmp_path: Path, sig: signal.Signals
) -> None:
    from tests.emulator.server.conftest import client

    proc, url = _serve(tmp_path)
    try:
        ddb = client(url)
        for units in (10**7, 10**12 + 1):
            with pytest.raises(ClientError):
                _provisioned(ddb, f"t{units}", units, units)
        assert ddb.list_tables()["TableNames"] == []
        proc.send_signal(sig)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
