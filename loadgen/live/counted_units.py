"""What DynamoDB charges for a request its reply does not report: a conditional write
whose condition failed.

DynamoDB answers ConditionalCheckFailedException without ConsumedCapacity, yet charges
the write [AWS reference.md#what-each-operation-costs: a failed conditional write still
consumes write capacity]; the emulator does too, and so does the simulation. A live
instrument that counted only the units replies report undercounted a lock-heavy
scenario by a factor of three (M5's datastore v2: 2,598 WCU reported where 8,395 were
charged). So the worker counts those units itself, through the one charging rule
(emulator.units.table_write_units), from what it knows of the request: the item it
would have written (its own body) and the item that was there, which the failure
returns (`ReturnValuesOnConditionCheckFailure: ALL_OLD`, asked for by every conditional
write, loadgen.live.op_bodies). Counted units are kept apart from reported ones
(`Counts.counted_wcu`) so the results can say which figures are counted
(docs/results.md).
"""

from __future__ import annotations

from typing import Any

from emulator.itemsize import item_size
from emulator.params import DEFAULT_PARAMS
from emulator.units import TableWrite, table_write_units
from loadgen.live.op_bodies import WireRequest

CONDITIONAL_WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem"})


def failed_write_units(request: WireRequest, old_item: dict[str, Any] | None) -> int | None:
    """The write units DynamoDB charges `request` when its condition fails, with
    `old_item` the item the failure returned (None: there was none); None when the
    request is not a single-item conditional write (a transaction's cancellation is
    charged as the simulation charges it: not at all, [?] undocumented)."""
    body = request.body
    if request.operation not in CONDITIONAL_WRITES or "ConditionExpression" not in body:
        return None
    old = old_item or {}
    if request.operation == "PutItem":
        attempted = item_size(body["Item"])
    elif request.operation == "DeleteItem":
        attempted = 0
    else:  # the item the update would have left: the key, what was there, what it sets
        names = body.get("ExpressionAttributeNames") or {}
        values = body.get("ExpressionAttributeValues") or {}
        sets = {
            names[alias]: values[":" + alias[1:]]
            for alias in names
            if alias.startswith("#u") and ":" + alias[1:] in values
        }
        attempted = item_size({**body["Key"], **old, **sets})
    return table_write_units(TableWrite(item_size(old) if old else 0, attempted), DEFAULT_PARAMS)
