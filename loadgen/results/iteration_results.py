"""How a mix's or scenario's iterations ended: the application's view of a run, beside
the per-attempt counts (loadgen.results.records.Counts) that say what DynamoDB saw.

Kept per second of run time like the attempt counts (an iteration's start in the second
it started, its end in the second it ended) and merged by adding: counts, failures by
reason, and mergeable latency histograms of whole iterations and of each step
(loadgen.results.histogram, so p50/p99 of any number of workers are read from merged buckets,
never averaged). The simulation and the live workers fill the same records.

They reconcile as the attempts do: every iteration started has ended (ok, failed, or
unfinished: cut at its phase's end) or is labelled `unaccounted` (in progress when a
worker that then died wrote its last report); an open arrival with no free user is a
`dropped` iteration, never started.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from loadgen.results.histogram import LatencyHistogram


@dataclass
class IterationCounts:
    """Iterations in one second (or any span)."""

    started: int = 0
    ok: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    """Failed iterations by reason: lock_timeout, condition_failed, retries_exhausted, ..."""
    unfinished: int = 0
    """Still running at their phase's end: stopped there, neither ok nor failed."""
    dropped: int = 0
    """Open arrivals that found no free user (k6's dropped_iterations)."""
    unaccounted: int = 0
    """Started with no recorded end (see `reconcile_iterations`)."""
    latency: LatencyHistogram = field(default_factory=LatencyHistogram)
    """Whole iterations, from start to end (think steps included)."""
    steps: dict[str, LatencyHistogram] = field(default_factory=dict)
    """Each step, by name (requests, the application's backoff and polls)."""
    operations: int = 0
    """Operations the application completed (each after its SDK's retries)."""
    operation_attempts: int = 0
    """The attempts those took: every one DynamoDB saw, so with the attempt counts
    (Counts.sent) they reconcile: sent = operation_attempts."""
    retried_ok: int = 0
    """Operations that succeeded after at least one retry."""
    operations_failed: Counter[str] = field(default_factory=Counter)
    """Operations that did not succeed, by the status the application saw (throttled:
    retries exhausted or none allowed; condition_failed, transaction_cancelled,
    unprocessed, error)."""

    def record_operation(self, status: str, attempts: int) -> None:
        """Count one operation as the application saw it, after `attempts`."""
        self.operations += 1
        self.operation_attempts += attempts
        if status == "ok":
            if attempts > 1:
                self.retried_ok += 1
        else:
            self.operations_failed[status] += 1

    @property
    def ended(self) -> int:
        return self.ok + sum(self.failed.values()) + self.unfinished

    def record_end(
        self, ok: bool, reason: str | None, seconds: float, steps: Iterable[tuple[str, float]]
    ) -> None:
        """Count one iteration that ended (ok, or failed for `reason`)."""
        if ok:
            self.ok += 1
        else:
            self.failed[reason or "error"] += 1
        self.latency.record(seconds)
        for name, took in steps:
            histogram = self.steps.get(name)
            if histogram is None:
                histogram = self.steps[name] = LatencyHistogram()
            histogram.record(took)

    def add(self, other: IterationCounts) -> None:
        self.started += other.started
        self.ok += other.ok
        self.failed.update(other.failed)
        self.unfinished += other.unfinished
        self.dropped += other.dropped
        self.unaccounted += other.unaccounted
        self.operations += other.operations
        self.operation_attempts += other.operation_attempts
        self.retried_ok += other.retried_ok
        self.operations_failed.update(other.operations_failed)
        self.latency.merge(other.latency)
        for name, histogram in other.steps.items():
            mine = self.steps.get(name)
            if mine is None:
                mine = self.steps[name] = LatencyHistogram()
            mine.merge(histogram)

    def to_json(self) -> dict[str, Any]:
        """The exchange form (worker reports): counts and raw histograms."""
        return {
            "started": self.started,
            "ok": self.ok,
            "failed": dict(sorted(self.failed.items())),
            "unfinished": self.unfinished,
            "dropped": self.dropped,
            "unaccounted": self.unaccounted,
            "latency": self.latency.to_json(),
            "steps": {n: h.to_json() for n, h in sorted(self.steps.items())},
            "operations": self.operations,
            "operation_attempts": self.operation_attempts,
            "retried_ok": self.retried_ok,
            "operations_failed": dict(sorted(self.operations_failed.items())),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> IterationCounts:
        return cls(
            started=int(data.get("started", 0)),
            ok=int(data.get("ok", 0)),
            failed=Counter({str(k): int(v) for k, v in (data.get("failed") or {}).items()}),
            unfinished=int(data.get("unfinished", 0)),
            dropped=int(data.get("dropped", 0)),
            unaccounted=int(data.get("unaccounted", 0)),
            latency=LatencyHistogram.from_json(data.get("latency")),
            steps={
                str(n): LatencyHistogram.from_json(h) for n, h in (data.get("steps") or {}).items()
            },
            operations=int(data.get("operations", 0)),
            operation_attempts=int(data.get("operation_attempts", 0)),
            retried_ok=int(data.get("retried_ok", 0)),
            operations_failed=Counter(
                {str(k): int(v) for k, v in (data.get("operations_failed") or {}).items()}
            ),
        )

    def summary(self, duration_s: float) -> dict[str, Any]:
        """The result's `iterations` block: rates, failures by reason, p50/p99 in ms."""
        failed = sum(self.failed.values())
        ended = self.ok + failed

        def ms(h: LatencyHistogram, q: float) -> float | None:
            v = h.percentile(q)
            return None if v is None else round(v, 3)

        return {
            "started": self.started,
            "ok": self.ok,
            "failed": failed,
            "failed_by_reason": dict(sorted(self.failed.items())),
            "unfinished": self.unfinished,
            "dropped": self.dropped,
            "unaccounted": self.unaccounted,
            "iterations_per_s": round(self.ok / duration_s, 3) if duration_s else 0.0,
            "failure_rate": round(failed / ended, 6) if ended else 0.0,
            "iteration_ms": {"p50": ms(self.latency, 50), "p99": ms(self.latency, 99)},
            "step_ms": {
                n: {"p50": ms(h, 50), "p99": ms(h, 99), "count": h.count}
                for n, h in sorted(self.steps.items())
            },
            "operations": {
                "completed": self.operations,
                "attempts": self.operation_attempts,
                "retried_ok": self.retried_ok,
                "failed_by_status": dict(sorted(self.operations_failed.items())),
                "error_rate": round(sum(self.operations_failed.values()) / self.operations, 6)
                if self.operations
                else 0.0,
            },
        }


IterationSeconds = dict[int, IterationCounts]
"""Iteration counts by second of run time."""


def at_second(by_second: IterationSeconds, t: int) -> IterationCounts:
    counts = by_second.get(t)
    if counts is None:
        counts = by_second[t] = IterationCounts()
    return counts


def iteration_totals(
    by_second: IterationSeconds, start_s: float = 0.0, duration_s: float | None = None
) -> IterationCounts:
    """The counts of the whole seconds of [start_s, start_s + duration_s) (all when no
    duration): a phase's iterations are its seconds added, as its attempts are."""
    total = IterationCounts()
    for t, counts in by_second.items():
        if duration_s is None or int(start_s) <= t < int(start_s + duration_s):
            total.add(counts)
    return total


def reconcile_iterations(by_second: IterationSeconds) -> int:
    """Label started iterations with no recorded end `unaccounted` (in the last second)
    and return how many were newly labelled: a report written while iterations ran, of
    a worker that then died, leaves them; they must show, never vanish in a sum."""
    if not by_second:
        return 0
    total = iteration_totals(by_second)
    gap = total.started - total.ended - total.unaccounted
    if gap > 0:
        at_second(by_second, max(by_second)).unaccounted += gap
        return gap
    return 0


def iteration_series(by_second: IterationSeconds, step_s: int) -> list[dict[str, Any]]:
    """Iterations per second over time, in `step_s` buckets, with failures by reason."""
    buckets: dict[int, IterationCounts] = {}
    for t, counts in by_second.items():
        buckets.setdefault(t // step_s * step_s, IterationCounts()).add(counts)
    return [
        {
            "t": t,
            "ok": c.ok,
            "iterations_per_s": round(c.ok / step_s, 3),
            "failed_by_reason": dict(sorted(c.failed.items())),
            "dropped": c.dropped,
        }
        for t, c in sorted(buckets.items())
    ]


def scale_iterations(counts: IterationCounts, factor: float) -> IterationCounts:
    """Counts times `factor` (a scaled run in full-scale units), each rounded on its own;
    latencies are not scaled (the same physics at S times the throughput)."""

    def r(v: int) -> int:
        return round(v * factor)

    return IterationCounts(
        started=r(counts.started),
        ok=r(counts.ok),
        failed=Counter({k: r(v) for k, v in counts.failed.items()}),
        unfinished=r(counts.unfinished),
        dropped=r(counts.dropped),
        unaccounted=r(counts.unaccounted),
        latency=counts.latency,
        steps=dict(counts.steps),
        operations=r(counts.operations),
        operation_attempts=r(counts.operation_attempts),
        retried_ok=r(counts.retried_ok),
        operations_failed=Counter({k: r(v) for k, v in counts.operations_failed.items()}),
    )
