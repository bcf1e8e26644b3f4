"""The planned tables as the TUI's plan screen shows them at 80 columns: one row a
variant, the columns that tell the variants apart first; the GSIs' names and the items
on lines below."""

from __future__ import annotations

from rich.text import Text

from console.render.cells import Cells
from console.run.models import PlanReport
from loadgen.format.playbook import Playbook


def _pair(read: int | None, write: int | None) -> str:
    """`1,000/10,000`: read, then write units per second (the column says R/W)."""
    if read is None and write is None:
        return "-"
    return f"{read or 0:,}/{write or 0:,}"


def _billing(mode: str) -> str:
    return "on-demand" if mode == "PAY_PER_REQUEST" else "provisioned"


def planned_cells(playbook: Playbook, plan: PlanReport) -> Cells:
    """One row per variant, so every variant is on the first screen at 80 columns (M1's
    four: bad, good, goodGsi, badOnDemand); warm and on-demand max only when some table
    sets them (the columns that tell M1's variants apart fit 80 columns, the rest come
    when a playbook uses them)."""
    planned = plan.tables
    specs = [playbook.table(t.variant) for t in planned]
    warm = any(t.warm_read or t.warm_write for t in planned)
    capped = any(t.on_demand_max_read or t.on_demand_max_write for t in planned)
    columns = ["table", "keys (pk/sk)", "billing", "R/W capacity"]
    columns += ["R/W warm"] * warm + ["R/W od max"] * capped + ["GSIs", "$/h"]
    rows: list[list[str]] = []
    for t, spec in zip(planned, specs, strict=True):
        row = [
            t.variant,
            spec.partition_key.name + (f"/{spec.sort_key.name}" if spec.sort_key else ""),
            _billing(t.billing_mode),
            _pair(t.read_capacity, t.write_capacity),
        ]
        row += [_pair(t.warm_read, t.warm_write)] * warm
        row += [_pair(t.on_demand_max_read, t.on_demand_max_write)] * capped
        row += [str(len(t.gsis)) if t.gsis else "-", f"${t.per_hour_usd:,.2f}"]
        rows.append(row)
    return columns, rows


def planned_notes(playbook: Playbook, plan: PlanReport) -> Text:
    """What would widen the table: each variant's GSIs by name, the item size and the
    items seeded, and the seeding's wait."""
    planned = plan.tables
    specs = [playbook.table(t.variant) for t in planned]
    lines = Text()
    for t in planned:
        if t.gsis:
            lines.append(f"{t.variant} GSIs: ", "bold")
            lines.append(", ".join(g.name for g in t.gsis) + "\n")
    sizes = {(s.item_size_bytes, t.seed_items) for t, s in zip(planned, specs, strict=True)}
    if len(sizes) == 1:
        size, seed = sizes.pop()
        lines.append(f"items of {size:,} B, {seed:,} seeded per table", "dim")
    else:
        lines.append(
            "items: "
            + ", ".join(
                f"{t.variant} {s.item_size_bytes:,} B ({t.seed_items:,} seeded)"
                for t, s in zip(planned, specs, strict=True)
            ),
            "dim",
        )
    if plan.seed_s:
        # The plan's own figure: the wait before the first load (`hotbench plan`).
        lines.append(f"; ~{plan.seed_s:,.0f} s of seeding first", "dim")
    return lines
