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


TRANSACTION_OPERATIONS = 2
"""[AWS] a transaction reads or writes each item twice, once to prepare it and once to
commit it: TransactWriteItems costs 2 WCU per 1 KB of each item, TransactGetItems 2 RCU per
4 KB (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html,
"Capacity management for transactions")."""


def transactional_write_units(item_bytes: int, params: CapacityParams) -> int:
    """Write units of one item of a TransactWriteItems action: two standard writes."""
    return TRANSACTION_OPERATIONS * write_units(item_bytes, params)


def transactional_read_units(item_bytes: int, params: CapacityParams) -> float:
    """Read units of one item of a TransactGetItems: two strongly consistent reads
    (a transactional read is always strongly consistent)."""
    return TRANSACTION_OPERATIONS * read_units(item_bytes, True, params)
