"""The result format: what a run measured, from the simulation or from live workers.

Counts are kept per second of run time and merged by adding (never by averaging
averages), so results from any number of workers combine exactly. Peaks, throttle rates
and the 10-second series are derived from the merged per-second counts. The JSON
layout is documented in docs/results.md; `hotbench simulate` and `hotbench run` both
write it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from loadgen.results.capacity_series import ChangeOutcome
from loadgen.results.histogram import LatencyHistogram
from loadgen.results.iteration_results import (
    IterationCounts,
    IterationSeconds,
    iteration_series,
    iteration_totals,
    scale_iterations,
)

FORMAT = "hotbench.result/1"
SERIES_STEP_S = 10


@dataclass
class Counts:
    """What happened to requests in one second (or any span), from the client's side."""

    sent: int = 0
    succeeded: int = 0
    throttled: int = 0
    errors: int = 0
    timeouts: int = 0
    unaccounted: int = 0
    """Sent requests with no recorded outcome (see `reconcile`): never hidden in the
    other counts, so sent = succeeded + throttled + errors + timeouts + unaccounted."""
    late: int = 0
    consumed_wcu: float = 0.0
    consumed_rcu: float = 0.0
    consumed_wcu_by_index: dict[str, float] = field(default_factory=dict)
    """Write units each GSI consumed, by index name: what DynamoDB reports in the
    top-level ConsumedCapacity.GlobalSecondaryIndexes (ReturnConsumedCapacity INDEXES),
    or what the model charged each index in simulation. `consumed_wcu` is the table's
    own, as CloudWatch's TableName series counts it; on-demand bills both (console.cost)."""
    by_reason: Counter[str] = field(default_factory=Counter)
    by_exception: Counter[str] = field(default_factory=Counter)
    errors_by_type: Counter[str] = field(default_factory=Counter)

    def add(self, other: Counts) -> None:
        self.sent += other.sent
        self.succeeded += other.succeeded
        self.throttled += other.throttled
        self.errors += other.errors
        self.timeouts += other.timeouts
        self.unaccounted += other.unaccounted
        self.late += other.late
        self.consumed_wcu += other.consumed_wcu
        self.consumed_rcu += other.consumed_rcu
        self.add_index_units(other.consumed_wcu_by_index.items())
        self.by_reason.update(other.by_reason)
        self.by_exception.update(other.by_exception)
        self.errors_by_type.update(other.errors_by_type)

    def add_index_units(self, used: Iterable[tuple[str, float]]) -> None:
        """Add write units consumed on GSIs, (index name, units) pairs."""
        for index, units in used:
            self.consumed_wcu_by_index[index] = self.consumed_wcu_by_index.get(index, 0.0) + units

    @property
    def outcomes(self) -> int:
        """Requests with a recorded outcome."""
        return self.succeeded + self.throttled + self.errors + self.timeouts

    def gap(self) -> int:
        """Sent requests that neither have an outcome nor are labelled unaccounted: 0
        whenever the counts reconcile."""
        return self.sent - self.outcomes - self.unaccounted

    def to_json(self) -> dict[str, Any]:
        out = self._to_json()
        if self.consumed_wcu_by_index:
            # only when an index consumed something, so results of tables without GSIs
            # keep their exact earlier form
            out["consumed_wcu_by_index"] = {
                k: round(v, 3) for k, v in sorted(self.consumed_wcu_by_index.items())
            }
        return out

    def _to_json(self) -> dict[str, Any]:
        return {
            "sent": self.sent,
            "succeeded": self.succeeded,
            "throttled": self.throttled,
            "errors": self.errors,
            "timeouts": self.timeouts,
            "unaccounted": self.unaccounted,
            "late": self.late,
            "consumed_wcu": round(self.consumed_wcu, 3),
            "consumed_rcu": round(self.consumed_rcu, 3),
            "throttles_by_reason": dict(sorted(self.by_reason.items())),
            "throttles_by_exception": dict(sorted(self.by_exception.items())),
            "errors_by_type": dict(sorted(self.errors_by_type.items())),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Counts:
        return cls(
            sent=int(data.get("sent", 0)),
            succeeded=int(data.get("succeeded", 0)),
            throttled=int(data.get("throttled", 0)),
            errors=int(data.get("errors", 0)),
            timeouts=int(data.get("timeouts", 0)),
            unaccounted=int(data.get("unaccounted", 0)),
            late=int(data.get("late", 0)),
            consumed_wcu=float(data.get("consumed_wcu", 0.0)),
            consumed_rcu=float(data.get("consumed_rcu", 0.0)),
            consumed_wcu_by_index={
                k: float(v) for k, v in (data.get("consumed_wcu_by_index") or {}).items()
            },
            by_reason=Counter(data.get("throttles_by_reason", {})),
            by_exception=Counter(data.get("throttles_by_exception", {})),
            errors_by_type=Counter(data.get("errors_by_type", {})),
        )


class PerSecond:
    """Counts kept per second (`self.seconds`), shared by run results and worker reports,
    so both merge and total the same way."""

    seconds: dict[int, Counts]

    def second(self, t: int) -> Counts:
        counts = self.seconds.get(t)
        if counts is None:
            counts = self.seconds[t] = Counts()
        return counts

    def totals(self) -> Counts:
        total = Counts()
        for counts in self.seconds.values():
            total.add(counts)
        return total

    def reconcile(self) -> int:
        """Label every second's gap (sent without outcome) as `unaccounted` and return the
        total newly labelled. A report written while requests were in flight, or a
        worker that died, leaves such a gap; it must show, never vanish in a sum."""
        labelled = 0
        for counts in self.seconds.values():
            gap = counts.gap()
            if gap:
                counts.unaccounted += gap
                labelled += gap
        return labelled

    def totals_between(self, start_s: float, duration_s: float) -> Counts:
        """The counts of the whole seconds of [start_s, start_s + duration_s): a phase's
        totals are its seconds added, so they agree with the per-second series."""
        total = Counts()
        for second in range(int(start_s), int(start_s + duration_s)):
            counts = self.seconds.get(second)
            if counts is not None:
                total.add(counts)
        return total


@dataclass
class PhaseResult:
    """One phase of one run: its totals and when it first throttled."""

    name: str
    operation: str
    start_s: float
    duration_s: float
    offered: int = 0
    counts: Counts = field(default_factory=Counts)
    first_throttle_s: float | None = None
    """Seconds from the phase start to the first throttled request."""
    iterations: IterationCounts | None = None
    """A mix's or scenario's iterations (None for a phase of one operation)."""
    change: ChangeOutcome | None = None
    """A capacity-change phase's UpdateTable and what became of it (None for load)."""

    def to_json(self) -> dict[str, Any]:
        achieved = self.counts.succeeded / self.duration_s if self.duration_s else 0.0
        extra = (
            {"iterations": self.iterations.summary(self.duration_s)}
            if self.iterations is not None
            else {}
        )
        return {
            "name": self.name,
            "operation": self.operation,
            "start_s": self.start_s,
            "duration_s": self.duration_s,
            "offered": self.offered,
            "offered_per_s": round(self.offered / self.duration_s, 3) if self.duration_s else 0,
            "succeeded_per_s": round(achieved, 3),
            "throttle_rate": _rate(self.counts.throttled, self.offered),
            "first_throttle_s": _round(self.first_throttle_s),
            **self.counts.to_json(),
            **extra,
            **({"update_table": self.change.to_json()} if self.change is not None else {}),
        }


@dataclass
class RunResult(PerSecond):
    """One run of the load against one table (one repeat)."""

    table: str
    repeat: int
    duration_s: float
    seconds: dict[int, Counts] = field(default_factory=dict)
    phases: list[PhaseResult] = field(default_factory=list)
    first_throttle_s: float | None = None
    partial: bool = False
    notes: list[str] = field(default_factory=list)
    workers: int = 1
    latency: LatencyHistogram | None = None
    """Merged latency histogram of live runs (None in the simulation, which has no
    latency); written as `latency_ms` only when present."""
    scheduled: int | None = None
    """Requests the whole schedule holds (all workers); `offered` is what the reporting
    workers account for, so the two differ only in a partial run."""
    iterations: IterationSeconds = field(default_factory=dict)
    """Iterations of the run's mix and scenario phases, by second (empty without any)."""
    capacity: dict[str, dict[str, list[dict[str, Any]]]] | None = None
    """Per table (`$table`) and GSI, the capacity in force as it stepped and every change
    asked of it, on the run's clock (loadgen.results.capacity_series); None when nothing was
    asked of it during the run (the result then reads as before capacity could move)."""

    @property
    def offered(self) -> int:
        return sum(p.offered for p in self.phases)

    def reconciliation_problems(self) -> list[str]:
        """Why the counts do not add up, per run and per phase (empty when they do):
        sent = succeeded + throttled + errors + timeouts, with no `unaccounted`, and the
        phases together hold every request of the run."""
        problems = []
        total = self.totals()
        if total.unaccounted:
            problems.append(
                f"unaccounted: {total.unaccounted:,} sent requests have no outcome "
                "(see the worker notes)"
            )
        if total.gap():
            problems.append(f"counting error: sent exceeds outcomes by {total.gap():,}")
        for phase in self.phases:
            if phase.counts.gap():
                problems.append(
                    f"phase {phase.name}: sent exceeds outcomes by {phase.counts.gap():,}"
                )
        if self.iterations:
            it = iteration_totals(self.iterations)
            if it.unaccounted:
                problems.append(
                    f"unaccounted: {it.unaccounted:,} started iterations have no end "
                    "(see the worker notes)"
                )
            if it.started != it.ended + it.unaccounted:
                problems.append(
                    f"counting error: {it.started:,} iterations started, "
                    f"{it.ended + it.unaccounted:,} ended"
                )
        in_phases = sum(p.counts.sent for p in self.phases)
        if self.phases and in_phases != total.sent:
            problems.append(
                f"{total.sent - in_phases:,} requests were counted in seconds outside every phase"
            )
        return problems

    @property
    def reconciled(self) -> bool:
        return not self.reconciliation_problems()

    def peak(
        self, attr: str, window_s: int, start_s: float = 0.0, duration_s: float | None = None
    ) -> float:
        """Highest per-second rate of `attr` averaged over `window_s` consecutive seconds
        (window 60 is CloudWatch's 1-minute Sum/60, which the published peaks use), within
        [start_s, start_s + duration_s) when given (one phase)."""
        if not self.seconds:
            return 0.0
        first = int(start_s)
        last = max(self.seconds) if duration_s is None else int(start_s + duration_s) - 1
        values = [
            getattr(self.seconds[t], attr) if t in self.seconds else 0.0
            for t in range(first, last + 1)
        ]
        if not values:
            return 0.0
        if window_s <= 1:
            return float(max(values))
        width = min(window_s, len(values))
        run = sum(values[:width])
        best = run
        for i in range(width, len(values)):
            run += values[i] - values[i - width]
            best = max(best, run)
        return best / width

    def series(self, step_s: int = SERIES_STEP_S) -> list[dict[str, Any]]:
        if not self.seconds:
            return []
        buckets: dict[int, Counts] = {}
        for t, counts in self.seconds.items():
            bucket = buckets.setdefault(t // step_s * step_s, Counts())
            bucket.add(counts)
        out = []
        for t in sorted(buckets):
            c = buckets[t]
            out.append(
                {
                    "t": t,
                    "sent": c.sent,
                    "succeeded": c.succeeded,
                    "throttled": c.throttled,
                    "errors": c.errors + c.timeouts,
                    "unaccounted": c.unaccounted,
                    "succeeded_per_s": round(c.succeeded / step_s, 3),
                    "consumed_wcu_per_s": round(c.consumed_wcu / step_s, 3),
                    "consumed_rcu_per_s": round(c.consumed_rcu / step_s, 3),
                    "throttles_by_reason": dict(sorted(c.by_reason.items())),
                }
            )
        return out

    def to_json(self) -> dict[str, Any]:
        total = self.totals()
        return {
            "table": self.table,
            "repeat": self.repeat,
            "duration_s": self.duration_s,
            "workers": self.workers,
            "partial": self.partial,
            "reconciled": self.reconciled,
            "notes": list(self.notes),
            **({"scheduled": self.scheduled} if self.scheduled is not None else {}),
            "offered": self.offered,
            "throttle_rate": _rate(total.throttled, self.offered),
            "first_throttle_s": _round(self.first_throttle_s),
            "consumed_wcu_peak_1s": round(self.peak("consumed_wcu", 1), 3),
            "consumed_wcu_peak_1min": round(self.peak("consumed_wcu", 60), 3),
            "consumed_rcu_peak_1s": round(self.peak("consumed_rcu", 1), 3),
            "consumed_rcu_peak_1min": round(self.peak("consumed_rcu", 60), 3),
            **total.to_json(),
            "phases": [p.to_json() for p in self.phases],
            "series": self.series(),
            **({"latency_ms": self.latency.to_json()} if self.latency is not None else {}),
            **(
                {
                    "iterations": {
                        **iteration_totals(self.iterations).summary(self.duration_s),
                        "series": iteration_series(self.iterations, SERIES_STEP_S),
                    }
                }
                if self.iterations
                else {}
            ),
            **({"capacity": self.capacity} if self.capacity is not None else {}),
        }


@dataclass(frozen=True)
class Leftover:
    """Something a run created and could not remove, and the command that removes it: a
    table `hotbench run` failed to delete (with the error that stopped it), or what `down`
    could not confirm gone (console.run.models.DownReport, which writes it in its own
    JSON shape)."""

    kind: str
    """What it is: table, dynamodb:table, ecs:cluster, logs:log-group, iam:role, process, ..."""
    id: str
    """Its name, ARN or pid."""
    delete_command: str
    """The command that removes it (aws CLI, or kill)."""
    error: str | None = None
    """Why the clean-up could not remove it, where it tried and failed."""

    @property
    def resource(self) -> str:
        return f"{self.kind} {self.id}"

    def to_json(self) -> dict[str, str]:
        """As the result format writes it (`left_behind`, docs/results.md)."""
        return {"resource": self.resource, "error": self.error or "", "remove": self.delete_command}


@dataclass
class PlaybookResult:
    """Every run of a playbook, as written to --json."""

    playbook: str
    mode: str
    scale: float = 1.0
    runs: list[RunResult] = field(default_factory=list)
    started_at: str | None = None
    wall_s: float | None = None
    target: str | None = None
    left_behind: list[Leftover] = field(default_factory=list)
    """What the clean-up could not remove (empty when everything was)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "playbook": self.playbook,
            "mode": self.mode,
            "target": self.target,
            "scale": self.scale,
            "units": "full-scale (counts and rates divided by scale)",
            "started_at": self.started_at,
            "wall_s": _round(self.wall_s),
            "runs": [r.to_json() for r in self.runs],
            "left_behind": [x.to_json() for x in self.left_behind],
        }


def scale_counts(counts: Counts, factor: float) -> Counts:
    """Counts multiplied by `factor` (1/scale turns a scaled run into full-scale units).

    Each outcome is rounded on its own, then the totals are rebuilt from the rounded parts,
    so sent = succeeded + throttled + errors + timeouts + unaccounted (+ any unlabelled gap) and
    throttled = the sum over exceptions still hold exactly after scaling.
    """

    def r(value: int) -> int:
        return round(value * factor)

    by_exception = Counter({k: r(v) for k, v in counts.by_exception.items()})
    by_reason = Counter({k: r(v) for k, v in counts.by_reason.items()})
    errors_by_type = Counter({k: r(v) for k, v in counts.errors_by_type.items()})
    throttled = sum(by_exception.values()) if counts.by_exception else r(counts.throttled)
    errors = sum(errors_by_type.values()) if counts.errors_by_type else r(counts.errors)
    succeeded, timeouts = r(counts.succeeded), r(counts.timeouts)
    unaccounted = r(counts.unaccounted)
    return Counts(
        sent=succeeded + throttled + errors + timeouts + unaccounted + r(counts.gap()),
        succeeded=succeeded,
        throttled=throttled,
        errors=errors,
        timeouts=timeouts,
        unaccounted=unaccounted,
        late=r(counts.late),
        consumed_wcu=counts.consumed_wcu * factor,
        consumed_rcu=counts.consumed_rcu * factor,
        consumed_wcu_by_index={k: v * factor for k, v in counts.consumed_wcu_by_index.items()},
        by_reason=by_reason,
        by_exception=by_exception,
        errors_by_type=errors_by_type,
    )


def to_full_scale(run: RunResult, scale: float) -> RunResult:
    """A run measured at `scale` times the load, in full-scale units (counts / scale).

    Times (first throttle, durations) and latencies are not scaled: the emulator at
    scale S runs the same physics at S times the throughput in real time.
    """
    if scale == 1.0:
        return run
    factor = 1.0 / scale
    out = RunResult(
        run.table,
        run.repeat,
        run.duration_s,
        seconds={t: scale_counts(c, factor) for t, c in run.seconds.items()},
        first_throttle_s=run.first_throttle_s,
        partial=run.partial,
        notes=list(run.notes),
        workers=run.workers,
        latency=run.latency,
        scheduled=None if run.scheduled is None else round(run.scheduled * factor),
        iterations={t: scale_iterations(c, factor) for t, c in run.iterations.items()},
        capacity=run.capacity,
    )
    for phase in run.phases:
        counts = out.totals_between(phase.start_s, phase.duration_s)
        out.phases.append(
            PhaseResult(
                phase.name,
                phase.operation,
                phase.start_s,
                phase.duration_s,
                offered=round(phase.offered * factor),
                counts=counts,
                first_throttle_s=phase.first_throttle_s,
                iterations=None
                if phase.iterations is None
                else iteration_totals(out.iterations, phase.start_s, phase.duration_s),
                change=phase.change,
            )
        )
    return out


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 6) if whole else 0.0


def _round(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else round(value, 3)
