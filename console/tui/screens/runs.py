"""Runs: every run in the runs folder, its step, whether anything is up; resume one or
destroy it."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from console.render.runs_table import runs_cells
from console.tui.screens.base import TuiScreen
from console.tui.widgets.fitted_table import FittedTable
from console.workflow import CostTally, RunState


class RunsScreen(TuiScreen):
    TITLE = "RUNS"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "resume", "resume", priority=True),
        Binding("d", "destroy_selected", "destroy this run"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.listed: list[RunState] = []

    def compose_body(self) -> ComposeResult:
        yield Static("", id="runs-note")
        yield FittedTable(id="runs-table", cursor_type="row", zebra_stripes=True)

    def on_screen_resume(self) -> None:
        self.console.load_runs()
        super().on_screen_resume()
        self.query_one("#runs-table", DataTable).focus()

    def show_runs(self, runs: list[RunState], costs: dict[str, CostTally | None]) -> None:
        self.listed = list(reversed(runs))  # newest first
        self.query_one("#runs-table", FittedTable).show_rows(
            *runs_cells(self.listed, costs), keys=[state.run_id for state in self.listed]
        )
        self.query_one("#runs-note", Static).update(
            f"{len(self.listed)} run(s) in {self.console.backend.settings.runs_dir_shown}/  ·  "
            "enter: resume  ·  d: destroy the selected run"
            if self.listed
            else f"no runs in {self.console.backend.settings.runs_dir_shown}/ yet"
        )

    def selected(self) -> RunState | None:
        table = self.query_one("#runs-table", DataTable)
        if not self.listed or table.cursor_row < 0:
            return None
        return self.listed[min(table.cursor_row, len(self.listed) - 1)]

    def action_resume(self) -> None:
        state = self.selected()
        if state is not None:
            self.console.resume(state.run_id)

    def action_destroy_selected(self) -> None:
        state = self.selected()
        if state is not None:
            self.console.confirm_destroy(state)
