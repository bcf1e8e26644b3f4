"""Subcommands of `hotbench`: each module has `register(subparsers)`, which adds its parser
and sets `handler(args, console) -> exit code`. The CLI stays a thin dispatcher."""

from __future__ import annotations

import argparse
import importlib

MODULES = ["simulate", "emulator", "run"]


def register_all(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    for name in MODULES:
        try:
            module = importlib.import_module(f"console.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"console.commands.{name}":
                continue  # not built yet
            raise
        module.register(sub)
