"""`CostLine`: one priced quantity. The plan, the check, the tally and the Terraform
estimate all report money as these lines (JSON-ready for `--json`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class CostLine(BaseModel):
    """`quantity` `unit`s at `unit_price_usd` each = `usd`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    what: str
    quantity: float
    unit: str
    unit_price_usd: float
    usd: float
    note: str | None = None


def line(what: str, quantity: float, unit: str, price: float, note: str | None = None) -> CostLine:
    return CostLine(
        what=what,
        quantity=quantity,
        unit=unit,
        unit_price_usd=price,
        usd=quantity * price,
        note=note,
    )


def cents_that_add_up(amounts: list[float], places: int = 2) -> list[float]:
    """Each amount rounded to `places` so that the rounded amounts add up to the rounded
    total (largest remainder): a reader adding the printed lines gets the printed total.
    Hand-written because no well-kept library does just this (it is ten lines)."""
    scale = 10**places
    total = round(sum(amounts) * scale)
    floors = [int(a * scale // 1) for a in amounts]
    order = sorted(range(len(amounts)), key=lambda i: amounts[i] * scale - floors[i], reverse=True)
    for i in order[: max(0, total - sum(floors))]:
        floors[i] += 1
    return [f / scale for f in floors]
