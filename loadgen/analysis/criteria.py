"""A playbook's criteria judged against what a run measured.

Pure: a `PlaybookResult` (from the simulation or a live run) and the playbook go in,
one `Verdict` per criterion comes out. A criterion's runs (its table, repeat and phase)
are taken together: counts are added before any rate is formed, peaks are the highest of
the runs, the first throttle the earliest, latencies are merged histograms. The cost of
a run is priced by the caller (console.cost.measured_usage.run_cost_at): prices live in the console.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from loadgen.format.playbook import ITERATION_METRICS, Criterion, Playbook, TableSpec
from loadgen.results.histogram import LatencyHistogram
from loadgen.results.iteration_results import IterationCounts, iteration_totals
from loadgen.results.records import Counts, PlaybookResult, RunResult

Status = Literal["pass", "fail", "skipped"]
CostOf = Callable[[TableSpec, RunResult], float]
"""The AWS cost in USD of one run of one table variant."""

UNITS: dict[str, str] = {
    "throttle_rate": "fraction",
    "achieved_rate": "requests/s",
    "p99_latency_ms": "ms",
    "first_throttle_s": "s",
    "consumed_wcu_peak": "WCU/s",
    "consumed_rcu_peak": "RCU/s",
    "cost_usd": "USD",
    "iteration_rate": "iterations/s",
    "scenario_failure_rate": "fraction",
    "step_p99_ms": "ms",
    "app_error_rate": "fraction",
}


@dataclass(frozen=True)
class Verdict:
    """One criterion's outcome, with the numbers that decided it."""

    criterion: Criterion
    status: Status
    measured: float | None
    """The value measured; None when not measured (skipped) or, for first_throttle_s,
    when nothing was throttled."""
    expected: str
    """The limit in words, e.g. "<= 1.0 %" or "<= 0.1 x sharded (54.8 %)"."""
    scope: str
    """Which runs and phase were measured."""
    reference: float | None = None
    """For a comparison: the other side's value."""
    detail: str = ""
    """Why it was skipped, or what the comparison's ratio was."""

    @property
    def measured_text(self) -> str:
        if self.measured is None:
            if self.status == "skipped":
                return "not measured"
            return "no throttle" if self.criterion.metric == "first_throttle_s" else "-"
        return format_for(self.criterion, self.measured)


def evaluate(
    playbook: Playbook, result: PlaybookResult, cost_of: CostOf | None = None
) -> list[Verdict]:
    """One verdict per criterion, in the playbook's order."""
    return [judge(playbook, result, c, cost_of) for c in playbook.criteria]


def judge(
    playbook: Playbook, result: PlaybookResult, criterion: Criterion, cost_of: CostOf | None
) -> Verdict:
    runs = select(result, criterion.table, criterion.repeat)
    scope = describe_scope(criterion.table, criterion.repeat, criterion.phase, len(runs))
    if not runs:
        return Verdict(criterion, "skipped", None, "-", scope, detail="no run of it in the result")
    measured, why_not = measure(playbook, runs, criterion, cost_of)
    if why_not:
        return Verdict(criterion, "skipped", None, _bounds_text(criterion), scope, detail=why_not)
    if criterion.compare is not None:
        return _judge_comparison(playbook, result, criterion, measured, scope, cost_of)
    value = measured
    if value is None and criterion.metric == "first_throttle_s":
        value = math.inf  # never throttled: later than any bound
    assert value is not None
    ok = (criterion.max is None or value <= criterion.max) and (
        criterion.min is None or value >= criterion.min
    )
    return Verdict(criterion, "pass" if ok else "fail", measured, _bounds_text(criterion), scope)


def _judge_comparison(
    playbook: Playbook,
    result: PlaybookResult,
    criterion: Criterion,
    measured: float | None,
    scope: str,
    cost_of: CostOf | None,
) -> Verdict:
    compare = criterion.compare
    assert compare is not None and measured is not None
    other_runs = select(result, compare.table, compare.repeat)
    other_scope = describe_scope(compare.table, compare.repeat, criterion.phase, len(other_runs))
    reference, why_not = (
        measure(playbook, other_runs, criterion, cost_of)
        if other_runs
        else (None, f"no run of {compare.table} in the result")
    )
    bounds = []
    if compare.max_ratio is not None:
        bounds.append(f"<= {compare.max_ratio:g} x")
    if compare.min_ratio is not None:
        bounds.append(f">= {compare.min_ratio:g} x")
    ref_text = "?" if reference is None else format_for(criterion, reference)
    expected = f"{' and '.join(bounds)} {other_scope} ({ref_text})"
    if why_not or reference is None:
        return Verdict(
            criterion, "skipped", measured, expected, scope, detail=why_not or "not measured"
        )
    if reference == 0:
        # No ratio to a zero: "10x less than nothing" cannot be shown to hold.
        ratio = 1.0 if measured == 0 else math.inf
        detail = f"{other_scope} measured 0, so the ratio is undefined"
        ok = measured == 0 and (compare.max_ratio is None or compare.max_ratio >= 1)
    else:
        ratio = measured / reference
        detail = f"ratio {ratio:.3g}"
        ok = (compare.max_ratio is None or ratio <= compare.max_ratio) and (
            compare.min_ratio is None or ratio >= compare.min_ratio
        )
    return Verdict(
        criterion,
        "pass" if ok else "fail",
        measured,
        expected,
        scope,
        reference=reference,
        detail=detail,
    )


def select(result: PlaybookResult, table: str | None, repeat: int | None) -> list[RunResult]:
    """The runs a criterion is about."""
    return [
        r
        for r in result.runs
        if (table is None or r.table == table) and (repeat is None or r.repeat == repeat)
    ]


def measure(
    playbook: Playbook, runs: list[RunResult], criterion: Criterion, cost_of: CostOf | None
) -> tuple[float | None, str]:
    """(value, why it could not be measured); the value of first_throttle_s is None when
    nothing was throttled."""
    metric, phase = criterion.metric, criterion.phase
    if metric == "throttle_rate":
        counts, offered = _counts(runs, phase)
        throttled = counts.by_reason[criterion.reason] if criterion.reason else counts.throttled
        return (throttled / offered if offered else 0.0), ""
    if metric == "achieved_rate":
        counts, _ = _counts(runs, phase)
        seconds = sum(_span(r, phase)[1] for r in runs)
        return (counts.succeeded / seconds if seconds else 0.0), ""
    if metric == "first_throttle_s":
        firsts = [_first_throttle(r, phase) for r in runs]
        known = [f for f in firsts if f is not None]
        return (min(known) if known else None), ""
    if metric in ("consumed_wcu_peak", "consumed_rcu_peak"):
        attr = "consumed_wcu" if metric == "consumed_wcu_peak" else "consumed_rcu"
        peaks = [r.peak(attr, criterion.window_s, *_span(r, phase)) for r in runs]
        return max(peaks), ""
    if metric == "p99_latency_ms":
        merged = LatencyHistogram()
        for run in runs:
            if run.latency is not None:
                merged.merge(run.latency)
        p99 = merged.percentile(99)
        return p99, "" if p99 is not None else "latency is measured by live runs only"
    if metric == "cost_usd":
        if cost_of is None:
            return None, "no prices given"
        return sum(cost_of(playbook.table(r.table), r) for r in runs), ""
    if metric in ITERATION_METRICS:
        return _measure_iterations(runs, criterion)
    raise ValueError(f"unknown metric {metric}")


def _measure_iterations(runs: list[RunResult], criterion: Criterion) -> tuple[float | None, str]:
    """The iteration metrics: what the application saw of its mix or scenario, from the
    runs' per-second iteration counts (added before any rate is formed, histograms
    merged), over the whole run or one phase."""
    if not any(r.iterations for r in runs):
        return None, "no iterations in the result (no phase ran a mix or a scenario)"
    if criterion.metric == "iteration_rate" and criterion.trend:
        return _iteration_trend(runs, criterion)
    total, seconds = IterationCounts(), 0.0
    for run in runs:
        start, duration = _span(run, criterion.phase)
        total.add(iteration_totals(run.iterations, start, duration))
        seconds += duration
    metric = criterion.metric
    if metric == "iteration_rate":
        return (total.ok / seconds if seconds else 0.0), ""
    if metric == "scenario_failure_rate":
        ended = total.ok + sum(total.failed.values())
        failed = (
            total.failed[criterion.failure] if criterion.failure else sum(total.failed.values())
        )
        return (failed / ended if ended else 0.0), ""
    if metric == "step_p99_ms":
        histogram = total.steps.get(criterion.step or "")
        p99 = histogram.percentile(99) if histogram is not None else None
        return p99, "" if p99 is not None else f"step {criterion.step!r} never ran"
    # app_error_rate: operations the application saw fail, after its SDK's retries
    failed_ops = sum(total.operations_failed.values())
    return (failed_ops / total.operations if total.operations else 0.0), ""


def _iteration_trend(runs: list[RunResult], criterion: Criterion) -> tuple[float | None, str]:
    """The iteration rate of the last `trend_window_s` of the span over that of the first
    (each added over the runs): below 1 when iterations slow down as the data grows."""
    window = criterion.trend_window_s
    first = last = 0
    for run in runs:
        start, duration = _span(run, criterion.phase)
        if duration < 2 * window:
            return None, (
                f"the span is {duration:,.0f} s, shorter than two trend windows of {window:,.0f} s"
            )
        first += iteration_totals(run.iterations, start, window).ok
        last += iteration_totals(run.iterations, start + duration - window, window).ok
    if first == 0:
        return None, "no iteration ended ok in the first window: no rate to compare with"
    return last / first, ""


def _span(run: RunResult, phase: str | None) -> tuple[float, float]:
    """(start, duration) in seconds of the run or of one of its phases."""
    if phase is None:
        return 0.0, run.duration_s
    for p in run.phases:
        if p.name == phase:
            return p.start_s, p.duration_s
    return 0.0, 0.0


def _counts(runs: list[RunResult], phase: str | None) -> tuple[Counts, int]:
    total, offered = Counts(), 0
    for run in runs:
        if phase is None:
            total.add(run.totals())
            offered += run.offered
        else:
            for p in run.phases:
                if p.name == phase:
                    total.add(p.counts)
                    offered += p.offered
    return total, offered


def _first_throttle(run: RunResult, phase: str | None) -> float | None:
    if phase is None:
        return run.first_throttle_s
    firsts = [p.first_throttle_s for p in run.phases if p.name == phase]
    known = [f for f in firsts if f is not None]
    return min(known) if known else None


def describe_scope(table: str | None, repeat: int | None, phase: str | None, runs: int) -> str:
    who = "all runs" if table is None else table
    if table is not None and repeat is not None:
        who += f" run {repeat}"
    elif table is not None and runs > 1:
        who += f" ({runs} runs)"
    return who + (f", phase {phase}" if phase else "")


def _bounds_text(criterion: Criterion) -> str:
    parts = []
    if criterion.min is not None:
        parts.append(f">= {format_for(criterion, criterion.min)}")
    if criterion.max is not None:
        parts.append(f"<= {format_for(criterion, criterion.max)}")
    return " and ".join(parts)


def unit_of(criterion: Criterion) -> str:
    """The unit of what a criterion measures (a trend is a ratio of two rates)."""
    return "ratio" if criterion.trend else UNITS[criterion.metric]


def format_for(criterion: Criterion, value: float) -> str:
    """A criterion's measured or limit value as people read it."""
    if criterion.trend:
        window = criterion.trend_window_s
        span = "hour" if window == 3600 else f"{window:,.0f} s"
        return f"{value:.3g} x the first {span}"
    return format_value(criterion.metric, value)


def format_value(metric: str, value: float) -> str:
    """A measured or limit value as people read it (rates as percentages)."""
    if value == math.inf:
        return "never"
    if metric in ("throttle_rate", "scenario_failure_rate", "app_error_rate"):
        return f"{value * 100:.2f} %"
    if metric == "iteration_rate":
        return f"{value:,.3g} {UNITS[metric]}"
    if metric == "cost_usd":
        return f"${value:,.4f}"
    if metric == "first_throttle_s":
        return f"{value:,.1f} s"
    if metric in ("p99_latency_ms", "step_p99_ms"):
        return f"{value:,.1f} ms"
    return f"{value:,.0f} {UNITS[metric]}"
