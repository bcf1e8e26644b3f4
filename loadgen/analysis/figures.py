"""The figures a result file carries, and how far apart two of them may be.

`hotbench compare` and `hotbench calibrate` read results the same way: every published
or measured number in a result document (docs/results.md) becomes a `Figure` named by
where it sits (table and repeat, phase or 10-second bucket, field), so a reference file
that holds only the published figures and a simulation that holds all of them line up
figure by figure. A figure absent from a document (not published, not measured) is not
a zero; it is simply not compared.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

RUN_FIELDS = (
    "throttle_rate",
    "consumed_wcu_peak_1min",
    "consumed_wcu_peak_1s",
    "consumed_rcu_peak_1min",
    "first_throttle_s",
)
WRITE_RUN_FIELDS = tuple(f for f in RUN_FIELDS if f != "consumed_rcu_peak_1min")
PHASE_FIELDS = ("throttle_rate", "succeeded_per_s", "first_throttle_s")
SERIES_FIELDS = ("succeeded_per_s",)
LATENCY_FIELDS = ("p50", "p99")


@dataclass(frozen=True)
class Tolerance:
    """How far a figure may be from its reference and still agree: the larger of an
    absolute and a relative allowance."""

    abs: float = 0.0
    rel: float = 0.0

    def allowed(self, reference: float) -> float:
        return max(self.abs, self.rel * abs(reference), 1e-9)

    def describe(self) -> str:
        parts = []
        if self.abs:
            parts.append(f"±{self.abs:g}")
        if self.rel:
            parts.append(f"±{self.rel * 100:g} %")
        return " or ".join(parts) or "exact"


DEFAULT_TOLERANCES = {
    # The fidelity tests' tolerances (docs/reference.md): rates within 2 points, 1-minute
    # peaks within 5 %, the M2 ceiling within 3 %.
    "throttle_rate": Tolerance(abs=0.02),
    "consumed_wcu_peak_1min": Tolerance(abs=5.0, rel=0.05),
    "consumed_rcu_peak_1min": Tolerance(abs=5.0, rel=0.05),
    # A one-second peak holds the grace burst of the first second: looser.
    "consumed_wcu_peak_1s": Tolerance(abs=5.0, rel=0.10),
    "succeeded_per_s": Tolerance(abs=5.0, rel=0.03),
    # One second: a request's arrival time within a tick, and a second of grace.
    "first_throttle_s": Tolerance(abs=1.0),
    "p50": Tolerance(abs=0.5, rel=0.5),
    "p99": Tolerance(abs=1.0, rel=0.5),
}


@dataclass(frozen=True)
class Figure:
    """One number of a result, named by where it sits."""

    run: str
    """"table #repeat"."""
    scope: str
    """"run", a phase's name, "t=470s" (a 10-second bucket) or "latency"."""
    name: str
    value: float | None
    """None: the document says there was none (no throttle: no first throttle)."""

    @property
    def key(self) -> str:
        return f"{self.run} | {self.scope} | {self.name}"


def run_label(run: dict[str, Any]) -> str:
    return f"{run['table']} #{run['repeat']}"


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    number = float(value)
    return None if math.isnan(number) else number


def _add(
    out: list[Figure], run: str, scope: str, data: dict[str, Any], names: tuple[str, ...]
) -> None:
    for name in names:
        if name in data:
            out.append(Figure(run, scope, name, _number(data[name])))


def figures(result: dict[str, Any]) -> list[Figure]:
    """Every figure a result document carries, in document order."""
    out: list[Figure] = []
    for run in result.get("runs", []):
        label = run_label(run)
        # A run that read nothing has no read peak to compare (a zero says nothing).
        reads = bool(run.get("consumed_rcu_peak_1min"))
        _add(out, label, "run", run, RUN_FIELDS if reads else WRITE_RUN_FIELDS)
        offered = run.get("offered")
        for reason, count in sorted(run.get("throttles_by_reason", {}).items()):
            if offered:
                out.append(Figure(label, "run", f"throttle_rate[{reason}]", count / offered))
        phases = run.get("phases", [])
        # One phase is the whole run: its rate and first throttle are the run's, and
        # counting them twice would weigh them twice in a calibration.
        names = PHASE_FIELDS if len(phases) > 1 else ("succeeded_per_s",)
        for phase in phases:
            _add(out, label, phase["name"], phase, names)
        for point in run.get("series", []):
            _add(out, label, f"t={point['t']}s", point, SERIES_FIELDS)
        if "latency_ms" in run:
            _add(out, label, "latency", run["latency_ms"], LATENCY_FIELDS)
    return out


def by_key(result: dict[str, Any]) -> dict[str, Figure]:
    return {f.key: f for f in figures(result)}


def tolerance_for(figure: Figure, *documents: dict[str, Any]) -> Tolerance:
    """The tolerance a document states for this figure (by its full key, then by its
    name), the first document that states one winning; else the default for its kind."""
    base = figure.name.split("[")[0]
    for doc in documents:
        stated = doc.get("tolerances", {})
        for key in (figure.key, figure.name, base):
            if key in stated:
                return Tolerance(float(stated[key].get("abs", 0)), float(stated[key].get("rel", 0)))
    return DEFAULT_TOLERANCES.get(base, Tolerance(rel=0.05))


MISSING_RESIDUAL = 3.0
"""A figure that one side has and the other says never happened (a first throttle in
one, none in the other) counts as three tolerances off: clearly outside, but finite so
an optimiser can still move towards it."""


def residual(reference: Figure, other: Figure, tolerance: Tolerance) -> float:
    """(other - reference) in units of the tolerance; 0 when both say "none"."""
    if reference.value is None and other.value is None:
        return 0.0
    if reference.value is None or other.value is None:
        return MISSING_RESIDUAL
    return (other.value - reference.value) / tolerance.allowed(reference.value)
