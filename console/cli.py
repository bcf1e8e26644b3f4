"""The `hotbench` command: parses arguments, calls the workflow, turns errors into
messages and exit codes. No logic of its own lives here."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from console.report import print_results
from loadgen.playbook import PlaybookError, load_playbook

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class CliError(Exception):
    """A user-facing failure: printed as one message, exit code `code`."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def _write_json(path: str, payload: dict[str, object]) -> None:
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(target.suffix + ".tmp")
        tmp.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        tmp.replace(target)
    except OSError as exc:
        raise CliError(f"cannot write {path}: {exc.strerror}; choose another --json path") from None


def cmd_simulate(args: argparse.Namespace, console: Console) -> int:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from emulator.simulate import simulate

    playbook = load_playbook(args.playbook)
    with Progress(TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=args.quiet) as bar:
        task = bar.add_task("simulating", total=1.0)

        def progress(label: str, fraction: float) -> None:
            bar.update(task, description=f"simulating {label}", completed=fraction)

        result = simulate(playbook, progress=progress)
    print_results(result, console)
    if args.json:
        _write_json(args.json, result.to_json())
        console.print(f"results written to {args.json}")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hotbench",
        description="Will your DynamoDB tables throttle at launch, and why?",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sim = sub.add_parser("simulate", help="run a playbook through the capacity model in "
                                          "virtual time (seconds, no AWS, no HTTP)")
    sim.add_argument("playbook", help="playbook YAML, e.g. playbooks/hot-partition.yaml")
    sim.add_argument("--json", metavar="FILE", help="also write results as JSON "
                                                    "(format: docs/results.md)")
    sim.add_argument("--quiet", action="store_true", help="no progress bar")
    sim.set_defaults(handler=cmd_simulate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    console = Console()
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args, console)
        return code
    except PlaybookError as exc:
        console.print(f"[red]error:[/] {exc}", highlight=False)
        return EXIT_USAGE
    except CliError as exc:
        console.print(f"[red]error:[/] {exc}", highlight=False)
        return exc.code
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
