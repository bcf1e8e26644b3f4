"""Optimize: the cheapest configuration of the playbook's tables that passes its criteria
in simulation (`hotbench optimize`, docs/optimize.md): the cost-against-throttle chart,
the ranked configurations, the recommendation against the naive fix; `a` applies it to
the plan (the plan screen then shows the recommended tables, their cost and preview)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from console.render.optimize_report import (
    criteria_legend,
    final_lines,
    frontier_text,
    ranked,
    summary_lines,
    usd,
)
from console.tui.screens.base import TuiScreen
from console.tui.widgets.fitted_table import FittedTable


class OptimizeScreen(TuiScreen):
    TITLE = "OPTIMIZE"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "app.optimize", "optimize: search"),
        Binding("a", "app.apply_optimized", "apply to the plan"),
    ]

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="optimize-body"):
            yield Static("", id="optimize-note")
            yield Static("", id="optimize-chart")
            yield FittedTable(id="optimize-table", show_cursor=False, zebra_stripes=True)
            yield Static("", id="optimize-summary")

    def show_body(self) -> None:
        s = self.session
        note = self.query_one("#optimize-note", Static)
        report = s.optimized
        if report is None:
            note.update(
                s.optimizing
                or "o searches the cheapest configuration that passes the playbook's criteria "
                "(every candidate a full simulation; minutes for a long playbook)"
            )
            return
        head = Text(f"{report.playbook}: ", style="bold")
        head.append(
            "a applies the recommendation to the plan" if report.passed else "nothing passed",
            "green" if report.passed else "red",
        )
        if s.optimizing:
            head.append(f"\n{s.optimizing}", "dim")
        note.update(head)
        group = report.groups[0] if report.groups else None
        if group is None:
            return
        width = max(40, min(100, self.size.width - 2))
        self.query_one("#optimize-chart", Static).update(Text(frontier_text(group, width, 14)))
        columns = ["#", "configuration", "per month", "run", "throttled"]
        columns += [f"C{i}" for i in range(1, len(group.written.margins) + 1)]
        rows = [
            [
                str(i),
                e.words or "as written",
                usd(e.costs.month_usd),
                usd(e.costs.run_usd),
                f"{e.throttle_rate * 100:.2f} %",
                *[
                    ("PASS" if m.passed else "FAIL") + ("~" if m.within_tolerance else "")
                    for m in e.margins
                ],
            ]
            for i, e in enumerate([*ranked(group, 8), group.naive, group.written], 1)
        ]
        self.query_one("#optimize-table", FittedTable).show_rows(columns, rows)
        lines = criteria_legend(group) + summary_lines(report) + final_lines(report)
        self.query_one("#optimize-summary", Static).update(Text("\n".join(lines)))
