"""`hotbench simulate PLAYBOOK`: the playbook's load through the capacity model in virtual
time."""

from __future__ import annotations

import argparse

from rich.console import Console

from console.report import report_result
from loadgen.playbook import load_playbook


def handle(args: argparse.Namespace, console: Console) -> int:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from emulator.simulate import simulate

    playbook = load_playbook(args.playbook)
    with Progress(TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=args.quiet) as bar:
        task = bar.add_task("simulating", total=1.0)

        def progress(label: str, fraction: float) -> None:
            bar.update(task, description=f"simulating {label}", completed=fraction)

        result = simulate(playbook, progress=progress)
    report_result(result, args.json, console)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("simulate", help="run a playbook through the capacity model in "
                                             "virtual time (seconds, no AWS, no HTTP)")
    parser.add_argument("playbook", help="playbook YAML, e.g. playbooks/hot-partition.yaml")
    parser.add_argument("--json", metavar="FILE",
                        help="also write results as JSON (format: docs/results.md)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=handle)
