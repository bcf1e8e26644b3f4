"""`hotbench run PLAYBOOK`: the playbook's load, live.

Three ways, one result format (the same table and JSON as `hotbench simulate`):
- `run PLAYBOOK --target local` (no --run): today's one-shot run, the emulator in-process,
  everything created and deleted by loadgen.live in a `finally`;
- `run --run RUN_ID`: the workflow's `run` step on a run made by `hotbench up`
  (resumable: a second call continues where a killed one stopped);
- `run PLAYBOOK --target aws` (no --run): up, run and down in one go, with down in a
  `finally`, also on Ctrl-C.
"""

from __future__ import annotations

import argparse

from rich.console import Console

from console.commands.workflow import (
    add_settings_arguments,
    add_up_arguments,
    hooks_for,
    settings_from,
    up_options,
)
from console.output import UserError
from console.report import report_result
from console.workflow.errors import EXIT_LEFTOVERS
from console.workflow.options import RunOptions
from console.workflow_report import print_down, print_plan
from loadgen.playbook import load_playbook


def handle(args: argparse.Namespace, console: Console) -> int:
    if args.workers < 1:
        raise UserError("--workers must be at least 1")
    if not 0 < args.scale <= 1:
        raise UserError(
            "--scale must be in (0, 1]: the fraction of the playbook's rates this machine offers"
        )
    if args.pause_scale < 0:
        raise UserError("--pause-scale must be >= 0")
    if args.run is not None:
        return _run_step(args, console)
    if args.playbook is None:
        raise UserError("give a PLAYBOOK, or --run RUN_ID for a run made by `hotbench up`")
    settings = settings_from(args)
    if settings.target == "aws":
        return _up_run_down(args, console)
    return _one_shot_local(args, console)


def _one_shot_local(args: argparse.Namespace, console: Console) -> int:
    from loadgen.coordinator import FleetOptions
    from loadgen.live import LiveOptions
    from loadgen.runners import LiveRunner

    playbook = load_playbook(args.playbook)
    options = LiveOptions(
        workers=args.workers,
        scale=args.scale,
        pause_scale=args.pause_scale,
        endpoint=args.endpoint,
        seed_limit=args.seed_items,
        fleet=FleetOptions(barrier_timeout_s=args.barrier_timeout),
    )

    def notify(message: str) -> None:
        if not args.quiet:
            console.print(f"[dim]{message}[/]", highlight=False)

    result = LiveRunner(options, notify).run(playbook)
    report_result(result, args.json, console)
    return 0


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
        made_from = StateStore(settings.runs_dir).load(args.run).playbook_path
        if Path(args.playbook).resolve() != Path(made_from):
            raise UserError(
                f"run {args.run} was made from {made_from}: give that playbook or none "
                "(`hotbench run --run RUN_ID` reads it from the run)"
            )
    result = run(args.run, settings, hooks_for(console, args), _run_options(args))
    report_result(result, args.json, console)
    return 0


def _up_run_down(args: argparse.Namespace, console: Console) -> int:
    """AWS in one go: the stack is destroyed in a `finally`, also on Ctrl-C."""
    from console.workflow import down, plan, run, up

    settings = settings_from(args)
    hooks = hooks_for(console, args)
    print_plan(plan(args.playbook, settings, up_options(args)), console)
    state = up(args.playbook, settings, hooks, up_options(args))
    code = 0
    try:
        result = run(state.run_id, settings, hooks, _run_options(args))
        report_result(result, args.json, console)
    finally:
        report = down(state.run_id, settings, hooks)
        print_down(report, console)
        if not report.nothing_left:
            code = EXIT_LEFTOVERS
    return code


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
    parser.add_argument(
        "--pause-scale",
        type=float,
        default=1.0,
        help="share of each pause between repeats spent in real time (default "
        "1); with the built-in emulator the rest is skipped on its clock, "
        "so 0 runs without waiting and with the same physics; with "
        "--endpoint or --run it shortens the pause itself",
    )
    parser.add_argument(
        "--seed-items",
        type=int,
        default=None,
        metavar="N",
        help="seed at most N items per table (default: the playbook's seed_items)",
    )
    parser.add_argument(
        "--endpoint",
        metavar="URL",
        help="one-shot local: a running emulator's endpoint (default: start one in-process)",
    )
    parser.add_argument(
        "--barrier-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds to wait for every worker to be ready (default 60)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress messages")
    parser.set_defaults(handler=handle)
