"""What a table's capacity did during a run, in the one result format: per table and GSI,
the capacity in force as it stepped (`series`) and every change asked of it (`events`:
when, what, from, to, why, when it took effect or why it was refused), on the run's
clock; and a capacity-change phase's own outcome (`ChangeOutcome`).

Every source gives the capacity in one shape, the emulator's capacity record
(emulator/capacity_record.py, `CapacityModel.capacity_view`): the simulation reads its
model, a run on the local emulator its `/_hotbench/capacity` view, a run on AWS the
target's reading of DescribeTable and Application Auto Scaling's scaling activities.
`run_capacity` cuts one run's window out of it, so the three read alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TABLE_KEY = "$table"
"""The table's own entry among its GSIs' (the key `/_hotbench/capacity` uses)."""


def run_capacity(
    indexes: dict[str, Any], start: float, end: float
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """The run window [start, end) (on the source's clock) of a capacity view's
    `indexes`, with times made relative to `start`: each index's series starts with the
    capacity in force at the run's start, and keeps the events asked within the run."""
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for key, entry in indexes.items():
        series: list[dict[str, Any]] = []
        for point in entry.get("series") or []:
            t = float(point["t"])
            if t >= end:
                break
            shifted = {**point, "t": round(max(0.0, t - start), 3)}
            if t <= start and series:
                series[-1] = shifted  # only the last one before the start is in force
            else:
                series.append(shifted)
        events = []
        for event in entry.get("events") or []:
            if start <= float(event["t"]) < end:
                effective = event.get("effective_at")
                events.append(
                    {
                        **event,
                        "t": round(float(event["t"]) - start, 3),
                        "effective_at": None
                        if effective is None
                        else round(float(effective) - start, 3),
                    }
                )
        out[key] = {"series": series, "events": events}
    return out


def moved(capacity: dict[str, dict[str, list[dict[str, Any]]]]) -> bool:
    """Whether anything was asked of the capacity within the run (a change, a scaling
    action): a run without any keeps its result as it was before capacity moved."""
    return any(entry["events"] for entry in capacity.values())


@dataclass
class ChangeOutcome:
    """What became of a capacity-change phase's UpdateTable."""

    request: dict[str, Any]
    """The request made (boto3 keyword arguments)."""
    error: str | None = None
    """DynamoDB's exception when it refused the change (ResourceInUseException,
    LimitExceededException, ValidationException); None when accepted."""
    message: str | None = None
    """DynamoDB's message for the refusal."""
    active_after_s: float | None = None
    """Seconds from the request until the table and its GSIs were ACTIVE again (None:
    refused, or not waited for)."""
    notes: list[str] = field(default_factory=list)

    @property
    def accepted(self) -> bool:
        return self.error is None

    def words(self) -> str:
        """The outcome for people: `applied, ACTIVE after 2 s` or `refused:
        LimitExceededException: ...`."""
        if self.error is not None:
            return f"refused: {self.error}: {self.message}"
        if self.active_after_s is None:
            return "applied (not waited for)"
        return f"applied, ACTIVE after {self.active_after_s:,.0f} s"

    def to_json(self) -> dict[str, Any]:
        return {
            "request": self.request,
            "outcome": "applied" if self.accepted else "refused",
            "error": self.error,
            "message": self.message,
            "active_after_s": self.active_after_s,
            **({"notes": list(self.notes)} if self.notes else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ChangeOutcome:
        return cls(
            data.get("request") or {},
            data.get("error"),
            data.get("message"),
            data.get("active_after_s"),
            list(data.get("notes") or []),
        )
