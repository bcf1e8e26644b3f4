"""The capacity changes of a run, as `simulate`, `run` and `check` print them: each
change asked of a table or GSI during a run (a playbook's UpdateTable phase, an auto
scaling action), with when, from, to, why and when it took effect or why DynamoDB
refused it. Printed only when some run's capacity moved."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from loadgen.results.capacity_series import TABLE_KEY
from loadgen.results.records import PlaybookResult


def _value(value: Any) -> str:
    if isinstance(value, int | float):
        return f"{value:,.0f}"
    return "-" if value is None else str(value)


def capacity_table(result: PlaybookResult) -> Table | None:
    """One row per change asked during a run; None when no run's capacity moved."""
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
        return None
    table = Table(title="capacity changes", title_justify="left", header_style="bold")
    for name in ("table", "run", "of", "asked at", "what", "from -> to", "in force from", "why"):
        table.add_column(name, justify="right" if name in ("run", "asked at") else "left")
    for row in sorted(
        rows, key=lambda r: (r[0], int(r[1]), float(r[3].split()[0].replace(",", "")))
    ):
        table.add_row(*row)
    return table
