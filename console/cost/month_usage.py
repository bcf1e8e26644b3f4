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

from dataclasses import replace

from console.cost.expected_usage import table_use
from console.cost.measured_usage import run_units
from console.cost.record import RequestUnits, Span, UsageRecord
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
                table_use(spec, name, (Span("month", month.seconds),)),
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
