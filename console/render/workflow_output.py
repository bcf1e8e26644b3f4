"""How the workflow's plan, tally, down report and watch frames are printed by the CLI
(rich text; --json prints the models themselves)."""

from __future__ import annotations

from rich.console import Console

from console.render.cost_table import cost_text, places_for
from console.render.fitted_tables import Column, fit
from console.run.models import CostLine, CostTally, DownReport, PlanReport
from console.run.samples import IndexSample, WatchFrame


def _capacity(read: int | None, write: int | None) -> str:
    if read is None and write is None:
        return "-"
    return f"{write or 0:,} W / {read or 0:,} R"


def print_plan(report: PlanReport, console: Console) -> None:
    """The plan: the tables by variant (their names are `<run-id>-<variant>`, said in the
    title, fitted to the console: render.fitted_tables), the fleet in its own words, the
    time, the cost, and what each other AWS fleet would cost instead (and why)."""
    title = f"{report.playbook_name}: plan on {report.target} (tables <run-id>-<variant>)"
    columns = [
        Column("table", justify="left", key=True),
        Column("capacity", justify="left", rank=1),
        Column("warm", justify="left", rank=3),
        Column("on-demand max", "od max", justify="left", rank=4),
        Column("GSIs", justify="left", rank=2, fold_to=18),
        Column("$/h", rank=0),
    ]
    rows = []
    for t in report.tables:
        gsis = "\n".join(  # one a line, names whole, its own capacity under it
            g.name
            + (f"\n  {_capacity(g.read_capacity, g.write_capacity)}" if g.write_capacity else "")
            for g in t.gsis
        )
        rows.append(
            [
                t.variant,
                # billing mode and capacity in one: a provisioned table's capacity says it
                _capacity(t.read_capacity, t.write_capacity)
                if t.billing_mode == "PROVISIONED"
                else "on-demand",
                _capacity(t.warm_read, t.warm_write),
                _capacity(t.on_demand_max_read, t.on_demand_max_write),
                gsis or "-",
                f"{t.per_hour_usd:,.4f}",
            ]
        )
    # warm throughput and on-demand maximum only when some table sets them
    shown = [i for i in range(len(columns)) if i not in (2, 3) or any(r[i] != "-" for r in rows)]
    columns = [columns[i] for i in shown]
    rows = [[r[i] for i in shown] for r in rows]
    for table in fit(title, columns, rows, console.width):
        console.print(table)
    for warning in report.warnings:  # under the tables: before anything is made
        console.print(f"[yellow]warning: {warning}[/]", highlight=False)
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


def _sample_fields(s: IndexSample, narrow: bool = False) -> tuple[str, list[str]]:
    """A sample's line as its head (time, source, table) and its figures, one field each,
    so a narrow terminal can fold the line between figures and never inside one. Narrow,
    the columns are padded less and `1s` is left out (CloudWatch's `1min` stays)."""
    where = s.table + (f"/{s.index}" if s.index else "")
    per = "1min" if s.period_s == 60 else "1s"
    if narrow:
        head = f"{s.start:%H:%M:%S} {s.source:<8} " + (f"{per} " if s.period_s != 1 else "")
        head += f"{where:<10}"
        wide = 6
    else:
        head = f"{s.start:%H:%M:%S} {s.source:<10} {per:<4} {where:<24}"
        wide = 9
    fields = [f"accepted {s.accepted:>{wide},.0f}", f"throttled {s.throttled:>{wide},.0f}"]
    # narrow, a zero WCU or RCU beside a non-zero other is left out (a write load's
    # RCU/s 0.0 took the room of its latency)
    if not (narrow and s.consumed_wcu == 0 and s.consumed_rcu):
        fields.append(f"WCU/s {s.consumed_wcu:>{wide},.1f}")
    if not (narrow and s.consumed_rcu == 0 and s.consumed_wcu):
        fields.append(f"RCU/s {s.consumed_rcu:>{wide - 1},.1f}")
    if s.capacity_wcu is not None:
        status = " UPDATING" if s.capacity_status == "UPDATING" else ""
        fields.append(f"capacity {s.capacity_wcu:,.0f} WCU {s.capacity_rcu or 0:,.0f} RCU{status}")
    if s.p50_ms is not None:
        fields.append(f"p50 {s.p50_ms:.1f} ms p99 {(s.p99_ms or 0):.1f} ms")
    reasons = ", ".join(f"{k} {v:,.0f}" for k, v in sorted(s.throttled_by_reason.items()))
    if reasons:
        fields.append(f"({reasons})")
    if s.iterations_ok is not None:
        failed = ", ".join(
            f"{k} {v:,.0f}" for k, v in sorted(s.iterations_failed_by_reason.items())
        )
        fields.append(
            f"iterations {s.iterations_ok:,.0f}" + (f" failed: {failed}" if failed else "")
        )
    fields.extend(f"[capacity: {change}]" for change in s.scaling)
    return head, fields


FOLD_INDENT = 9
"""A folded watch line goes on under its source (after `HH:MM:SS `), so the times stay
the left edge a reader scans."""


def _sample_line(s: IndexSample, width: int | None = None) -> str:
    """The sample's line; wider than `width`, folded between figures onto lines indented
    under the source (a watch at 80 columns had every line wrapped mid-figure)."""
    head, fields = _sample_fields(s)
    text = f"{head} {'  '.join(fields)}"
    if width is None or len(text) <= width:
        return text
    head, fields = _sample_fields(s, narrow=True)
    lines = [head]
    for field in fields:
        joined = f"{lines[-1]}  {field}" if lines[-1].strip() else lines[-1] + field
        if len(joined) <= width or not lines[-1].strip():
            lines[-1] = joined
        else:
            lines.append(" " * FOLD_INDENT + field)
    return "\n".join(lines)


def print_frame(frame: WatchFrame, console: Console) -> None:
    for sample in frame.samples:
        # soft_wrap: the line is folded here, at the console's width, between figures
        console.print(
            _sample_line(sample, console.width), highlight=False, markup=False, soft_wrap=True
        )
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
