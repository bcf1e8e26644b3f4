"""`hotbench simulate PLAYBOOK`: the playbook's load through the capacity model in virtual
time."""

from __future__ import annotations

import argparse

from rich.console import Console

from console.commands import add_playbook_arguments
from console.commands.params import add_params_argument, params_from
from console.commands.trim_args import add_trim_arguments, playbook_of
from console.output import check_writable
from console.render.results_table import report_result
from emulator.params import DEFAULT_PARAMS, CapacityParams
from loadgen.format.playbook import Playbook
from loadgen.results.records import PlaybookResult


def handle(args: argparse.Namespace, console: Console) -> int:
    playbook, trimmed = playbook_of(args)
    params = params_from(args).params
    if args.json:
        check_writable(args.json, "--json")
    result = simulate_with_progress(playbook, console, args.quiet, params)
    if trimmed is not None:  # never taken for the playbook's own result
        result.notes.append(trimmed.words())
    report_result(result, args.json, console, phases=args.phases)
    return 0


def simulate_with_progress(
    playbook: Playbook, console: Console, quiet: bool, params: CapacityParams = DEFAULT_PARAMS
) -> PlaybookResult:
    """The playbook through SimulatedRunner under a transient progress bar (shared with
    `hotbench check`)."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from loadgen.runners import SimulatedRunner

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=quiet,
    ) as bar:
        task = bar.add_task("simulating", total=1.0)

        def progress(label: str, fraction: float) -> None:
            bar.update(task, description=f"simulating {label}", completed=fraction)

        return SimulatedRunner(params, progress=progress).run(playbook)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "simulate",
        help="run a playbook through the capacity model in virtual time (seconds, no AWS, no HTTP)",
    )
    add_playbook_arguments(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--phases",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also print one row per table run and phase (default: when the playbook's "
        "phases differ in rate or operation)",
    )
    add_params_argument(parser)
    add_trim_arguments(parser)
    parser.set_defaults(handler=handle)
