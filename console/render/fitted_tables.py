"""Tables that fit the terminal they are drawn in.

rich shrinks a table wider than the console by cutting every column it can (`hotK…`,
`48…`) or by giving some no width at all: in an 80-column terminal a live run's 17
columns lost the throttle rate. Here nothing is cut. A table is laid out for the
console's width in four steps, each tried only if the one before does not fit:

1. every column with its full header;
2. short headers (`succeeded` -> `ok`, `WCU peak 1min` -> `WCU 1m`);
3. text columns that may fold (throttles by reason, a criterion's measured value)
   folded onto more lines, down to their `fold_to` width;
4. parts: the key columns (table, run) in every part, the others placed by rank (the
   throttle rate first, the latency last), in rank order as many as fit in each part,
   each part a table of its own under the first (`hot-partition (continued)`).

Through a pipe the CLI draws at 200 columns (console/cli.py), where one table fits.
Every results, comparison and verdict table the CLI prints is drawn through `fit`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rich.table import Table

from console.render.cells import cell_width

TABLE_CHROME = 1
"""rich's default box: one border character at the left edge..."""
COLUMN_CHROME = 3
"""...and per column a space either side of its cells and a border after them."""


@dataclass(frozen=True)
class Column:
    """One column of a table that fits: its headers, where it goes when room is short."""

    header: str
    short: str = ""
    """The header when the full ones do not fit ("" = the same)."""
    justify: Literal["left", "right"] = "right"
    rank: int = 50
    """Which columns stay in the first part: the lowest ranks (the figure a reader came
    for), then upwards; equal ranks keep their order."""
    key: bool = False
    """Repeated in every part, so a row of a later part still says whose it is."""
    style: str | None = None
    fold_to: int = 0
    """A text column that may fold onto more lines when room is short, down to this
    width (0: never folds: a figure is read whole)."""


def table_width(widths: Sequence[int]) -> int:
    """The width of a table of columns of these widths, borders and padding included."""
    return sum(widths) + COLUMN_CHROME * len(widths) + TABLE_CHROME


def _widths(columns: Sequence[Column], rows: Sequence[Sequence[str]], short: bool) -> list[int]:
    widths = [cell_width((c.short or c.header) if short else c.header) for c in columns]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], cell_width(cell))
    return widths


def _folded(columns: Sequence[Column], widths: list[int]) -> list[int]:
    """The widths with every folding column at its narrowest."""
    return [min(w, c.fold_to) if c.fold_to else w for c, w in zip(columns, widths, strict=True)]


def layout(
    columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int
) -> list[tuple[list[int], bool]]:
    """The parts a table is drawn in at `width`: each the indices of its columns (in
    the table's order) and whether it uses the short headers."""
    full = _widths(columns, rows, short=False)
    natural = _widths(columns, rows, short=True)
    short = _folded(columns, natural)
    full_folded = _folded(columns, full)
    everything = list(range(len(columns)))
    if table_width(full) <= width:
        return [(everything, False)]
    if table_width(short) <= width:
        return [(everything, True)]
    keys = [i for i, c in enumerate(columns) if c.key]
    waiting = sorted((i for i in everything if not columns[i].key), key=lambda i: columns[i].rank)
    parts: list[tuple[list[int], bool]] = []
    while waiting:
        part = list(keys)
        # in rank order, stopping at the first that does not fit: the first part holds
        # the most important columns, not whichever narrow ones squeeze in
        while waiting and table_width([short[j] for j in [*part, waiting[0]]]) <= width:
            part.append(waiting.pop(0))
        if len(part) == len(keys):  # not even one fits beside the keys: it goes alone
            part.append(waiting.pop(0))
        part.sort()
        shortened = table_width([full_folded[j] for j in part]) > width
        parts.append((part, shortened))
    return parts


def fit(
    title: str,
    columns: Sequence[Column],
    rows: Sequence[Sequence[str]],
    width: int,
) -> list[Table]:
    """The table, in as many parts as `width` needs (see the module's docstring); every
    cell whole (no_wrap), every part at most `width` wide."""
    tables = []
    for n, (part, shortened) in enumerate(layout(columns, rows, width)):
        table = Table(
            # a later part says whose it is and no more: a long title would wrap over a
            # narrow part
            title=title if n == 0 else f"{title.split(':')[0]} (continued)",
            title_justify="left",
            header_style="bold",
            # a title longer than a narrow table wrapped over it (`smoke: plan on local
            # (tables` / `<run-id>-<variant>)`): the table is drawn at least as wide
            min_width=min(len(title), width) if n == 0 else None,
        )
        for i in part:
            column = columns[i]
            table.add_column(
                (column.short or column.header) if shortened else column.header,
                justify=column.justify,
                no_wrap=not column.fold_to,
                overflow="fold",  # rich folds such a column as far as it must (no
                # min_width: rich clamps a collapsed column back up to it, past the edge)
                style=column.style,
            )
        for row in rows:
            table.add_row(*(row[i] for i in part))
        tables.append(table)
    return tables
