"""The cost table as text that fits 80 columns: what, quantity x unit price = amount.

Amounts are rounded so the printed lines add up to the printed total (largest
remainder): a reader checking the sum by hand gets the figure shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from console.cost.lines import CostLine, cents_that_add_up

WIDTH = 80
WHAT = 28


def places_for(total: float) -> int:
    """Cents for a bill of dollars; hundredths of a cent for a bill under a dollar (a
    local smoke run is worth a few cents, which two places would show as zero)."""
    return 2 if total >= 1.0 else 4


def _quantity(q: float) -> str:
    return f"{q:,.1f}" if q >= 10_000 else f"{q:,.4f}"


def _what(text: str) -> str:
    return text if len(text) <= WHAT else text[: WHAT - 1] + "…"


def rounded(lines: Sequence[CostLine]) -> tuple[list[float], float, int]:
    """Each line's amount as printed, their total, and the decimal places used."""
    total = sum(x.usd for x in lines)
    places = places_for(total)
    amounts = cents_that_add_up([x.usd for x in lines], places)
    return amounts, round(sum(amounts), places), places


def cost_text(lines: Sequence[CostLine], total_label: str = "total") -> list[str]:
    """One row per line, `quantity unit x $price = $amount`, then the total; at most 80
    characters wide."""
    amounts, total, places = rounded(lines)
    out = []
    for x, amount in zip(lines, amounts, strict=True):
        price = f"${x.unit_price_usd:.4g}"
        usd = f"${amount:,.{places}f}"
        out.append(
            f"  {_what(x.what):<{WHAT}} {_quantity(x.quantity):>10} {x.unit:<10}"
            f" x {price:<9} = {usd:>10}"
        )
    usd = f"${total:,.{places}f}"
    out.append(f"  {total_label:>{WIDTH - 16}} = {usd:>10}")
    return out
