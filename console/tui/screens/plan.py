"""Plan: what `up` will create, the load, the simulated preview and the cost; nothing is
created until you press `u`."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.widgets import DataTable, Static

from console.cost.render import cost_text
from console.tui.screens.base import TuiScreen
from console.tui.widgets.preview_chart import PreviewChart
from console.workflow import PlannedTable, PlanReport
from loadgen.playbook import Playbook


def _pair(read: int | None, write: int | None) -> str:
    if read is None and write is None:
        return "-"
    return f"R {read or 0:,} / W {write or 0:,}"


def _billing(mode: str) -> str:
    return "on-demand" if mode == "PAY_PER_REQUEST" else "provisioned"


class PlanScreen(TuiScreen):
    TITLE = "PLAN"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("u", "app.up", "up: create")]

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="plan-body"):
            yield Static("", id="plan-title")
            yield DataTable(id="plan-tables", show_cursor=False, zebra_stripes=True)
            yield Static("", id="plan-load")
            yield Static("", id="plan-advice")
            yield Grid(id="plan-previews")
            yield Static("", id="plan-cost")

    def show_body(self) -> None:
        playbook, plan = self.session.playbook, self.session.plan
        if playbook is None:
            self.query_one("#plan-title", Static).update(
                "No playbook: start with `hotbench console PLAYBOOK`, or press r for the runs."
            )
            return
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(playbook.name, "bold")
        if plan is not None:
            where = " on AWS" if plan.hypothetical else ""
            title.append(
                f"  ${plan.estimated_cost_usd:,.2f} this run{where}, "
                f"${plan.per_hour_while_up:,.2f}/h while up · u creates it",
                style="bold",
            )
        first_sentence = " ".join(playbook.description.split()).split(". ")[0]
        title.append("\n" + first_sentence, "dim")
        self.query_one("#plan-title", Static).update(title)
        if plan is not None:
            self._tables(playbook, plan)
            self.query_one("#plan-cost", Static).update(self._cost(plan))
        self.query_one("#plan-load", Static).update(self._load(playbook))
        advice = self.session.advice
        self.query_one("#plan-advice", Static).update(
            Text("\n".join(advice))
            if advice is not None
            else Text("advice (hottest key share, first limit hit): not available yet", "dim")
        )
        self._previews()

    def _tables(self, playbook: Playbook, plan: PlanReport) -> None:
        table = self.query_one("#plan-tables", DataTable)
        if table.columns:
            return
        planned: list[PlannedTable] = plan.tables
        table.add_column("")
        for t in planned:
            table.add_column(t.variant)

        def row(label: str, values: list[str]) -> None:
            table.add_row(label, *values)

        specs = [playbook.table(t.variant) for t in planned]
        row(
            "keys",
            [s.partition_key.name + (f"/{s.sort_key.name}" if s.sort_key else "") for s in specs],
        )
        row(
            "billing",
            [
                "on-demand" if t.billing_mode == "PAY_PER_REQUEST" else "provisioned"
                for t in planned
            ],
        )
        row("capacity", [_pair(t.read_capacity, t.write_capacity) for t in planned])
        row("warm", [_pair(t.warm_read, t.warm_write) for t in planned])
        row("on-demand max", [_pair(t.on_demand_max_read, t.on_demand_max_write) for t in planned])
        row("GSIs", [", ".join(g.name for g in t.gsis) or "-" for t in planned])
        row("item size", [f"{s.item_size_bytes:,} B" for s in specs])
        row("seed items", [f"{t.seed_items:,}" for t in planned])
        row("$/hour", [f"${t.per_hour_usd:,.2f}" for t in planned])

    @staticmethod
    def _load(playbook: Playbook) -> Text:
        text = Text("load\n", style="bold")
        for phase in playbook.load.phases:
            rate = f"{phase.rate:,.0f}/s" if phase.rate is not None else "ramp"
            text.append(f"  {phase.name}: {phase.operation} {rate} for {phase.duration_s:,.0f} s\n")
        for name, dist in playbook.load.attributes.items():
            shown = dist.model_dump(exclude_defaults=True, exclude={"dist"})
            text.append(f"  {name}: {dist.dist} {shown}\n", style="dim")
        runs = ", ".join(
            f"{r.table}" + (f" x{r.repeats} (pause {r.pause_s:,.0f} s)" if r.repeats > 1 else "")
            for r in playbook.runs()
        )
        text.append(f"  runs: {runs}")
        return text

    def _previews(self) -> None:
        grid = self.query_one("#plan-previews", Grid)
        preview = self.session.preview
        plan = self.session.plan
        if plan is None:
            return
        if not grid.children:
            grid.mount_all(PreviewChart(t.variant, classes="preview") for t in plan.tables)
            return
        for chart in grid.query(PreviewChart):
            first = None
            if preview is not None:
                first = next((r for r in preview.runs if r.table == chart.variant), None)
            if chart.run is not first or first is None:
                chart.show(first)

    @staticmethod
    def _cost(plan: PlanReport) -> Text:
        text = Text("cost", style="bold")
        if plan.hypothetical:
            text.append("  (local: what the same run would cost on AWS)", style="dim")
        text.append(
            f"\n  ${plan.per_hour_while_up:,.2f}/hour while up, "
            f"${plan.per_hour_while_running:,.2f}/hour while workers run\n"
        )
        *rows, total = cost_text(plan.lines, "this run")
        for row in rows:
            text.append(row + "\n", style="dim")
        text.append(total, style="bold")
        text.append(f"  (prices {plan.prices_region}, {plan.prices_as_of})", style="dim")
        return text
