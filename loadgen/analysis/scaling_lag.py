"""How far auto scaling lags a playbook's load: the model's own policy, run on the load.

Target tracking's reaction cannot be done on paper the way a partition limit can: it sees
1-minute sums of what was admitted (throttled requests consume nothing), acts after two
datapoints, and each UpdateTable takes time to apply (emulator/autoscaling.py). So the
advice runs it: the capacity model with the variant's own table, history and auto scaling
(`TableSpec.auto_scaling_specs`, the objects the simulation and the endpoint use), fed
each second with the load the playbook offers, spread evenly over the key space so that
only the table-level capacity binds (hot keys are the partition checks' business). What
comes back is when the capacity in force reached what the peak needs at the target, and
how many requests were refused meanwhile.

A second-by-second aggregate, not the simulation: 16 keys a second instead of every
request, so it costs a fraction of a second for an hour of load.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from emulator.model import CapacityModel, GsiWrite
from emulator.params import CapacityParams
from emulator.units import read_units, write_units
from loadgen.format.kinds.families import OpenArrivals
from loadgen.format.playbook import WARM_MINIMUM
from loadgen.load.arrivals import Schedule

if TYPE_CHECKING:
    from emulator.capacity_record import CapacityRecord
    from loadgen.format.playbook import Phase, Playbook, TableSpec

KEYS = 16
"""Keys a second's load is spread over: evenly spaced hashes, one per slice of the key
space, so every partition (and every partition a split makes) gets its share."""
HASH_SPACE = 1 << 64


@dataclass(frozen=True)
class ScalingLag:
    """One scaled dimension of a table or GSI against the load's peak."""

    scope: str
    """"table" or "index NAME"."""
    dimension: str
    """"read" or "write"."""
    target_pct: float
    start_capacity: float
    peak_units: float
    """The most units per second the load offers this dimension."""
    needed: int
    """The capacity that serves the peak at the target utilization."""
    peak_at_s: float
    """When the load first reaches its peak (seconds from the first phase's start)."""
    reached: float
    """The most capacity in force during the load."""
    fits: float
    """The first capacity in force that holds the peak (0: none did)."""
    fits_at_s: float | None
    """When that capacity came into force (None: not during the load)."""
    throttled: int
    """Requests the model refused over the load."""
    requests: int

    @property
    def unit(self) -> str:
        return "RCU" if self.dimension == "read" else "WCU"

    @property
    def lags(self) -> bool:
        """True when the load throttles while the policy catches up."""
        return self.throttled > 0

    def words(self) -> str:
        """The line `advise` prints."""
        where = "" if self.scope == "table" else f"{self.scope}: "
        head = (
            f"{where}{self.dimension} auto scaling at {self.target_pct:g} % from "
            f"{self.start_capacity:,.0f} {self.unit}"
        )
        if not self.lags:
            return f"{head}: holds the {self.peak_units:,.0f} {self.unit}/s peak without a throttle"
        if self.fits_at_s is not None:
            after = max(0.0, self.fits_at_s - self.peak_at_s)
            reach = (
                f"scale-out reaches {self.fits:,.0f} {self.unit} (the {self.peak_units:,.0f} "
                f"{self.unit}/s peak fits) ~{after:,.0f} s after the ramp"
            )
        else:
            reach = (
                f"scale-out reaches only {self.reached:,.0f} {self.unit} during the load "
                f"(the peak is {self.peak_units:,.0f} {self.unit}/s)"
            )
        share = self.throttled / self.requests if self.requests else 0.0
        floor = WARM_MINIMUM[self.dimension]
        on_demand = (
            f"run on demand with warm throughput {math.ceil(self.peak_units):,} {self.dimension}s/s"
            if self.peak_units > floor
            else f"run on demand (a new on-demand table takes {floor:,} {self.dimension}s/s "
            "at once)"
        )
        return (
            f"{head}: {reach}; ~{self.throttled:,} throttled requests ({share * 100:.1f} %); "
            f"set the minimum to {self.needed:,} {self.unit} before the launch, or {on_demand}"
        )


@dataclass(frozen=True)
class _OfferedSecond:
    """What the load offers in one second: writes and reads (requests), and what a read
    costs and whether it is strongly consistent (from its phase)."""

    writes: float = 0.0
    reads: float = 0.0
    read_units: float = 0.0
    consistent: bool = False


@dataclass
class PolicyRun:
    """The model's policy run on one pass of a playbook's load: the load second by
    second, the capacity records of the table and its GSIs, and the requests refused."""

    load: list[_OfferedSecond]
    records: dict[str | None, CapacityRecord]
    throttled: dict[str, int]


def run_policy(playbook: Playbook, table: TableSpec, p: CapacityParams) -> PolicyRun | None:
    """The variant's own table, history and auto scaling in the capacity model, fed one
    pass of the playbook's load; None for a variant without auto scaling (no model run)."""
    specs = table.auto_scaling_specs()
    if not specs or table.billing_mode != "PROVISIONED":
        return None
    load = _offered(playbook, table, p)
    model = CapacityModel(p)
    capacity = model.create_table(table.create_table_request(table.name), 0.0, auto_scaling=specs)
    # A write's units on the table and on each GSI: an item's entry of the same size (the
    # advice's index checks weigh projections, moves and rewrites; here only the scaling).
    units = write_units(table.item_size_bytes, p)
    throttled = {"read": 0, "write": 0}
    for second, offered in enumerate(load):
        now = float(second + 1)
        model.advance(now)
        for k, pk_hash in enumerate(HASHES):
            writes = _share(offered.writes, k)
            if writes:
                gsi = [GsiWrite(g.name, pk_hash, 0.0, units) for g in table.gsis]
                decision = model.write(capacity, pk_hash, 0.0, units, gsi or None, writes, now=now)
                throttled["write"] += decision.refused
            reads = _share(offered.reads, k)
            if reads:
                decision = model.read(
                    capacity,
                    pk_hash,
                    0.0,
                    offered.read_units,
                    None,
                    reads,
                    now=now,
                    consistent=offered.consistent,
                )
                throttled["read"] += decision.refused
    return PolicyRun(load, model.capacity_records(table.name), throttled)


def scaling_lags(playbook: Playbook, table: TableSpec, p: CapacityParams) -> list[ScalingLag]:
    """Each dimension of the table and its GSIs under auto scaling that the load moves,
    run through the model. Empty for a table without auto scaling (no model is run)."""
    run = run_policy(playbook, table, p)
    if run is None:
        return []
    load, records, throttled = run.load, run.records, run.throttled
    units = write_units(table.item_size_bytes, p)
    specs = table.auto_scaling_specs()
    out = []
    for index, spec in specs.items():
        for dimension, policy in spec.policies():
            write = dimension == "write"
            series = [(s.writes * units) if write else (s.reads * s.read_units) for s in load]
            if not any(series):
                continue
            peak_units = max(series)
            needed = math.ceil(peak_units / (policy.target_pct / 100.0) - 1e-9)
            needed = max(policy.min_capacity, min(policy.max_capacity, needed))
            values = [(pt.t, pt.write if write else pt.read) for pt in records[index].points]
            values = [(t, v) for t, v in values if t <= len(load)]
            out.append(
                ScalingLag(
                    "table" if index is None else f"index {index}",
                    dimension,
                    policy.target_pct,
                    values[0][1] if values else 0.0,
                    peak_units,
                    needed,
                    float(series.index(peak_units)),
                    max((v for _, v in values), default=0.0),
                    next((v for t, v in values if v >= peak_units), 0.0),
                    next((t for t, v in values if v >= peak_units), None),
                    throttled[dimension],
                    round(sum(s.writes if write else s.reads for s in load)),
                )
            )
    return out


HASHES = [(HASH_SPACE // KEYS) * k + HASH_SPACE // (2 * KEYS) for k in range(KEYS)]


def _share(requests: float, k: int) -> int:
    """Key k's whole requests of a second's `requests` (the remainder to the first keys)."""
    whole = round(requests)
    return whole // KEYS + (1 if k < whole % KEYS else 0)


def _offered(playbook: Playbook, table: TableSpec, p: CapacityParams) -> list[_OfferedSecond]:
    """The load of one run of the phases, second by second."""
    out: list[_OfferedSecond] = []
    for phase in playbook.load.phases:
        if phase.operation in ("put", "update"):
            out += [_OfferedSecond(writes=r) for r in _per_second(phase)]
        else:
            units = read_units(table.item_size_bytes, phase.consistent_read, p)
            out += [
                _OfferedSecond(0.0, r, units, phase.consistent_read) for r in _per_second(phase)
            ]
    return out


def _per_second(phase: Phase) -> list[float]:
    """The requests a one-operation phase at open arrivals offers in each of its seconds
    (zero for other phases: their load is not one operation at a rate): the rate at each
    second's middle, found by the schedule's bisection (a day's per-minute curve has 1,440
    segments and 86,400 seconds)."""
    seconds = max(0, math.ceil(phase.duration_s - 1e-9))
    arrivals = phase.kind.arrivals
    if not phase.kind.iterations.one_request or not isinstance(arrivals, OpenArrivals):
        return [0.0] * seconds
    schedule = Schedule(arrivals.segments(phase.duration_s))
    last = schedule.segments[-1]
    out = []
    for s in range(seconds):
        t = s + 0.5
        if t < last.t1:
            out.append(schedule.rate_at(t))
        else:  # a fractional duration's last second: the last segment's line, continued
            span = last.t1 - last.t0
            out.append(last.r0 + (last.r1 - last.r0) * ((t - last.t0) / span if span > 0 else 0.0))
    return out
