"""A long playbook made short for a first try: its phases' durations scaled, and only
the tables or phases named (Locust's `--run-time`, k6's `--duration` and `--tag`-style
selection, for a playbook of seven hours such as M5's datastore).

The playbook as written is validated first (its errors keep their lines), then trimmed
as the document it was read from and validated again, so the trimmed playbook is an
ordinary playbook: the simulation, a live run, a check and the plan read it as any
other, and a run made by `hotbench up` keeps it as its copy. What the trim leaves out
is said (`Trimmed.words`) and a result of it carries that note, so it is never taken
for the playbook's own.

Pauses between repeats are kept: they are physics (a split for heat lands in them);
`--pause-scale` shortens a live run's wait without changing what the tables see.
"""

from __future__ import annotations

import copy
import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from loadgen.format.playbook import Playbook, load_playbook, parse_playbook
from loadgen.format.playbook_error import PlaybookError


@dataclass(frozen=True)
class Trim:
    """What to keep of a playbook and how long its phases last."""

    duration_scale: float = 1.0
    tables: tuple[str, ...] = ()
    """Only these tables (their runs, in the playbook's order); empty: every table."""
    phases: tuple[str, ...] = ()
    """Only these phases (in the playbook's order); empty: every phase."""

    def __bool__(self) -> bool:
        return self.duration_scale != 1.0 or bool(self.tables or self.phases)

    def flags(self) -> str:
        """The command-line flags that make this trim (for notes and messages)."""
        out = [f"--duration-scale {self.duration_scale:g}"] if self.duration_scale != 1 else []
        out += [f"--table {t}" for t in self.tables] + [f"--phase {p}" for p in self.phases]
        return " ".join(out)


@dataclass(frozen=True)
class Trimmed:
    """A trimmed playbook, its document (to keep as a run's copy), and what was cut."""

    playbook: Playbook
    document: dict[str, Any]
    trim: Trim
    left_out: list[str]
    """Criteria left out: they name a table or phase the trim dropped."""

    def words(self) -> str:
        """`trimmed (--duration-scale 0.01 --phase v2): not the playbook as written; ...`"""
        text = f"trimmed ({self.trim.flags()}): not the playbook as written"
        phases = [f"{p.name} {p.duration_s:,.0f} s" for p in self.playbook.load.phases]
        text += f"; phases {', '.join(phases)}"
        if self.trim.tables:
            text += f"; tables {', '.join(t.name for t in self.playbook.tables)}"
        if self.left_out:
            text += f"; criteria left out: {', '.join(self.left_out)}"
        return text


def load_trimmed(path: str | Path, trim: Trim) -> Trimmed:
    """The playbook at `path`, trimmed; PlaybookError (exit 2) naming an unknown table
    or phase with the closest one, or a trim that leaves nothing to run."""
    import yaml

    original = load_playbook(path)  # the file's own errors first, with their lines
    document = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    return trim_document(original, document, trim, str(path))


def trim_document(original: Playbook, document: dict[str, Any], trim: Trim, source: str) -> Trimmed:
    """`document` (the raw playbook `original` was validated from) trimmed by `trim`."""
    doc = copy.deepcopy(document)
    load = doc["load"]
    tables = [t.name for t in original.tables]
    phases = [p.name for p in original.load.phases]
    _known(trim.tables, tables, "table", source)
    _known(trim.phases, phases, "phase", source)
    if trim.tables:
        doc["tables"] = [t for t in doc["tables"] if t["name"] in trim.tables]
        if load.get("runs"):
            load["runs"] = [r for r in load["runs"] if r["table"] in trim.tables]
            if not load["runs"]:
                raise PlaybookError(
                    f"{source}: --table {', '.join(trim.tables)}: the playbook's runs use "
                    f"none of them (they run {', '.join(r.table for r in original.runs())})"
                )
    # The parsed phases' names: a phase may leave its name to the default.
    named_phases = list(zip(load["phases"], (p.name for p in original.load.phases), strict=True))
    if trim.phases:
        named_phases = [(p, name) for p, name in named_phases if name in trim.phases]
        load["phases"] = [p for p, _ in named_phases]
    if trim.duration_scale != 1.0:
        for phase in load["phases"]:
            # a phase lasts at least a second: the load's schedule counts in seconds
            scaled = float(phase["duration_s"]) * trim.duration_scale
            phase["duration_s"] = max(1.0, round(scaled, 3))
    kept_tables = {t["name"] for t in doc["tables"]}
    kept_phases = {name for _, name in named_phases}
    criteria, left_out = [], []
    for raw, parsed in zip(doc.get("criteria") or [], original.criteria, strict=True):
        named = [parsed.table] + ([parsed.compare.table] if parsed.compare else [])
        if any(t is not None and t not in kept_tables for t in named) or (
            parsed.phase is not None and parsed.phase not in kept_phases
        ):
            left_out.append(parsed.name)
            continue
        if parsed.trend and trim.duration_scale != 1.0:  # the windows shrink with the phases
            raw["trend_window_s"] = parsed.trend_window_s * trim.duration_scale
        criteria.append(raw)
    if "criteria" in doc:
        doc["criteria"] = criteria
    return Trimmed(parse_playbook(doc, f"{source} ({trim.flags()})"), doc, trim, left_out)


def _known(names: tuple[str, ...], valid: list[str], what: str, source: str) -> None:
    for name in names:
        if name not in valid:
            close = difflib.get_close_matches(name, valid, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise PlaybookError(
                f"{source}: --{what} {name}: no such {what}{hint}; its {what}s are "
                f"{', '.join(valid)}"
            )
