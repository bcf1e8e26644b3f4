"""UpdateTable as DynamoDB applies it: how long a change takes, what a table serves
meanwhile, and the changes DynamoDB refuses. One set of rules for every caller: the
endpoint's UpdateTable, auto scaling (`emulator/autoscaling.py`) and, through the model,
the simulation.

The rules [docs/reference.md#capacity-changes-updatetable]:

- A change of provisioned capacity, or of the billing mode, is asynchronous: TableStatus
  is UPDATING (for a GSI's capacity only, that GSI's IndexStatus) and the capacity from
  before serves until it ends [AWS]; how long: `CapacityParams.update_throughput_s`
  (`update_split_s` when more partitions are needed), `switch_to_on_demand_s`,
  `switch_back_to_on_demand_s`, `switch_to_provisioned_s` [3P, ?].
- An UpdateTable while the table is UPDATING is refused (ResourceInUseException) [AWS].
- Decreases are limited per table and, separately, per GSI: `decreases_anytime` (4) in a
  UTC day, then one per `decrease_interval_s` (3600 s) after the last accepted one
  (LimitExceededException) [AWS, 3P]. A request that breaks the limit for any table or
  GSI is refused whole [AWS].
- PROVISIONED -> PAY_PER_REQUEST at most `switches_to_on_demand` (4) times in a rolling
  `switch_window_s` (24 h); the other way at any time [AWS].
- OnDemandThroughput takes effect at once (TableStatus stays ACTIVE) [3P]; warm throughput
  pre-splits in the background (`WarmThroughput.Status` UPDATING) [AWS].

Pure: the time comes in as `now` (model seconds) and `epoch_s` places it on the UTC
calendar, which the decrease count resets by.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Final

from emulator.capacity_record import ScalingEvent
from emulator.params import CapacityParams
from emulator.partitioning import classic_count

if TYPE_CHECKING:
    from emulator.capacity import Limits, PartitionedCapacity, TableCapacity

DAY_S: Final = 86400.0

IN_USE: Final = "ResourceInUseException"
LIMIT_EXCEEDED: Final = "LimitExceededException"
VALIDATION: Final = "ValidationException"


class ChangeRefused(ValueError):
    """A capacity change DynamoDB refuses: `error` is the exception DynamoDB answers with
    (ResourceInUseException, LimitExceededException, ValidationException), the text is
    its message."""

    def __init__(self, error: str, message: str) -> None:
        super().__init__(message)
        self.error = error
        self.message = message


def utc_text(epoch: float) -> str:
    """A time as DynamoDB writes it in the decrease limit's message: 'Friday, October 9,
    2026 at 1:21:34 AM Coordinated Universal Time' [3P, measured]."""
    at = datetime.fromtimestamp(epoch, UTC)
    hour = at.hour % 12 or 12
    return (
        f"{at:%A}, {at:%B} {at.day}, {at.year} at {hour}:{at:%M:%S} {at:%p} "
        "Coordinated Universal Time"
    )


def java_date_text(epoch: float) -> str:
    """A time as the billing-mode limit's message writes it: 'Sat Feb 23 03:07:45 UTC
    2019' [3P]."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%a %b %d %H:%M:%S UTC %Y")


class DecreaseBudget:
    """A table's or GSI's provisioned-capacity decreases: the count of the current UTC
    day and when the last one and the last increase were accepted (DescribeTable's
    NumberOfDecreasesToday, LastDecreaseDateTime, LastIncreaseDateTime)."""

    __slots__ = ("count", "day", "last_decrease", "last_increase")

    def __init__(self) -> None:
        self.day = -1
        self.count = 0
        self.last_decrease: float | None = None
        self.last_increase: float | None = None

    def today(self, now: float, epoch_s: float) -> int:
        """Decreases in the UTC day of `now` (the count resets at 00:00 UTC [3P])."""
        return self.count if _day(now, epoch_s) == self.day else 0

    def check(self, now: float, epoch_s: float, p: CapacityParams, what: str) -> None:
        """Refuse a decrease over the limit, in DynamoDB's words [3P, measured]."""
        count = self.today(now, epoch_s)
        last = self.last_decrease
        if count < p.decreases_anytime or last is None:
            return
        if now - last >= p.decrease_interval_s:
            return
        midnight = (_day(now, epoch_s) + 1) * DAY_S - epoch_s
        next_at = min(last + p.decrease_interval_s, midnight)
        of = "" if what == "table" else f" ({what})"
        raise ChangeRefused(
            LIMIT_EXCEEDED,
            "Subscriber limit exceeded: Provisioned throughput decreases are limited within "
            f"a given UTC day. After the first {p.decreases_anytime} decreases, each "
            "subsequent decrease in the same UTC day can be performed at most once every "
            f"{p.decrease_interval_s:.0f} seconds{of}. Number of decreases today: {count}. "
            f"Last decrease at {utc_text(epoch_s + last)}. Next decrease can be made at "
            f"{utc_text(epoch_s + next_at)}",
        )

    def decreased(self, now: float, epoch_s: float) -> None:
        day = _day(now, epoch_s)
        if day != self.day:
            self.day = day
            self.count = 0
        self.count += 1
        self.last_decrease = now

    def increased(self, now: float) -> None:
        self.last_increase = now


def _day(now: float, epoch_s: float) -> int:
    return math.floor((epoch_s + now) / DAY_S)


class SwitchBudget:
    """A table's switches from PROVISIONED to PAY_PER_REQUEST in the rolling window."""

    __slots__ = ("times",)

    def __init__(self) -> None:
        self.times: deque[float] = deque()

    def check(self, now: float, epoch_s: float, p: CapacityParams) -> None:
        """Refuse a switch over the limit. The words are those DynamoDB gave under the
        earlier once-a-day rule [3P], with the current count [AWS; the wording of the
        count ?]."""
        while self.times and now - self.times[0] >= p.switch_window_s:
            self.times.popleft()
        if len(self.times) < p.switches_to_on_demand:
            return
        days = p.switch_window_s / DAY_S
        raise ChangeRefused(
            LIMIT_EXCEEDED,
            "Subscriber limit exceeded: Update to PayPerRequest mode are limited to "
            f"{p.switches_to_on_demand} times in {days:g} day(s). Last update at "
            f"{java_date_text(epoch_s + self.times[-1])}. Next update can be made at "
            f"{java_date_text(epoch_s + self.times[0] + p.switch_window_s)}",
        )

    def switched(self, now: float) -> None:
        self.times.append(now)


# --- one UpdateTable ---------------------------------------------------------------------------


def _name(index: PartitionedCapacity) -> str:
    return "table" if index.index_name is None else f"index {index.index_name}"


def _units(limits: Limits) -> tuple[float, float]:
    return (limits.rcu or 0.0, limits.wcu or 0.0)


def _needs_split(index: PartitionedCapacity, limits: Limits) -> bool:
    """Whether provisioned capacity `limits` asks for more partitions than `index` has:
    the classic count of its units [AWS reference.md#partitions]."""
    read, write = _units(limits)
    return classic_count(read, write, index.p) > index.keyspace.count


def change_capacity(
    table: TableCapacity,
    wanted: dict[str | None, Limits],
    now: float,
    cause: str,
) -> list[ScalingEvent]:
    """Ask for the capacity settings `wanted` (by index name, None for the table; an
    index left out keeps its settings). Raises ChangeRefused, changing nothing, when
    DynamoDB would refuse; otherwise the changes are scheduled (or, for OnDemandThroughput
    and warm throughput, begun) and the events recorded and returned."""
    p = table.p
    epoch_s = table.epoch_s
    base = table.base
    indexes = {i.index_name: i for i in table.indexes()}
    unknown = sorted(str(n) for n in wanted if n not in indexes)
    if unknown:
        raise ChangeRefused(VALIDATION, f"Requested index {unknown[0]} not found")
    new_base = wanted.get(None, base.limits)
    switching = new_base.provisioned != base.limits.provisioned
    # What each index changes: provisioned units (old, new) where both are provisioned.
    throughput: dict[str | None, tuple[Limits, Limits]] = {}
    for name, limits in wanted.items():
        index = indexes[name]
        old = index.limits
        if limits.provisioned and old.provisioned and _units(limits) != _units(old):
            throughput[name] = (old, limits)
    # Refusals first: a request is never partly applied [AWS].
    busy = [i for i in indexes.values() if i.pending_limits is not None]
    if base.pending_limits is not None:
        raise ChangeRefused(
            IN_USE,
            "Attempt to change a resource which is still in use: Table IOPS are currently "
            f"being updated. Table: {table.config.name}",
        )
    for index in busy:
        if index.index_name in throughput or switching:
            raise ChangeRefused(
                IN_USE,
                "Attempt to change a resource which is still in use: Index IOPS are currently "
                f"being updated. Table: {table.config.name}, index: {index.index_name}",
            )
    for name, (old, new) in throughput.items():
        if any(n < o for n, o in zip(_units(new), _units(old), strict=True)):
            indexes[name].budget.check(now, epoch_s, p, _name(indexes[name]))
    if switching and not new_base.provisioned:
        table.switches.check(now, epoch_s, p)

    events: list[ScalingEvent] = []
    # Settings that take effect at once (OnDemandThroughput) or in the background
    # (warm throughput): the rest of each index's limits stays as it is until it lands.
    for name, limits in wanted.items():
        index = indexes[name]
        old = index.limits
        if (limits.max_read, limits.max_write) != (old.max_read, old.max_write):
            events.append(
                ScalingEvent(
                    now,
                    name,
                    "on-demand maximum",
                    _pair(old.max_read, old.max_write),
                    _pair(limits.max_read, limits.max_write),
                    cause,
                    effective_at=now,
                )
            )
        warm_before = index.warm_values()
        pending_before = index.pending_warm
        index.update_limits(
            replace(
                old,
                max_read=limits.max_read,
                max_write=limits.max_write,
                warm_read=limits.warm_read,
                warm_write=limits.warm_write,
            ),
            now,
        )
        pending = index.pending_warm
        if pending is not None and pending != pending_before and index.warm_ready_at is not None:
            events.append(
                ScalingEvent(
                    now,
                    name,
                    "warm throughput",
                    _pair(*warm_before),
                    _pair(max(pending[0], warm_before[0]), max(pending[1], warm_before[1])),
                    cause,
                    effective_at=index.warm_ready_at,
                )
            )
    # Asynchronous changes: the mode, and provisioned units.
    if switching:
        if new_base.provisioned:
            duration = p.switch_to_provisioned_s
        elif table.ever_on_demand:
            duration = p.switch_back_to_on_demand_s
        else:
            duration = p.switch_to_on_demand_s
        at = now + duration
        before = "PROVISIONED" if base.limits.provisioned else "PAY_PER_REQUEST"
        after = "PROVISIONED" if new_base.provisioned else "PAY_PER_REQUEST"
        events.append(ScalingEvent(now, None, "billing mode", before, after, cause, at))
        for index in indexes.values():
            index.schedule(wanted.get(index.index_name, index.limits), at, new_base.provisioned)
        if not new_base.provisioned:
            table.switches.switched(now)
            table.ever_on_demand = True
        for name, (old, new) in throughput.items():
            events.extend(_throughput_events(indexes[name], old, new, now, cause, at))
    else:
        for name, (old, new) in throughput.items():
            index = indexes[name]
            duration = p.update_split_s if _needs_split(index, new) else p.update_throughput_s
            at = now + duration
            index.schedule(new, at, True)
            events.extend(_throughput_events(index, old, new, now, cause, at))
    for name, (old, new) in throughput.items():
        budget = indexes[name].budget
        read, write = zip(_units(new), _units(old), strict=True)
        if any(n < o for n, o in (read, write)):
            budget.decreased(now, epoch_s)
        if any(n > o for n, o in (read, write)):
            budget.increased(now)
    for event in events:
        indexes[event.index].record.events.append(event)
    return events


def _throughput_events(
    index: PartitionedCapacity, old: Limits, new: Limits, now: float, cause: str, at: float
) -> list[ScalingEvent]:
    out = []
    for what, before, after in (("read", old.rcu, new.rcu), ("write", old.wcu, new.wcu)):
        if before != after:
            out.append(ScalingEvent(now, index.index_name, what, before, after, cause, at))
    return out


def _pair(read: float | None, write: float | None) -> str:
    def one(v: float | None) -> str:
        return "none" if v is None else f"{v:g}"

    return f"{one(read)} read / {one(write)} write"
