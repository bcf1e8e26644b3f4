"""Two results of one playbook side by side, as `hotbench compare` prints them: one row a
figure (A, B, B - A, the tolerance, the verdict), the figures only one result carries,
and the verdict. The comparison itself is loadgen.analysis.compare's; this draws it."""

from __future__ import annotations

from collections import defaultdict

from rich.console import Console
from rich.table import Table

from console.render.fitted_tables import Column, fit
from console.render.results_table import short_reason
from loadgen.analysis.compare import Comparison, Row


def _is_rate(name: str) -> bool:
    """A throttle rate (a fraction, shown in percent), not a rate per second."""
    return "rate" in name and "per_s" not in name


def figure_value(value: float | None, name: str) -> str:
    """A figure as the comparison shows it: rates in percent, times in seconds."""
    if value is None:
        return "none"
    if _is_rate(name):
        return f"{value * 100:.1f} %"
    if name.endswith("_s") and "per_s" not in name:
        return f"{value:.2f} s"
    return f"{value:,.1f}" if abs(value) < 100 else f"{value:,.0f}"


def figure_name(name: str) -> str:
    """A figure's name as the table shows it: a throttle reason in its short words, apart
    from the figure (`throttle_rate [table write key range]`), so a narrow column folds
    it between words."""
    from rich.markup import escape  # a cell is markup: `[...]` would be taken for a tag

    base, bracket, reason = name.partition("[")
    if not bracket:
        return escape(name)
    return escape(f"{base} [{short_reason(reason.rstrip(']'))}]")


def _difference(row: Row) -> str:
    d = row.difference
    if d is None:
        return "-"
    if _is_rate(row.a.name):
        return f"{d * 100:+.1f} pt"
    if row.a.value:
        return f"{d:+,.4g} ({d / abs(row.a.value) * 100:+.1f} %)"
    return f"{d:+,.4g}"


def _tolerance(row: Row) -> str:
    t = row.tolerance
    if _is_rate(row.a.name) and t.abs:
        return f"±{t.abs * 100:g} pt"
    return t.describe()


def comparison_tables(result: Comparison, series: bool, width: int = 1000) -> list[Table]:
    """One row a figure; the 10-second buckets summed up in one row a run, their worst
    bucket named, unless `series` asks for every one. At `width` (console.render.fitted_tables):
    the run, the figure, A, B and the verdict stay in the first table."""
    columns = [
        Column("run", justify="left", key=True),
        Column("where", justify="left", key=True, fold_to=12),
        Column("figure", justify="left", key=True, fold_to=22),
        Column("A", rank=0),
        Column("B", rank=1),
        Column("B - A", justify="right", rank=3),
        Column("tolerance", "tol", rank=4),
        Column("", justify="left", rank=2),
    ]
    rows: list[list[str]] = []
    buckets: dict[str, list[Row]] = defaultdict(list)
    for row in result.rows:
        if row.a.scope.startswith("t=") and not series:
            buckets[row.a.run].append(row)
            continue
        verdict = "ok" if row.within else f"[red]{row.residual:+.1f} tol[/]"
        rows.append(
            [
                row.a.run,
                row.a.scope,
                figure_name(row.a.name),
                figure_value(row.a.value, row.a.name),
                figure_value(row.b.value, row.a.name),
                _difference(row),
                _tolerance(row),
                verdict,
            ]
        )
    for run, bucket_rows in buckets.items():
        worst = max(bucket_rows, key=lambda r: abs(r.residual))
        inside = sum(r.within for r in bucket_rows)
        verdict = (
            "ok" if inside == len(bucket_rows) else f"[red]{len(bucket_rows) - inside} outside[/]"
        )
        rows.append(
            [
                run,
                f"series ({len(bucket_rows)} x 10 s)",
                "succeeded_per_s",
                "",
                "",
                f"worst {worst.a.scope}: {_difference(worst)}",
                _tolerance(worst),
                verdict,
            ]
        )
    title = f"{result.playbook}: A = {result.a_label}, B = {result.b_label}"
    return fit(title, columns, rows, width)


def print_comparison(result: Comparison, series: bool, console: Console) -> None:
    """The table, the figures only one side carries (the first six), the verdict."""
    for table in comparison_tables(result, series, console.width):
        console.print(table)
    for label, keys in (("only in A", result.only_a), ("only in B", result.only_b)):
        if keys:
            console.print(
                f"[dim]{label} ({len(keys)}): {', '.join(keys[:6])}"
                f"{' ...' if len(keys) > 6 else ''}[/]",
                highlight=False,
            )
    style = "green" if result.agree else "red"
    console.print(f"[bold {style}]{result.verdict()}[/]", highlight=False)
