"""`hotbench advise` as text at the console's width: each table's arithmetic, one
finding a paragraph, its continuation lines indented under it (a terminal's own wrap
starts them at the margin, where they read as findings of their own)."""

from __future__ import annotations

import re
import textwrap

from rich.text import Text

from loadgen.analysis.advise import TableAdvice

CONTINUED = "    "
"""Continuation lines start this much further in than their finding."""


def advice_text(advice: TableAdvice, width: int) -> list[Text]:
    """The table's lines (`TableAdvice.lines`) wrapped to `width`: the first bold, a
    limit hit red, the verdict bold red or green."""
    lines = advice.lines()
    out: list[Text] = []
    for n, line in enumerate(lines):
        body = line.lstrip()
        indent = line[: len(line) - len(body)]
        style = "bold" if n == 0 else ""
        if "-> HIT" in line or body.startswith("also hit"):
            style = "red"
        if body.startswith("=>"):
            style = "bold red" if advice.first_hit else "bold green"
        # a figure and its unit stay on one line (`40.0 %`, `1.0 s`): joined by a
        # no-break space, which textwrap does not break at, and given back after
        body = re.sub(r"(\d) (%|s\b)", "\\1\u00a0\\2", body)
        wrapped = textwrap.wrap(
            body,
            max(20, width - 1),
            initial_indent=indent,
            subsequent_indent=indent + CONTINUED,
            break_on_hyphens=False,
        )
        out += [Text(part.replace("\u00a0", " "), style=style) for part in wrapped or [indent]]
    return out
