"""The simulation's growing state: how many entries, and how many bytes, each item
collection holds as a run writes to it, so a query's read cost grows with the data.

Issue 26's point is a bottleneck that migrates as data grows (M5, the published
datastore sync case, reference.md#m5-a-datastore-sync-protocol-over-hours): a query that
reads a whole collection (every item under one partition-key value, of a table or a GSI)
costs more each iteration as writes add to it. The simulation stores no items; this
module keeps, per table or index and partition-key value, the count and the summed size
of its entries, and, for a collection whose sort key is the write's time (an
`updatedAt|path` key, queried "since my last sync"), how many were written in each
interval, so a query of the entries newer than a watermark costs only those. Memory is
bounded by what is tracked, not by how long the run is: counts and sizes per collection,
at most `max_buckets` intervals per time-ordered collection (older intervals are merged,
so an old watermark is answered at a coarser grain).

Who calls it: the simulation engine on every write that adds, changes or removes an
entry (it works out which entries a write touches, as `loadgen.load.writes` does for the
charges) and on every collection query; the charge of the query is
`emulator.units.collection_read_cost`, the one charging rule. Per-key state is kept only
for the (table, index) pairs a playbook queries as collections (`track`); every other
table keeps its totals only (a Scan reads them; inserts grow the key space, YCSB's
`latest`).
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable
from dataclasses import dataclass, field

from emulator.params import CapacityParams
from emulator.units import CollectionRead, PagedReadCost, collection_read_cost

Source = tuple[str, str | None]
"""A table, or one of its indexes: (table name, index name or None)."""


@dataclass(frozen=True, slots=True)
class CollectionStats:
    """What a collection (or a whole table or index) holds: entries and their bytes."""

    items: int
    bytes: int


class _Timeline:
    """A time-ordered collection's entries per interval of its last write: parallel lists
    (interval starts, entries, bytes), so finding a watermark's interval is one bisect."""

    __slots__ = ("bytes", "items", "starts")

    def __init__(self) -> None:
        self.starts: list[float] = []
        self.items: list[int] = []
        self.bytes: list[int] = []

    def put(self, items: int, size: int, now: float, resolution_s: float, most: int) -> None:
        starts = self.starts
        if not starts or now >= starts[-1] + resolution_s:
            # Intervals start on the grid of resolution_s, so a watermark's interval is
            # the same whatever order writes arrive within it.
            starts.append(now - now % resolution_s)
            self.items.append(0)
            self.bytes.append(0)
            if len(starts) > most:
                self._merge_oldest()  # new lists: `starts` is stale past here
            i = len(self.starts) - 1
        else:
            # Normally the newest; a caller replaying an older stamp gets its interval.
            i = len(starts) - 1 if now >= starts[-1] else self._at(now)
        self.items[i] += items
        self.bytes[i] += size

    def take(self, size: int, stamp: float | None) -> None:
        if not self.starts:
            return
        if stamp is None:
            # [?] which entry an unstamped removal takes is unknown: the oldest one
            # (in an updatedAt-keyed collection, entries are rewritten oldest first).
            i = next((j for j, n in enumerate(self.items) if n > 0), 0)
        else:
            i = self._at(stamp)
        self.items[i] = max(0, self.items[i] - 1)
        self.bytes[i] = max(0, self.bytes[i] - size)

    def since(self, t: float) -> tuple[int, int]:
        """Entries and bytes of the interval `t` falls in and every later one."""
        first = self._at(t)
        return sum(self.items[first:]), sum(self.bytes[first:])

    def _at(self, t: float) -> int:
        return max(0, bisect.bisect_right(self.starts, t) - 1)

    def _merge_oldest(self) -> None:
        """Halve the older half of the intervals by merging neighbours in pairs: the
        newest intervals (the watermarks an iteration reads since) keep their grain, old
        ones get coarser, and the count stays under the bound whatever the run's length."""
        older = len(self.starts) // 2
        older -= older % 2
        s, n, b = self.starts, self.items, self.bytes
        self.starts = s[0:older:2] + s[older:]
        self.items = [x + y for x, y in zip(n[0:older:2], n[1:older:2], strict=True)] + n[older:]
        self.bytes = [x + y for x, y in zip(b[0:older:2], b[1:older:2], strict=True)] + b[older:]


@dataclass(slots=True)
class _CollectionCounts:
    items: int = 0
    bytes: int = 0
    timeline: _Timeline | None = None
    """Only for a collection whose sort key is the write's time."""


@dataclass(slots=True)
class _SourceState:
    ordered: bool
    """The sort key is the time of the entry's last write (queries read 'since')."""
    collections: dict[Hashable, _CollectionCounts] = field(default_factory=dict)


# Not frozen: built for every entry a simulated write touches, and a frozen dataclass's
# __init__ costs about 7 times a plain one's (see loadgen.load.scenario's protocol).
@dataclass(slots=True)
class EntryWrite:
    """One write's effect on one entry of a table or index: the request description the
    tracker is told. `old_bytes` 0: the entry is new; `new_bytes` 0: it is removed;
    both: it is rewritten (in a time-ordered collection, it moves to `now`).
    `old_stamp`: when the entry was last written, if the caller knows it (else a removal
    from a time-ordered collection takes the oldest entry [?])."""

    table: str
    index: str | None
    pk: Hashable
    old_bytes: int
    new_bytes: int
    now: float
    old_stamp: float | None = None


class ItemCollections:
    """Counts and sizes of every tracked collection, and totals of every table/index."""

    def __init__(self, resolution_s: float = 1.0, max_buckets: int = 4096) -> None:
        if resolution_s <= 0 or max_buckets < 2:
            raise ValueError("resolution_s must be > 0 and max_buckets >= 2")
        self.resolution_s = resolution_s
        """Width of a time-ordered collection's newest intervals, in (virtual) seconds."""
        self.max_buckets = max_buckets
        """Most intervals one time-ordered collection keeps before merging its oldest."""
        self._tracked: dict[Source, _SourceState] = {}
        self._totals: dict[Source, list[int]] = {}

    def track(self, table: str, index: str | None = None, ordered: bool = False) -> None:
        """Keep per-partition-key state for (table, index): a playbook queries it as a
        collection. `ordered`: its sort key is the write's time, and queries may ask
        for the entries since a watermark."""
        state = self._tracked.get((table, index))
        if state is None:
            self._tracked[(table, index)] = _SourceState(ordered)
        elif state.ordered != ordered:
            raise ValueError(f"{table}/{index} is already tracked with ordered={state.ordered}")

    def tracks(self, table: str, index: str | None = None) -> bool:
        return (table, index) in self._tracked

    def write(self, entry: EntryWrite) -> None:
        """Apply one entry's change (a put, an overwrite, a delete; on a GSI as the
        charging rule's IndexChange says: a moved key is a removal and an addition)."""
        # Called for every entry a simulated write touches: the fields are read once,
        # and the totals' list is built only for a source's first entry.
        source = (entry.table, entry.index)
        old_bytes, new_bytes = entry.old_bytes, entry.new_bytes
        totals = self._totals.get(source)
        if totals is None:
            totals = self._totals[source] = [0, 0]
        added = old_bytes == 0 and new_bytes > 0
        removed = new_bytes == 0 and old_bytes > 0
        counted = 1 if added else -1 if removed else 0
        totals[0] += counted
        totals[1] += new_bytes - old_bytes
        state = self._tracked.get(source)
        if state is None:
            return
        coll = state.collections.get(entry.pk)
        if coll is None:
            coll = self._collection(state, entry.pk)
        coll.items = max(0, coll.items + counted)
        coll.bytes = max(0, coll.bytes + new_bytes - old_bytes)
        timeline = coll.timeline
        if timeline is not None:
            if old_bytes:
                timeline.take(old_bytes, entry.old_stamp)
            if new_bytes:
                timeline.put(1, new_bytes, entry.now, self.resolution_s, self.max_buckets)
        if coll.items == 0 and coll.bytes == 0:
            del state.collections[entry.pk]  # an emptied collection keeps no memory

    def seed(
        self, table: str, index: str | None, pk: Hashable, held: CollectionStats, now: float
    ) -> None:
        """Entries a collection holds before the run (a seeded table): added in bulk,
        stamped `now`. Without it, an overwrite or delete of an entry the run never saw
        added changes only the bytes it knows of (never below zero)."""
        source = (table, index)
        totals = self._totals.setdefault(source, [0, 0])
        totals[0] += held.items
        totals[1] += held.bytes
        state = self._tracked.get(source)
        if state is None or held.items == 0:
            return
        coll = self._collection(state, pk)
        coll.items += held.items
        coll.bytes += held.bytes
        if coll.timeline is not None:
            coll.timeline.put(held.items, held.bytes, now, self.resolution_s, self.max_buckets)

    @staticmethod
    def _collection(state: _SourceState, pk: Hashable) -> _CollectionCounts:
        coll = state.collections.get(pk)
        if coll is None:
            coll = _CollectionCounts(timeline=_Timeline() if state.ordered else None)
            state.collections[pk] = coll
        return coll

    def stats(
        self, table: str, index: str | None, pk: Hashable, since: float | None = None
    ) -> CollectionStats:
        """What a query of the collection under `pk` reads: all of it, or (time-ordered
        only) the entries written at or after `since`, to the grain of the interval
        `since` falls in (that whole interval is read: at most one interval more)."""
        state = self._tracked.get((table, index))
        if state is None:
            raise KeyError(f"{table}/{index} is not tracked as a collection (track it first)")
        if since is not None and not state.ordered:
            raise ValueError(f"{table}/{index} is not time-ordered: it cannot be read since")
        coll = state.collections.get(pk)
        if coll is None:
            return CollectionStats(0, 0)
        if since is None or coll.timeline is None:
            return CollectionStats(coll.items, coll.bytes)
        items, size = coll.timeline.since(since)
        return CollectionStats(items, size)

    def read_cost(
        self,
        table: str,
        index: str | None,
        pk: Hashable,
        consistent: bool,
        params: CapacityParams,
        since: float | None = None,
        limit: int | None = None,
    ) -> PagedReadCost:
        """The pages and read units of reading the collection to its end, by the one
        charging rule (`emulator.units.collection_read_cost`)."""
        held = self.stats(table, index, pk, since)
        return collection_read_cost(
            CollectionRead(held.items, held.bytes, consistent, limit), params
        )

    def totals(self, table: str, index: str | None = None) -> CollectionStats:
        """Every entry of a table or index this run added (net of removals): what a Scan
        evaluates, and how far inserts have grown the key space."""
        items, size = self._totals.get((table, index), (0, 0))
        return CollectionStats(items, size)

    def largest(self, table: str, index: str | None = None) -> tuple[Hashable, CollectionStats]:
        """The tracked collection holding the most bytes (a constant GSI key's, a lock
        table's hot key): for advise and the results."""
        state = self._tracked.get((table, index))
        if state is None or not state.collections:
            return None, CollectionStats(0, 0)
        pk, coll = max(state.collections.items(), key=lambda kv: kv[1].bytes)
        return pk, CollectionStats(coll.items, coll.bytes)

    def interval_count(self) -> int:
        """How many intervals all time-ordered collections keep (the memory bound's test)."""
        return sum(
            len(c.timeline.starts) if c.timeline is not None else 0
            for s in self._tracked.values()
            for c in s.collections.values()
        )
