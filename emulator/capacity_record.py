"""What a table's or GSI's capacity did over a run: the capacity in force as it moved, and
every change asked for (by UpdateTable or by auto scaling), with when, from, to and why.

Kept per table and GSI by the model (`PartitionedCapacity.record`) and written only when
something changes, so a table whose capacity never moves costs one point and no work per
tick. The simulation's results and the endpoint's `/_hotbench` views read the same
record (`CapacityModel.capacity_record`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

PROVISIONED_SERIES: Final = "provisioned"
"""A point's kind on a provisioned table: the provisioned capacity units."""
CEILING_SERIES: Final = "on-demand ceiling"
"""A point's kind on an on-demand table: the ceiling it serves before throttling."""


@dataclass(frozen=True)
class CapacityPoint:
    """The capacity in force from `t` on (model seconds), in full-scale units per second:
    provisioned RCU/WCU, or on demand the ceiling the table serves."""

    t: float
    kind: str
    read: float
    write: float

    def as_dict(self) -> dict[str, Any]:
        return {"t": round(self.t, 3), "kind": self.kind, "read": self.read, "write": self.write}


@dataclass(frozen=True)
class ScalingEvent:
    """One change asked of a table or GSI: what (`read`, `write`, `billing mode`, `warm
    throughput`, `on-demand maximum`), from and to, why (`UpdateTable`, `auto scaling:
    scale-out alarm (2 x 1 min > 70 %: 95 %, 100 %)`, ...), when it was asked (`t`) and
    when it took effect (`effective_at`, None when DynamoDB refused it: `refused` says
    with what)."""

    t: float
    index: str | None
    what: str
    before: float | str | None
    after: float | str | None
    cause: str
    effective_at: float | None = None
    refused: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "t": round(self.t, 3),
            "index": self.index,
            "what": self.what,
            "from": self.before,
            "to": self.after,
            "cause": self.cause,
            "effective_at": None if self.effective_at is None else round(self.effective_at, 3),
            "refused": self.refused,
        }


@dataclass
class CapacityRecord:
    """One table's or GSI's capacity over time: `points` (appended when the capacity in
    force changes) and `events` (appended when a change is asked for)."""

    index: str | None
    points: list[CapacityPoint] = field(default_factory=list)
    events: list[ScalingEvent] = field(default_factory=list)

    def point(self, t: float, kind: str, read: float, write: float) -> None:
        """The capacity in force from `t`; nothing is kept when it did not change."""
        if self.points:
            last = self.points[-1]
            if last.kind == kind and last.read == read and last.write == write:
                return
            if last.t == t:  # two changes within one instant: the later one stands
                self.points[-1] = CapacityPoint(t, kind, read, write)
                return
        self.points.append(CapacityPoint(t, kind, read, write))

    def at(self, t: float) -> CapacityPoint | None:
        """The capacity in force at `t` (None before the first point)."""
        found = None
        for p in self.points:
            if p.t > t:
                break
            found = p
        return found

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "series": [p.as_dict() for p in self.points],
            "events": [e.as_dict() for e in self.events],
        }
