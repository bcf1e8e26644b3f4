"""Subcommands of `hotbench`: each module has `register(subparsers)`, which adds its parser
and sets `handler(args, console) -> exit code`. The CLI stays a thin dispatcher."""

from __future__ import annotations

import argparse
import importlib

MODULES = [
    "simulate",
    "emulator",
    "run",
    "check",
    "advise",
    "workflow",
    "image",  # `hotbench image build`, the worker image of an AWS run
    "tui",  # `hotbench console`, the operator console (console/commands/tui.py)
    "params",
    "compare",
    "calibrate",
]


def add_playbook_arguments(parser: argparse.ArgumentParser) -> None:
    """The playbook and --json, as every command that runs a playbook takes them."""
    parser.add_argument("playbook", help="playbook YAML, e.g. playbooks/hot-partition.yaml")
    parser.add_argument(
        "--json", metavar="FILE", help="also write results as JSON (format: docs/results.md)"
    )


def register_all(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for name in MODULES:
        try:
            module = importlib.import_module(f"console.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"console.commands.{name}":
                continue  # not built yet
            raise
        module.register(sub)
