"""`hotbench simulate PLAYBOOK`: the playbook's load through the capacity model in virtual
time."""

from __future__ import annotations

import argparse

from rich.console import Console

from console.commands import add_playbook_arguments
from console.report import report_result
from loadgen.playbook import load_playbook


def handle(args: argparse.Namespace, console: Console) -> int:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from loadgen.runners import SimulatedRunner

    playbook = load_playbook(args.playbook)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=args.quiet,
    ) as bar:
        task = bar.add_task("simulating", total=1.0)

        def progress(label: str, fraction: float) -> None:
            bar.update(task, description=f"simulating {label}", completed=fraction)

        result = SimulatedRunner(progress=progress).run(playbook)
    report_result(result, args.json, console)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "simulate",
        help="run a playbook through the capacity model in virtual time (seconds, no AWS, no HTTP)",
    )
    add_playbook_arguments(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=handle)
