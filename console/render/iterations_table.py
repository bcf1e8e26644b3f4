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


def iterations_table(result: PlaybookResult) -> Table:
    """One row per table run and phase with iterations."""
    table = Table(
        title=f"{result.playbook}: iterations (the application's view)",
        title_justify="left",
        header_style="bold",
    )
    for name in ("table", "run", "phase", "load"):
        table.add_column(name, no_wrap=True)
    for name in ("ok/s", "failed", "p50", "p99", "slowest step p99", "dropped", "attempts/op"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("failures by reason")
    table.add_column("WCU/s", justify="right", no_wrap=True)
    for run in result.runs:
        for phase in run.phases:
            if phase.iterations is None:
                continue
            it: dict[str, Any] = phase.iterations.summary(phase.duration_s)
            ops = it["operations"]
            steps = it["step_ms"]
            slowest = max(steps.items(), key=lambda kv: kv[1]["p99"] or 0, default=None)
            rate = it["failure_rate"] * 100
            table.add_row(
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
                f"{phase.counts.consumed_wcu / phase.duration_s:,.0f}" if phase.duration_s else "-",
            )
    return table


def hourly_table(result: PlaybookResult) -> Table | None:
    """Iterations per second in each hour of each phase with iterations (None when no
    such phase lasts more than an hour: the summary row says it all)."""
    rows: list[tuple[str, str, int, dict[str, Any]]] = []
    for run in result.runs:
        for phase in run.phases:
            if phase.iterations is None or phase.duration_s <= HOUR_S:
                continue
            for hour in range(int(-(-phase.duration_s // HOUR_S))):
                start = phase.start_s + hour * HOUR_S
                span = min(HOUR_S, phase.start_s + phase.duration_s - start)
                counts = iteration_totals(run.iterations, start, span)
                rows.append((run.table, phase.name, hour, counts.summary(span)))
    if not rows:
        return None
    table = Table(
        title=f"{result.playbook}: iterations per hour", title_justify="left", header_style="bold"
    )
    for name in ("table", "phase", "hour"):
        table.add_column(name, no_wrap=True)
    for name in ("ok/s", "failed", "p50"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("failures by reason")
    for table_name, phase_name, hour, it in rows:
        table.add_row(
            table_name,
            phase_name,
            str(hour + 1),
            f"{it['iterations_per_s']:,.3f}",
            f"{it['failure_rate'] * 100:.1f} %",
            _ms(it["iteration_ms"]["p50"]),
            _reasons(it["failed_by_reason"]),
        )
    return table
