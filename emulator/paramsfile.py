"""Capacity parameters as data: a YAML file that names only the parameters it changes.

    # checks/params.yaml (written by `hotbench calibrate --out`, or by hand)
    grace_s: 1.2
    gsi_backlog_s: 110

Everything not named keeps its default from emulator/params.py. A name that is not a
parameter, a value that is not a number, or one outside the parameter's bounds (declared
next to its source tag in params.py) is an error that names the parameter and its bounds:
a params file that silently did nothing would make every later figure a lie.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from emulator.params import DEFAULT_PARAMS, CapacityParams, ParamInfo, settable


class ParamsFileError(ValueError):
    """A params file that cannot be used; the message names the file, the parameter and
    the fix."""


@dataclass(frozen=True)
class LoadedParams:
    """The parameters in force and where each came from."""

    params: CapacityParams = DEFAULT_PARAMS
    path: str | None = None
    """The file, or None for the defaults alone."""
    changed: dict[str, float] = field(default_factory=dict)
    """What the file set (name -> value)."""

    def origin(self, name: str) -> str:
        return self.path if self.path is not None and name in self.changed else "default"


def _closest(name: str, names: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, names, n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def check_value(info: ParamInfo, value: Any, where: str) -> float:
    """The value as the parameter's type, or a ParamsFileError naming its bounds."""
    bounds = f"{info.low:g} to {info.high:g}"
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise ParamsFileError(f"{where}: {info.name} must be a number from {bounds}, got {value!r}")
    if not info.low <= value <= info.high:
        raise ParamsFileError(
            f"{where}: {info.name} = {value:g} is out of bounds: {info.name} must be from "
            f"{bounds} ([{info.source}] emulator/params.py)"
        )
    if info.integer:
        if value != int(value):
            raise ParamsFileError(f"{where}: {info.name} must be a whole number, got {value!r}")
        return int(value)
    return float(value)


def params_from_mapping(values: dict[str, Any], where: str = "params") -> CapacityParams:
    """DEFAULT_PARAMS with `values` applied, each checked against its bounds."""
    known = settable()
    changes: dict[str, Any] = {}
    for name, value in values.items():
        info = known.get(str(name))
        if info is None:
            raise ParamsFileError(
                f"{where}: unknown parameter {name!r}{_closest(str(name), list(known))}; "
                "`hotbench params` lists them with their bounds"
            )
        changes[info.name] = check_value(info, value, where)
    return replace(DEFAULT_PARAMS, **changes)


def load_params(path: str | Path | None) -> LoadedParams:
    """The parameters a --params FILE puts in force (the defaults for None)."""
    if path is None:
        return LoadedParams()
    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ParamsFileError(
            f"cannot read params file {where}: {exc.strerror}; give an existing YAML file"
        ) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        raise ParamsFileError(
            f"{where}{line}: not valid YAML ({getattr(exc, 'problem', exc)}); a params file "
            "is a mapping such as `grace_s: 1.2`"
        ) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ParamsFileError(
            f"{where}: a params file is a mapping of parameter: value (e.g. `grace_s: 1.2`), "
            f"got a {type(data).__name__}"
        )
    params = params_from_mapping(data, where)
    changed = {str(k): getattr(params, str(k)) for k in data}
    return LoadedParams(params, where, changed)


def dump_params(values: dict[str, float], header: list[str] | None = None) -> str:
    """A params file naming `values` only, with `header` lines as comments."""
    lines = [f"# {h}" if h else "#" for h in header or []]
    for name, value in values.items():
        lines.append(f"{name}: {value:.6g}" if isinstance(value, float) else f"{name}: {value}")
    return "\n".join(lines) + "\n"
