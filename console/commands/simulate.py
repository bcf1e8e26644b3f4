"""`hotbench simulate PLAYBOOK`: the playbook's load through the capacity model in virtual
time."""

from __future__ import annotations

import argparse
import sys

from rich.console import Console

from console import exitcodes, interrupts
from console.commands import add_playbook_arguments
from console.commands.params import add_params_argument, params_from
from console.commands.trim_args import add_trim_arguments, playbook_of
from console.output import check_writable
from console.render.results_table import report_result
from emulator.params import DEFAULT_PARAMS, CapacityParams
from loadgen.format.playbook import Playbook
from loadgen.results.records import PlaybookResult


def handle(args: argparse.Namespace, console: Console) -> int:
    from loadgen.simulation.simulate import EngineUnavailable

    playbook, trimmed = playbook_of(args)
    params = params_from(args).params
    if args.json:
        check_writable(args.json, "--json")
    try:
        result = simulate_with_progress(
            playbook, console, args.quiet, params, engine=args.engine, always=args.progress
        )
    except EngineUnavailable as exc:
        console.print(f"[red]{exc}[/]", highlight=False)
        return exitcodes.USAGE
    if trimmed is not None:  # never taken for the playbook's own result
        result.notes.append(trimmed.words())
    report_result(result, args.json, console, phases=args.phases)
    return exitcodes.INTERRUPTED if any(run.partial for run in result.runs) else exitcodes.OK


def simulate_with_progress(
    playbook: Playbook,
    console: Console,
    quiet: bool,
    params: CapacityParams = DEFAULT_PARAMS,
    *,
    engine: str = "auto",
    always: bool = False,
) -> PlaybookResult:
    """The playbook through SimulatedRunner, with a progress line on stderr once it takes
    more than a couple of seconds (on a terminal, or `always`), and Ctrl-C ending it at the
    next simulated second with the result so far, labelled partial (a second Ctrl-C quits
    at once). Shared with `hotbench check`."""
    from console.render.sim_progress import ProgressLine
    from loadgen.runners import SimulatedRunner

    line = ProgressLine(sys.stderr, always=always and not quiet)
    if quiet:
        line.enabled = False

    def stopping() -> None:
        line.say(
            "stopping at the end of this simulated second with the result so far "
            "(Ctrl-C again to quit at once)"
        )

    with interrupts.first_interrupt_stops(stopping) as stop:
        try:
            runner = SimulatedRunner(params, progress=line, engine=engine, stop=stop.is_set)
            return runner.run(playbook)
        finally:
            line.clear()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from loadgen.simulation.simulate import ENGINES

    parser = sub.add_parser(
        "simulate",
        help="run a playbook through the capacity model in virtual time (seconds, no AWS, no HTTP)",
    )
    add_playbook_arguments(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument(
        "--progress",
        action="store_true",
        help="show progress on stderr even when it is not a terminal (a line every 10 s)",
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="auto",
        help="which engine runs open-arrival phases: aggregate (by key class, for days at "
        "production rates), per-request, or auto (aggregate wherever it applies; "
        "docs/model.md#the-aggregate-engine)",
    )
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
