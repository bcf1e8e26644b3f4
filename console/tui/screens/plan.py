"""Plan: what `up` will create, the load, the simulated preview and the cost; nothing is
created until you press `u`."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, VerticalScroll
from textual.widgets import Static

from console.render.cost_table import cost_text
from console.render.phase_words import phase_lines
from console.render.planned_tables import planned_cells, planned_notes
from console.tui.screens.base import TuiScreen
from console.tui.widgets.fitted_table import FittedTable
from console.tui.widgets.preview_chart import PreviewChart
from console.workflow import PlanReport
from loadgen.format.playbook import Playbook


class PlanScreen(TuiScreen):
    TITLE = "PLAN"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "app.up", "up: create"),
        Binding("a", "toggle_advice", "advice: all / first"),
    ]
    all_advice = False

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="plan-body"):
            yield Static("", id="plan-title")
            yield FittedTable(id="plan-tables", show_cursor=False, zebra_stripes=True)
            yield Static("", id="plan-gsis")
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
        self.query_one("#plan-advice", Static).update(self._advice())
        self._previews()

    def _tables(self, playbook: Playbook, plan: PlanReport) -> None:
        table = self.query_one("#plan-tables", FittedTable)
        if table.columns:
            return
        table.show_rows(*planned_cells(playbook, plan))
        self.query_one("#plan-gsis", Static).update(planned_notes(playbook, plan))

    def action_toggle_advice(self) -> None:
        self.all_advice = not self.all_advice
        self.query_one("#plan-advice", Static).update(self._advice())

    def _advice(self) -> Text:
        """Each table's first limit and its fix (the advisor's `=>` line); `a` shows all
        its arithmetic, which takes three screens for M1."""
        advice = self.session.advice
        if advice is None:
            return Text("advice (hottest key share, first limit hit): not available yet", "dim")
        text = Text("advice", style="bold")
        text.append("  a: first limits only" if self.all_advice else "  a: all of it", "dim")
        for line in advice:
            verdict = line.lstrip().startswith("=>")
            if self.all_advice or verdict:
                shown = line if self.all_advice else line.lstrip().removeprefix("=> ")
                reached = "no limit is reached" not in line
                text.append("\n" + shown, ("bold red" if reached else "green") if verdict else "")
        return text

    @staticmethod
    def _load(playbook: Playbook) -> Text:
        """The phases, each key attribute's distribution in words, and the runs."""
        text = Text("load\n", style="bold")
        for phase in playbook.load.phases:
            first, *detail = phase_lines(phase, playbook.load.scenarios)
            text.append(f"  {first}\n")
            for line in detail:  # a mix's entries, a scenario's steps
                text.append(f"  {line}\n", style="dim")
        for name, dist in playbook.load.attributes.items():
            text.append(f"  {name}: {dist.describe()}\n", style="dim")
        runs = ", ".join(
            f"{r.table}" + (f" x{r.repeats} (pause {r.pause_s:,.0f} s)" if r.repeats > 1 else "")
            for r in playbook.runs()
        )
        text.append(f"  runs: {runs}")
        return text

    def _previews(self) -> None:
        """A simulated chart for every table run, repeats included: badOnDemand's second
        and third runs are where split for heat shows (29.7 %, then 0 %)."""
        grid = self.query_one("#plan-previews", Grid)
        preview, playbook = self.session.preview, self.session.playbook
        if self.session.plan is None or playbook is None:
            return
        if not grid.children:
            grid.mount_all(
                PreviewChart(r.table, repeat, classes="preview")
                for r in playbook.runs()
                for repeat in range(1, r.repeats + 1)
            )
            return
        for chart in grid.query(PreviewChart):
            found = None
            if preview is not None:
                found = next(
                    (
                        r
                        for r in preview.runs
                        if r.table == chart.variant and r.repeat == chart.repeat
                    ),
                    None,
                )
            if chart.run is not found or found is None:
                chart.show(found)

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
