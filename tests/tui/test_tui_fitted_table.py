"""The console's tables are as wide as their cells from the first frame drawn after they
are filled (Textual's own auto-width columns are measured on the table's next idle, and a
frame drawn before it stays cut to the headers: the runs screen's failure on CI)."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult

from console.tui.widgets.fitted_table import FittedTable, cell_width, column_widths


class _OneTable(App[None]):
    def compose(self) -> ComposeResult:
        yield FittedTable(id="t", cursor_type="row")


def test_a_cell_is_measured_as_drawn() -> None:
    assert cell_width("hb-1130120000-m1") == 16
    assert cell_width("[bold]UP[/bold]") == 2  # markup, as DataTable reads a str
    assert cell_width(Text("█" * 10 + "  97%")) == 15
    assert cell_width("first\na longer second line") == 5  # rows are one line high
    assert cell_width("") == 0
    assert column_widths(("run", "up"), [("hb-1", "UP"), ("hb-22", "-")]) == [5, 2]


async def test_the_first_frame_after_filling_shows_every_cell_whole() -> None:
    app = _OneTable()
    async with app.run_test(size=(60, 8)) as pilot:
        await pilot.pause()
        table = app.query_one(FittedTable)
        table.show_rows(("run", "up"), [("hb-1130120000-m1", "UP")], keys=["a"])
        # drawn at once, before the table has had an idle to measure anything
        header, row = (table.render_line(y).text for y in (0, 1))
        assert "hb-1130120000-m1" in row
        assert header.index("up") == row.index("UP")


async def test_a_refill_keeps_the_selected_row_and_refuses_a_key_per_row_mismatch() -> None:
    app = _OneTable()
    async with app.run_test(size=(60, 8)) as pilot:
        table = app.query_one(FittedTable)
        rows = [(f"run-{i}",) for i in range(4)]
        table.show_rows(("run",), rows)
        await pilot.pause()
        table.move_cursor(row=2)
        table.show_rows(("run",), rows)
        assert table.cursor_row == 2
        table.show_rows(("run",), rows[:2])  # fewer rows: the last one stays selected
        assert table.cursor_row == 1
        with pytest.raises(ValueError, match="1 keys for 2 rows"):
            table.show_rows(("run",), rows[:2], keys=["a"])
