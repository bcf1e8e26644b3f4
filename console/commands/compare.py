"""`hotbench compare A.json B.json [--json]`: two results of the same playbook side by side.

Exit 0 when every figure both carry is within its tolerance, 1 when one is not, 2 when
the files cannot be compared (unreadable, not results, different playbooks).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from console import exitcodes
from console.output import UserError
from console.render.comparison import print_comparison
from loadgen.analysis.compare import CompareError, check_result, compare, describe


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


def handle(args: argparse.Namespace, console: Console) -> int:
    a, b = read_result(args.a), read_result(args.b)
    try:
        result = compare(a, b, f"{args.a} ({describe(a)})", f"{args.b} ({describe(b)})")
    except CompareError as exc:
        raise UserError(str(exc)) from None
    if args.json:
        sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
    else:
        print_comparison(result, args.series, console)
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
