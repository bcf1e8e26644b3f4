"""The `hotbench` command: parses arguments, calls the workflow, turns errors into
messages and exit codes. No logic of its own lives here (see console/commands/)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from console import exitcodes, interrupts
from console.commands import register_all
from console.output import UserError
from loadgen.format.playbook_error import PlaybookError


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Every option's default in its help, unless the help already says it (many say
    where else the value comes from: `default: local, or HOTBENCH_TARGET`). argparse's
    own ArgumentDefaultsHelpFormatter also prints `(default: None)` and
    `(default: False)` for flags and unset options, which tells a reader nothing."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            action.option_strings
            and "default" not in text
            and default not in (None, False, argparse.SUPPRESS)
            and not isinstance(default, list)
        ):
            text += " (default: %(default)s)"
        return text


def version() -> str:
    """The installed distribution's version (one place: pyproject.toml)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("hotbench")
    except PackageNotFoundError:
        return "unknown (not installed; run `pip install -e .`)"


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """Every command's parser; given a command line, only that of the command it names
    (`hotbench --help`, no command or an unknown one still get every command)."""
    parser = argparse.ArgumentParser(
        prog="hotbench",
        description="Will your DynamoDB tables throttle at launch, and why?",
        epilog="`hotbench COMMAND --help` shows a command's options; README.md and "
        "docs/cli.md have them all.",
        formatter_class=DefaultsHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"hotbench {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    words = list(argv or [])
    register_all(sub, words[0] if words and not words[0].startswith("-") else None)
    _every_parser_shows_defaults(parser)
    return parser


def _every_parser_shows_defaults(parser: argparse.ArgumentParser) -> None:
    """The formatter for every command and sub-command (`emulator serve`), which the
    commands' modules create without knowing of it."""
    parser.formatter_class = DefaultsHelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _every_parser_shows_defaults(child)


def _print_error(console: Console, exc: Exception) -> None:
    """The message as written: never read as markup (a message may quote `[...]`), and
    never wrapped (a log or a test reads whole lines; a terminal wraps by itself)."""
    console.print(Text.assemble(("error: ", "red"), str(exc)), soft_wrap=True)


def main(argv: Sequence[str] | None = None) -> int:
    # Rich falls back to 80 columns when output is not a terminal (CI logs, pipes),
    # which would truncate the results table; logs have no width limit, so widen.
    console = Console() if sys.stdout.isatty() else Console(width=200)
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if args.command is None:  # bare `hotbench`: what it can do, not a usage error
        parser.print_help()
        return exitcodes.OK
    try:
        with interrupts.termination_as_interrupt():
            code: int = args.handler(args, console)
        return code
    except PlaybookError as exc:
        _print_error(console, exc)
        return exitcodes.USAGE
    except UserError as exc:
        _print_error(console, exc)
        return exc.code
    except KeyboardInterrupt as exc:  # Ctrl-C, and SIGTERM or SIGHUP (console.interrupts)
        console.print(f"[yellow]{interrupts.what(exc)}[/]")
        return interrupts.exit_code(exc)


if __name__ == "__main__":
    sys.exit(main())
