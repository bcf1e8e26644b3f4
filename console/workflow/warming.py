"""`prewarm`'s parts: read, raise and wait for warm throughput (DescribeTable, UpdateTable)."""

from __future__ import annotations

import time
from typing import Any

from console.run.errors import InfraError, StateError
from console.run.hooks import Hooks
from console.run.options import WarmTarget
from console.run.state import (
    TableState,
)
from console.targets.awserrors import aws_errors


def current_warm(description: dict[str, Any], index: str | None) -> tuple[int, int, str]:
    if index is None:
        warm = description.get("WarmThroughput") or {}
    else:
        gsi = next(
            (g for g in description.get("GlobalSecondaryIndexes", []) if g["IndexName"] == index),
            None,
        )
        if gsi is None:
            raise StateError(f"table {description.get('TableName')} has no GSI {index!r}")
        warm = gsi.get("WarmThroughput") or {}
    return (
        int(warm.get("ReadUnitsPerSecond", 0)),
        int(warm.get("WriteUnitsPerSecond", 0)),
        str(warm.get("Status", "ACTIVE")),
    )


def raise_warm(client: Any, table: TableState, target: WarmTarget, hooks: Hooks) -> bool:
    """UpdateTable when the target is above the current warm values; True if it was."""
    described = client.describe_table(TableName=table.name)["Table"]
    read_now, write_now, _status = current_warm(described, target.index)
    read = max(read_now, target.read or 0)
    write = max(write_now, target.write or 0)
    where = table.variant + (f"/{target.index}" if target.index else "")
    if (read, write) == (read_now, write_now):
        hooks.say(f"{where}: already warm at {read_now:,} read / {write_now:,} write units/s")
        return False
    warm = {"ReadUnitsPerSecond": read, "WriteUnitsPerSecond": write}
    hooks.say(f"{where}: warm throughput -> {read:,} read / {write:,} write units/s")
    if target.index is None:
        client.update_table(TableName=table.name, WarmThroughput=warm)
        table.warm_read, table.warm_write = read, write
    else:
        client.update_table(
            TableName=table.name,
            GlobalSecondaryIndexUpdates=[
                {"Update": {"IndexName": target.index, "WarmThroughput": warm}}
            ],
        )
        for gsi in table.gsis:
            if gsi.name == target.index:
                gsi.warm_read, gsi.warm_write = read, write
    return True


def wait_warm(
    client: Any,
    waiting: list[tuple[str, str | None]],
    timeout_s: float,
    hooks: Hooks,
    region: str,
) -> None:
    """Poll DescribeTable until every raised warm throughput says ACTIVE."""
    if not waiting:
        return
    deadline = time.monotonic() + timeout_s
    pending = list(waiting)
    while pending:
        hooks.check_cancel()
        hooks.progress("warming", 1 - len(pending) / len(waiting))
        still = []
        for name, index in pending:
            with aws_errors("dynamodb:DescribeTable", region):
                described = client.describe_table(TableName=name)["Table"]
            if current_warm(described, index)[2] != "ACTIVE":
                still.append((name, index))
        pending = still
        if pending and time.monotonic() > deadline:
            raise InfraError(
                f"warm throughput not ACTIVE after {timeout_s:.0f} s on "
                + ", ".join(n + (f"/{i}" if i else "") for n, i in pending)
            )
        if pending:
            time.sleep(1.0)
    hooks.progress("warming", 1.0)
