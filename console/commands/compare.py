"""`hotbench compare A.json B.json [--json]`: two results of the same playbook side by side.

Exit 0 when every figure both carry is within its tolerance, 1 when one is not, 2 when
the files cannot be compared (unreadable, not results, different playbooks).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from console import exitcodes
from console.output import UserError
from emulator.params import CapacityParams
from loadgen.analysis.compare import CompareError, Comparison, Row, check_result, compare, describe

if TYPE_CHECKING:
    from loadgen.format.playbook import Playbook
    from loadgen.results.records import PlaybookResult


def read_result(path: str) -> dict[str, Any]:
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror}; give a result file") from None
    except json.JSONDecodeError as exc:
        raise UserError(f"{path} line {exc.lineno}: not JSON ({exc.msg})") from None
    try:
        return check_result(document, path)
    except CompareError as exc:
        raise UserError(str(exc)) from None


def _value(value: float | None, name: str) -> str:
    if value is None:
        return "none"
    if "rate" in name and "per_s" not in name:
        return f"{value * 100:.1f} %"
    if name.endswith("_s") and "per_s" not in name:
        return f"{value:.2f} s"
    return f"{value:,.1f}" if abs(value) < 100 else f"{value:,.0f}"


def _difference(row: Row) -> str:
    d = row.difference
    if d is None:
        return "-"
    name = row.a.name
    if "rate" in name and "per_s" not in name:
        return f"{d * 100:+.1f} pt"
    if row.a.value:
        return f"{d:+,.4g} ({d / abs(row.a.value) * 100:+.1f} %)"
    return f"{d:+,.4g}"


def _tolerance(row: Row) -> str:
    t = row.tolerance
    if "rate" in row.a.name and "per_s" not in row.a.name and t.abs:
        return f"±{t.abs * 100:g} pt"
    return t.describe()


def comparison_table(result: Comparison, series: bool) -> Table:
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
            _value(row.a.value, row.a.name),
            _value(row.b.value, row.a.name),
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


def print_live_vs_simulated(
    playbook: Playbook, live: PlaybookResult, params: CapacityParams, console: Console
) -> None:
    """After a live check: the same playbook simulated (seconds) and compared with the
    live result, so a check on AWS says at once where the model and the tables differ
    (and `hotbench calibrate` can close the gap)."""
    from loadgen.runners import SimulatedRunner

    simulated = SimulatedRunner(params).run(playbook)
    result = compare(live.to_json(), simulated.to_json(), "live", "simulated")
    style = "green" if result.agree else "yellow"
    console.print(f"[{style}]live vs simulated: {result.verdict()}[/]", highlight=False)
    for row in sorted(result.outside, key=lambda r: -abs(r.residual))[:3]:
        console.print(
            f"  {row.a.key}: live {_value(row.a.value, row.a.name)}, simulated "
            f"{_value(row.b.value, row.a.name)}",
            highlight=False,
        )


def handle(args: argparse.Namespace, console: Console) -> int:
    a, b = read_result(args.a), read_result(args.b)
    try:
        result = compare(a, b, f"{args.a} ({describe(a)})", f"{args.b} ({describe(b)})")
    except CompareError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
    else:
        console.print(comparison_table(result, args.series))
        for label, keys in (("only in A", result.only_a), ("only in B", result.only_b)):
            if keys:
                console.print(
                    f"[dim]{label} ({len(keys)}): {', '.join(keys[:6])}"
                    f"{' ...' if len(keys) > 6 else ''}[/]",
                    highlight=False,
                )
        style = "green" if result.agree else "red"
        console.print(f"[bold {style}]{result.verdict()}[/]", highlight=False)
    return exitcodes.OK if result.agree else exitcodes.CHECK_FAILED


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "compare",
        help="two results of one playbook side by side, figure by figure, with a verdict "
        "against tolerances: exit 0 agree, 1 differ, 2 cannot compare",
    )
    parser.add_argument("a", metavar="A.json", help="the reference result (its tolerances win)")
    parser.add_argument("b", metavar="B.json", help="the result to compare with it")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    parser.add_argument(
        "--series", action="store_true", help="one row per 10-second bucket (default: a summary)"
    )
    parser.set_defaults(handler=handle)
