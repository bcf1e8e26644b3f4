"""Item size to capacity units, as DynamoDB bills them: the one charging rule.

Both paths charge through the functions here and nowhere else: the endpoint
(emulator.server.admission) describes each request from the stored item before and after
it, the virtual-time simulation (loadgen.simulation.simulate, through
loadgen.load.writes) from what it knows of the drawn item (whether it existed, whether
its index keys or projected attributes changed). The description is small and typed
(`TableWrite`, `IndexChange`), so a new workload (deletes, batches, transactions)
describes its requests the same way and is charged by the same arithmetic. The rules and
their sources: docs/model.md#the-charging-rule.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from emulator.params import CapacityParams

PAGE_BYTES = 1024 * 1024
"""[AWS reference.md#what-each-operation-costs] a Query or Scan page stops once it has read
1 MB of items (before any filter or projection: neither lowers the cost); the item that
reaches the limit is still read."""


def write_units(item_bytes: int, params: CapacityParams) -> int:
    """1 WCU per 1 KB, rounded up, at least 1 [AWS reference.md#item-size-and-units]."""
    return max(1, math.ceil(item_bytes / params.write_unit_bytes))


def read_units(item_bytes: int, consistent: bool, params: CapacityParams) -> float:
    """1 RCU per 4 KB, rounded up, halved for an eventually consistent read
    [AWS reference.md#item-size-and-units]. A read that finds nothing (0 bytes) still
    costs the minimum."""
    units = max(1, math.ceil(item_bytes / params.read_unit_bytes))
    return float(units) if consistent else units / 2.0


def page_read_units(
    page_bytes: int, consistent: bool, params: CapacityParams, partitions: int = 1
) -> float:
    """One read request of `page_bytes` in all: a GetItem, or one Query or Scan page, whose
    items' sizes are SUMMED and then rounded up to 4 KB once (40.8 KB -> 44 KB = 11 RCU,
    5.5 eventually consistent) [AWS reference.md#what-each-operation-costs]. A Scan page
    that walked `partitions` partitions costs at least a read's minimum in each
    (emulator.server.query_scan._partitions_between says where that is measured)."""
    units = read_units(page_bytes, consistent, params)
    if partitions > 1:
        units = max(units, partitions * read_units(0, consistent, params))
    return units


class CollectionRead:
    """What one Query of an item collection (or a Scan of a segment) reads, as far as its
    units go: how many items and their summed size, from the table or a GSI (then the
    sizes are the projected entries'), and an optional page `limit` (Limit). The
    simulation keeps counts and sizes, not items (loadgen.collections), so every item of
    the collection is taken to be its mean size [?: exact when the items are one size,
    as a playbook's are; otherwise a page boundary may fall one item off]."""

    __slots__ = ("consistent", "items", "limit", "total_bytes")

    def __init__(
        self, items: int, total_bytes: int, consistent: bool, limit: int | None = None
    ) -> None:
        self.items = items
        self.total_bytes = total_bytes
        self.consistent = consistent
        self.limit = limit


class PagedReadCost:
    """The pages a collection read takes, and their units: what the reads cost in all,
    and how many requests (each page one round trip) the application makes."""

    __slots__ = ("pages", "units")

    def __init__(self, pages: int, units: float) -> None:
        self.pages = pages
        self.units = units

    def __repr__(self) -> str:
        return f"PagedReadCost(pages={self.pages!r}, units={self.units!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, PagedReadCost)
            and other.pages == self.pages
            and other.units == self.units
        )

    def __hash__(self) -> int:
        return hash((self.pages, self.units))


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def items_per_page(read: CollectionRead) -> int:
    """How many items one full page holds: the fewest whose mean sizes reach 1 MB (the
    one that reaches it is read too), at most the page `limit`."""
    if read.items == 0:
        return 1
    if read.total_bytes <= 0:
        per_page = read.items
    else:
        # k * (total / items) >= PAGE_BYTES, in integers.
        per_page = _ceil_div(PAGE_BYTES * read.items, read.total_bytes)
    if read.limit is not None:
        per_page = min(per_page, read.limit)
    return max(1, per_page)


def collection_read_cost(read: CollectionRead, params: CapacityParams) -> PagedReadCost:
    """Every page of a whole collection read (following LastEvaluatedKey to the end):
    each page's items summed, then rounded up to 4 KB, per page
    [AWS reference.md#what-each-operation-costs]. An empty collection is still one page
    that costs the minimum. Closed form, not a loop over pages: a collection that grows
    for hours may be hundreds of pages, read once per iteration."""
    return _paged_read_cost(read, 1, params)


def _paged_read_cost(
    read: CollectionRead, partitions: int, params: CapacityParams
) -> PagedReadCost:
    """The one closed form of a paged read: full pages of `items_per_page`, then the
    rest, each page its items' mean size summed and rounded up to 4 KB, and at least
    the minimum in each of the `partitions` it walked (one partition: no floor beyond
    the page's own; `scan_read_cost`)."""
    if read.items == 0:
        return PagedReadCost(1, max(1, partitions) * read_units(0, read.consistent, params))
    per_page = items_per_page(read)
    full, rest = divmod(read.items, per_page)
    pages = full + 1 if rest else full
    floor = 0.0
    if partitions > 1:
        floor = math.ceil(partitions / pages) * read_units(0, read.consistent, params)
    units = full * max(_mean_page_units(read, per_page, params), floor)
    if rest:
        units += max(_mean_page_units(read, rest, params), floor)
    return PagedReadCost(pages, units)


def _mean_page_units(read: CollectionRead, count: int, params: CapacityParams) -> float:
    """A page of `count` items of the collection's mean size, summed and rounded up to
    4 KB once: ceil(count * total / (items * 4096)), in integers."""
    blocks = max(1, _ceil_div(count * read.total_bytes, read.items * params.read_unit_bytes))
    return float(blocks) if read.consistent else blocks / 2.0


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
    [AWS reference.md#item-size-and-units] (a delete: the deleted item), twice in a
    transaction (`transactional_write_units`); so does one whose condition fails,
    described as the write it attempted (`new_bytes` the item it would have written): it
    still consumes the write units, at least 1 for an item that does not exist, and
    only changes no index (`index_write_units` is then not asked)
    [AWS reference.md#what-each-operation-costs]."""
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


def scan_read_cost(read: CollectionRead, partitions: int, params: CapacityParams) -> PagedReadCost:
    """A whole Scan (or one segment of it) of `read.items` items spread over
    `partitions` partitions: the pages of `collection_read_cost`, each at least a read's
    minimum in every partition it walked (`page_read_units`). One page walks them all;
    several share them evenly, ceil(partitions / pages) each [?: the endpoint counts the
    partitions of each page's hash range; evenly is exact when the items are]."""
    return _paged_read_cost(read, partitions, params)


def batch_write_units(writes: Iterable[TableWrite], params: CapacityParams) -> int:
    """BatchWriteItem: each put or delete rounded up to 1 KB SEPARATELY, then added (25
    items of 100 bytes cost 25 WCU, not 3) [AWS reference.md#what-each-operation-costs].
    The endpoint admits the items one by one (each may come back in UnprocessedItems) with
    `table_write_units` each; this is their sum, for what a whole batch costs."""
    return sum(table_write_units(w, params) for w in writes)


def batch_get_units(item_bytes: Iterable[int], consistent: bool, params: CapacityParams) -> float:
    """BatchGetItem: each item rounded up to 4 KB SEPARATELY, then added
    [AWS reference.md#what-each-operation-costs]; a key that finds nothing still costs the
    minimum (as a GetItem)."""
    return sum(read_units(b, consistent, params) for b in item_bytes)


def transact_get_units(item_bytes: Iterable[int], params: CapacityParams) -> float:
    """TransactGetItems: each item two strongly consistent reads (prepare and commit)
    [AWS reference.md#what-each-operation-costs]."""
    return sum(transactional_read_units(b, params) for b in item_bytes)
