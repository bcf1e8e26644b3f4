"""Table cells the tables share: a rate that reads the same in each, and the shape of a
table a TUI widget draws."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

Cells = tuple[Sequence[str], Sequence[Sequence[str]]]
"""(column names, rows of cells): a table as the TUI's widgets take it (each draws it to
fit its width); a cell is text with rich markup."""


def cell_width(cell: str | Text) -> int:
    """The cells a value takes on screen, markup removed: its widest line (a cell of
    several lines, such as a table's GSIs one a line, is as wide as that)."""
    text = Text.from_markup(cell) if isinstance(cell, str) else cell
    return max((line.cell_len for line in text.split(allow_blank=True)), default=0)


def rate_cell(percent: float) -> str:
    """A failure or throttle rate in percent, coloured: green at none, yellow under
    10 %, red from there."""
    style = "green" if percent == 0 else ("yellow" if percent < 10 else "red")
    return f"[{style}]{percent:.1f} %[/]"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """`1 worker`, `2 workers`: a count with its noun in the number it takes."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"
