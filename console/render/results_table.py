"""The results table, as printed by `hotbench simulate` and `hotbench run`."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from console.render.capacity_table import capacity_table
from console.render.cells import rate_cell
from console.render.iterations_table import has_iterations, hourly_table, iterations_table
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


def results_table(result: PlaybookResult) -> Table:
    title = f"{result.playbook}: {result.mode}"
    if result.scale != 1.0:
        title += f" at scale {result.scale:g} (figures in full-scale units)"
    table = Table(title=title, title_justify="left", header_style="bold")
    # The unaccounted column appears only when some run has a gap, so it cannot be missed.
    gaps = any(run.totals().unaccounted for run in result.runs)
    # The model sends every request it offers, on time, without errors: those columns say
    # something only about a live run, and a simulation's table stays readable without them.
    live = result.mode != "simulate"
    table.add_column("table", no_wrap=True)
    table.add_column("run", justify="right")
    table.add_column("offered", justify="right")
    if live:
        table.add_column("sent", justify="right")
    table.add_column("succeeded", justify="right")
    table.add_column("throttled", justify="right")
    if live:
        table.add_column("errors", justify="right")
        table.add_column("timeouts", justify="right")
        table.add_column("late", justify="right")
    if gaps:
        table.add_column("unaccounted", justify="right", style="bold red")
    table.add_column("rate", justify="right")
    table.add_column("throttles by reason")
    table.add_column("WCU peak 1s", justify="right", no_wrap=True)
    table.add_column("WCU peak 1min", justify="right", no_wrap=True)
    # Read capacity only where some run reads: a write-only playbook keeps its width.
    reads = any(run.totals().consumed_rcu for run in result.runs)
    if reads:
        table.add_column("RCU peak 1s", justify="right", no_wrap=True)
        table.add_column("RCU peak 1min", justify="right", no_wrap=True)
    table.add_column("first throttle", justify="right", no_wrap=True)
    # Client-side latency of live runs; the simulation has none (no column then).
    timed = any(run.latency is not None and run.latency.count for run in result.runs)
    if timed:
        table.add_column("p50", justify="right", no_wrap=True)
        table.add_column("p99", justify="right", no_wrap=True)
    for run in result.runs:
        data = run.to_json()
        rate = data["throttle_rate"] * 100
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
        table.add_row(
            label,
            str(run.repeat),
            _num(data["offered"]),
            *([_num(data["sent"])] if live else []),
            _num(data["succeeded"]),
            _num(data["throttled"]),
            *([_num(data[k]) for k in ("errors", "timeouts", "late")] if live else []),
            *([_num(data["unaccounted"])] if gaps else []),
            rate_cell(rate),
            reasons,
            _num(data["consumed_wcu_peak_1s"]),
            _num(data["consumed_wcu_peak_1min"]),
            *(
                [_num(data["consumed_rcu_peak_1s"]), _num(data["consumed_rcu_peak_1min"])]
                if reads
                else []
            ),
            "-" if first is None else f"{first:.1f} s",
            *(_latency(run.latency) if timed else []),
        )
    return table


def phases_differ(result: PlaybookResult) -> bool:
    """Whether a run's phases differ in rate or operation: then the per-run totals hide
    what matters (a write ramp, then reads), and the per-phase view is printed too."""
    for run in result.runs:
        kinds = {(p.operation, round(p.offered / p.duration_s)) for p in run.phases if p.duration_s}
        if len(kinds) > 1:
            return True
    return False


def phases_table(result: PlaybookResult) -> Table:
    """One row per table run and phase: what it offered per second, what it got, its
    throttle rate and the consumed units it peaked at (WCU for writes, RCU for reads)."""
    table = Table(title=f"{result.playbook}: per phase", title_justify="left", header_style="bold")
    for name in ("table", "run", "phase", "op"):
        table.add_column(name, no_wrap=True)
    for name in ("offered/s", "succeeded/s", "rate", "units peak 1s", "first throttle"):
        table.add_column(name, justify="right", no_wrap=True)
    for run in result.runs:
        for phase in run.phases:
            data = phase.to_json()
            reads = phase.operation in ("get", "query")
            peak = run.peak(
                "consumed_rcu" if reads else "consumed_wcu", 1, phase.start_s, phase.duration_s
            )
            first = phase.first_throttle_s
            rate = data["throttle_rate"] * 100
            table.add_row(
                run.table,
                str(run.repeat),
                phase.name,
                phase.operation,
                _num(data["offered_per_s"]),
                _num(data["succeeded_per_s"]),
                rate_cell(rate),
                f"{_num(peak)} {'RCU' if reads else 'WCU'}",
                "-" if first is None else f"{first:.1f} s",
            )
    return table


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
    console.print(results_table(result))
    if phases or (phases is None and phases_differ(result)):
        console.print(phases_table(result))
    changes = capacity_table(result)
    if changes is not None:
        console.print(changes)
    if has_iterations(result):
        console.print(iterations_table(result))
        hourly = hourly_table(result)
        if hourly is not None:
            console.print(hourly)
    if result.wall_s is not None:
        console.print(
            f"[dim]{sum(r.offered for r in result.runs):,} requests in "
            f"{result.wall_s:.1f} s of wall time[/]"
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
    print_results(result, console, phases)
    for run in result.runs:
        for note in run.notes:
            console.print(f"[yellow]{run.table} #{run.repeat}:[/] {note}", highlight=False)
    for left in result.left_behind:
        console.print(
            f"[red]left behind:[/] {left.resource} ({left.error}); "
            f"remove it with: {left.delete_command}",
            highlight=False,
        )
    if json_path:
        write_json(json_path, result.to_json())
        console.print(f"results written to {json_path}")
