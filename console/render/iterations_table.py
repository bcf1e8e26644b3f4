"""The tables of a mix's or scenario's iterations, as `hotbench simulate` and `hotbench
run` print them: the application's view beside the per-request one (results_table).

One row per phase that ran iterations: how many per second succeeded, how many failed
and why (lock timeout, condition failed, retries exhausted, ...), the p50/p99 of whole
iterations and the slowest step's p99, dropped arrivals, and the attempts DynamoDB saw
per operation the application completed (above 1: the SDK retried). Then the rate per
hour of each such phase, so a rate that falls as data grows (M5's lesson) is visible.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table

from console.render.cells import rate_cell
from console.render.fitted_tables import Column, fit
from loadgen.results.iteration_results import iteration_totals
from loadgen.results.records import PlaybookResult

HOUR_S = 3600


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value / 1000:,.1f} s" if value >= 10_000 else f"{value:,.1f} ms"


def _reasons(by_reason: dict[str, int]) -> str:
    return ", ".join(f"{r} {n:,}" for r, n in sorted(by_reason.items(), key=lambda x: -x[1])) or "-"


def has_iterations(result: PlaybookResult) -> bool:
    return any(p.iterations is not None for run in result.runs for p in run.phases)


def iterations_tables(result: PlaybookResult, width: int) -> list[Table]:
    """One row per table run and phase with iterations, at `width`
    (console.render.fitted_tables)."""
    columns = [
        Column("table", justify="left", key=True),
        Column("run", key=True),
        Column("phase", justify="left", key=True),
        Column("load", justify="left", rank=8),
        Column("ok/s", rank=0),
        Column("failed", rank=1),
        Column("p50", rank=3),
        Column("p99", rank=4),
        Column("slowest step p99", "slowest p99", justify="left", rank=6),
        Column("dropped", "drop", rank=5),
        Column("attempts/op", "att/op", rank=7),
        Column("failures by reason", "failures", justify="left", rank=2, fold_to=16),
        Column("WCU/s", rank=9),
    ]
    rows = []
    for run in result.runs:
        for phase in run.phases:
            if phase.iterations is None:
                continue
            it: dict[str, Any] = phase.iterations.summary(phase.duration_s)
            ops = it["operations"]
            steps = it["step_ms"]
            slowest = max(steps.items(), key=lambda kv: kv[1]["p99"] or 0, default=None)
            rate = it["failure_rate"] * 100
            rows.append(
                [
                    run.table,
                    str(run.repeat),
                    phase.name,
                    phase.operation,
                    f"{it['iterations_per_s']:,.3f}",
                    rate_cell(rate),
                    _ms(it["iteration_ms"]["p50"]),
                    _ms(it["iteration_ms"]["p99"]),
                    "-" if slowest is None else f"{slowest[0]} {_ms(slowest[1]['p99'])}",
                    f"{it['dropped']:,}",
                    f"{ops['attempts'] / ops['completed']:.2f}" if ops["completed"] else "-",
                    _reasons(it["failed_by_reason"]),
                    f"{phase.counts.consumed_wcu / phase.duration_s:,.0f}"
                    if phase.duration_s
                    else "-",
                ]
            )
    return fit(f"{result.playbook}: iterations (the application's view)", columns, rows, width)


def hourly_tables(result: PlaybookResult, width: int) -> list[Table]:
    """Iterations per second in each hour of each phase with iterations (none when no
    such phase lasts more than an hour: the summary row says it all)."""
    rows: list[list[str]] = []
    for run in result.runs:
        for phase in run.phases:
            if phase.iterations is None or phase.duration_s <= HOUR_S:
                continue
            for hour in range(int(-(-phase.duration_s // HOUR_S))):
                start = phase.start_s + hour * HOUR_S
                span = min(HOUR_S, phase.start_s + phase.duration_s - start)
                it = iteration_totals(run.iterations, start, span).summary(span)
                rows.append(
                    [
                        run.table,
                        phase.name,
                        str(hour + 1),
                        f"{it['iterations_per_s']:,.3f}",
                        f"{it['failure_rate'] * 100:.1f} %",
                        _ms(it["iteration_ms"]["p50"]),
                        _reasons(it["failed_by_reason"]),
                    ]
                )
    if not rows:
        return []
    columns = [
        Column("table", justify="left", key=True),
        Column("phase", justify="left", key=True),
        Column("hour", key=True),
        Column("ok/s", rank=0),
        Column("failed", rank=1),
        Column("p50", rank=3),
        Column("failures by reason", "failures", justify="left", rank=2, fold_to=16),
    ]
    return fit(f"{result.playbook}: iterations per hour", columns, rows, width)
