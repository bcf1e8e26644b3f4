"""The ceilings a scenario meets that no capacity setting lifts, by arithmetic alone: one
lock item that every user takes in turn, one constant GSI key that every write lands
on, and an item collection that every iteration reads whole while it grows.

These are the migrating bottlenecks of M5 (the published datastore sync case: a
constant GSI key whose query cost grew every iteration, then one lock item that
serialized every worker at a flat floor, then an index that grew per namespace). An
open-loop check of the table's capacity misses each of them, because each is a limit of
ONE key or of what the data has become, not of the table. `hotbench advise` names them
before a run (loadgen.analysis.advise calls these with a scenario's steps); the simulation then
shows them happen. Pure arithmetic, every constant from emulator.params and every
charge from emulator.units (the one charging rule).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from emulator.params import CapacityParams
from emulator.units import CollectionRead, collection_read_cost, write_units


@dataclass(frozen=True)
class LockLoad:
    """Users who each take the same lock item once per iteration."""

    users: int
    hold_s: float
    """How long one holder keeps the lock: the steps between acquire and release."""
    cycle_s: float
    """One user's iteration without waiting for the lock: its steps, latencies, think."""
    wait_s: float
    """How long a user polls for the lock before the iteration fails (lock timeout)."""


LOCK_FIX = "Fix: one lock per namespace (per user), or a shorter hold"
GROWTH_FIX = (
    "Fix: read only what changed since a watermark (a sort key that starts with the time "
    "of the write)"
)


@dataclass(frozen=True)
class LockCeiling:
    """What one lock item allows, whatever the table's capacity."""

    iterations_per_s: float
    """At most one holder at a time: 1 / hold_s iterations a second in all."""
    demanded_per_s: float
    """What the users would run without the lock: users / cycle_s."""
    queue_wait_s: float
    """Once saturated, a user waits about (users - 1) x hold_s for its turn."""

    @property
    def saturated(self) -> bool:
        return self.demanded_per_s > self.iterations_per_s

    def words(self, load: LockLoad) -> str:
        per_user = self.iterations_per_s / max(1, load.users)
        head = (
            f"one lock item: at most 1 / {load.hold_s:g} s = {self.iterations_per_s:.3g} "
            f"iterations/s in all ({per_user:.3g} per user, {load.users} users)"
        )
        if not self.saturated:
            return f"{head}; the users ask for {self.demanded_per_s:.3g}/s: not reached"
        if self.queue_wait_s > load.wait_s:
            return (
                f"{head}; the users ask for {self.demanded_per_s:.3g}/s, so each waits about "
                f"{self.queue_wait_s:.0f} s for its turn, more than its {load.wait_s:g} s "
                "wait: most iterations fail on the lock timeout"
            )
        return (
            f"{head}; the users ask for {self.demanded_per_s:.3g}/s, so the lock sets a "
            f"flat floor and each waits about {self.queue_wait_s:.0f} s for its turn"
        )


def lock_ceiling(load: LockLoad) -> LockCeiling:
    """Only one user holds the lock at a time, so the hold time, not the capacity, caps
    the iteration rate: a lock is admitted on one item, and its conditional puts are a
    few units (what each poll costs is `lock_poll_units`)."""
    if load.hold_s <= 0 or load.cycle_s <= 0:
        raise ValueError("a lock's hold_s and cycle_s must be > 0")
    ceiling = 1.0 / load.hold_s
    demanded = load.users / load.cycle_s
    return LockCeiling(ceiling, demanded, max(0, load.users - 1) * load.hold_s)


def lock_poll_units(users: int, poll_s: float, item_bytes: int, params: CapacityParams) -> float:
    """Write units a second the waiting users' polls cost the one lock item: every poll
    is a conditional put, charged even when its condition fails
    [AWS reference.md#what-each-operation-costs]."""
    if poll_s <= 0:
        raise ValueError("poll_s must be > 0")
    return max(0, users - 1) / poll_s * write_units(item_bytes, params)


@dataclass(frozen=True)
class ConstantKeyCeiling:
    """A GSI (or table) partition key with one value for every item: all its entries on
    one partition."""

    index: str
    value: str
    units_per_write: int
    writes_per_s: float
    """The most index writes a second that one partition takes: its WCU / units."""

    def words(self, offered_writes_per_s: float) -> str:
        share = offered_writes_per_s / self.writes_per_s if self.writes_per_s else math.inf
        return (
            f"index {self.index}: every entry has the key {self.value!r}, so every write "
            f"lands on one partition: at most {self.writes_per_s:,.0f} writes/s of "
            f"{self.units_per_write} WCU; offered {offered_writes_per_s:,.0f}/s = "
            f"{share:.0%}. Fix: a key per model or namespace (a suffix, or "
            "FILE#<type>/<id>)"
        )


def constant_key_ceiling(
    index: str, value: str, entry_bytes: int, params: CapacityParams
) -> ConstantKeyCeiling:
    """One partition serves `partition_wcu` write units a second [AWS
    reference.md#partitions]; a single key value never spreads over more."""
    units = write_units(entry_bytes, params)
    return ConstantKeyCeiling(index, value, units, params.partition_wcu / units)


@dataclass(frozen=True)
class CollectionGrowth:
    """A collection every iteration reads whole while iterations add to it."""

    entries_per_iteration: float
    entry_bytes: int
    seeded_entries: int = 0
    consistent: bool = False


@dataclass(frozen=True)
class GrowthPoint:
    iteration: int
    entries: int
    pages: int
    read_units: float


def collection_growth(
    growth: CollectionGrowth, iterations: list[int], params: CapacityParams
) -> list[GrowthPoint]:
    """The read cost of the collection query at each of `iterations`, by the one
    charging rule (`units.collection_read_cost`): it grows linearly with the data, and
    a page (a round trip) more every 1 MB."""
    points = []
    for n in iterations:
        entries = growth.seeded_entries + math.floor(n * growth.entries_per_iteration)
        read = CollectionRead(entries, entries * growth.entry_bytes, growth.consistent)
        cost = collection_read_cost(read, params)
        points.append(GrowthPoint(n, entries, cost.pages, cost.units))
    return points


def iterations_until_read_ceiling(
    growth: CollectionGrowth, iterations_per_s: float, params: CapacityParams
) -> int | None:
    """The iteration by which the collection's queries alone, at `iterations_per_s`,
    ask for more than its one partition's read units a second (3,000 RCU/s)
    [AWS reference.md#partitions]; None if it never grows."""
    if growth.entries_per_iteration <= 0 or iterations_per_s <= 0:
        return None
    per_entry = growth.entry_bytes / params.read_unit_bytes
    if not growth.consistent:
        per_entry /= 2.0
    # units(n) ~ (seed + n x a) x per_entry, so n = (ceiling / rate / per_entry - seed) / a
    entries = params.partition_rcu / iterations_per_s / per_entry
    return max(0, math.ceil((entries - growth.seeded_entries) / growth.entries_per_iteration))


def growth_words(growth: CollectionGrowth, points: list[GrowthPoint]) -> str:
    """'the query reads X RCU in P pages at iteration 1, ... at iteration N'."""
    parts = [
        f"{p.read_units:,.1f} RCU in {p.pages} page{'s' if p.pages != 1 else ''} at "
        f"iteration {p.iteration:,} ({p.entries:,} entries)"
        for p in points
    ]
    return (
        f"the collection grows by {growth.entries_per_iteration:g} entries of "
        f"{growth.entry_bytes:,} B per iteration and every iteration reads it whole: "
        + "; ".join(parts)
    )
