"""Table cells the result tables share, so a rate reads the same in each."""

from __future__ import annotations


def rate_cell(percent: float) -> str:
    """A failure or throttle rate in percent, coloured: green at none, yellow under
    10 %, red from there."""
    style = "green" if percent == 0 else ("yellow" if percent < 10 else "red")
    return f"[{style}]{percent:.1f} %[/]"
