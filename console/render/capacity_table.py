"""The capacity changes of a run, as `simulate`, `run` and `check` print them: each
change asked of a table or GSI during a run (a playbook's UpdateTable phase, an auto
scaling action), with when, from, to, why and when it took effect or why DynamoDB
refused it. Printed only when some run's capacity moved, through `fit` like every
results table (at 80 columns the why folds, then the less important columns go to a
second part)."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from console.render.fitted_tables import Column, fit
from loadgen.results.capacity_series import TABLE_KEY
from loadgen.results.records import PlaybookResult


def _value(value: Any) -> str:
    if isinstance(value, int | float):
        return f"{value:,.0f}"
    return "-" if value is None else str(value)


def capacity_tables(result: PlaybookResult, width: int) -> list[Table]:
    """One row per change asked during a run, in as many parts as `width` needs; none
    when no run's capacity moved."""
    rows: list[tuple[str, ...]] = []
    for run in result.runs:
        for phase in run.phases:
            change = phase.change
            if change is not None and not change.accepted:
                rows.append(
                    (
                        run.table,
                        str(run.repeat),
                        "table",
                        f"{phase.start_s:,.0f} s",
                        phase.name,
                        "-",
                        f"refused: {change.error}",
                        change.message or "",
                    )
                )
        for key, entry in (run.capacity or {}).items():
            where = "table" if key == TABLE_KEY else key
            for event in entry["events"]:
                effective = event.get("effective_at")
                when = "-" if effective is None else f"{effective:,.0f} s"
                rows.append(
                    (
                        run.table,
                        str(run.repeat),
                        where,
                        f"{event['t']:,.0f} s",
                        str(event["what"]),
                        f"{_value(event['from'])} -> {_value(event['to'])}",
                        when if event.get("refused") is None else f"refused: {event['refused']}",
                        str(event["cause"]),
                    )
                )
    if not rows:
        return []
    columns = [
        Column("table", justify="left", key=True),
        Column("run", key=True),
        Column("of", justify="left", key=True),
        Column("asked at", "at", rank=0),
        Column("what", justify="left", rank=3, fold_to=12),
        Column("from -> to", justify="left", rank=1),
        Column("in force from", "in force", justify="left", rank=2, fold_to=12),
        Column("why", justify="left", rank=4, fold_to=12),
    ]
    ordered = sorted(rows, key=lambda r: (r[0], int(r[1]), float(r[3].split()[0].replace(",", ""))))
    return fit("capacity changes", columns, ordered, width)
