"""Time to Live: UpdateTimeToLive and DescribeTimeToLive
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html). The deletion
of expired items is `expiry.Expiry`, run by the emulator's clock."""

from __future__ import annotations

from typing import Any, Final

from emulator.server.emulator_state import EmulatorState
from emulator.server.protocol import member, null_member, table_name, validation

MAX_NAME_BYTES: Final = 255


def update_time_to_live(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    name = table_name(req)
    spec = member(req, "TimeToLiveSpecification", dict, required=True)
    enabled = member(spec, "Enabled", bool)
    if enabled is None:
        raise null_member("timeToLiveSpecification.enabled")
    attribute = member(spec, "AttributeName", str)
    if attribute is None:
        raise null_member("timeToLiveSpecification.attributeName")
    if not 1 <= len(attribute.encode()) <= MAX_NAME_BYTES:
        raise validation(
            f"1 validation error detected: Value '{attribute}' at "
            "'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member "
            "must have length between 1 and 255"
        )
    state.tick()
    table = state.table(name, active=False)
    current = table.ttl_attribute
    if enabled and current is not None:
        raise validation("TimeToLive is already enabled")
    if not enabled:
        if current is None:
            raise validation("TimeToLive is already disabled")
        if current != attribute:
            raise validation(
                "TimeToLive is active on a different AttributeName: current AttributeName "
                f"is {current}"
            )
    table.ttl_attribute = attribute if enabled else None
    return {"TimeToLiveSpecification": {"Enabled": enabled, "AttributeName": attribute}}


def describe_time_to_live(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    name = table_name(req)
    state.tick()
    table = state.table(name, active=False)
    if table.ttl_attribute is None:
        return {"TimeToLiveDescription": {"TimeToLiveStatus": "DISABLED"}}
    return {
        "TimeToLiveDescription": {
            "TimeToLiveStatus": "ENABLED",
            "AttributeName": table.ttl_attribute,
        }
    }
