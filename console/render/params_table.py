"""`hotbench params`: the capacity parameters in force, one row each: value, source tag,
bounds, and the file or default it came from."""

from __future__ import annotations

from rich.table import Table

from emulator.params import settable
from emulator.paramsfile import LoadedParams


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
