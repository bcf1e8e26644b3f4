"""How the workflow's plan, tally, down report and watch frames are printed by the CLI
(rich text; --json prints the models themselves)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from console.render.cost_table import cost_text, places_for
from console.run.models import CostLine, CostTally, DownReport, PlanReport
from console.run.samples import IndexSample, WatchFrame


def _capacity(read: int | None, write: int | None) -> str:
    if read is None and write is None:
        return "-"
    return f"{write or 0:,} W / {read or 0:,} R"


def print_plan(report: PlanReport, console: Console) -> None:
    """The plan: the tables, the fleet, the time, the cost, and what each other AWS fleet
    would cost instead (and why)."""
    title = f"{report.playbook_name}: plan on {report.target}"
    table = Table(title=title, title_justify="left", header_style="bold")
    for col in ("table", "billing", "capacity", "warm", "on-demand max", "GSIs", "$/h"):
        table.add_column(col, justify="right" if col == "$/h" else "left")
    for t in report.tables:
        gsis = ", ".join(
            g.name
            + (f" ({_capacity(g.read_capacity, g.write_capacity)})" if g.write_capacity else "")
            for g in t.gsis
        )
        table.add_row(
            t.name,
            "provisioned" if t.billing_mode == "PROVISIONED" else "on-demand",
            _capacity(t.read_capacity, t.write_capacity),
            _capacity(t.warm_read, t.warm_write),
            _capacity(t.on_demand_max_read, t.on_demand_max_write),
            gsis or "-",
            f"{t.per_hour_usd:,.4f}",
        )
    console.print(table)
    fleet = report.fleet
    console.print(f"fleet: {fleet.summary}", highlight=False)
    seeding = f", ~{report.seed_s:,.0f} s of seeding first" if report.seed_s else ""
    console.print(
        f"time: {report.load_s:,.0f} s of load, {report.pauses_s:,.0f} s of pauses{seeding}, "
        f"~{report.setup_s:,.0f} s of AWS setup ("
        + ", ".join(
            f"{s.label} {s.seconds:,.0f} s"
            for s in report.setup
            if s.label not in ("load", "pauses")
        )
        + ")",
        highlight=False,
    )
    console.print(
        f"${report.per_hour_while_up:,.2f}/h while up, "
        f"+${report.per_hour_while_running:,.2f}/h while workers run"
    )
    verb = "would cost on AWS" if report.hypothetical else "estimated cost"
    print_cost_lines(report.lines, console, verb)
    for line in fleet_comparison(report):
        console.print(line, highlight=False)
    _print_prices_and_notes(report, console)


def fleet_comparison(report: PlanReport) -> list[str]:
    """The same run on each AWS fleet: its total, and why the others differ: how long
    the tables stand (each table run's workers' start, an image built first) at what
    they cost per hour, and what the workers themselves are billed."""
    if len(report.fleets) < 2:
        return []
    chosen = next(f for f in report.fleets if f.chosen)

    def usd(amount: float) -> str:  # a sub-dollar figure to hundredths of a cent
        return f"${amount:,.{places_for(chosen.total_usd)}f}"

    totals = ", ".join(
        f"{f.name} {usd(f.total_usd)}" + (" (this plan)" if f.chosen else "") for f in report.fleets
    )
    lines = [f"fleets: {totals}"]
    for other in (f for f in report.fleets if not f.chosen):
        longer = other.stand_s - chosen.stand_s
        if other.image_s > chosen.image_s:
            image = f"a {other.image_s:,.0f} s image build first; "
        elif chosen.image_s > other.image_s:
            image = "no image build; "
        else:
            image = ""
        lines.append(
            f"  {other.name}: the tables stand {abs(longer) / 60:,.0f} min "
            f"{'longer' if longer >= 0 else 'less'} at ${report.per_hour_while_up:,.2f}/h "
            f"({image}{other.worker_kind} start in ~{other.start_s:,.0f} s a table run, "
            f"{chosen.worker_kind} in ~{chosen.start_s:,.0f} s); workers "
            f"{usd(other.workers_usd)} against {usd(chosen.workers_usd)}"
        )
    return lines


def _print_prices_and_notes(priced: PlanReport | CostTally, console: Console) -> None:
    """Where the prices came from and what was left unpriced: the same footer for the plan
    and the tally, so the two read alike."""
    console.print(
        f"prices: {priced.prices_region} as of {priced.prices_as_of} ({priced.prices_source})",
        highlight=False,
    )
    for note in priced.notes:
        console.print(f"note: {note}", highlight=False)


def print_cost_lines(lines: list[CostLine], console: Console, total_label: str) -> None:
    """The cost table: 80 columns, lines adding up to the total."""
    for row in cost_text(lines, total_label):
        console.print(row, highlight=False, markup=False, soft_wrap=True)


def print_tally(tally: CostTally, console: Console) -> None:
    head = "would have cost on AWS" if tally.hypothetical else "cost"
    console.print(f"run {tally.run_id} ({tally.target}): {head}")
    print_cost_lines(tally.lines, console, "total")
    _print_prices_and_notes(tally, console)


def print_down(report: DownReport, console: Console) -> None:
    for item in report.removed:
        console.print(f"removed {item}", highlight=False)
    for note in report.notes:
        console.print(f"note: {note}", highlight=False)
    if report.nothing_left:
        console.print(f"[green]nothing left[/] of run {report.run_id}")
        return
    console.print(f"[red]{len(report.leftovers)} leftover(s)[/] of run {report.run_id}:")
    for left in report.leftovers:
        console.print(
            f"  {left.kind} {left.id}\n    delete: {left.delete_command}",
            highlight=False,
            markup=False,
        )


def _sample_line(s: IndexSample) -> str:
    where = s.table + (f"/{s.index}" if s.index else "")
    reasons = ", ".join(f"{k} {v:,.0f}" for k, v in sorted(s.throttled_by_reason.items()))
    per = "1min" if s.period_s == 60 else "1s"
    text = (
        f"{s.start:%H:%M:%S} {s.source:<10} {per:<4} {where:<24} accepted {s.accepted:>9,.0f} "
        f"throttled {s.throttled:>9,.0f}  WCU/s {s.consumed_wcu:>9,.1f} RCU/s "
        f"{s.consumed_rcu:>8,.1f}"
    )
    if s.capacity_wcu is not None:
        status = " UPDATING" if s.capacity_status == "UPDATING" else ""
        text += f"  capacity {s.capacity_wcu:,.0f} WCU {s.capacity_rcu or 0:,.0f} RCU{status}"
    if s.p50_ms is not None:
        text += f"  p50 {s.p50_ms:.1f} ms p99 {(s.p99_ms or 0):.1f} ms"
    if reasons:
        text += f"  ({reasons})"
    if s.iterations_ok is not None:
        failed = ", ".join(
            f"{k} {v:,.0f}" for k, v in sorted(s.iterations_failed_by_reason.items())
        )
        text += f"  iterations {s.iterations_ok:,.0f}" + (f" failed: {failed}" if failed else "")
    for change in s.scaling:
        text += f"  [capacity: {change}]"
    return text


def print_frame(frame: WatchFrame, console: Console) -> None:
    for sample in frame.samples:
        console.print(_sample_line(sample), highlight=False, markup=False)
    if frame.workers is not None:
        w = frame.workers
        console.print(
            f"[dim]{frame.at:%H:%M:%S} {frame.run_label}: workers {w.ready}/{w.planned} ready, "
            f"{w.running} running, {w.done} done, {w.lost} lost, {w.late:,} late sends"
            + (f"; {w.lifecycle}" if w.lifecycle else "")
            + "[/]"
        )
    if frame.note:
        console.print(f"[yellow]{frame.note}[/]", highlight=False)
    if frame.finished:
        console.print(f"{frame.at:%H:%M:%S} done: the run step is over", highlight=False)
