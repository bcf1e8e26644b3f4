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

from datetime import UTC, datetime, timedelta
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
    complete_until: datetime | None = None
    """Every period ending by then has come (the running table run's workers have all
    reported past it): `TimeOrder` releases up to here, so a worker's late second is
    never printed after a later one. None: no workers running (the hold alone)."""


HOLD_S = 5.0
"""How long `TimeOrder` holds a sample before printing it: a worker's second arrives with
its progress item, rewritten every 3 s (RunPlan.progress_s), while the emulator's comes
within a second; holding every sample 5 s lets the two sources' lines of a second come
out together and in order, at a fixed, short delay."""


STATUS_AFTER = timedelta(seconds=1)
"""A status line waits until every per-second sample that began before it has ended."""
STATUS_EVERY = timedelta(seconds=10)
"""An unchanged fleet status is said again after this long (a sign the watch is alive)."""


class TimeOrder:
    """Samples in time order across frames: each frame's new samples are held until
    every source has sent what it will of their period (`WatchFrame.complete_until`,
    the workers' reports; else `hold_s` after the period ended), then released sorted by
    start, table, index and source, so no line ever goes back in time. Samples that
    started before `since` (a watch joining a run under way) are left out: the backlog
    is not dumped on joining. The last frame releases everything."""

    def __init__(self, hold_s: float = HOLD_S, since: datetime | None = None) -> None:
        self.hold = timedelta(seconds=hold_s)
        self.since = since
        self.held: list[IndexSample] = []
        self.skipped = 0
        """Samples left out as older than `since` (said once by the CLI)."""
        self.held_status: list[WatchFrame] = []
        self.status_said: tuple[str | None, WorkerStatus | None] | None = None
        self.status_said_at = datetime.min.replace(tzinfo=UTC)
        self.cutoff: datetime | None = None
        """Up to when the last `release` let samples out (None after the last frame)."""

    def release(self, frame: WatchFrame) -> list[IndexSample]:
        for sample in frame.samples:
            if self.since is not None and sample.start < self.since:
                self.skipped += 1
            else:
                self.held.append(sample)
        ready: list[IndexSample] = []
        waiting: list[IndexSample] = []
        cutoff = frame.at - self.hold
        if frame.complete_until is not None:
            cutoff = min(cutoff, frame.complete_until)
        for sample in self.held:
            ended = sample.start + timedelta(seconds=sample.period_s)
            (ready if frame.finished or ended <= cutoff else waiting).append(sample)
        self.held = waiting
        self.cutoff = None if frame.finished else cutoff
        return sorted(ready, key=lambda s: (s.start, s.table, s.index or "", s.source))

    def release_frames(self, frame: WatchFrame) -> list[WatchFrame]:
        """The frame's samples and its fleet's status line, in time order, as frames to
        print one after the other: a status (`workers 2/2 ready ...` at the frame's time)
        is held like a sample, and comes out after the samples of the seconds before it
        (printed at once, it stood above the seconds held before it: 13:55:25 over
        13:55:20-24). The last frame carries the frame's note and its end."""
        samples = self.release(frame)
        if frame.workers is not None and self._news(frame):
            self.held_status.append(
                frame.model_copy(update={"samples": [], "note": None, "finished": False})
            )
        out: list[WatchFrame] = []
        waiting: list[WatchFrame] = []
        for status in self.held_status:
            # out once every second that began before it has ended: a second that began
            # at 23.9 is still going on at 24.1
            if self.cutoff is not None and status.at + STATUS_AFTER > self.cutoff:
                waiting.append(status)
                continue
            before = [s for s in samples if s.start < status.at]
            samples = samples[len(before) :]
            out.append(status.model_copy(update={"samples": before}))
        self.held_status = waiting
        last = {"samples": samples, "workers": None}
        return [*out, frame.model_copy(update=last)]

    def _news(self, frame: WatchFrame) -> bool:
        """Whether the frame's status is worth a line: it changed, or the same was said
        STATUS_EVERY ago (ten `workers 0/2 ready` lines in ten seconds hid the samples)."""
        said = (frame.run_label, frame.workers)
        if said == self.status_said and frame.at - self.status_said_at < STATUS_EVERY:
            return False
        self.status_said, self.status_said_at = said, frame.at
        return True
