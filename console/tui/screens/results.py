"""Results: the results table with the simulated figures beside the live ones and their
difference, latency percentiles, the cost tally; export to JSON or Markdown."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from console.render.cost_table import cost_text
from console.render.live_vs_simulated import (
    compared_cells,
    latency_cells,
    live_vs_simulated,
    run_name,
)
from console.tui.screens.base import TuiScreen
from console.tui.widgets.fitted_table import FittedTable

WIDE = 110
"""Terminal columns from which the results table carries the throttle reasons itself."""


class ResultsScreen(TuiScreen):
    TITLE = "RESULTS"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "app.export('json')", "export JSON"),
        Binding("m", "app.export('md')", "export Markdown"),
    ]

    def compose_body(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("", id="results-note")
            yield FittedTable(id="results-table", show_cursor=False, zebra_stripes=True)
            yield Static("", id="results-reasons")
            yield FittedTable(id="latency-table", show_cursor=False, zebra_stripes=True)
            yield Static("", id="results-tally")

    def show_body(self) -> None:
        s = self.session
        note = self.query_one("#results-note", Static)
        if s.result is None:
            note.update("No results yet: the run screen (3) starts the run with g.")
            return
        note.update(
            Text.assemble(
                (f"{s.result.playbook} at scale {s.result.scale:g}", "bold"),
                (" (full-scale units; simulated: the same playbook in virtual time", "dim"),
                (
                    f", pauses x{self.console.run_options.pause_scale:g} as run)"
                    if self.console.run_options.pause_scale != 1.0
                    and not self.console.backend.target().skips_pauses
                    else ")",
                    "dim",
                ),
                *((f"\nexported: {', '.join(str(p) for p in s.exported)}", "green"),)
                if s.exported
                else (),
            )
        )
        runs = live_vs_simulated(s.result, s.preview).runs
        # At 80 columns the rows keep what compares live with simulated; the reasons,
        # which are long, go on their own lines below (in the table from 110 columns).
        wide = self.app.size.width >= WIDE
        self.query_one("#results-table", FittedTable).show_rows(*compared_cells(runs, wide))
        reasons = Text()
        if not wide:
            for r in runs:
                if r.reasons:
                    reasons.append(f"{run_name(r)}: ", "bold")
                    reasons.append(f"{r.reasons}\n")
        self.query_one("#results-reasons", Static).update(reasons)
        self.query_one("#latency-table", FittedTable).show_rows(*latency_cells(runs))
        tally = s.tally
        if tally is not None:
            text = Text("cost", style="bold")
            if tally.hypothetical:
                text.append("  (what the same run would have cost on AWS)", style="dim")
            *cost_rows, total = cost_text(tally.lines, "total")
            for cost_row in cost_rows:
                text.append("\n" + cost_row)
            text.append("\n" + total, style="bold")
            text.append(f"  (prices {tally.prices_region}, {tally.prices_as_of})", style="dim")
            self.query_one("#results-tally", Static).update(text)
