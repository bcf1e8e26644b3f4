"""Partitions of one table or index: where a key lives, and how partitions split.

A partition owns a range of the partition-key hash space. When one partition-key value
is hot enough to split on its own, its item collection is split by sort-key range into
sub-partitions (DynamoDB's split for heat), unless the table has no sort key or the sort
key rises monotonically, which AWS documents cannot be split usefully.

Sort positions only need to be comparable with each other within one key space: the
endpoint uses the key's bytes (DynamoDB's own byte order), the virtual-time simulation
uses floats of the same order, so both paths share this code.
"""

from __future__ import annotations

import bisect
import hashlib
import heapq
import itertools
from array import array
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from typing import Any, Final

import numpy as np

from emulator.buckets import Resource, TokenBucket
from emulator.numbers import normal

HASH_SPACE: Final = 1 << 64
SAMPLE_SIZE: Final = 256


_HASHES: Final[dict[str | bytes, int]] = {}
HASH_CACHE_SIZE: Final = 1 << 16

_md5: Final = hashlib.md5
_from_bytes: Final = int.from_bytes
_bisect_right: Final = bisect.bisect_right
"""Bound once: `bisect.bisect_right` (and md5, int.from_bytes) are attribute look-ups
per call (compiled, generic ones; `locate` runs for every partition a request touches,
and a new key is hashed per request when keys are new)."""


def partition_hash(value: bytes | str) -> int:
    """Where a partition-key value lands in the 64-bit hash space (MD5 prefix: uniform,
    stable across processes, unlike Python's salted `hash`); a str is hashed as its
    UTF-8 bytes, which `key_bytes` gives for a string key.

    Cached, as hot keys repeat, in a plain dict emptied when full rather than an LRU:
    an LRU relinks a long-cold node on every hit, which cost twice the lookup itself
    (656 vs 319 ns per hit over 20,000 cycling keys), and re-hashing after a clear is
    cheap."""
    cached = _HASHES.get(value)
    if cached is None:
        if len(_HASHES) >= HASH_CACHE_SIZE:
            _HASHES.clear()
        data = value.encode("utf-8") if isinstance(value, str) else value
        cached = _HASHES[value] = _from_bytes(_md5(data, usedforsecurity=False).digest()[:8], "big")
    return cached


def key_bytes(value: str | bytes | Decimal | int | float) -> bytes:
    """The canonical bytes of a key value: UTF-8 for S, raw for B, a normalised decimal
    for N (so 1, 1.0 and 1E0 are one key, as in DynamoDB)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    number = normal(Decimal(str(value)))
    if number == number.to_integral_value():
        return str(int(number)).encode()
    return format(number, "f").encode()


def sort_position(value: str | bytes | Decimal | int | float) -> bytes | float:
    """A comparable stand-in for a sort-key value in DynamoDB's order: bytes for S and
    B (byte order), a float for N."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    return float(value)


class KeySamples:
    """The last SAMPLE_SIZE keys a partition served, oldest first: what a deque with that
    maxlen of (pk_hash, sk_pos) tuples would hold, kept in two rings instead.

    Every request records a key in each partition it touches, and with many partitions
    the sample a deque evicts is long out of the CPU caches, so freeing that tuple costs a
    cache miss per request. The rings allocate nothing once full and free nothing but a
    reference. The hashes ring is an array of unsigned 64-bit integers (partition hashes
    are below 2**64), not a list: replacing a list slot also touches the evicted int
    object, long cold, while an array slot holds the number itself (docs/emulator.md,
    History of the measurements)."""

    __slots__ = ("_count", "_hashes", "_oldest", "_positions")

    def __init__(self) -> None:
        self._hashes = array("Q")
        self._positions: list[Any] = []
        self._oldest = 0
        """Index of the oldest sample once the rings are full (0 while they fill)."""
        self._count = 0
        """Samples kept (an int field: len() of the array is a generic call compiled)."""

    def add(self, pk_hash: int, sk_pos: Any) -> None:
        """Record a key, dropping the oldest when SAMPLE_SIZE are kept."""
        if self._count < SAMPLE_SIZE:
            self._hashes.append(pk_hash)
            self._positions.append(sk_pos)
            self._count += 1
            return
        i = self._oldest
        self._hashes[i] = pk_hash
        self._positions[i] = sk_pos
        self._oldest = i + 1 if i + 1 < SAMPLE_SIZE else 0

    def extend(self, samples: Iterable[tuple[int, Any]]) -> None:
        for pk_hash, sk_pos in samples:
            self.add(pk_hash, sk_pos)

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[tuple[int, Any]]:
        """(pk_hash, sk_pos) of each sample, oldest first."""
        order = itertools.chain(range(self._oldest, self._count), range(self._oldest))
        hashes, positions = self._hashes, self._positions
        return iter([(hashes[i], positions[i]) for i in order])


class Partition(Resource):
    """One partition: a hard-limit bucket (a fraction of one partition's capacity per
    second, so reads and writes combine linearly) plus the heat that leads to splits."""

    __slots__ = (
        "bucket",
        "collection_pk",
        "hi",
        "hot_since",
        "last_hot",
        "lo",
        "pid",
        "samples",
        "split_at",
        "taken",
    )

    def __init__(self, pid: int, lo: int, hi: int, grace_s: float, now: float) -> None:
        self.pid = pid
        self.lo = lo
        self.hi = hi
        self.bucket = TokenBucket(1.0, grace_s, now)
        self.hot_since: float | None = None
        self.last_hot = -1e18
        self.split_at: float | None = None
        self.samples = KeySamples()
        self.collection_pk: int | None = None
        self.taken = 0.0

    # Resource protocol -------------------------------------------------------------
    def available(self, now: float, cost: float) -> int:
        return self.bucket.available(now, cost)

    def take(self, count: int, cost: float) -> None:
        self.bucket.take(count, cost)
        self.taken += count * cost

    def refuse(self, count: int, now: float) -> None:
        self.mark_hot(now)

    # heat ----------------------------------------------------------------------------
    def mark_hot(self, now: float) -> None:
        if self.hot_since is None:
            self.hot_since = now
        self.last_hot = now

    def observe(self, pk_hash: int, sk_pos: Any) -> None:
        """Remember a recent key: the split point is chosen from these."""
        self.samples.add(pk_hash, sk_pos)


class GsiWriteLog(Resource):
    """A GSI partition's propagation log, the resource a base-table write needs.

    GSIs are written asynchronously [AWS reference.md#gsis]: the log takes entries at up to
    `intake_factor` times the partition's rate and applies them at the partition's rate;
    when it runs more than `backlog_s` behind, base-table writes are throttled.
    """

    __slots__ = ("backlog", "intake", "limit", "owner", "stamp")

    def __init__(
        self, owner: Partition, intake_factor: float, backlog_s: float, grace_s: float, now: float
    ) -> None:
        self.owner = owner
        self.intake = TokenBucket(intake_factor, intake_factor * grace_s, now)
        self.limit = backlog_s
        self.backlog = 0.0
        self.stamp = now

    def available(self, now: float, cost: float) -> int:
        if now > self.stamp:  # the log drains at the partition's rate
            backlog = self.backlog - (now - self.stamp)
            self.backlog = backlog if backlog > 0.0 else 0.0  # max(0.0, backlog)
            self.stamp = now
        room = self.intake.available(now, cost)
        if cost > 0:
            backlog_room = int((self.limit - self.backlog) / cost + 1e-9)
            if backlog_room < room:  # min(room, max(0, backlog_room)), room being >= 0
                room = backlog_room if backlog_room > 0 else 0
        return room

    def take(self, count: int, cost: float) -> None:
        self.intake.take(count, cost)
        self.backlog += count * cost
        self.owner.taken += count * cost

    def refuse(self, count: int, now: float) -> None:
        self.owner.mark_hot(now)


class SortSplit:
    """One partition-key value's item collection, split by sort-key range."""

    __slots__ = ("bounds", "parts")

    def __init__(self, bounds: list[Any], parts: list[Partition]) -> None:
        self.bounds = bounds
        self.parts = parts

    def locate(self, sk_pos: Any) -> Partition:
        return self.parts[_bisect_right(self.bounds, sk_pos)]


PartitionFactory = Callable[[int, int, int, float], Partition]


class KeySpace:
    """The partition map of one table or index."""

    def __init__(
        self,
        count: int,
        grace_s: float,
        now: float,
        has_sort_key: bool,
        monotonic_fraction: float,
        write_log: Callable[[Partition, float], GsiWriteLog] | None = None,
    ) -> None:
        self.grace_s = grace_s
        self.has_sort_key = has_sort_key
        self.monotonic_fraction = monotonic_fraction
        self._write_log_factory = write_log
        self.write_logs: dict[int, GsiWriteLog] = {}
        self.all: list[Partition] = []
        self.bounds: list[int] = []
        self.parts: list[Partition] = []
        self.collections: dict[int, SortSplit] = {}
        self.splits = 0
        step = HASH_SPACE // max(1, count)
        for i in range(max(1, count)):
            lo = i * step
            hi = HASH_SPACE if i == count - 1 else (i + 1) * step
            part = self._new(lo, hi, now)
            self.bounds.append(lo)
            self.parts.append(part)
        self._arrays_dirty = True

    # construction ----------------------------------------------------------------------
    def _new(self, lo: int, hi: int, now: float) -> Partition:
        part = Partition(len(self.all), lo, hi, self.grace_s, now)
        self.all.append(part)
        if self._write_log_factory is not None:
            self.write_logs[part.pid] = self._write_log_factory(part, now)
        return part

    @property
    def count(self) -> int:
        """Partitions that serve traffic (a hash partition emptied by isolating its only
        hot key still counts: DynamoDB never merges)."""
        return len(self.parts) + sum(len(c.parts) for c in self.collections.values())

    # lookup ------------------------------------------------------------------------------
    def locate(self, pk_hash: int, sk_pos: Any) -> Partition:
        if self.collections:
            coll = self.collections.get(pk_hash)
            if coll is not None:
                return coll.locate(sk_pos)
        return self.parts[_bisect_right(self.bounds, pk_hash) - 1]

    def _refresh_arrays(self) -> None:
        self._bounds_arr = np.array(self.bounds, dtype=np.uint64)
        self._pids_arr = np.array([p.pid for p in self.parts], dtype=np.int64)
        self._coll_arrs = {
            pk: (np.array(c.bounds, dtype=np.float64), np.array([p.pid for p in c.parts]))
            for pk, c in self.collections.items()
        }
        self._arrays_dirty = False

    def locate_many(self, pk_hash: np.ndarray, sk_pos: np.ndarray) -> np.ndarray:
        """Vectorised `locate` for the simulation (float sort positions): partition ids."""
        if self._arrays_dirty:
            self._refresh_arrays()
        idx = np.searchsorted(self._bounds_arr, pk_hash, side="right") - 1
        pids: np.ndarray = self._pids_arr[idx]
        for pk, (bounds, cpids) in self._coll_arrs.items():
            mask = pk_hash == np.uint64(pk)
            if mask.any():
                pids[mask] = cpids[np.searchsorted(bounds, sk_pos[mask], side="right")]
        return pids

    # splits ------------------------------------------------------------------------------
    def grow_to(self, count: int, now: float) -> None:
        """Growth one split at a time (an on-demand ceiling that grew under traffic): halve
        the widest hash partitions until there are `count` [AWS: the DynamoDB paper,
        section 4.5, "on-demand scales a table by splitting partitions"]."""
        if len(self.parts) >= count:
            return
        # The widest partition first, the leftmost of equals (what a scan for the widest
        # picks), from a heap: O(log n) a split where a scan per split made pre-splitting
        # quadratic in the partition count. The same splits in the same order, so the same
        # partition ids and bounds.
        heap = [(p.lo - p.hi, p.lo, p) for p in self.parts]
        heapq.heapify(heap)
        grown = len(self.parts)
        while grown < count:
            _, lo, part = heap[0]
            if part.hi - lo < 2:
                break  # no partition can be halved further
            mid = (lo + part.hi) // 2
            left = self._new(lo, mid, now)
            right = self._new(mid, part.hi, now)
            heapq.heapreplace(heap, (lo - mid, lo, left))
            heapq.heappush(heap, (mid - part.hi, mid, right))
            self.splits += 1
            grown += 1
        ordered = sorted((entry[2] for entry in heap), key=lambda p: p.lo)
        self.parts = ordered
        self.bounds = [p.lo for p in ordered]
        self._arrays_dirty = True

    def double_until(self, count: int, now: float) -> None:
        """An UpdateTable the partitions cannot carry: every hash partition splits in two,
        the count doubling, until there are `count` [AWS reference.md#partitions]. Each
        child is a whole partition (1,000 WCU / 3,000 RCU a second): the table's own
        limit is enforced above the partitions [AWS: the DynamoDB paper, section 4.2].
        A partition one hash wide (an isolated key) cannot halve; item-collection splits
        are left as they are."""
        while self.count < count:
            halves: list[Partition] = []
            for part in self.parts:
                if part.hi - part.lo < 2:
                    halves.append(part)
                    continue
                mid = (part.lo + part.hi) // 2
                halves.append(self._new(part.lo, mid, now))
                halves.append(self._new(mid, part.hi, now))
                self.splits += 1
            if len(halves) == len(self.parts):
                break  # nothing left to halve
            self.parts = halves
            self.bounds = [p.lo for p in halves]
            self._arrays_dirty = True

    def _split_hash(self, index: int, at: int | None, now: float) -> bool:
        part = self.parts[index]
        if part.hi - part.lo < 2:
            return False
        mid = at if at is not None and part.lo < at < part.hi else (part.lo + part.hi) // 2
        left = self._new(part.lo, mid, now)
        right = self._new(mid, part.hi, now)
        self.parts[index : index + 1] = [left, right]
        self.bounds[index : index + 1] = [part.lo, mid]
        self.splits += 1
        return True

    def _is_monotonic(self, positions: list[Any]) -> bool:
        if len(positions) < 8:
            return False
        rising = sum(1 for a, b in itertools.pairwise(positions) if b > a)
        return rising >= self.monotonic_fraction * (len(positions) - 1)

    def split_for_heat(self, part: Partition, now: float) -> bool:
        """Split a hot partition where its recent traffic divides; False if it cannot."""
        samples = list(part.samples)
        if part.collection_pk is not None:
            return self._split_collection(part, [s for _, s in samples], now)
        index = self.parts.index(part) if part in self.parts else -1
        if index < 0:
            return False
        if samples:
            counts: dict[int, int] = {}
            for pk, _ in samples:
                counts[pk] = counts.get(pk, 0) + 1
            top, top_count = max(counts.items(), key=lambda kv: kv[1])
            if top_count * 2 >= len(samples):
                # One key carries the heat: only splitting its item collection helps.
                if not self.has_sort_key:
                    return False
                positions = [s for pk, s in samples if pk == top]
                return self._isolate_collection(part, top, positions, now)
            hashes = sorted(pk for pk, _ in samples)
            return self._split_hash(index, hashes[len(hashes) // 2], now)
        return self._split_hash(index, None, now)

    def split_for_consumption(self, part: Partition, now: float) -> bool:
        """A shared hash partition that throttles splits where the keys it served divide
        [AWS reference.md#split-for-consumption: the split point is chosen from the key
        distribution the partition observed]. A key carrying half its traffic gets a
        partition of its own, so its neighbours stop throttling with it (adaptive
        capacity's isolation [AWS reference.md#burst-and-adaptive-capacity]; it adds no
        capacity to that key); otherwise the hash range splits at the median key, each
        half a whole partition. False if it cannot: one key only (a single hot key is split
        for heat by sort key, later), or an item-collection partition."""
        if part.collection_pk is not None or part not in self.parts:
            return False
        counts: dict[int, int] = {}
        for pk, _ in part.samples:
            counts[pk] = counts.get(pk, 0) + 1
        if len(counts) < 2:
            return False
        top, top_count = max(counts.items(), key=lambda kv: kv[1])
        isolating = top_count * 2 >= len(part.samples)
        if isolating:
            cuts = [c for c in (top, top + 1) if part.lo < c < part.hi]
        else:
            hashes = sorted(pk for pk, _ in part.samples)
            median = hashes[len(hashes) // 2]
            cuts = [median if part.lo < median < part.hi else (part.lo + part.hi) // 2]
        index = self.parts.index(part)
        pieces = [part.lo, *cuts, part.hi]
        new_parts = [self._new(a, b, now) for a, b in itertools.pairwise(pieces)]
        for new in new_parts:
            new.samples.extend([s for s in part.samples if new.lo <= s[0] < new.hi])
            if isolating and new.lo <= top < new.hi:
                # The isolated key keeps its heat: a split for heat may be due.
                new.hot_since, new.last_hot = part.hot_since, part.last_hot
                new.split_at = part.split_at
        self.parts[index : index + 1] = new_parts
        self.bounds[index : index + 1] = pieces[:-1]
        self.splits += len(new_parts) - 1
        self._arrays_dirty = True
        return True

    def _median_split_point(self, positions: list[Any]) -> Any | None:
        if self._is_monotonic(positions):
            return None
        ordered = sorted(positions)
        mid = ordered[len(ordered) // 2]
        if mid == ordered[0]:
            # Half or more of the traffic is one item: the split point must lie above it.
            above = [p for p in ordered if p > mid]
            return above[0] if above else None
        return mid

    def _isolate_collection(
        self, part: Partition, pk_hash: int, positions: list[Any], now: float
    ) -> bool:
        at = self._median_split_point(positions)
        if at is None:
            return False
        halves = [self._new(pk_hash, pk_hash + 1, now) for _ in range(2)]
        for half in halves:
            half.collection_pk = pk_hash
        self.collections[pk_hash] = SortSplit([at], halves)
        self.splits += 1
        self._arrays_dirty = True
        return True

    def _split_collection(self, part: Partition, positions: list[Any], now: float) -> bool:
        assert part.collection_pk is not None
        coll = self.collections[part.collection_pk]
        at = self._median_split_point(positions)
        if at is None:
            return False
        i = coll.parts.index(part)
        lower = coll.bounds[i - 1] if i > 0 else None
        upper = coll.bounds[i] if i < len(coll.bounds) else None
        if (lower is not None and at <= lower) or (upper is not None and at >= upper):
            return False
        halves = [self._new(part.collection_pk, part.collection_pk + 1, now) for _ in range(2)]
        for half in halves:
            half.collection_pk = part.collection_pk
        coll.parts[i : i + 1] = halves
        coll.bounds.insert(i, at)
        self.splits += 1
        self._arrays_dirty = True
        return True

    def serving(self) -> list[Partition]:
        """Every partition that can receive traffic, in key order."""
        out: list[Partition] = []
        for part in self.parts:
            out.append(part)
        for coll in self.collections.values():
            out.extend(coll.parts)
        return out
