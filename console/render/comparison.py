"""Two results of one playbook side by side, as `hotbench compare` prints them: one row a
figure (A, B, B - A, the tolerance, the verdict), the figures only one result carries,
and the verdict. The comparison itself is loadgen.analysis.compare's; this draws it."""

from __future__ import annotations

from collections import defaultdict

from rich.console import Console
from rich.table import Table

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


def comparison_table(result: Comparison, series: bool) -> Table:
    """One row a figure; the 10-second buckets summed up in one row a run, their worst
    bucket named, unless `series` asks for every one."""
    table = Table(
        title=f"{result.playbook}: A = {result.a_label}, B = {result.b_label}",
        title_justify="left",
        header_style="bold",
    )
    for name, justify in (
        ("run", "left"),
        ("where", "left"),
        ("figure", "left"),
        ("A", "right"),
        ("B", "right"),
        ("B - A", "right"),
        ("tolerance", "right"),
        ("", "left"),
    ):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    buckets: dict[str, list[Row]] = defaultdict(list)
    for row in result.rows:
        if row.a.scope.startswith("t=") and not series:
            buckets[row.a.run].append(row)
            continue
        verdict = "ok" if row.within else f"[red]{row.residual:+.1f} tol[/]"
        table.add_row(
            row.a.run,
            row.a.scope,
            row.a.name,
            figure_value(row.a.value, row.a.name),
            figure_value(row.b.value, row.a.name),
            _difference(row),
            _tolerance(row),
            verdict,
        )
    for run, rows in buckets.items():
        worst = max(rows, key=lambda r: abs(r.residual))
        inside = sum(r.within for r in rows)
        verdict = "ok" if inside == len(rows) else f"[red]{len(rows) - inside} outside[/]"
        table.add_row(
            run,
            f"series ({len(rows)} x 10 s)",
            "succeeded_per_s",
            "",
            "",
            f"worst {worst.a.scope}: {_difference(worst)}",
            _tolerance(worst),
            verdict,
        )
    return table


def print_comparison(result: Comparison, series: bool, console: Console) -> None:
    """The table, the figures only one side carries (the first six), the verdict."""
    console.print(comparison_table(result, series))
    for label, keys in (("only in A", result.only_a), ("only in B", result.only_b)):
        if keys:
            console.print(
                f"[dim]{label} ({len(keys)}): {', '.join(keys[:6])}"
                f"{' ...' if len(keys) > 6 else ''}[/]",
                highlight=False,
            )
    style = "green" if result.agree else "red"
    console.print(f"[bold {style}]{result.verdict()}[/]", highlight=False)
