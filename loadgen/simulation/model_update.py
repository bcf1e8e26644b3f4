"""A capacity-change phase in the simulation: the phase's UpdateTable applied to the
model at the phase's time, under DynamoDB's rules, which the model holds
(emulator/capacity_changes.py: the time a change takes, UPDATING meanwhile, the limits on
decreases and on switches of mode, a change while UPDATING refused), after the merge and
the refusals the endpoint's UpdateTable makes from the request alone
(emulator/update_request.py: a change to the capacity in force, ProvisionedThroughput on
an on-demand table, OnDemandThroughput on a provisioned one), in DynamoDB's words.

The request is the one every target makes (`Control.request`, built from the table as
DescribeTable shows it); a refusal is the phase's outcome, never an exception out of the
simulation.
"""

from __future__ import annotations

import math
from typing import Any, Final

from emulator.capacity import PartitionedCapacity, TableCapacity
from emulator.capacity_changes import VALIDATION, ChangeRefused
from emulator.model import CapacityModel, ModelError
from emulator.tableconfig import PAY_PER_REQUEST, PROVISIONED, TableConfig, TableConfigError
from emulator.update_request import merged_settings
from loadgen.format.kinds import Control
from loadgen.results.capacity_series import ChangeOutcome

MAX_WAIT_S: Final = 4 * 3600.0
"""The longest a `wait: active` phase waits for the model's change to land (the longest
change the model makes, a split, takes minutes: past this, something is wrong)."""


def _units(index: PartitionedCapacity) -> dict[str, int]:
    limits = index.requested_limits()
    if not limits.provisioned:
        return {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    return {"ReadCapacityUnits": int(limits.rcu or 0), "WriteCapacityUnits": int(limits.wcu or 0)}


def described(table: TableCapacity) -> dict[str, Any]:
    """The table's capacity settings as DescribeTable shows them (the last asked for)."""
    mode = PROVISIONED if table.base.requested_limits().provisioned else PAY_PER_REQUEST
    return {
        "TableName": table.config.name,
        "BillingModeSummary": {"BillingMode": mode},
        "ProvisionedThroughput": _units(table.base),
        "GlobalSecondaryIndexes": [
            {"IndexName": name, "ProvisionedThroughput": _units(index)}
            for name, index in table.gsis.items()
        ],
    }


def busy(table: TableCapacity) -> bool:
    """Whether the table or a GSI is UPDATING (a change of units or mode not yet landed)."""
    return any(index.pending_limits is not None for index in table.indexes())


def apply_change(
    model: CapacityModel,
    requests: dict[str, dict[str, Any]],
    control: Control,
    name: str,
    now: float,
) -> ChangeOutcome:
    """Make the phase's UpdateTable of table `name` at `now`; `requests` holds each
    table's settings (CreateTable-shaped) and takes the new ones when accepted."""
    table = model.tables[name]
    current = requests[name]
    for entry, index in [(current, table.base)] + [
        (g, table.gsis[g["IndexName"]]) for g in current.get("GlobalSecondaryIndexes") or []
    ]:
        if index.requested_limits().provisioned:  # auto scaling moves it in the model alone
            entry["ProvisionedThroughput"] = _units(index)
    request = control.request(name, described(table))
    outcome = ChangeOutcome(request)
    try:
        new, _ = merged_settings(current, request)
        model.update_capacity(name, TableConfig.from_request(new), now)
    except ChangeRefused as exc:
        outcome.error, outcome.message = exc.error, exc.message
        return outcome
    except (TableConfigError, ModelError) as exc:
        outcome.error = VALIDATION
        outcome.message = f"One or more parameter values were invalid: {exc}"
        return outcome
    requests[name] = new
    return outcome


def wait_active(model: CapacityModel, name: str, start: float) -> float:
    """Advance the model second by second until the table and its GSIs are ACTIVE; the
    seconds it took from `start` (whole seconds: the model's changes land on its tick)."""
    table = model.tables[name]
    now = start
    while busy(table) and now - start < MAX_WAIT_S:
        now = math.floor(now) + 1.0
        model.advance(now)
    return now - start
