"""Item size to capacity units, as DynamoDB bills them: the one charging rule.

Both paths charge through the functions here and nowhere else: the endpoint
(emulator.server.admission) describes each request from the stored item before and
after it, the virtual-time simulation (loadgen.simulate, through loadgen.writes) from
what it knows of the drawn item (whether it existed, whether its index keys or projected
attributes changed). The description is small and typed (`TableWrite`, `IndexChange`),
so a new workload (deletes, batches, transactions) describes its requests the same way
and is charged by the same arithmetic. The rules and their sources: docs/model.md#the-
charging-rule.
"""

from __future__ import annotations

import math

from emulator.params import CapacityParams


def write_units(item_bytes: int, params: CapacityParams) -> int:
    """1 WCU per 1 KB, rounded up, at least 1 [AWS reference.md#item-size-and-units]."""
    return max(1, math.ceil(item_bytes / params.write_unit_bytes))


def read_units(item_bytes: int, consistent: bool, params: CapacityParams) -> float:
    """1 RCU per 4 KB, rounded up, halved for an eventually consistent read
    [AWS reference.md#item-size-and-units]. A read that finds nothing (0 bytes) still
    costs the minimum."""
    units = max(1, math.ceil(item_bytes / params.read_unit_bytes))
    return float(units) if consistent else units / 2.0


class TableWrite:
    """What one table write (put, update or delete) is, as far as its table units go.

    A plain class with slots, not a dataclass: mypyc compiles its __init__, and the
    endpoint describes every write."""

    __slots__ = ("new_bytes", "old_bytes", "transactional")

    def __init__(self, old_bytes: int, new_bytes: int, transactional: bool = False) -> None:
        self.old_bytes = old_bytes
        """Size of the item before the write, 0 when there was none."""
        self.new_bytes = new_bytes
        """Size of the item after it, 0 for a delete."""
        self.transactional = transactional
        """An action of TransactWriteItems: prepared and committed, so charged twice."""


def table_write_units(write: TableWrite, params: CapacityParams) -> int:
    """A write costs the larger of the item before and after it, rounded up to 1 KB
    [AWS reference.md#item-size-and-units], twice in a transaction
    (`transactional_write_units`); so does one whose condition fails: it still consumes
    the write units, it only changes no index (`index_write_units` is then not asked)."""
    size = max(write.old_bytes, write.new_bytes)
    if write.transactional:
        return transactional_write_units(size, params)
    return write_units(size, params)


class IndexChange:
    """What one table write does to one GSI's entry for the item: the request description
    the index's charge is made from.

    `old_in` / `new_in`: the item is in the index before / after the write (it has the
    index's key attributes; a sparse index holds only items that do). `key_changed`: it is
    in both and a value of the index key differs. `projected_changed`: it is in both and
    something the index holds (its projected attributes, keys included) differs.
    `old_bytes` / `new_bytes`: the sizes of the old and new index entries (the projected
    part of the item)."""

    __slots__ = ("key_changed", "new_bytes", "new_in", "old_bytes", "old_in", "projected_changed")

    def __init__(
        self,
        old_in: bool,
        new_in: bool,
        key_changed: bool,
        projected_changed: bool,
        old_bytes: int,
        new_bytes: int,
    ) -> None:
        self.old_in = old_in
        self.new_in = new_in
        self.key_changed = key_changed
        self.projected_changed = projected_changed
        self.old_bytes = old_bytes
        self.new_bytes = new_bytes


def index_write_units(change: IndexChange, params: CapacityParams) -> tuple[int, int]:
    """(units on the OLD entry's partition, units on the NEW entry's partition) that one
    table write costs one GSI [AWS GSI.html, "Write capacity units",
    reference.md#gsi-write-units]:

    - added (a new item, or an update that gives it the index key): 1 write, the put;
    - index key changed: 2 writes, a delete of the old entry, on the old key's partition,
      and a put of the new one, on the new key's partition;
    - removed (a delete, or an update that drops an index key attribute): 1 write, the
      delete, on the old key's partition;
    - only projected attributes changed: 1 write, on the entry's (unchanged) partition;
    - nothing the index holds changed, or the item is in neither version: nothing.

    Each write is 1 WCU per 1 KB of its entry (rounded up): the delete is sized on the
    old entry, the put on the new one [AWS: "larger index entries require additional
    write capacity units"; which entry sizes the delete is not documented [?]]."""
    if change.old_in and change.new_in:
        if change.key_changed:
            return write_units(change.old_bytes, params), write_units(change.new_bytes, params)
        if change.projected_changed:
            return 0, write_units(change.new_bytes, params)
        return 0, 0
    if change.new_in:
        return 0, write_units(change.new_bytes, params)
    if change.old_in:
        return write_units(change.old_bytes, params), 0
    return 0, 0


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
