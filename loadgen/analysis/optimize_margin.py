"""How far each criterion is from its bound: the search's constraint, and the flag beside a
configuration that passes by less than the model's known tolerance.

A failing criterion's violation is its distance beyond the bound, in units of the bound
(or of a floor where the bound is 0: one point of a rate), so criteria of different
metrics can be added and the one that failed closest named. A passing criterion's slack
is its distance inside the bound in the metric's own unit, set against the tolerance
the model is known to hold it to (docs/model.md): a throttle rate within 3 points plus
three binomial standard deviations of the request count (the differential test against
the endpoint), an achieved rate within the same share of the offered rate, a first
throttle within 1 s and a consumed peak within 5 % (the fidelity tests' tolerances,
loadgen.analysis.figures). Metrics with no stated tolerance are not flagged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from loadgen.analysis.criteria import Verdict, format_for, select
from loadgen.analysis.figures import DEFAULT_TOLERANCES
from loadgen.results.records import PlaybookResult

RATE_POINTS = 0.03
"""The differential test's tolerance on a throttle rate: 3 points (docs/model.md)."""

_FLOOR = {
    "throttle_rate": 0.01,
    "scenario_failure_rate": 0.01,
    "app_error_rate": 0.01,
    "cost_usd": 0.01,
    "iteration_rate": 0.01,
}
"""The scale of a violation where the bound is 0: one point of a rate, one cent."""


@dataclass(frozen=True)
class Margin:
    """One verdict's distance from its bound."""

    verdict: Verdict
    violation: float
    """How far beyond the bound a failure is, in units of the bound; 0 when it holds."""
    slack: float | None
    """How far inside the bound a pass is, in the metric's unit; None where not measured."""
    tolerance: float | None
    """The model's known tolerance on this figure, in the same unit; None: none stated."""

    @property
    def passed(self) -> bool:
        return self.verdict.status != "fail"

    @property
    def within_tolerance(self) -> bool:
        """Passes, but by less than the model is known to be accurate to."""
        return (
            self.verdict.status == "pass"
            and self.slack is not None
            and self.tolerance is not None
            and self.slack < self.tolerance
        )

    def words(self) -> str:
        """`passes by 0.40 %, within the model's tolerance of 3.20 %` for people (a
        throttle rate's slack where nothing throttled is the load's headroom below its
        nearest limit, in the same points)."""
        c = self.verdict.criterion
        if self.slack is None or self.tolerance is None:
            return ""
        return (
            f"{c.name}: passes by {format_for(c, self.slack)}, within the model's "
            f"tolerance of {format_for(c, self.tolerance)} (docs/model.md)"
        )


def margin_of(verdict: Verdict, result: PlaybookResult, headroom: float | None = None) -> Margin:
    """`headroom`: how far above the offered load the nearest limit of the criterion's
    runs sits, as a fraction of it (the advice's arithmetic): where nothing throttled, a
    rate's slack is that headroom (a throttle rate of 0 against a bound of 0 is no
    margin at a limit 1 % above the load, and a wide one at a limit 40 % above it)."""
    c = verdict.criterion
    if verdict.status == "skipped":
        return Margin(verdict, 0.0, None, None)
    measured = verdict.measured
    if c.compare is not None:
        return Margin(verdict, _compare_violation(verdict), None, None)
    value = math.inf if measured is None else measured  # None: never throttled
    excess = 0.0
    slack: float | None = None
    scale = _FLOOR.get(c.metric, 1.0)
    if c.max is not None:
        excess = max(excess, (value - c.max) / max(abs(c.max), scale))
        slack = c.max - value
    if c.min is not None:
        excess = max(excess, (c.min - value) / max(abs(c.min), scale))
        below = value - c.min
        slack = below if slack is None else min(slack, below)
    if verdict.status == "fail":
        return Margin(verdict, excess if math.isfinite(excess) else 1.0, None, None)
    if slack is not None and not math.isfinite(slack):
        slack = None
    if (
        headroom is not None
        and slack is not None
        and c.metric in ("throttle_rate", "achieved_rate")
    ):
        offered, seconds, throttled = _scope(result, c.table, c.repeat, c.phase)
        if throttled == 0 and offered > 0:
            room = (
                headroom if c.metric == "throttle_rate" else headroom * offered / max(seconds, 1e-9)
            )
            slack = max(slack, room)
    return Margin(verdict, 0.0, slack, _tolerance(verdict, result))


def _compare_violation(verdict: Verdict) -> float:
    if verdict.status != "fail":
        return 0.0
    c = verdict.criterion
    assert c.compare is not None
    measured, reference = verdict.measured or 0.0, verdict.reference or 0.0
    ratio = measured / reference if reference else (math.inf if measured else 1.0)
    excess = 0.0
    if c.compare.max_ratio is not None:
        excess = max(excess, (ratio - c.compare.max_ratio) / max(c.compare.max_ratio, 0.01))
    if c.compare.min_ratio is not None:
        excess = max(excess, (c.compare.min_ratio - ratio) / max(c.compare.min_ratio, 0.01))
    return excess if math.isfinite(excess) else 1.0


def _tolerance(verdict: Verdict, result: PlaybookResult) -> float | None:
    c = verdict.criterion
    measured = verdict.measured
    if c.metric in ("throttle_rate", "achieved_rate"):
        offered, seconds, throttled = _scope(result, c.table, c.repeat, c.phase)
        if offered <= 0:
            return None
        p = throttled / offered
        points = RATE_POINTS + 3 * math.sqrt(p * (1 - p) / offered)
        if c.metric == "throttle_rate":
            return points
        return points * offered / seconds if seconds else None
    if c.metric == "first_throttle_s":
        return DEFAULT_TOLERANCES["first_throttle_s"].allowed(measured or 0.0)
    if c.metric in ("consumed_wcu_peak", "consumed_rcu_peak") and measured is not None:
        return DEFAULT_TOLERANCES["consumed_wcu_peak_1min"].allowed(measured)
    if c.metric == "cost_usd" and measured is not None:
        return RATE_POINTS * measured
    return None


def _scope(
    result: PlaybookResult, table: str | None, repeat: int | None, phase: str | None
) -> tuple[int, float, int]:
    """(offered requests, seconds, throttled requests) of a criterion's runs and phase."""
    offered, seconds, throttled = 0, 0.0, 0
    for run in select(result, table, repeat):
        if phase is None:
            offered += run.offered
            seconds += run.duration_s
            throttled += run.totals().throttled
            continue
        for p in run.phases:
            if p.name == phase:
                offered += p.offered
                seconds += p.duration_s
                throttled += p.counts.throttled
    return offered, seconds, throttled
