"""`hotbench run PLAYBOOK`: the playbook's load, live.

Three ways, one result format (the same table and JSON as `hotbench simulate`), and one
set of exit codes (console/exitcodes.py), so CI can tell a clean run from a partial,
unreconciled or erroring one whichever way it ran:
- `run PLAYBOOK --target local` (no --run): the one-shot run, the emulator in-process,
  everything created and deleted by loadgen.live.playbook_run in a `finally`;
- `run --run RUN_ID`: the workflow's `run` step on a run made by `hotbench up`
  (resumable: a second call continues where a killed one stopped);
- `run PLAYBOOK --target aws` (no --run): up, run and down in one go, with down in a
  `finally`, also on Ctrl-C.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Console

from console import exitcodes
from console.commands.emulator import emulator_options
from console.commands.workflow import (
    add_seed_items_argument,
    add_settings_arguments,
    add_up_arguments,
    hooks_for,
    settings_from,
    show_plan,
    up_options,
)
from console.output import UserError, print_progress
from console.render.results_table import report_result
from console.render.workflow_output import print_down
from console.run.options import RunOptions
from loadgen.format.playbook import load_playbook
from loadgen.live.op_replies import APPLICATION_ANSWERS
from loadgen.results.records import PlaybookResult

if TYPE_CHECKING:
    from loadgen.format.playbook import Playbook
    from loadgen.live.coordinator import Notify
    from loadgen.live.playbook_run import LiveOptions


def exit_code(result: PlaybookResult) -> tuple[int, list[str]]:
    """The most severe code that applies (exitcodes.RUN_SEVERITY), and why (one reason
    per finding)."""
    findings: list[tuple[int, str]] = []
    for run in result.runs:
        name = f"{run.table} #{run.repeat}"
        total = run.totals()
        # a failed condition or a lost transaction is the scenario's business: its
        # iterations say what it made of them
        errors = total.errors - sum(total.errors_by_type[n] for n in APPLICATION_ANSWERS)
        if errors or total.timeouts:
            why = f"{name}: {errors:,} errors, {total.timeouts:,} timeouts"
            findings.append((exitcodes.RUN_ERRORS, why))
        if not run.reconciled:
            why = f"{name}: not reconciled, {total.unaccounted:,} unaccounted"
            findings.append((exitcodes.RUN_UNRECONCILED, why))
        if run.partial:
            findings.append((exitcodes.RUN_PARTIAL, f"{name}: partial"))
    for left in result.left_behind:
        findings.append((exitcodes.LEFT_BEHIND, f"left behind: {left.resource}"))
    found = {c for c, _ in findings}
    code = next((c for c in exitcodes.RUN_SEVERITY if c in found), exitcodes.OK)
    return code, [why for _, why in findings]


def report_and_exit_code(result: PlaybookResult, args: argparse.Namespace, console: Console) -> int:
    """Print the results (and write --json), then the exit code and, if not 0, why."""
    report_result(result, args.json, console)
    code, reasons = exit_code(result)
    if code != exitcodes.OK:
        console.print(f"[red]exit {code}:[/] " + "; ".join(reasons), highlight=False)
    return code


def check_live_arguments(args: argparse.Namespace) -> None:
    if args.workers < 1:
        raise UserError("--workers must be at least 1")
    if not 0 < args.scale <= 1:
        raise UserError(
            "--scale must be in (0, 1]: the fraction of the playbook's rates this machine offers"
        )
    if args.pause_scale < 0:
        raise UserError("--pause-scale must be >= 0")


def handle(args: argparse.Namespace, console: Console) -> int:
    check_live_arguments(args)
    if args.run is not None:
        return _run_step(args, console)
    if args.playbook is None:
        raise UserError("give a PLAYBOOK, or --run RUN_ID for a run made by `hotbench up`")
    from console.targets import target_named

    if target_named(settings_from(args)).runs_through_workflow:
        return _up_run_down(args, console)
    return _one_shot_local(args, console)


def live_options(args: argparse.Namespace) -> LiveOptions:
    """LiveOptions from the arguments add_live_arguments defined, checked (also
    `hotbench check --mode live`)."""
    from console.targets.fleets.process_fleet import LOCAL_BARRIER_TIMEOUT_S
    from loadgen.live.coordinator import FleetOptions
    from loadgen.live.playbook_run import LiveOptions

    check_live_arguments(args)
    emulator = emulator_options(args)
    if emulator.params.path is not None and args.endpoint is not None:
        raise UserError(
            "--params sets the built-in emulator's parameters; an --endpoint emulator has "
            "its own: start it with `hotbench emulator serve --params FILE`, or drop --endpoint"
        )
    return LiveOptions(
        workers=args.workers,
        scale=args.scale,
        pause_scale=args.pause_scale,
        endpoint=args.endpoint,
        seed_limit=args.seed_items,
        fleet=FleetOptions(barrier_timeout_s=args.barrier_timeout or LOCAL_BARRIER_TIMEOUT_S),
        emulator=emulator,
    )


def _one_shot_local(args: argparse.Namespace, console: Console) -> int:
    from loadgen.live.coordinator import CLEANUP_FAILED

    options = live_options(args)
    playbook = load_playbook(args.playbook)
    settings = settings_from(args)
    if settings.max_cost_usd is not None:  # free here; refused only with --max-cost-of aws
        from console.workflow import plan
        from console.workflow.bringup import refuse_over_limit

        refuse_over_limit(plan(args.playbook, settings, up_options(args)), settings)

    def notify(message: str) -> None:
        if message.startswith(CLEANUP_FAILED):  # shown even with --quiet
            print_progress(console, message, "red")
        elif not args.quiet:
            print_progress(console, message)

    instead = f"simulate it (`hotbench simulate {args.playbook}`)"
    result = run_one_shot(options, notify, playbook, instead)
    return report_and_exit_code(result, args, console)


def run_one_shot(
    options: LiveOptions, notify: Notify, playbook: Playbook, instead: str
) -> PlaybookResult:
    """A one-shot local live run (`hotbench run`, `hotbench check --mode live`), its
    endpoint's failures in words: which endpoint, and the two ways on (`instead` names
    the simulation the command offers)."""
    from botocore.exceptions import BotoCoreError, ClientError

    from loadgen.live.auto_scaling_route import AutoScalingRouteError
    from loadgen.runners import LiveRunner

    try:
        return LiveRunner(options, notify).run(playbook)
    except AutoScalingRouteError as exc:  # its text names the table and the way on
        raise UserError(f"the live run could not start: {exc}") from None
    except (BotoCoreError, ClientError, TimeoutError, ConnectionError) as exc:
        # The runner has already deleted what it created (its own finally).
        where = options.endpoint or "the in-process emulator"
        raise UserError(
            f"the live run against {where} could not complete: {exc}; check that the "
            f"endpoint is up (`hotbench emulator serve`) or {instead}"
        ) from None


def _run_options(args: argparse.Namespace) -> RunOptions:
    return RunOptions(
        pause_scale=args.pause_scale,
        seed_items=args.seed_items,
        barrier_timeout_s=args.barrier_timeout,
    )


def _run_step(args: argparse.Namespace, console: Console) -> int:
    from pathlib import Path

    from console.workflow import StateStore, run

    settings = settings_from(args)
    if args.playbook is not None:
        made_from = StateStore(settings.runs_dir).load(args.run).source_playbook
        if Path(args.playbook).resolve() != Path(made_from):
            raise UserError(
                f"run {args.run} was made from {made_from}: give that playbook or none "
                "(`hotbench run --run RUN_ID` reads it from the run)"
            )
    result = run(args.run, settings, hooks_for(console, args), _run_options(args))
    return report_and_exit_code(result, args, console)


def _up_run_down(args: argparse.Namespace, console: Console) -> int:
    """AWS in one go: the stack is destroyed in a `finally`, also on Ctrl-C."""
    code = exitcodes.OK

    def report(result: PlaybookResult) -> None:
        nonlocal code
        code = report_and_exit_code(result, args, console)

    nothing_left = up_run_down(args, console, report)
    return code if nothing_left else exitcodes.LEFT_BEHIND


def up_run_down(
    args: argparse.Namespace, console: Console, on_result: Callable[[PlaybookResult], None]
) -> bool:
    """The workflow's plan (printed), up, run and down of `args.playbook`, with down in a
    `finally`, also on Ctrl-C; `on_result` gets the run's result before down starts.
    Returns whether down left nothing behind (what it left is printed)."""
    from console.workflow import down, plan, run, up

    settings = settings_from(args)
    hooks = hooks_for(console, args)
    options = up_options(args)
    show_plan(plan(args.playbook, settings, options), console)
    state = up(args.playbook, settings, hooks, options)
    try:
        on_result(run(state.run_id, settings, hooks, _run_options(args)))
    finally:
        report = down(state.run_id, settings, hooks)
        print_down(report, console)
    return report.nothing_left


def add_live_arguments(parser: argparse._ActionsContainer, workers_and_scale: bool = True) -> None:
    """The options of a live run, shared by `hotbench run` and `hotbench check --mode live`
    (`run` takes --workers and --scale from the workflow's up arguments)."""
    if workers_and_scale:
        parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
        parser.add_argument(
            "--scale",
            type=float,
            default=0.1,
            help="fraction of the playbook's rates to offer; the emulator runs at "
            "the same scale and figures are reported in full-scale units "
            "(default 0.1)",
        )
    parser.add_argument(
        "--pause-scale",
        type=float,
        default=1.0,
        help="share of each pause between repeats spent in real time (default "
        "1); with the built-in emulator the rest is skipped on its clock, "
        "so 0 runs without waiting and with the same physics; with "
        "--endpoint or --run it shortens the pause itself",
    )
    add_seed_items_argument(parser)
    parser.add_argument(
        "--endpoint",
        metavar="URL",
        help="one-shot local: a running emulator's endpoint (default: start one in-process)",
    )
    parser.add_argument(
        "--barrier-timeout",
        type=float,
        default=None,
        metavar="S",
        help=(
            "seconds to wait for every worker to be ready (default: 60 locally; on AWS "
            "300 from RunTask, for Fargate's image pull and start)"
        ),
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "run",
        help="drive a playbook live with a fleet of workers (one-shot, or a run made by `up`)",
    )
    parser.add_argument(
        "playbook", nargs="?", help="playbook YAML, e.g. playbooks/hot-partition.yaml"
    )
    parser.add_argument(
        "--json", metavar="FILE", help="also write results as JSON (format: docs/results.md)"
    )
    parser.add_argument(
        "--run", metavar="RUN_ID", help="run the load on a run made by `hotbench up` (resumable)"
    )
    add_settings_arguments(parser)
    add_up_arguments(parser)
    parser.add_argument("--yes", action="store_true", help="aws one-shot: do not ask first")
    add_live_arguments(parser, workers_and_scale=False)
    parser.add_argument("--quiet", action="store_true", help="no progress messages")
    parser.set_defaults(handler=handle)
