"""Subcommands of `hotbench`: each module has `register(subparsers)`, which adds its parser
and sets `handler(args, console) -> exit code`. The CLI stays a thin dispatcher."""

from __future__ import annotations

import argparse
import importlib


def add_playbook_arguments(parser: argparse.ArgumentParser) -> None:
    """The playbook and --json, as every command that runs a playbook takes them."""
    parser.add_argument("playbook", help="playbook YAML, e.g. playbooks/hot-partition.yaml")
    parser.add_argument(
        "--json", metavar="FILE", help="also write results as JSON (format: docs/results.md)"
    )


COMMANDS = {
    "simulate": "simulate",
    "emulator": "emulator",
    "run": "run",
    "check": "check",
    "advise": "advise",
    **dict.fromkeys(("plan", "up", "prewarm", "watch", "tally", "down", "runs"), "workflow"),
    "image": "image",  # `hotbench image build`, the worker image of an AWS run
    "console": "tui",  # the operator console (console/commands/tui.py)
    "params": "params",
    "compare": "compare",
    "calibrate": "calibrate",
    "optimize": "optimize",  # the cheapest configuration that passes (docs/optimize.md)
    "import": "import_account",  # read a table and its traffic from an account (docs/import.md)
    "backtest": "backtest",  # an imported playbook replayed beside its recording (docs/import.md)
}
"""Which module registers each command, in the order `hotbench --help` lists them
(tests/cli/test_cli.py keeps it equal to what the modules register). A command line that
names one imports only that module: the workflow starts `hotbench emulator serve` for
every local run, and importing every command for it (the workflow's models, numpy, the
advisor) cost 1.1 s of CPU of its 1.4 s start."""

MODULES = list(dict.fromkeys(COMMANDS.values()))
"""The command modules, each once, in that order."""


def register_all(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], command: str | None = None
) -> None:
    """Every command's parser, or only the module of `command` when it names one (the
    rest would be imported and never used)."""
    modules = [COMMANDS[command]] if command in COMMANDS else MODULES
    for name in modules:
        try:
            module = importlib.import_module(f"console.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"console.commands.{name}":
                continue  # not built yet
            raise
        module.register(sub)
