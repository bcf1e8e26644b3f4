"""A DataTable filled in one call, with each column as wide as its widest cell from the
first frame it draws.

Why not Textual's own auto-width columns: Textual (8.2) measures them on the table's next
idle, and its render caches are keyed by an update count that this measuring does not
change. A frame drawn between `add_row` and that idle (a busy machine; a table filled
from a worker's callback while other messages wait) is kept, every column at its
header's width and every cell cut to it, until something else changes the table. Seen
under two CPU hogs, about 1 run in 5, and on CI: the runs screen with "hb-" for a run id.
Widths given to `add_column` take effect at once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.widgets import DataTable

Cell = str | Text
"""What the console puts in a table: text, plain or styled (a str is read as markup,
as DataTable reads it)."""


def cell_width(cell: Cell) -> int:
    """The cells a value takes on screen, markup removed: its first line, as the console's
    rows are one line high."""
    text = Text.from_markup(cell) if isinstance(cell, str) else cell
    lines = text.split(allow_blank=True)
    return lines[0].cell_len if lines else 0


def column_widths(labels: Sequence[Cell], rows: Sequence[Sequence[Cell]]) -> list[int]:
    """Each column's width: its label's or its widest cell's, whichever is wider."""
    widths = [cell_width(label) for label in labels]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], cell_width(cell))
    return widths


class FittedTable(DataTable[Any]):
    def show_rows(
        self,
        labels: Sequence[Cell],
        rows: Sequence[Sequence[Cell]],
        keys: Sequence[str] | None = None,
    ) -> None:
        """Replace the table's columns and rows. The selected row stays selected by its
        place (a table redrawn every second must not send the cursor back to the top)."""
        if keys is not None and len(keys) != len(rows):
            raise ValueError(f"{len(keys)} keys for {len(rows)} rows")
        selected = self.cursor_row
        self.clear(columns=True)
        for label, width in zip(labels, column_widths(labels, rows), strict=True):
            self.add_column(label, width=width)
        for i, row in enumerate(rows):
            self.add_row(*row, key=None if keys is None else keys[i])
        if rows and selected > 0:
            self.move_cursor(row=min(selected, len(rows) - 1))
