"""`prewarm`'s parts: read, raise and wait for warm throughput (DescribeTable, UpdateTable).

DynamoDB takes one change of a table at a time: "While it's UPDATING, you can't issue
another UpdateTable request" (ResourceInUseException,
https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html), and
a raise of warm throughput leaves the table (or the index) UPDATING for minutes. So each
raise waits for the table and its indexes to be ACTIVE first (the table, then each GSI),
and a refusal all the same (another client changed it) is said and waited out.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from console.run.errors import InfraError, StateError
from console.run.hooks import Hooks
from console.run.options import WarmTarget
from console.run.state import (
    TableState,
)
from console.targets.awserrors import aws_errors, error_code


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


IN_USE_RETRIES = 60
"""UpdateTable refusals (ResourceInUseException) a raise waits out, POLL_S apart after
the table says ACTIVE again."""
POLL_S = 1.0


def busy(description: dict[str, Any]) -> str | None:
    """What of the table is not ACTIVE (the table, an index, a warm-throughput raise), or
    None when DynamoDB would take an UpdateTable now."""
    if description.get("TableStatus", "ACTIVE") != "ACTIVE":
        return f"the table is {description['TableStatus']}"
    if (description.get("WarmThroughput") or {}).get("Status", "ACTIVE") != "ACTIVE":
        return "its warm throughput is UPDATING"
    for gsi in description.get("GlobalSecondaryIndexes", []):
        if gsi.get("IndexStatus", "ACTIVE") != "ACTIVE":
            return f"index {gsi['IndexName']} is {gsi['IndexStatus']}"
        if (gsi.get("WarmThroughput") or {}).get("Status", "ACTIVE") != "ACTIVE":
            return f"index {gsi['IndexName']}'s warm throughput is UPDATING"
    return None


def wait_active(
    client: Any,
    name: str,
    hooks: Hooks,
    deadline: float,
    sleep: Callable[[float], None] = time.sleep,
) -> dict[str, Any]:
    """DescribeTable until nothing of `name` is updating; its description. Says once
    what it waits for."""
    said = False
    while True:
        hooks.check_cancel()
        described: dict[str, Any] = client.describe_table(TableName=name)["Table"]
        why = busy(described)
        if why is None:
            return described
        if not said:
            hooks.say(f"{name}: {why}; waiting for ACTIVE before the next UpdateTable")
            said = True
        if time.monotonic() > deadline:
            raise InfraError(f"{name} still not ACTIVE ({why}): try `hotbench prewarm` again later")
        sleep(POLL_S)


def raise_warm(
    client: Any,
    table: TableState,
    target: WarmTarget,
    hooks: Hooks,
    deadline: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> bool:
    """UpdateTable when the target is above the current warm values; True if it was. The
    table and its indexes are ACTIVE first; a refusal (ResourceInUseException) is said
    and waited out, up to `deadline` (monotonic)."""
    deadline = time.monotonic() + 1800.0 if deadline is None else deadline
    for _attempt in range(IN_USE_RETRIES):
        try:
            return _raise_warm(client, table, target, hooks, deadline, sleep)
        except Exception as exc:
            if error_code(exc) != "ResourceInUseException":
                raise
            hooks.say(
                f"{table.name}: DynamoDB refused the UpdateTable (ResourceInUseException: "
                "the table is being changed): waiting until it is ACTIVE, then again"
            )
            sleep(POLL_S)
    raise InfraError(
        f"{table.name}: DynamoDB refused UpdateTable {IN_USE_RETRIES} times "
        "(ResourceInUseException): is another client changing it?"
    )


def _raise_warm(
    client: Any,
    table: TableState,
    target: WarmTarget,
    hooks: Hooks,
    deadline: float,
    sleep: Callable[[float], None],
) -> bool:
    described = wait_active(client, table.name, hooks, deadline, sleep)
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
