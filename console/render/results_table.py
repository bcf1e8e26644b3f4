"""The results table, as printed by `hotbench simulate` and `hotbench run`."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from loadgen.results import PlaybookResult

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
    table.add_column("first throttle", justify="right", no_wrap=True)
    for run in result.runs:
        data = run.to_json()
        rate = data["throttle_rate"] * 100
        style = "green" if rate == 0 else ("yellow" if rate < 10 else "red")
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
            f"[{style}]{rate:.1f} %[/]",
            reasons,
            _num(data["consumed_wcu_peak_1s"]),
            _num(data["consumed_wcu_peak_1min"]),
            "-" if first is None else f"{first:.1f} s",
        )
    return table


def print_results(result: PlaybookResult, console: Console | None = None) -> None:
    console = console or Console()
    console.print(results_table(result))
    if result.wall_s is not None:
        console.print(
            f"[dim]{sum(r.offered for r in result.runs):,} requests in "
            f"{result.wall_s:.1f} s of wall time[/]"
        )


def report_result(
    result: PlaybookResult, json_path: str | None, console: Console | None = None
) -> None:
    """What `simulate` and `run` both end with: the table, the notes of partial runs, and
    the JSON file when asked for."""
    from console.output import write_json

    console = console or Console()
    print_results(result, console)
    for run in result.runs:
        for note in run.notes:
            console.print(f"[yellow]{run.table} #{run.repeat}:[/] {note}", highlight=False)
    for left in result.left_behind:
        console.print(
            f"[red]left behind:[/] {left.resource} ({left.error}); remove it with: {left.remove}",
            highlight=False,
        )
    if json_path:
        write_json(json_path, result.to_json())
        console.print(f"results written to {json_path}")
