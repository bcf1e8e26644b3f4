"""What `watch` yields: typed samples per table and index, labelled by where they come from.

Three sources, never mixed into one number:
- `workers`: the client's view from the workers' progress items in the results table
  (per table: sent, accepted, throttled by reason, latency p50/p99), both targets;
- `emulator`: the endpoint's own per-second metrics (`/_hotbench/metrics`), local only,
  per table and GSI;
- `cloudwatch`: AWS's 1-minute series (GetMetricData), per table and GSI, aws only;
  `period_s` = 60 says so, and consumed capacity is Sum/60 (units per second).
A frame carries everything new since the previous frame; a UI appends, a CLI prints.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from pydantic import Field

from console.run.models import Frozen

Source = Literal["workers", "emulator", "cloudwatch"]


class IndexSample(Frozen):
    """One table (index None) or one GSI over one period."""

    source: Source
    table: str
    """Variant name (the physical name is in the run state)."""
    index: str | None = None
    """GSI name; None for the table itself."""
    start: datetime
    """Start of the period (UTC)."""
    period_s: int = 1
    """1 for per-second sources, 60 for CloudWatch's 1-minute series."""
    accepted: float = 0.0
    """Requests the table accepted in the period (cloudwatch: not reported, 0)."""
    throttled: float = 0.0
    """Throttled requests (cloudwatch: throttle events, WriteThrottleEvents + Read...)."""
    throttled_by_reason: dict[str, float] = Field(default_factory=dict)
    """DynamoDB reason -> count (TableWriteKeyRangeThroughputExceeded, ...)."""
    consumed_wcu: float = 0.0
    """Write units per second over the period (cloudwatch: Sum/60)."""
    consumed_rcu: float = 0.0
    p50_ms: float | None = None
    """Client-side latency of the period (workers only)."""
    p99_ms: float | None = None
    iterations_ok: float | None = None
    """Iterations of a mix or scenario that ended ok in the period (workers only; None
    for a phase of one operation, which has no iterations)."""
    iterations_failed_by_reason: dict[str, float] = Field(default_factory=dict)
    """Iterations that failed in the period, by reason (lock_timeout, ...)."""
    capacity_wcu: float | None = None
    """Write capacity in force (provisioned WCU, or on demand the ceiling it serves
    before throttling), full scale; None where the source does not say."""
    capacity_rcu: float | None = None
    capacity_status: str | None = None
    """ACTIVE, or UPDATING while a capacity change is applied."""
    scaling: list[str] = Field(default_factory=list)
    """Capacity changes asked in the period, in words (`write 1,000 -> 3,000:
    UpdateTable`)."""


class WorkerStatus(Frozen):
    """The fleet as the results table sees it."""

    planned: int
    ready: int = 0
    running: int = 0
    late: int = 0
    """Requests sent late (the instrument could not keep the schedule) so far."""
    done: int = 0
    lost: int = 0
    tasks: dict[str, int] = Field(default_factory=dict)
    """AWS: the table run's tasks per lifecycle state as last described (PROVISIONING,
    PENDING, RUNNING, STOPPED, MISSING); empty for worker processes."""

    @property
    def lifecycle(self) -> str:
        """`tasks 2 PENDING, 1 RUNNING` (ECS's order), or "" when there are no tasks."""
        order = ["PROVISIONING", "PENDING", "ACTIVATING", "RUNNING", "DEACTIVATING"]
        order += ["STOPPING", "DEPROVISIONING", "STOPPED", "MISSING"]
        known = sorted(self.tasks, key=lambda s: order.index(s) if s in order else len(order))
        return ("tasks " + ", ".join(f"{self.tasks[s]} {s}" for s in known)) if known else ""


class WatchFrame(Frozen):
    """One tick of `watch`: new samples since the last frame, and the fleet's status."""

    at: datetime
    run_label: str | None
    """The table run in progress (`variant#repeat`), None between runs."""
    samples: list[IndexSample] = Field(default_factory=list)
    workers: WorkerStatus | None = None
    finished: bool = False
    """True on the last frame: the run step ended (or the run is down)."""
    note: str | None = None
    """Why a source is missing (e.g. no credentials for CloudWatch)."""


HOLD_S = 5.0
"""How long `TimeOrder` holds a sample before printing it: a worker's second arrives with
its progress item, rewritten every 3 s (RunPlan.progress_s), while the emulator's comes
within a second; holding every sample 5 s lets the two sources' lines of a second come
out together and in order, at a fixed, short delay."""


class TimeOrder:
    """Samples in time order across frames: each frame's new samples are held until
    `hold_s` after their period ended, then released sorted by start, table, index and
    source, so the lines of one table never go back in time. The last frame releases
    everything."""

    def __init__(self, hold_s: float = HOLD_S) -> None:
        self.hold = timedelta(seconds=hold_s)
        self.held: list[IndexSample] = []

    def release(self, frame: WatchFrame) -> list[IndexSample]:
        self.held += frame.samples
        ready: list[IndexSample] = []
        waiting: list[IndexSample] = []
        cutoff = frame.at - self.hold
        for sample in self.held:
            ended = sample.start + timedelta(seconds=sample.period_s)
            (ready if frame.finished or ended <= cutoff else waiting).append(sample)
        self.held = waiting
        return sorted(ready, key=lambda s: (s.start, s.table, s.index or "", s.source))
