"""The bounds `hotbench optimize` searches within, proved by `hotbench advise`'s arithmetic.

A limit below which a table must throttle more than its criteria allow is hopeless,
whatever else is chosen; nothing below it is simulated. For every phase the advice
knows the offered units per request on the table and on each GSI, and the hottest key's
share; a limit of L units/s then refuses at least

- on demand (a ceiling or a maximum): (offered - L) for every second after the grace,
  until on-demand growth could lift the ceiling (its first step, 8 minutes in);
- provisioned: (offered - L) x duration, less the burst pool (300 s of L) it may draw on
  first (a GSI also less its propagation log's backlog);
- one partition key: the hottest key's share above what its shards can take at one
  partition's 1,000 WCU/s each (each on a partition of its own, the best case), until a
  split for heat could double it.

A criterion gives the throttled requests a table may lose: `throttle_rate` max b over
its runs (or phase) allows b of their requests, `achieved_rate` min m allows the offered
minus m per second. The least L whose refusals fit every such allowance is the bound
(found by bisection: refusals only fall as L rises). Pure arithmetic, no run.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from emulator.params import CapacityParams
from loadgen.analysis.advise import TableAdvice
from loadgen.format.kinds.families import OpenArrivals
from loadgen.format.playbook import Criterion, Phase, Playbook

Profile = list[tuple[float, float]]
"""A phase's offered requests as (requests/s, seconds) segments, in order."""


@dataclass(frozen=True)
class PhaseDemand:
    """What one phase asks of one table, per request, from the advice."""

    index: int
    name: str
    duration_s: float
    profile: Profile
    write_units: float = 0.0
    """Table write units per request (0 for a read phase)."""
    read_units: float = 0.0
    index_write_units: dict[str, float] = field(default_factory=dict)
    """Index write units per request, by GSI (the charging rule's average)."""
    hot_share: float = 0.0
    """The table partition key's hottest value's share of the requests."""
    index_hot_units: dict[str, float] = field(default_factory=dict)
    """Per GSI: units per request that land on its hottest key's partition."""

    @property
    def requests(self) -> float:
        return sum(rate * seconds for rate, seconds in self.profile)

    @property
    def peak_rate(self) -> float:
        return max((rate for rate, _ in self.profile), default=0.0)


@dataclass(frozen=True)
class Allowance:
    """Throttled requests a criterion allows in a scope of one table's runs: `phases`
    (indices; None for every phase) of the first run, against `allowed` requests."""

    phases: frozenset[int] | None
    allowed: float


@dataclass
class TableDemand:
    """One table's phases, and what its criteria allow it to lose."""

    table: str
    repeats: int
    phases: list[PhaseDemand]
    allowances: list[Allowance]

    def peak_units(self, units: Callable[[PhaseDemand], float]) -> float:
        return max((p.peak_rate * units(p) for p in self.phases), default=0.0)

    def least(self, refused: Callable[[PhaseDemand, float], float], high: float) -> float:
        """The least limit in [0, high] whose refusals (per phase, at that limit) fit every
        allowance; 0 when nothing constrains it."""
        if not self.allowances:
            return 0.0

        def fits(limit: float) -> bool:
            for allowance in self.allowances:
                lost = sum(
                    refused(p, limit)
                    for p in self.phases
                    if allowance.phases is None or p.index in allowance.phases
                )
                if lost > allowance.allowed + 1e-9:
                    return False
            return True

        if fits(0.0):
            return 0.0
        if not fits(high):
            return high
        low, top = 0.0, high
        for _ in range(40):
            mid = (low + top) / 2
            low, top = (low, mid) if fits(mid) else (mid, top)
        return top


def profile_of(phase: Phase) -> Profile:
    """The phase's offered rate over time, from its kind's rate curve
    (loadgen.format.kinds): a constant piece as it is, a linear piece (a ramp, a curve's
    minute) in 20 pieces, each at its lower end (a lower bound on the load); a
    population of users has no rate."""
    if not isinstance(phase.kind.arrivals, OpenArrivals):
        return [(0.0, phase.duration_s)]
    out: Profile = []
    for seg in phase.kind.rate_segments(phase.duration_s):
        width = seg.t1 - seg.t0
        if seg.r0 == seg.r1 or width <= 0:
            out.append((seg.r0, width))
            continue
        n = 20
        out += [
            (
                min(seg.r0 + (seg.r1 - seg.r0) * i / n, seg.r0 + (seg.r1 - seg.r0) * (i + 1) / n),
                width / n,
            )
            for i in range(n)
        ]
    return out


def table_demand(
    playbook: Playbook, table: str, advice: TableAdvice, p: CapacityParams
) -> TableDemand:
    """Each open-rate phase's units per request from the advice's checks (offered at the
    peak rate / the peak rate), and the allowances of the criteria about `table`."""
    phases: list[PhaseDemand] = []
    for index, phase in enumerate(playbook.load.phases):
        rate = phase.kind.arrivals.peak_rate()
        checks = [c for c in advice.checks if c.phase_index == index]
        if rate <= 0 or not checks:
            continue
        write = phase.operation in ("put", "update")
        table_units = next(
            (c.offered_units / rate for c in checks if c.scope == "table" and c.hot_key is None),
            0.0,
        )
        hot = next((c for c in checks if c.scope == "table" and c.hot_key is not None), None)
        index_units: dict[str, float] = {}
        index_hot: dict[str, float] = {}
        for c in checks:
            if not c.scope.startswith("index "):
                continue
            gsi = c.scope.removeprefix("index ")
            if c.hot_key is None:
                index_units[gsi] = c.offered_units / rate
            else:
                index_hot[gsi] = c.offered_units / rate
        phases.append(
            PhaseDemand(
                index,
                phase.name,
                phase.duration_s,
                profile_of(phase),
                write_units=table_units if write else 0.0,
                read_units=0.0 if write else table_units,
                index_write_units=index_units if write else {},
                hot_share=hot.hot_key.share if hot is not None and hot.hot_key else 0.0,
                index_hot_units=index_hot if write else {},
            )
        )
    repeats = sum(r.repeats for r in playbook.runs() if r.table == table)
    return TableDemand(table, repeats, phases, _allowances(playbook, table, phases, repeats))


def _allowances(
    playbook: Playbook, table: str, phases: list[PhaseDemand], repeats: int
) -> list[Allowance]:
    """Throttled requests each criterion about `table` allows (its scope's requests over
    all repeats x the rate it allows), where the criterion bounds the throttling of all
    reasons together; criteria on one reason, one other repeat or a comparison allow
    anything here (the simulation judges them)."""
    names = [ph.name for ph in playbook.load.phases]
    out: list[Allowance] = []
    for c in playbook.criteria:
        if c.table not in (None, table) or c.compare is not None or c.reason is not None:
            continue
        if c.repeat not in (None, 1) or c.metric not in ("throttle_rate", "achieved_rate"):
            continue
        scope = (
            frozenset({names.index(c.phase)}) if c.phase is not None and c.phase in names else None
        )
        within = [ph for ph in phases if scope is None or ph.index in scope]
        requests = sum(ph.requests for ph in within)
        seconds = sum(ph.duration_s for ph in within)
        if requests <= 0:
            continue
        fraction = _allowed_fraction(c, requests, seconds)
        if fraction is None:
            continue
        # Other tables' runs count too when the criterion names none: more to share.
        total = requests * repeats
        if c.table is None:
            total += sum(requests * r.repeats for r in playbook.runs() if r.table != table)
        out.append(Allowance(scope, max(0.0, fraction) * total))
    return out


def _allowed_fraction(c: Criterion, requests: float, seconds: float) -> float | None:
    if c.metric == "throttle_rate" and c.max is not None:
        return c.max
    if c.metric == "achieved_rate" and c.min is not None and seconds > 0:
        return 1.0 - c.min * seconds / requests
    return None


# --- refusals at a limit: each a lower bound ------------------------------------------------


def on_demand_refused(p: CapacityParams, units: Callable[[PhaseDemand], float]) -> Refusal:
    """A ceiling or maximum of L units/s: everything above it after the grace, up to when
    on-demand growth could first lift it."""

    def refused(phase: PhaseDemand, limit: float) -> float:
        return _above(phase, units(phase), limit, p.grace_s, p.ondemand_growth_first_s)

    return refused


def provisioned_refused(
    p: CapacityParams, units: Callable[[PhaseDemand], float], backlog_s: float = 0.0
) -> Refusal:
    """Provisioned L units/s: the excess over the phase, less a full burst pool (and a
    GSI's propagation backlog) drawn first."""

    def refused(phase: PhaseDemand, limit: float) -> float:
        u = units(phase)
        if u <= 0:
            return 0.0
        excess = sum(max(0.0, rate * u - limit) * s for rate, s in phase.profile)
        return max(0.0, excess - (p.burst_s + backlog_s) * limit) / u

    return refused


def shard_refused(p: CapacityParams, hot_units: Callable[[PhaseDemand], float]) -> Refusal:
    """N shards of the hottest key, each on a partition of its own: the key's units above
    N x a partition's write rate, until a split for heat could double one."""

    def refused(phase: PhaseDemand, shards: float) -> float:
        return _above(
            phase,
            hot_units(phase),
            shards * p.partition_wcu,
            p.grace_s,
            p.split_heat_s + p.split_delay_s,
        )

    return refused


def index_shard_refused(p: CapacityParams, gsi: str) -> Refusal:
    """N shards of a GSI's hottest key: as `shard_refused`, from when its propagation log
    is `gsi_backlog_s` behind (at once past `gsi_intake_factor` times the rate)."""

    def refused(phase: PhaseDemand, shards: float) -> float:
        hot = phase.index_hot_units.get(gsi, 0.0)
        limit = shards * p.partition_wcu
        peak = phase.peak_rate * hot
        if peak <= limit:
            return 0.0
        start = (
            0.0 if peak > p.gsi_intake_factor * limit else p.gsi_backlog_s * limit / (peak - limit)
        )
        return _above(phase, hot, limit, max(p.grace_s, start), p.split_heat_s + p.split_delay_s)

    return refused


Refusal = Callable[[PhaseDemand, float], float]
"""Requests of one phase refused at least, at a limit (or shard count)."""


def _above(phase: PhaseDemand, units: float, limit: float, grace_s: float, until_s: float) -> float:
    """Requests above `limit` units/s from `grace_s` to `until_s` into the phase."""
    if units <= 0:
        return 0.0
    out, t = 0.0, 0.0
    for rate, seconds in phase.profile:
        start, end = max(t, grace_s), min(t + seconds, until_s)
        if end > start:
            out += max(0.0, rate * units - limit) / units * (end - start)
        t += seconds
    return out


def round_up(value: float, step: int) -> int:
    return int(math.ceil(value / step - 1e-9) * step)


def round_down(value: float, step: int) -> int:
    return int(math.floor(value / step + 1e-9) * step)


def scaling_refused(
    p: CapacityParams,
    units: Callable[[PhaseDemand], float],
    phases: list[PhaseDemand],
) -> Refusal:
    """Auto scaling's minimum M: target tracking acts only after `autoscale_out_datapoints`
    one-minute datapoints over its target (emulator/autoscaling.py), so for the run's first
    datapoints x period seconds the table stands at M whatever the target: the excess
    over M then, less a full burst pool per phase (more than the one pool there is, so a
    lower bound)."""
    lag_s = p.autoscale_out_datapoints * p.autoscale_period_s
    starts: dict[int, float] = {}
    t = 0.0
    for phase in phases:
        starts[phase.index] = t
        t += phase.duration_s

    def refused(phase: PhaseDemand, limit: float) -> float:
        u = units(phase)
        if u <= 0:
            return 0.0
        t0 = starts.get(phase.index, lag_s)
        excess = 0.0
        for rate, seconds in phase.profile:
            inside = max(0.0, min(t0 + seconds, lag_s) - t0)
            excess += max(0.0, rate * u - limit) * inside
            t0 += seconds
        return max(0.0, excess - p.burst_s * limit) / u

    return refused
