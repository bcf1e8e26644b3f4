"""`hotbench params [--params FILE]`: the capacity parameters in force, with their source
tags, bounds and where each value came from; and the `--params FILE` option every command
that runs the model takes (simulate, emulator serve, run, check, advise, up, console)."""

from __future__ import annotations

import argparse

from rich.console import Console

from console.output import UserError
from console.render.params_table import params_table
from emulator.paramsfile import LoadedParams, ParamsFileError, load_params


def add_params_argument(parser: argparse._ActionsContainer) -> None:
    parser.add_argument(
        "--params",
        metavar="FILE",
        default=None,
        help="capacity parameters to change, YAML `name: value` (e.g. from `hotbench "
        "calibrate --out`); `hotbench params` lists them (default: emulator/params.py)",
    )


def params_from(args: argparse.Namespace) -> LoadedParams:
    """The --params file's parameters, or a UserError (exit 2) naming what is wrong."""
    try:
        return load_params(getattr(args, "params", None))
    except ParamsFileError as exc:
        raise UserError(str(exc)) from None


def handle(args: argparse.Namespace, console: Console) -> int:
    loaded = params_from(args)
    console.print(params_table(loaded))
    console.print(
        "source: AWS documented, 3P third-party measurement, fit calibrated to a named "
        "measurement (emulator/params.py, docs/model.md#calibrated-to-and-predicted)",
        highlight=False,
    )
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "params",
        help="the capacity model's parameters in force: value, source tag, bounds, file",
    )
    add_params_argument(parser)
    parser.set_defaults(handler=handle)
