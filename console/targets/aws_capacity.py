"""A playbook's capacity changes on a real table, and what its capacity did: the
AWS target's `table_changer`.

The change is DynamoDB's own UpdateTable, made only once the table and its GSIs are
ACTIVE: DynamoDB refuses an UpdateTable while the table is UPDATING ("While it's
UPDATING, you can't issue another UpdateTable request",
https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html),
so the changer polls DescribeTable every POLL_S first, and with `wait: active` after.
The capacity series is read from DescribeTable (the provisioned units in force at the
end) and the scaling events from Application Auto Scaling's DescribeScalingActivities
(each activity's start, cause and status; its description carries from and to), plus
the changes the run made itself.
"""

from __future__ import annotations

import re
import time
from datetime import datetime
from typing import Any

from loadgen.live.segmented_run import ClientChanger

POLL_S = 5.0
"""DescribeTable every 5 s while waiting: DynamoDB's UPDATING lasts seconds to minutes,
and DescribeTable is a control-plane call with its own rate limit."""


def _units_set(description: str) -> float | None:
    """The units an activity set: its Description says 'Setting write capacity units to
    400.' (Application Auto Scaling's wording for DynamoDB)."""
    found = re.search(r"units to (\d+)", description)
    return float(found.group(1)) if found else None


def _epoch(value: Any) -> float:
    return value.timestamp() if isinstance(value, datetime) else float(value)


def in_force(table: dict[str, Any]) -> dict[str | None, tuple[float, float, str]]:
    """(read, write, status) of a DescribeTable's table (None) and each GSI: provisioned
    units in force (0 on demand: DynamoDB shows no ceiling) and TableStatus/IndexStatus."""
    out: dict[str | None, tuple[float, float, str]] = {}

    def one(entry: dict[str, Any], status: str) -> tuple[float, float, str]:
        units = entry.get("ProvisionedThroughput") or {}
        return (
            float(units.get("ReadCapacityUnits", 0)),
            float(units.get("WriteCapacityUnits", 0)),
            status,
        )

    out[None] = one(table, str(table.get("TableStatus", "ACTIVE")))
    for gsi in table.get("GlobalSecondaryIndexes") or []:
        out[gsi["IndexName"]] = one(gsi, str(gsi.get("IndexStatus", "ACTIVE")))
    return out


def scaling_activities(
    autoscaling: Any, table_name: str, start: float, end: float
) -> list[dict[str, Any]]:
    """Application Auto Scaling's activities of the table and its GSIs that started in
    [start, end) (Unix seconds), newest last, each with its index (None: the table)."""
    found = []
    paginator = autoscaling.get_paginator("describe_scaling_activities")
    for page in paginator.paginate(ServiceNamespace="dynamodb"):
        for activity in page.get("ScalingActivities", []):
            resource = str(activity.get("ResourceId", ""))
            at = _epoch(activity["StartTime"])
            if not resource.startswith(f"table/{table_name}") or not start <= at < end:
                continue
            index = resource.split("/index/", 1)[1] if "/index/" in resource else None
            found.append({**activity, "index": index, "at": at})
    return sorted(found, key=lambda a: a["at"])


def scaling_words(activity: dict[str, Any]) -> str:
    """An activity for `watch`: `WriteCapacityUnits -> 400: auto scaling (Successful)`."""
    what = str(activity.get("ScalableDimension", "")).rsplit(":", 1)[-1]
    to = _units_set(str(activity.get("Description", "")))
    shown = "?" if to is None else f"{to:,.0f}"
    return f"{what} -> {shown}: auto scaling ({activity.get('StatusCode', '?')})"


def aws_capacity(
    dynamodb: Any, autoscaling: Any, table_name: str, start: float, end: float
) -> dict[str, Any] | None:
    """The table's capacity for the run window [start, end) (Unix seconds): the units
    DescribeTable shows in force per table and GSI, and every scaling activity of the
    table and its GSIs that started in the window. None when nothing moved."""
    table = dynamodb.describe_table(TableName=table_name)["Table"]
    entries: dict[str, dict[str, Any]] = {}

    def point(key: str, entry: dict[str, Any]) -> None:
        units = entry.get("ProvisionedThroughput") or {}
        entries[key] = {
            "series": [
                {
                    "t": round(end - start, 3),
                    "kind": "provisioned",
                    "read": float(units.get("ReadCapacityUnits", 0)),
                    "write": float(units.get("WriteCapacityUnits", 0)),
                }
            ],
            "events": [],
        }

    point("$table", table)
    for gsi in table.get("GlobalSecondaryIndexes") or []:
        point(gsi["IndexName"], gsi)
    for activity in scaling_activities(autoscaling, table_name, start, end):
        index, at = activity["index"], activity["at"]
        done = activity.get("EndTime")
        entries.setdefault(index or "$table", {"series": [], "events": []})["events"].append(
            {
                "t": round(at - start, 3),
                "index": index,
                "what": str(activity.get("ScalableDimension", "")).rsplit(":", 1)[-1],
                "from": None,
                "to": _units_set(str(activity.get("Description", ""))),
                "cause": f"auto scaling: {activity.get('Cause', '')}".strip(),
                "effective_at": None if done is None else round(_epoch(done) - start, 3),
                "refused": None
                if activity.get("StatusCode") in ("Successful", "InProgress", "Pending")
                else activity.get("StatusMessage") or activity.get("StatusCode"),
                "description": activity.get("Description", ""),
            }
        )
    if not any(e["events"] for e in entries.values()):
        return None
    return entries


def aws_changer(dynamodb: Any, autoscaling: Any, table_name: str) -> ClientChanger:
    """The changer of one real table: UpdateTable after ACTIVE, waited for in real time."""

    def read(name: str, start: float, end: float) -> dict[str, Any] | None:
        return aws_capacity(dynamodb, autoscaling, name, start, end)

    # DynamoDB keeps no record of the UpdateTable calls made: the changer adds its own.
    return ClientChanger(dynamodb, time.sleep, POLL_S, time.time, read, records_own=True)
