"""An UpdateTable request merged into a table's settings (its CreateTable-shaped
request), with the refusals DynamoDB makes from the request and the settings alone: a
billing mode it does not know, ProvisionedThroughput on an on-demand table or equal to
the units in force, OnDemandThroughput on a provisioned table, a switch to PROVISIONED
without units for the table or a GSI, a GSI update of an index that is not there.

One merge for every caller: the endpoint's UpdateTable (emulator/server/control.py,
after it has checked the members' JSON types) and the simulation's capacity-change
phases (loadgen/simulation/model_update.py), so the two refuse a change alike; what
the model decides (the time a change takes, UPDATING, the limits on decreases and on
switches) is emulator/capacity_changes.py. Pure: raises `ChangeRefused`.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from emulator.capacity_changes import VALIDATION, ChangeRefused
from emulator.tableconfig import PAY_PER_REQUEST, PROVISIONED

NOT_FOUND: Final = "ResourceNotFoundException"
"""The refusal of a GSI update of an index the table does not have (its message is the
detail after DynamoDB's 'Requested resource not found: ')."""


def _invalid(message: str) -> ChangeRefused:
    return ChangeRefused(VALIDATION, message)


def merged_settings(current: dict[str, Any], req: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The settings after `req` (a copy: `current` is left as it is) and whether it
    switches the billing mode; ChangeRefused when DynamoDB refuses the request."""
    new = copy.deepcopy(current)
    billing = req.get("BillingMode")
    switching = billing is not None and billing != (new.get("BillingMode") or PROVISIONED)
    if billing is not None:
        if billing not in (PROVISIONED, PAY_PER_REQUEST):
            raise _invalid(
                f"1 validation error detected: Value '{billing}' at 'billingMode' "
                "failed to satisfy constraint: Member must satisfy enum value set: "
                "[PROVISIONED, PAY_PER_REQUEST]"
            )
        new["BillingMode"] = billing
    mode = new.get("BillingMode") or PROVISIONED
    if "ProvisionedThroughput" in req:
        if mode != PROVISIONED:
            raise _invalid(
                "One or more parameter values were invalid: Neither "
                "ReadCapacityUnits nor WriteCapacityUnits can be specified when "
                "BillingMode is PAY_PER_REQUEST"
            )
        if not switching:
            _check_throughput_changes(new.get("ProvisionedThroughput") or {}, req)
        new["ProvisionedThroughput"] = req["ProvisionedThroughput"]
    elif mode == PAY_PER_REQUEST:
        new.pop("ProvisionedThroughput", None)
    elif switching:
        raise _invalid(
            "One or more parameter values were invalid: ProvisionedThroughput "
            "must be specified when BillingMode is PROVISIONED"
        )
    _check_on_demand_maximum(req, mode)
    for key in ("OnDemandThroughput", "WarmThroughput"):
        if key in req:
            new[key] = {**(new.get(key) or {}), **req[key]}
    defs = req.get("AttributeDefinitions")
    if defs:
        known = {d["AttributeName"]: d for d in new.get("AttributeDefinitions", [])}
        for d in defs:
            if isinstance(d, dict) and isinstance(d.get("AttributeName"), str):
                known[d["AttributeName"]] = d
        new["AttributeDefinitions"] = list(known.values())
    _apply_gsi_updates(new, req.get("GlobalSecondaryIndexUpdates") or [], mode, switching)
    if mode == PAY_PER_REQUEST:
        for gsi in new.get("GlobalSecondaryIndexes") or []:
            gsi.pop("ProvisionedThroughput", None)
    return new, switching


def _check_throughput_changes(current: dict[str, Any], req: dict[str, Any]) -> None:
    """[AWS] an UpdateTable to the capacity in force is refused, in DynamoDB's words."""
    asked = req["ProvisionedThroughput"]
    if not isinstance(asked, dict):
        return
    read, write = current.get("ReadCapacityUnits"), current.get("WriteCapacityUnits")
    if (asked.get("ReadCapacityUnits"), asked.get("WriteCapacityUnits")) == (read, write):
        raise _invalid(
            "The provisioned throughput for the table will not change. The requested value "
            "equals the current value. Current ReadCapacityUnits provisioned for the table: "
            f"{read}. Requested ReadCapacityUnits: {read}. Current WriteCapacityUnits "
            f"provisioned for the table: {write}. Requested WriteCapacityUnits: {write}. "
            "Refer to the Amazon DynamoDB Developer Guide for current limits and how to "
            "request higher limits."
        )


def _check_on_demand_maximum(req: dict[str, Any], mode: str) -> None:
    """[3P reference.md#capacity-changes-updatetable] OnDemandThroughput on a table that is
    (or stays) PROVISIONED is refused, naming its first member, in DynamoDB's words."""
    odt = req.get("OnDemandThroughput")
    if mode != PROVISIONED or not isinstance(odt, dict):
        return
    for unit in ("MaxReadRequestUnits", "MaxWriteRequestUnits"):
        if unit in odt:
            raise _invalid(
                f"One or more parameter values were invalid: {unit} for OnDemandThroughput "
                "cannot be specified when the table BillingMode is PROVISIONED"
            )


def _apply_gsi_updates(new: dict[str, Any], updates: list[Any], mode: str, switching: bool) -> None:
    gsis: list[dict[str, Any]] = new.setdefault("GlobalSecondaryIndexes", [])
    by_name = {g["IndexName"]: g for g in gsis}
    for update in updates:
        if not isinstance(update, dict) or len(update) != 1:
            raise _invalid(
                "Each GlobalSecondaryIndexUpdates entry needs exactly one of "
                "Create, Update or Delete"
            )
        ((action, body),) = update.items()
        if not isinstance(body, dict) or not isinstance(body.get("IndexName"), str):
            raise _invalid(f"GlobalSecondaryIndexUpdates {action} needs an IndexName")
        index = body["IndexName"]
        if action == "Create":
            if index in by_name:
                raise _invalid(
                    f"One or more parameter values were invalid: Index already exists: {index}"
                )
            by_name[index] = copy.deepcopy(body)
            gsis.append(by_name[index])
        elif action == "Delete":
            if index not in by_name:
                raise ChangeRefused(NOT_FOUND, f"Requested index {index} not found")
            gsis.remove(by_name.pop(index))
        elif action == "Update":
            if index not in by_name:
                raise ChangeRefused(NOT_FOUND, f"Requested index {index} not found")
            for key in ("ProvisionedThroughput", "OnDemandThroughput", "WarmThroughput"):
                if key in body:
                    by_name[index][key] = {**(by_name[index].get(key) or {}), **body[key]}
        else:
            raise _invalid(f"Unknown GlobalSecondaryIndexUpdates action: {action}")
    if switching and mode == PROVISIONED:
        for gsi in gsis:
            if "ProvisionedThroughput" not in gsi:
                raise _invalid(
                    "One or more parameter values were invalid: "
                    "ProvisionedThroughput must be specified for index: "
                    f"{gsi['IndexName']}"
                )
    if not gsis:
        new.pop("GlobalSecondaryIndexes")
