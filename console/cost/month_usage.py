"""The record of a month of a playbook's traffic: what `hotbench optimize` prices.

A playbook describes a stretch of load (a launch minute, a morning rush); a bill is
monthly. The month rule (loadgen.format.optimize_spec.MonthSpec, the playbook's
`optimize.month`) says how one becomes the other: the request units a table consumed
per second of its simulated load, for the peak hours of every day, a fraction of them
the rest of the day; provisioned capacity stands the whole month either way; storage
holds what the run left (or the size the month states). The record is priced by the one
price function, like the plan's, the check's and the tally's.
"""

from __future__ import annotations

import math
from dataclasses import replace

from console.cost.capacity_moves import provisioned_points
from console.cost.expected_usage import table_use
from console.cost.measured_usage import run_units
from console.cost.record import CapacityMove, RequestUnits, Span, UsageRecord
from loadgen.format.optimize_spec import MonthSpec
from loadgen.format.playbook import Playbook, TableSpec
from loadgen.results.records import PlaybookResult, RunResult

ITEM_OVERHEAD_BYTES = 100
"""Storage DynamoDB bills per item beyond its attributes, in the table and in every
index that holds it (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html,
"100 bytes of overhead per item for indexing")."""


def month_record(
    playbook: Playbook, result: PlaybookResult, tables: list[str], month: MonthSpec
) -> UsageRecord:
    """A month of `tables` (names in the playbook): each standing the whole month as its
    spec says, consuming its simulated units per second for the month's busy seconds."""
    record = UsageRecord()
    busy = month.peak_s + month.off_peak_fraction * month.off_peak_s
    for name in tables:
        spec = playbook.table(name)
        runs = [r for r in result.runs if r.table == name]
        load_s = sum(r.duration_s for r in runs)
        stored = (
            month.stored_gb
            if month.stored_gb is not None
            else stored_gb(spec, runs, key_space(playbook, spec))
        )
        record.tables.append(
            replace(
                table_use(
                    spec, name, (Span("month", month.seconds),), month_moves(spec, runs, month)
                ),
                stored_gb=stored,
            )
        )
        if load_s <= 0:
            continue
        factor = busy / load_s
        for units in _units(name, runs):
            record.requests.append(
                replace(
                    units,
                    write_units=units.write_units * factor,
                    read_units=units.read_units * factor,
                    label="month",
                )
            )
    return record


def month_moves(
    spec: TableSpec, runs: list[RunResult], month: MonthSpec
) -> tuple[CapacityMove, ...]:
    """How auto scaling moves the table's capacity through the month, from the capacity
    the policy moved in the simulation (each run's `capacity`): the runs' steps repeated
    through each day's peak hours, as the month repeats their load; the rest of the day
    at what the policy settles at under `off_peak_fraction` of the load (its mean
    consumption over the target, no lower than the minimum, no higher than the maximum).
    Empty for a table whose capacity stood still (priced as a fixed table is)."""
    profile: list[CapacityMove] = []
    offset = 0.0
    for run in runs:
        profile.extend(provisioned_points(run.capacity or {}, offset, with_first=True))
        offset += run.duration_s
    load_s = offset
    if not profile or load_s <= 0 or not spec.auto_scaling_specs():
        return ()
    profile.sort(key=lambda m: m.at_s)
    settled = _settled(spec, runs, load_s, month.off_peak_fraction)
    day_s = 24 * 3600.0
    peak_s = month.peak_hours_per_day * 3600.0
    moves: list[CapacityMove] = []
    for day in range(math.ceil(month.days)):
        start = day * day_s
        for repeat in range(math.ceil(peak_s / load_s)):
            base = start + repeat * load_s
            moves += [
                replace(m, at_s=base + m.at_s) for m in profile if m.at_s + repeat * load_s < peak_s
            ]
        if peak_s < day_s:
            moves += [replace(m, at_s=start + peak_s) for m in settled]
    return tuple(m for m in moves if m.at_s < month.seconds)


def _settled(
    spec: TableSpec, runs: list[RunResult], load_s: float, fraction: float
) -> list[CapacityMove]:
    """The capacity of the table and each GSI off peak: a side under a policy where the
    policy settles for `fraction` of the runs' mean consumption, a fixed side as written."""
    totals = [r.totals() for r in runs]
    specs = spec.auto_scaling_specs()
    owners: list[tuple[str | None, int | None, int | None, float, float]] = [
        (
            None,
            spec.read_capacity,
            spec.write_capacity,
            sum(t.consumed_rcu for t in totals) / load_s,
            sum(t.consumed_wcu for t in totals) / load_s,
        )
    ] + [
        (
            g.name,
            g.read_capacity,
            g.write_capacity,
            0.0,
            sum(t.consumed_wcu_by_index.get(g.name, 0.0) for t in totals) / load_s,
        )
        for g in spec.gsis
    ]
    out = []
    for index, rcu, wcu, read_mean, write_mean in owners:
        policy = specs.get(index)
        sides = []
        for side, fixed, mean in (("read", rcu, read_mean), ("write", wcu, write_mean)):
            tracking = getattr(policy, side) if policy is not None else None
            if tracking is None:
                sides.append(float(fixed or 0))
                continue
            wanted = math.ceil(fraction * mean / (tracking.target_pct / 100.0))
            sides.append(float(min(tracking.max_capacity, max(tracking.min_capacity, wanted))))
        out.append(CapacityMove(0.0, index, sides[0], sides[1]))
    return out


def _units(name: str, runs: list[RunResult]) -> list[RequestUnits]:
    """The table's and each GSI's units over all its runs, one entry each."""
    totals: dict[str | None, list[float]] = {}
    for run in runs:
        for u in run_units(name, run):
            acc = totals.setdefault(u.index, [0.0, 0.0])
            acc[0] += u.write_units
            acc[1] += u.read_units
    return [RequestUnits(name, index, w, r) for index, (w, r) in totals.items()]


def stored_gb(spec: TableSpec, runs: list[RunResult], space: int | None) -> float:
    """What the playbook's runs leave stored: the seeded items and every item a write
    added (no more than the key space holds), each at its size plus DynamoDB's per-item
    overhead, in the table and in each GSI (a KEYS_ONLY or INCLUDE entry at the
    overhead alone: the keys are small next to it)."""
    written = sum(
        p.counts.succeeded for r in runs for p in r.phases if p.operation in ("put", "update")
    )
    items = spec.seed_items + written
    if space is not None:
        items = min(items, space)
    item = spec.item_size_bytes + ITEM_OVERHEAD_BYTES
    entries = sum(item if g.projection == "ALL" else ITEM_OVERHEAD_BYTES for g in spec.gsis)
    return items * (item + entries) / 1e9


def key_space(playbook: Playbook, spec: TableSpec) -> int | None:
    """How many distinct items the load can address on `spec`: the product of its
    primary key attributes' value counts (None when a key never repeats)."""
    from loadgen.load.keys import sampler_for  # numpy: only where a month is priced

    space = 1
    for name in spec.primary_key_names():
        dist = playbook.load.attributes.get(name)
        try:
            finite = sampler_for(dist).finite if dist is not None else None
        except ValueError:  # a composite with a never-repeating part
            finite = None
        if finite is None:
            return None
        space *= finite
    return space
