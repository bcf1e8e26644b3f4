"""The `hotbench` command: parses arguments, calls the workflow, turns errors into
messages and exit codes. No logic of its own lives here (see console/commands/)."""

from __future__ import annotations

import argparse
import difflib
import re
import sys
import typing
from collections.abc import Sequence

from rich.console import Console
from rich.text import Text

from console import exitcodes, interrupts
from console.commands import register_all
from console.output import UserError
from loadgen.format.playbook_error import PlaybookError


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Every option's default in its help, unless the help already says it (many say
    where else the value comes from: `default: local, or HOTBENCH_TARGET`); `none` for an
    option that takes a value and has none unless given. argparse's own
    ArgumentDefaultsHelpFormatter prints `(default: None)` and `(default: False)`, which
    tell a reader nothing; a flag is off unless given, and says nothing."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if not action.option_strings or "default" in text or isinstance(default, list):
            return text
        if default not in (None, False, argparse.SUPPRESS):
            text += " (default: %(default)s)"
        elif default is None and action.nargs != 0:
            # an option that takes a value and has none unless given (a file to write,
            # a run to resume): said, so no --help leaves its reader guessing
            text += " (default: none)"
        return text


class HotbenchParser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors end with the closest valid word, as git and
    kubectl do (`unknown command 'simulat' ... did you mean 'simulate'?`); Python 3.11's
    argparse has no suggestions of its own. Sub-commands' parsers are this class too
    (add_subparsers takes the parent's class)."""

    def error(self, message: str) -> typing.NoReturn:
        unknown = re.match(r"argument (COMMAND|ACTION): invalid choice: '([^']*)'", message)
        if unknown:  # the list of every command is `hotbench help`'s, not each typo's
            word = "command" if unknown.group(1) == "COMMAND" else "action"
            message = (
                f"unknown {word} '{unknown.group(2)}'{did_you_mean(self, message)}; "
                f"`{self.prog} --help` lists them"
            )
        else:
            message += did_you_mean(self, message)
        super().error(message)


def did_you_mean(parser: argparse.ArgumentParser, message: str) -> str:
    """` (did you mean ...?)` for a mistyped command or option in argparse's `message`,
    or nothing when no valid word is close."""
    choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if choice:
        valid = re.findall(r"'([^']*)'", choice.group(2))
        close = difflib.get_close_matches(choice.group(1), valid, n=1)
        return f" (did you mean '{close[0]}'?)" if close else ""
    unknown = re.match(r"unrecognized arguments: (.*)", message)
    if unknown:
        options = [o for o in parser._option_string_actions if o.startswith("--")]
        hints = []
        for word in unknown.group(1).split():
            if word.startswith("-"):
                close = difflib.get_close_matches(word.split("=")[0], options, n=1)
                if close:
                    hints.append((close[0], word.split("=")[0]))
        if len(hints) == 1:
            return f" (did you mean {hints[0][0]}?)"
        shown = ", ".join(f"{good} for {bad}" for good, bad in hints)
        return f" (did you mean {shown}?)" if hints else ""
    return ""


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
    parser: argparse.ArgumentParser = HotbenchParser(
        prog="hotbench",
        description="Will your DynamoDB tables throttle at launch, and why?",
        epilog="`hotbench COMMAND --help` shows a command's options; README.md and "
        "docs/cli.md have them all.",
        formatter_class=DefaultsHelpFormatter,
    )
    parser.add_argument("-V", "--version", action="version", version=f"hotbench {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    words = list(argv or [])
    register_all(sub, words[0] if words and not words[0].startswith("-") else None)
    helper = sub.add_parser(
        "help", help="a command's options: `hotbench help COMMAND` (`hotbench COMMAND --help`)"
    )
    helper.add_argument(
        "topic", nargs="*", metavar="COMMAND", help="a command (default: the command list)"
    )
    helper.set_defaults(handler=lambda args, console: _print_help(parser, args.topic))
    _every_parser_shows_defaults(parser)
    return parser


def _print_help(parser: argparse.ArgumentParser, topic: list[str]) -> int:
    """`hotbench help [COMMAND [ACTION]]`: the help of the command named, as
    `hotbench COMMAND --help` prints it; an unknown name is a usage error (exit 2)."""
    for word in topic:
        commands = next(
            (a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None
        )
        if commands is None or word not in commands.choices:
            valid = ", ".join(commands.choices) if commands else "none"
            close = difflib.get_close_matches(word, list(commands.choices) if commands else [])
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            parser.error(f"no command {word!r} to help with{hint}; commands: {valid}")
        parser = commands.choices[word]
    parser.print_help()
    return exitcodes.OK


def _command_parser(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser:
    """The parser of the (sub-)command the arguments chose (`emulator serve`'s for
    `hotbench emulator serve ...`): its options are the ones a mistyped option meant."""
    for dest in ("command", "action"):
        commands = next(
            (a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None
        )
        chosen = getattr(args, dest, None)
        if commands is None or chosen not in commands.choices:
            break
        parser = commands.choices[chosen]
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
    args, extras = parser.parse_known_args(argv)
    if extras:  # named by the command's own parser, with its closest options
        _command_parser(parser, args).error(f"unrecognized arguments: {' '.join(extras)}")
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
