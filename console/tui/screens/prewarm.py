"""Prewarm: warm throughput requested vs reported per table and index, its status, and
locally each index's partition count from the emulator."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from console.tui.screens.base import TuiScreen
from console.tui.widgets.fitted_table import FittedTable
from console.workflow import Status, Step


def _pair(read: Any, write: Any) -> str:
    if not read and not write:
        return "-"
    return f"R {read or 0:,.0f} / W {write or 0:,.0f}"


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
        lines: list[tuple[str, str, str, str, str]] = []
        requested = {t.variant: t for t in plan.tables} if plan else {}
        for variant, ts in state.tables.items():
            pmap = self.session.partitions.get(variant) or {}
            by_index = {i.get("index"): i for i in pmap.get("indexes", [])}
            asked = requested.get(variant)
            rows: list[tuple[str | None, Any, Any, Any, Any]] = [
                (
                    None,
                    asked.warm_read if asked else None,
                    asked.warm_write if asked else None,
                    ts.warm_read,
                    ts.warm_write,
                )
            ]
            for gsi in ts.gsis:
                planned_gsi = (
                    next((g for g in asked.gsis if g.name == gsi.name), None) if asked else None
                )
                rows.append(
                    (
                        gsi.name,
                        planned_gsi.warm_read if planned_gsi else None,
                        planned_gsi.warm_write if planned_gsi else None,
                        gsi.warm_read,
                        gsi.warm_write,
                    )
                )
            for index, ask_r, ask_w, got_r, got_w in rows:
                emu = by_index.get(index) or {}
                warm = emu.get("warm_throughput") or {}
                status = warm.get("status") or (
                    "UPDATING" if record.status == Status.RUNNING else record.status.value
                )
                if warm:
                    got_r, got_w = warm.get("read"), warm.get("write")
                lines.append(
                    (
                        variant if index is None else f"└ {index}",
                        _pair(ask_r, ask_w),
                        _pair(got_r, got_w),
                        status,
                        str(emu.get("partition_count", "-")),
                    )
                )
        # One column for the table and its indexes (each GSI under its table), so M1's
        # longest index name and every figure fit 80 columns.
        self.query_one("#prewarm-table", FittedTable).show_rows(
            ("table / index", "requested", "reported", "status", "partitions"), lines
        )
