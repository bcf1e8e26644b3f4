"""Prewarm: warm throughput requested vs reported per table and index, its status, and
locally each index's partition count from the emulator."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from console.render.warm_table import warm_cells
from console.tui.screens.base import TuiScreen
from console.tui.widgets.fitted_table import FittedTable
from console.workflow import Status, Step


class PrewarmScreen(TuiScreen):
    TITLE = "PREWARM"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("w", "app.prewarm", "prewarm"),
        Binding("n", "app.show('run')", "next: run"),
    ]

    def compose_body(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("", id="prewarm-note")
            yield FittedTable(id="prewarm-table", show_cursor=False, zebra_stripes=True)

    def wants_partitions(self) -> list[str]:
        state = self.session.state
        return list(state.tables) if state is not None else []

    def show_body(self) -> None:
        state, plan = self.session.state, self.session.plan
        note = self.query_one("#prewarm-note", Static)
        if state is None:
            note.update("Nothing is up yet: press 1 for the plan, then u.")
            return
        record = state.record(Step.PREWARM)
        wants = any(t.warm_read or t.warm_write for t in (plan.tables if plan else []))
        note.update(
            f"prewarm: {record.status.value}"
            + ("" if wants or plan is None else " (the playbook asks for no warm throughput)")
            + ("  ·  w: prewarm now" if record.status == Status.PENDING else "")
            + "  ·  n: the run screen"
        )
        self.query_one("#prewarm-table", FittedTable).show_rows(
            *warm_cells(state, plan, self.session.partitions, record.status)
        )
