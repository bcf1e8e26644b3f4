"""Warm throughput per table and index as the TUI's prewarm screen shows it: requested
(the plan), reported (the state, or locally the emulator's own figure), its status, and
locally each index's partition count."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from console.render.cells import Cells
from console.run.models import PlanReport
from console.run.state import RunState, Status


def _pair(read: Any, write: Any) -> str:
    if not read and not write:
        return "-"
    return f"R {read or 0:,.0f} / W {write or 0:,.0f}"


def warm_cells(
    state: RunState,
    plan: PlanReport | None,
    partitions: Mapping[str, dict[str, Any] | None],
    status: Status,
) -> Cells:
    """One row per table and one under it per GSI (`partitions`: the emulator's
    partition map of each variant, where it has one; `status`: the prewarm step's)."""
    lines: list[tuple[str, str, str, str, str]] = []
    requested = {t.variant: t for t in plan.tables} if plan else {}
    for variant, ts in state.tables.items():
        pmap = partitions.get(variant) or {}
        by_index = {i.get("index"): i for i in pmap.get("indexes", [])}
        asked = requested.get(variant)
        rows: list[tuple[str | None, Any, Any, Any, Any]] = [
            (
                None,
                asked.warm_read if asked else None,
                asked.warm_write if asked else None,
                ts.warm_read,
                ts.warm_write,
            )
        ]
        for gsi in ts.gsis:
            planned_gsi = (
                next((g for g in asked.gsis if g.name == gsi.name), None) if asked else None
            )
            rows.append(
                (
                    gsi.name,
                    planned_gsi.warm_read if planned_gsi else None,
                    planned_gsi.warm_write if planned_gsi else None,
                    gsi.warm_read,
                    gsi.warm_write,
                )
            )
        for index, ask_r, ask_w, got_r, got_w in rows:
            emu = by_index.get(index) or {}
            warm = emu.get("warm_throughput") or {}
            shown = warm.get("status") or ("UPDATING" if status == Status.RUNNING else status.value)
            if warm:
                got_r, got_w = warm.get("read"), warm.get("write")
            lines.append(
                (
                    variant if index is None else f"└ {index}",
                    _pair(ask_r, ask_w),
                    _pair(got_r, got_w),
                    shown,
                    str(emu.get("partition_count", "-")),
                )
            )
    # One column for the table and its indexes (each GSI under its table), so M1's
    # longest index name and every figure fit 80 columns.
    return ("table / index", "requested", "reported", "status", "partitions"), lines
