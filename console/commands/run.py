"""`hotbench run PLAYBOOK --target local`: the playbook's load, live, against the emulator.

A thin layer over loadgen.live.run_playbook: it parses options, shows progress, prints
the same results table as `hotbench simulate` and writes the same JSON.
"""

from __future__ import annotations

import argparse

from rich.console import Console

from console.commands import add_playbook_arguments
from console.commands.emulator import add_store_arguments, memory_bound
from console.output import UserError
from console.report import report_result
from loadgen.playbook import load_playbook


def handle(args: argparse.Namespace, console: Console) -> int:
    from loadgen.coordinator import FleetOptions
    from loadgen.live import LiveOptions
    from loadgen.runners import LiveRunner

    if args.target != "local":
        raise UserError(
            "--target aws is not available yet: live runs on AWS come with the "
            "Terraform stack; use --target local (the emulator) or `hotbench "
            "simulate`"
        )
    if args.workers < 1:
        raise UserError("--workers must be at least 1")
    if not 0 < args.scale <= 1:
        raise UserError(
            "--scale must be in (0, 1]: the fraction of the playbook's rates this machine offers"
        )
    if args.pause_scale < 0:
        raise UserError("--pause-scale must be >= 0")
    playbook = load_playbook(args.playbook)
    options = LiveOptions(
        workers=args.workers,
        scale=args.scale,
        pause_scale=args.pause_scale,
        endpoint=args.endpoint,
        seed_limit=args.seed_items,
        fleet=FleetOptions(barrier_timeout_s=args.barrier_timeout),
        store=args.store,
        max_memory=memory_bound(args.max_memory),
    )

    def notify(message: str) -> None:
        if not args.quiet:
            console.print(f"[dim]{message}[/]", highlight=False)

    result = LiveRunner(options, notify).run(playbook)
    report_result(result, args.json, console)
    return 0


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
    add_store_arguments(
        parser, default="keys", note="; for the built-in emulator (an --endpoint one has its own)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress messages")
    parser.set_defaults(handler=handle)
