"""What a playbook's requests do to its items and their indexes, described for the one
charging rule (`emulator.units`), for the simulation and `hotbench advise`.

The endpoint describes each write from the stored item before and after it. The
simulation stores no items, but it knows as much about them: the load generator
(loadgen.load.requests) writes every key attribute of the table and its GSIs on every put and
update, an attribute marked `per_item` is derived from the item's key (so it never
changes), every other one is drawn afresh per request (so a rewrite may move the item
within an index), and the filler is stamped per write (so a rewrite always changes an
index that projects ALL, or INCLUDEs the filler). So a request is one of four classes per
GSI: the item is NEW, the write MOVES its index key, it REWRITES only what the index
projects, or it leaves the index UNCHANGED. Each class is described once as an
`emulator.units.IndexChange` and charged by `index_write_units`; the simulation then
applies the class's units to every request of the class in bulk (numpy), which is the
same arithmetic per request as the endpoint's, without a Python call per request.

Whether an item existed, and its index key values before the write, is what
`ItemStates` keeps, per item of a finite primary-key space (a never-repeating key,
uuid or monotonic, is a new item every time).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from emulator.itemsize import item_size
from emulator.params import CapacityParams
from emulator.units import (
    IndexChange,
    TableWrite,
    index_write_units,
    read_units,
    table_write_units,
)
from loadgen.format.playbook import Distribution, GsiSpec, TableSpec
from loadgen.load.keys import ItemGenerator, mix64
from loadgen.load.requests import FILLER, wire_value

KEYS_ONLY_BYTES = 100
"""A rough size of a KEYS_ONLY index entry for cost estimates (always one write unit);
the charging itself sizes entries from the playbook's key values (`IndexPlan`)."""

NEW, MOVED, REWRITTEN, UNCHANGED = 0, 1, 2, 3
"""The classes of a table write, per GSI (the item is in every index: the load generator
writes every index key attribute)."""

DENSE_LIMIT = 1 << 20
"""Primary-key spaces up to this many items keep their state in flat arrays; larger
finite ones map the items they meet to rows (a dict from item id to row)."""


def _sample_bytes(generator: ItemGenerator, names: list[str]) -> int:
    """The DynamoDB size of the named attributes as the load generator renders them, from
    each attribute's first value (keys of one attribute are usually of one width)."""
    item = {n: wire_value(generator.samplers[n].render(0)) for n in names}
    return item_size(item)


@dataclass(frozen=True)
class IndexPlan:
    """One GSI of one table under one phase's distributions."""

    name: str
    pk: tuple[str, ...]
    """The partition-key attributes (several for a multi-attribute key: hashed together)."""
    sk: tuple[str, ...]
    """The sort-key attributes (none, one, or several: ordered left to right)."""
    moving: tuple[str, ...]
    """Index key attributes drawn per request (not the table's key, not per_item): a
    rewrite that draws another value moves the entry."""
    watched: tuple[str, ...]
    """Other projected attributes drawn per request (INCLUDE): a change rewrites it."""
    always_rewritten: bool
    """ALL, or INCLUDE of the filler: every rewrite changes what the index holds."""
    entry_bytes: int
    units: tuple[tuple[int, int], ...]
    """(units on the old entry's partition, units on the new one's) by class, from
    `emulator.units.index_write_units`."""

    def by_class(self, cls: int) -> tuple[int, int]:
        return self.units[cls]


def index_plan(
    spec: TableSpec,
    gsi: GsiSpec,
    generator: ItemGenerator,
    attributes: dict[str, Distribution],
    params: CapacityParams,
) -> IndexPlan:
    """How the load's writes change one GSI, and what each class of write costs it."""
    primary = set(spec.primary_key_names())
    keys = gsi.key_names()

    def churns(name: str) -> bool:
        return name in generator.samplers and name not in primary and not attributes[name].per_item

    moving = tuple(n for n in dict.fromkeys(keys) if churns(n))
    key_names = list(dict.fromkeys([*spec.primary_key_names(), *keys]))
    watched: tuple[str, ...] = ()
    if gsi.projection == "ALL":
        entry, always = spec.item_size_bytes, True
    else:
        included = [] if gsi.projection == "KEYS_ONLY" else list(gsi.non_key_attributes)
        generated = [n for n in included if n in generator.samplers and n not in key_names]
        always = FILLER in included
        watched = tuple(n for n in generated if churns(n))
        entry = _sample_bytes(generator, [*key_names, *generated])
        if always:
            # The filler brings the item to item_size_bytes: its share is what the other
            # attributes leave.
            everything = _sample_bytes(generator, list(generator.samplers))
            entry += max(0, spec.item_size_bytes - everything)
    return IndexPlan(
        gsi.name,
        tuple(k.name for k in gsi.partition_keys),
        tuple(k.name for k in gsi.sort_keys),
        moving,
        watched,
        always,
        entry,
        class_units(always, entry, params),
    )


def class_units(
    always_rewritten: bool, entry_bytes: int, params: CapacityParams
) -> tuple[tuple[int, int], ...]:
    """Each class's request description, charged by the one rule, in the order NEW,
    MOVED, REWRITTEN, UNCHANGED. The simulation and advise both take the units from here."""
    e = entry_bytes
    changes = (
        IndexChange(False, True, False, True, 0, e),  # NEW: put the entry
        IndexChange(True, True, True, True, e, e),  # MOVED: delete the old, put the new
        IndexChange(True, True, False, True, e, e),  # REWRITTEN: update it in place
        IndexChange(True, True, False, always_rewritten, e, e),  # UNCHANGED index values
    )
    return tuple(index_write_units(c, params) for c in changes)


def possible_classes(plan: IndexPlan) -> set[int]:
    """The classes the load's writes can fall in for this GSI."""
    out = {NEW}
    if plan.moving:
        out.add(MOVED)
    if plan.always_rewritten or plan.watched:
        out.add(REWRITTEN)
    if not plan.always_rewritten:
        out.add(UNCHANGED)
    return out


@dataclass(frozen=True)
class TablePlan:
    """One table under one phase: what its writes and reads cost by whether the item
    existed, and what its GSIs need to know."""

    write_units: tuple[int, int]
    """Table write units when the item did not / did exist (`table_write_units`)."""
    read_units: tuple[float, float]
    """Read units when the item did not / did exist (a miss costs the minimum)."""
    indexes: list[IndexPlan]
    tracked: tuple[str, ...]
    """Attributes whose previous value per item matters (moving or watched)."""
    needs_state: bool
    """Whether any charge depends on the item's past (else every request is charged the
    same and no state is kept: the common case stays as fast as it was)."""


def table_plan(
    spec: TableSpec,
    generator: ItemGenerator,
    attributes: dict[str, Distribution],
    consistent: bool,
    is_write: bool,
    params: CapacityParams,
) -> TablePlan:
    size = spec.item_size_bytes
    writes = (
        table_write_units(TableWrite(0, size), params),
        table_write_units(TableWrite(size, size), params),
    )
    reads = (read_units(0, consistent, params), read_units(size, consistent, params))
    indexes = [index_plan(spec, g, generator, attributes, params) for g in spec.gsis]
    tracked = tuple(dict.fromkeys(n for g in indexes for n in (*g.moving, *g.watched)))
    if is_write:
        needs = writes[0] != writes[1] or any(
            len({g.units[c] for c in possible_classes(g)}) > 1 for g in indexes
        )
    else:
        needs = reads[0] != reads[1]
    return TablePlan(writes, reads, indexes, tracked, needs)


def classes(plan: IndexPlan, existed: np.ndarray, changed: dict[str, np.ndarray]) -> np.ndarray:
    """Each request's class for one GSI, from whether its item existed and which tracked
    attributes the write changes."""
    if not existed.any():
        return np.full(len(existed), NEW, dtype=np.int64)
    moved = np.zeros(len(existed), dtype=bool)
    for name in plan.moving:
        moved |= changed[name]
    rewritten = np.full(len(existed), plan.always_rewritten)
    for name in plan.watched:
        rewritten |= changed[name]
    out = np.where(moved, MOVED, np.where(rewritten, REWRITTEN, UNCHANGED))
    return np.where(existed, out, NEW).astype(np.int64)


def store_key(table: str, attributes: dict[str, Distribution], primary: list[str]) -> str:
    """Items are the same items when their table and primary-key distributions are (a
    phase that overrides the key's distribution addresses other items, e.g. seeded ones)."""
    dists = [attributes[n].model_dump(mode="json") for n in primary]
    return json.dumps([table, dists], sort_keys=True)


class ItemStates:
    """Per item of one table's finite primary-key space: whether it exists, and the hash
    and sort position of each tracked attribute's current value (hashes compare values:
    the simulation's key hashes are the endpoint's for finite value sets)."""

    def __init__(self, radices: list[int], tracked: list[str]) -> None:
        self.radices = radices
        total = math.prod(radices)
        self.exact_ids = total < (1 << 62)
        self.dense = total <= DENSE_LIMIT
        self.rows: dict[int, int] = {}
        size = total if self.dense else 1024
        self.existed = np.zeros(size, dtype=bool)
        self.hashes: dict[str, np.ndarray] = {}
        self.positions: dict[str, np.ndarray] = {}
        for name in tracked:
            self.track(name)

    def track(self, name: str) -> None:
        if name not in self.hashes:
            self.hashes[name] = np.zeros(len(self.existed), dtype=np.uint64)
            self.positions[name] = np.zeros(len(self.existed), dtype=np.float64)

    def ids(self, idx: dict[str, np.ndarray], primary: list[str]) -> np.ndarray:
        """Each request's item id (mixed radix of its key indices, or a 64-bit mix of
        them when the space is larger than that)."""
        out = np.zeros(len(idx[primary[0]]), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for name, radix in zip(primary, self.radices, strict=True):
                if self.exact_ids:
                    out = out * np.uint64(radix) + idx[name].astype(np.uint64)
                else:
                    out = mix64(out * np.uint64(1_000_003) + idx[name].astype(np.uint64))
        return out

    def rows_of(self, ids: np.ndarray) -> np.ndarray:
        if self.dense:
            return ids.astype(np.int64)
        rows = self.rows
        # A dict per item met (a Python step per request, only for key spaces too large
        # for flat arrays; no library maps sparse uint64 keys to rows incrementally).
        out = np.fromiter(
            (rows.setdefault(k, len(rows)) for k in ids.tolist()), dtype=np.int64, count=len(ids)
        )
        need = len(rows)
        have = len(self.existed)
        if need > have:
            grow = max(need, 2 * have)
            existed = np.zeros(grow, dtype=bool)
            existed[:have] = self.existed
            self.existed = existed
            for name in self.hashes:
                hashes = np.zeros(grow, dtype=np.uint64)
                hashes[:have] = self.hashes[name]
                self.hashes[name] = hashes
                positions = np.zeros(grow, dtype=np.float64)
                positions[:have] = self.positions[name]
                self.positions[name] = positions
        return out


def previous(
    states: ItemStates, rows: np.ndarray, current: dict[str, tuple[np.ndarray, np.ndarray]]
) -> tuple[np.ndarray, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Each request's item before it: existed, and its tracked (hash, position). A request
    on an item an earlier request of the same tick wrote sees that write (the tick's
    requests are taken in draw order, as if all of them were admitted)."""
    n = len(rows)
    order = np.argsort(rows, kind="stable")
    srows = rows[order]
    first = np.ones(n, dtype=bool)
    first[1:] = srows[1:] != srows[:-1]
    before = np.empty(n, dtype=np.int64)
    before[1:] = order[:-1]
    before[0] = 0
    existed = np.empty(n, dtype=bool)
    existed[order] = np.where(first, states.existed[srows], True)
    prev: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, (h, p) in current.items():
        ph = np.empty(n, dtype=np.uint64)
        pp = np.empty(n, dtype=np.float64)
        ph[order] = np.where(first, states.hashes[name][srows], h[before])
        pp[order] = np.where(first, states.positions[name][srows], p[before])
        prev[name] = (ph, pp)
    return existed, prev


def record(
    states: ItemStates,
    rows: np.ndarray,
    applied: np.ndarray,
    current: dict[str, tuple[np.ndarray, np.ndarray]],
) -> None:
    """Store what the admitted writes left: each item as its last admitted write made it
    (a throttled write changes nothing)."""
    where = np.nonzero(applied)[0]
    if len(where) == 0:
        return
    rev = where[::-1]
    items, first = np.unique(rows[rev], return_index=True)
    last = rev[first]
    states.existed[items] = True
    for name, (h, p) in current.items():
        states.hashes[name][items] = h[last]
        states.positions[name][items] = p[last]
