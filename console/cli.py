"""The `hotbench` command: parses arguments, calls the workflow, turns errors into
messages and exit codes. No logic of its own lives here (see console/commands/)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from console import exitcodes
from console.commands import register_all
from console.output import UserError
from loadgen.playbook import PlaybookError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hotbench",
        description="Will your DynamoDB tables throttle at launch, and why?",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    register_all(sub)
    return parser


def _print_error(console: Console, exc: Exception) -> None:
    """The message as written: never read as markup (a message may quote `[...]`), and
    never wrapped (a log or a test reads whole lines; a terminal wraps by itself)."""
    console.print(Text.assemble(("error: ", "red"), str(exc)), soft_wrap=True)


def main(argv: Sequence[str] | None = None) -> int:
    # Rich falls back to 80 columns when output is not a terminal (CI logs, pipes),
    # which would truncate the results table; logs have no width limit, so widen.
    console = Console() if sys.stdout.isatty() else Console(width=200)
    args = build_parser().parse_args(argv)
    try:
        code: int = args.handler(args, console)
        return code
    except PlaybookError as exc:
        _print_error(console, exc)
        return exitcodes.USAGE
    except UserError as exc:
        _print_error(console, exc)
        return exc.code
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        return exitcodes.INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
