"""`hotbench run PLAYBOOK --target local`: the playbook's load, live, against the emulator.

A thin layer over loadgen.live.run_playbook: it parses options, shows progress, prints
the same results table as `hotbench simulate`, writes the same JSON, and exits with a
code CI can act on (README: "Exit codes of `hotbench run`").
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rich.console import Console

from console import exitcodes
from console.commands import add_playbook_arguments
from console.output import UserError
from console.report import report_result
from loadgen.playbook import load_playbook
from loadgen.results import PlaybookResult


def exit_code(result: PlaybookResult) -> tuple[int, list[str]]:
    """The most severe code that applies (exitcodes.RUN_SEVERITY), and why (one reason
    per finding)."""
    findings: list[tuple[int, str]] = []
    for run in result.runs:
        name = f"{run.table} #{run.repeat}"
        total = run.totals()
        if total.errors or total.timeouts:
            findings.append(
                (
                    exitcodes.RUN_ERRORS,
                    f"{name}: {total.errors:,} errors, {total.timeouts:,} timeouts",
                )
            )
        if not run.reconciled:
            findings.append(
                (
                    exitcodes.RUN_UNRECONCILED,
                    f"{name}: not reconciled, {total.unaccounted:,} unaccounted",
                )
            )
        if run.partial:
            findings.append((exitcodes.RUN_PARTIAL, f"{name}: partial"))
    for left in result.left_behind:
        findings.append((exitcodes.LEFT_BEHIND, f"left behind: {left.resource}"))
    found = {c for c, _ in findings}
    code = next((c for c in exitcodes.RUN_SEVERITY if c in found), exitcodes.OK)
    return code, [why for _, why in findings]


if TYPE_CHECKING:
    from loadgen.live import LiveOptions


def handle(args: argparse.Namespace, console: Console) -> int:
    from loadgen.coordinator import CLEANUP_FAILED
    from loadgen.runners import LiveRunner

    if args.target != "local":
        raise UserError(
            "--target aws is not available yet: live runs on AWS come with the "
            "Terraform stack; use --target local (the emulator) or `hotbench "
            "simulate`"
        )
    options = live_options(args)
    playbook = load_playbook(args.playbook)

    def notify(message: str) -> None:
        if message.startswith(CLEANUP_FAILED):  # shown even with --quiet
            console.print(f"[red]{message}[/]", highlight=False)
        elif not args.quiet:
            console.print(f"[dim]{message}[/]", highlight=False)

    result = LiveRunner(options, notify).run(playbook)
    report_result(result, args.json, console)
    code, reasons = exit_code(result)
    if code != exitcodes.OK:
        console.print(f"[red]exit {code}:[/] " + "; ".join(reasons), highlight=False)
    return code


def live_options(args: argparse.Namespace) -> LiveOptions:
    """LiveOptions from the arguments add_live_arguments defined, checked."""
    from loadgen.coordinator import FleetOptions
    from loadgen.live import LiveOptions

    if args.workers < 1:
        raise UserError("--workers must be at least 1")
    if not 0 < args.scale <= 1:
        raise UserError(
            "--scale must be in (0, 1]: the fraction of the playbook's rates this machine offers"
        )
    if args.pause_scale < 0:
        raise UserError("--pause-scale must be >= 0")
    return LiveOptions(
        workers=args.workers,
        scale=args.scale,
        pause_scale=args.pause_scale,
        endpoint=args.endpoint,
        seed_limit=args.seed_items,
        fleet=FleetOptions(barrier_timeout_s=args.barrier_timeout),
    )


def add_live_arguments(parser: argparse._ActionsContainer) -> None:
    """The options of a live run, shared by `hotbench run` and `hotbench check --mode live`."""
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
        "--endpoint it shortens the pause itself",
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
        help="a running emulator's endpoint (default: start one in-process)",
    )
    parser.add_argument(
        "--barrier-timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="seconds to wait for every worker to be ready (default 60)",
    )


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "run",
        help="drive a playbook live against the local emulator with a fleet of worker processes",
    )
    add_playbook_arguments(parser)
    parser.add_argument(
        "--target",
        choices=["local", "aws"],
        default="local",
        help="where the tables live (only local for now)",
    )
    add_live_arguments(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress messages")
    parser.set_defaults(handler=handle)
