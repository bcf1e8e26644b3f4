"""Item size to capacity units, as DynamoDB bills them."""

from __future__ import annotations

import math

from emulator.params import CapacityParams


def write_units(item_bytes: int, params: CapacityParams) -> int:
    """1 WCU per 1 KB, rounded up, at least 1 [AWS reference.md#item-size-and-units]."""
    return max(1, math.ceil(item_bytes / params.write_unit_bytes))


def read_units(item_bytes: int, consistent: bool, params: CapacityParams) -> float:
    """1 RCU per 4 KB, rounded up, halved for an eventually consistent read
    [AWS reference.md#item-size-and-units]."""
    units = max(1, math.ceil(item_bytes / params.read_unit_bytes))
    return float(units) if consistent else units / 2.0


def gsi_write_units(
    old_in_index: bool,
    new_in_index: bool,
    key_changed: bool,
    projected_bytes: int,
    params: CapacityParams,
) -> int:
    """Write units one table write costs one GSI [AWS reference.md#item-size-and-units]:
    nothing when the item is in neither version of the index (sparse index), one write to
    add, update or remove it, two when its index key changes (delete + put)."""
    if not old_in_index and not new_in_index:
        return 0
    per = write_units(projected_bytes, params)
    if old_in_index and new_in_index and key_changed:
        return 2 * per
    return per


def classic_partition_count(
    read_units_per_s: float, write_units_per_s: float, params: CapacityParams
) -> int:
    """The classic formula for a new table: ceil(RCU/3000 + WCU/1000)
    [AWS reference.md#partitions]."""
    return max(
        1,
        math.ceil(
            read_units_per_s / params.partition_rcu
            + write_units_per_s / params.partition_wcu
            - 1e-9
        ),
    )
