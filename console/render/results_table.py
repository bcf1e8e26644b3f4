"""The results table, as printed by `hotbench simulate` and `hotbench run`."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from console.render.capacity_table import capacity_tables
from console.render.cells import rate_cell
from console.render.fitted_tables import Column, fit
from console.render.iterations_table import has_iterations, hourly_tables, iterations_tables
from loadgen.results.histogram import LatencyHistogram
from loadgen.results.records import PlaybookResult

REASON_ABBREVIATIONS = {
    "KeyRangeThroughputExceeded": "key range",
    "ProvisionedThroughputExceeded": "provisioned",
    "AccountLimitExceeded": "account limit",
    "MaxOnDemandThroughputExceeded": "on-demand max",
}


def short_reason(reason: str) -> str:
    """'IndexWriteKeyRangeThroughputExceeded' -> 'index write key range'."""
    for scope in ("Table", "Index"):
        for op in ("Read", "Write"):
            prefix = scope + op
            if reason.startswith(prefix):
                rest = REASON_ABBREVIATIONS.get(reason[len(prefix) :], reason[len(prefix) :])
                return f"{scope.lower()} {op.lower()} {rest}"
    return reason


def _num(value: float) -> str:
    return f"{value:,.0f}"


WIDE = 1000
"""A width no table reaches: one table, every column (a caller that wants them all)."""


def results_tables(result: PlaybookResult, width: int = WIDE) -> list[Table]:
    """The results table at `width` columns: one table where it fits, else its less
    important columns in a second one (console.render.fitted_tables); the table name, the run and
    the throttle rate always in the first, whole."""
    title = f"{result.playbook}: {result.mode}"
    if result.scale != 1.0:
        title += f" at scale {result.scale:g} (figures in full-scale units)"
    # The unaccounted column appears only when some run has a gap, so it cannot be missed.
    gaps = any(run.totals().unaccounted for run in result.runs)
    # The model sends every request it offers, on time, without errors: those columns say
    # something only about a live run, and a simulation's table stays readable without them.
    live = result.mode != "simulate"
    # Read capacity only where some run reads: a write-only playbook keeps its width.
    reads = any(run.totals().consumed_rcu for run in result.runs)
    # Client-side latency of live runs; the simulation has none (no column then).
    timed = any(run.latency is not None and run.latency.count for run in result.runs)
    columns: list[tuple[Column, bool]] = [
        (Column("table", justify="left", key=True), True),
        (Column("run", key=True), True),
        (Column("offered", "offer", rank=2), True),
        (Column("sent", rank=8), live),
        (Column("succeeded", "ok", rank=7), True),
        (Column("throttled", rank=1), True),
        (Column("errors", "err", rank=9), live),
        (Column("timeouts", "t/o", rank=10), live),
        (Column("late", rank=14), live),
        (Column("unaccounted", "unacc", rank=3, style="bold red"), gaps),
        (Column("rate", rank=0), True),
        (Column("throttles by reason", "reasons", justify="left", rank=5, fold_to=16), True),
        (Column("WCU peak 1s", "WCU 1s", rank=11), True),
        (Column("WCU peak 1min", "WCU 1m", rank=6), True),
        (Column("RCU peak 1s", "RCU 1s", rank=13), reads),
        (Column("RCU peak 1min", "RCU 1m", rank=12), reads),
        (Column("first throttle", "1st thr", rank=4), True),
        (Column("p50", rank=15), timed),
        (Column("p99", rank=16), timed),
    ]
    rows = []
    for run in result.runs:
        data = run.to_json()
        reasons = (
            ", ".join(
                f"{short_reason(r)} {_num(n)}" for r, n in data["throttles_by_reason"].items()
            )
            or "-"
        )
        first = data["first_throttle_s"]
        label = (
            run.table
            + (" (partial)" if run.partial else "")
            + ("" if run.reconciled else " (unreconciled)")
        )
        p50, p99 = _latency(run.latency)
        cells = [
            label,
            str(run.repeat),
            _num(data["offered"]),
            _num(data["sent"]),
            _num(data["succeeded"]),
            _num(data["throttled"]),
            _num(data["errors"]),
            _num(data["timeouts"]),
            _num(data["late"]),
            _num(data["unaccounted"]),
            rate_cell(data["throttle_rate"] * 100),
            reasons,
            _num(data["consumed_wcu_peak_1s"]),
            _num(data["consumed_wcu_peak_1min"]),
            _num(data["consumed_rcu_peak_1s"]),
            _num(data["consumed_rcu_peak_1min"]),
            "-" if first is None else f"{first:.1f} s",
            p50,
            p99,
        ]
        rows.append([cell for cell, (_, shown) in zip(cells, columns, strict=True) if shown])
    return fit(title, [c for c, shown in columns if shown], rows, width)


def results_table(result: PlaybookResult) -> Table:
    """The results table whole, every column in one table (for a file or a wide view)."""
    return results_tables(result)[0]


def phases_differ(result: PlaybookResult) -> bool:
    """Whether a run's phases differ in rate or operation: then the per-run totals hide
    what matters (a write ramp, then reads), and the per-phase view is printed too."""
    for run in result.runs:
        kinds = {(p.operation, round(p.offered / p.duration_s)) for p in run.phases if p.duration_s}
        if len(kinds) > 1:
            return True
    return False


def phases_tables(result: PlaybookResult, width: int = WIDE) -> list[Table]:
    """One row per table run and phase: what it offered per second, what it got, its
    throttle rate and the consumed units it peaked at (WCU for writes, RCU for reads)."""
    columns = [
        Column("table", justify="left", key=True),
        Column("run", key=True),
        Column("phase", justify="left", key=True),
        Column("op", justify="left", rank=5),
        Column("offered/s", "offer/s", rank=1),
        Column("succeeded/s", "ok/s", rank=2),
        Column("rate", rank=0),
        Column("units peak 1s", "peak 1s", rank=4),
        Column("first throttle", "1st thr", rank=3),
    ]
    rows = []
    for run in result.runs:
        for phase in run.phases:
            data = phase.to_json()
            reads = phase.operation in ("get", "query")
            peak = run.peak(
                "consumed_rcu" if reads else "consumed_wcu", 1, phase.start_s, phase.duration_s
            )
            first = phase.first_throttle_s
            rows.append(
                [
                    run.table,
                    str(run.repeat),
                    phase.name,
                    phase.operation,
                    _num(data["offered_per_s"]),
                    _num(data["succeeded_per_s"]),
                    rate_cell(data["throttle_rate"] * 100),
                    f"{_num(peak)} {'RCU' if reads else 'WCU'}",
                    "-" if first is None else f"{first:.1f} s",
                ]
            )
    return fit(f"{result.playbook}: per phase", columns, rows, width)


def _latency(histogram: LatencyHistogram | None) -> list[str]:
    """p50 and p99 in ms, or `-` for a run that timed nothing."""
    if histogram is None or not histogram.count:
        return ["-", "-"]
    return [f"{histogram.percentile(q) or 0:.1f} ms" for q in (50, 99)]


def print_results(
    result: PlaybookResult, console: Console | None = None, phases: bool | None = None
) -> None:
    """The results table, then the per-phase one when asked (`phases`) or, by default,
    when the phases differ in rate or operation."""
    console = console or Console()
    width = console.width
    tables = results_tables(result, width)
    if phases or (phases is None and phases_differ(result)):
        tables += phases_tables(result, width)
    tables += capacity_tables(result, width)
    if has_iterations(result):
        tables += iterations_tables(result, width)
        tables += hourly_tables(result, width)
    for table in tables:
        console.print(table)
    if result.wall_s is not None:
        engines = {r.engine for r in result.runs if r.engine is not None}
        engine = (engines.pop() if len(engines) == 1 else "mixed") if engines else None
        console.print(
            f"[dim]{sum(r.offered for r in result.runs):,} requests in "
            f"{result.wall_s:.1f} s of wall time"
            + (f", {engine} engine" if engine is not None else "")
            + "[/]"
        )


def report_result(
    result: PlaybookResult,
    json_path: str | None,
    console: Console | None = None,
    phases: bool | None = None,
) -> None:
    """What `simulate` and `run` both end with: the table, the notes of partial runs, and
    the JSON file when asked for."""
    from console.output import write_json

    console = console or Console()
    for note in result.notes:  # first: what a reader must know before the figures
        console.print(f"[yellow]{note}[/]", highlight=False)
    print_results(result, console, phases)
    for run in result.runs:
        for note in run.notes:
            console.print(f"[yellow]{run.table} #{run.repeat}:[/] {note}", highlight=False)
        total = run.totals()
        if total.counted_wcu:  # where a figure is counted rather than reported, said
            console.print(
                f"[dim]{run.table} #{run.repeat}: {total.counted_wcu:,.0f} of its "
                f"{total.consumed_wcu:,.0f} WCU are counted by the charging rule, not "
                "reported: failed conditional writes, which DynamoDB charges without "
                "a ConsumedCapacity[/]",
                highlight=False,
            )
    for left in result.left_behind:
        console.print(
            f"[red]left behind:[/] {left.resource} ({left.error}); "
            f"remove it with: {left.delete_command}",
            highlight=False,
        )
    if json_path:
        write_json(json_path, result.to_json())
        console.print(f"results written to {json_path}")
