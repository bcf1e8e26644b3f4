"""The cost table as text that fits 80 columns: what, quantity x unit price = amount;
every cost the CLI and the TUI print (plan, tally, the Terraform plan's review) is drawn
here.

Amounts are rounded so the printed lines add up to the printed total (largest
remainder): a reader checking the sum by hand gets the figure shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from console.cost.lines import CostLine, cents_that_add_up

if TYPE_CHECKING:
    from console.cost.tf_estimate import TerraformEstimate
    from console.infra.terraform import Plan

WIDTH = 80
WHAT = 34


def places_for(total: float) -> int:
    """Cents for a bill of dollars; hundredths of a cent for a bill under a dollar (a
    local smoke run is worth a few cents, which two places would show as zero)."""
    return 2 if total >= 1.0 else 4


def _quantity(q: float) -> str:
    return f"{q:,.1f}" if q >= 10_000 else f"{q:,.4f}"


def _what(text: str, width: int) -> list[str]:
    """The label in lines of at most `width`, words whole: a label is never cut (cut,
    `writes, goodGsi#1` read as `writes, good…`), it takes a second line instead."""
    import textwrap

    text = " ".join(text.split())
    return textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]


def rounded(lines: Sequence[CostLine]) -> tuple[list[float], float, int]:
    """Each line's amount as printed, their total, and the decimal places used."""
    total = sum(x.usd for x in lines)
    places = places_for(total)
    amounts = cents_that_add_up([x.usd for x in lines], places)
    return amounts, round(sum(amounts), places), places


def cost_text(lines: Sequence[CostLine], total_label: str = "total") -> list[str]:
    """One row per line, `what  quantity unit x $price = $amount`, then the total; at
    most 80 characters wide (the `what` column gives way to wide figures, and a label
    longer than its column goes on over a second line, never cut)."""
    amounts, total, places = rounded(lines)
    usd = [f"${a:,.{places}f}" for a in [*amounts, total]]
    quantity = [_quantity(x.quantity) for x in lines]
    price = [f"${x.unit_price_usd:.4g}" for x in lines]
    w_usd = max(map(len, usd))
    w_q = max(map(len, quantity), default=1)
    w_unit = max((len(x.unit) for x in lines), default=1)
    w_price = max(map(len, price), default=1)
    fixed = 2 + 1 + w_q + 1 + w_unit + 3 + w_price + 3 + w_usd
    w_what = max(8, min(WHAT, WIDTH - fixed))
    out = []
    for x, q, p, u in zip(lines, quantity, price, usd, strict=False):
        *first, last = _what(x.what, w_what)
        out += [f"  {part}" for part in first]
        out.append(
            f"  {last:<{w_what}} {q:>{w_q}} {x.unit:<{w_unit}} x {p:<{w_price}} = {u:>{w_usd}}"
        )
    width = max((len(r) for r in out), default=2 + w_usd + 3 + len(total_label))
    out.append(f"{total_label} = {usd[-1]:>{w_usd}}".rjust(width))
    return out


def estimate_review(cost: TerraformEstimate) -> list[str]:
    """A Terraform plan's cost for its review: per hour while up, and while the workers
    run, each as a cost table, then the notes."""
    running = cost.per_hour_while_running
    out = [
        f"Estimated cost: ${cost.per_hour_while_up:,.2f}/h while up"
        + (f", plus ${running:,.2f}/h while workers run" if running else "")
    ]
    out += cost_text(cost.up.lines, "per hour while up")
    if cost.running.lines:
        out += cost_text(cost.running.lines, "per hour while workers run")
    out += [f"  note: {n}" for n in cost.notes + cost.up.notes + cost.running.notes]
    return out


def plan_review(plan: Plan) -> list[str]:
    """The Terraform plan as `up` shows it before `apply`: the change counts, then what
    it costs per hour."""
    return [*plan.summary.lines(), *estimate_review(plan.cost)]
