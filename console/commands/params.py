"""`hotbench params [--params FILE]`: the capacity parameters in force, with their source
tags, bounds and where each value came from; and the `--params FILE` option every command
that runs the model takes (simulate, emulator serve, run, check, advise, up, console)."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from console.output import UserError
from emulator.params import settable
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


def _number(value: float) -> str:
    return f"{value:,}" if float(value).is_integer() and abs(value) >= 1e5 else f"{value:g}"


def params_table(loaded: LoadedParams) -> Table:
    title = "capacity parameters" + (f" ({loaded.path} over the defaults)" if loaded.path else "")
    table = Table(title=title, title_justify="left", header_style="bold")
    table.add_column("parameter", no_wrap=True)
    table.add_column("value", justify="right")
    table.add_column("source")
    table.add_column("bounds", justify="right", no_wrap=True)
    table.add_column("from")
    for name, info in settable().items():
        value = getattr(loaded.params, name)
        table.add_row(
            name,
            _number(value),
            info.source,
            f"{_number(info.low)} - {_number(info.high)}",
            loaded.origin(name),
        )
    return table


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
