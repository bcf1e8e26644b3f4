"""An import rendered in TODAY's playbook format, as far as that format reaches.

PHASE B REPLACES THIS: the format gains a per-minute rate curve per operation, auto
scaling and history blocks, and a distribution of measured hot keys with a fitted tail;
the import result (import_result.py) carries all of that already. Until then:

- tables as DescribeTable shows them; a provisioned table (and GSI) at the highest
  capacity CloudWatch shows in the window (ProvisionedRead/WriteCapacityUnits, Maximum),
  which is where its auto scaling took it; LSIs are left out (the format has none);
- each partition key's values: `weighted`, the measured hot keys by name with their
  shares, then the fitted tail as `~tail-<rank>` keys: all of them when the report
  counted at most `WEIGHTED_KEYS_MAX` keys (exact), else the tail's mass folded onto
  the first of them (one scale factor, each capped at the last hot key's share: no
  tail key hotter than the report allows); when even that cannot hold the tail, one
  `zipf` over the unique count with the one-Zipf exponent (the header says how close it
  comes to the top key). A key with no report: `uniform` over the count assumed;
- the traffic as one phase per `STRETCH_S` at its average rate, adjacent stretches
  within `MERGE_TOLERANCE` merged: `operation` when one operation served the stretch,
  else a `mix` of the operations by share (the mix runs through the closed-loop engine,
  request by request: slow for hours of thousands per second);
- a header of comments saying where each number came from, and every missing-data line.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import yaml

from console.importer.import_result import (
    ImportResult,
    KeyDistribution,
    KeyPart,
    TableImport,
    UnitsPair,
)
from emulator.itemsize import MAX_ITEM_BYTES
from loadgen.format.playbook import WARM_MINIMUM, Playbook, parse_playbook

WEIGHTED_KEYS_MAX = 2_000
STRETCH_S = 1800
MERGE_TOLERANCE = 0.05
OPERATIONS = {"PutItem": "put", "UpdateItem": "update", "GetItem": "get", "Query": "query"}
"""DynamoDB operations today's phases can send (the others are listed in the header)."""


def _peak(table: TableImport, metric: str, index: str | None) -> int | None:
    series = table.series_of(metric, index)
    if series is None or series.returned == 0:
        return None
    return int(max(series.values))


def _capacity(
    table: TableImport, index: str | None, current: tuple[float | None, float | None]
) -> dict[str, int]:
    read = _peak(table, "ProvisionedReadCapacityUnits", index) or current[0]
    write = _peak(table, "ProvisionedWriteCapacityUnits", index) or current[1]
    return {"read_capacity": int(read or 1), "write_capacity": int(write or 1)}


def _pair(
    read: float | None, write: float | None, minimum: dict[str, int] | None = None
) -> dict[str, int] | None:
    out = {}
    for side, value in (("read", read), ("write", write)):
        if value is not None and value >= (minimum or {}).get(side, 1):
            out[side] = int(value)
    return out or None


def _key(part: KeyPart) -> dict[str, str]:
    return {"name": part.name, "type": part.type}


def _limits(
    table: TableImport,
    index: str | None,
    capacity: UnitsPair,
    on_demand: UnitsPair,
    warm: UnitsPair,
) -> dict[str, Any]:
    """The capacity fields of the table or a GSI: provisioned capacity (the window's
    highest), the on-demand maximum, warm throughput at or above DynamoDB's minimum."""
    out: dict[str, Any] = {}
    if table.definition.billing_mode == "PROVISIONED":
        out |= _capacity(table, index, (capacity.read, capacity.write))
    if (cap := _pair(on_demand.read, on_demand.write)) is not None:
        out["on_demand_max"] = cap
    if (warmed := _pair(warm.read, warm.write, WARM_MINIMUM)) is not None:
        out["warm_throughput"] = warmed
    return out


def table_spec(table: TableImport) -> dict[str, Any]:
    d = table.definition
    spec: dict[str, Any] = {"name": d.name, "partition_key": _key(d.partition_key)}
    if d.sort_key is not None:
        spec["sort_key"] = _key(d.sort_key)
    spec["billing_mode"] = d.billing_mode
    spec |= _limits(table, None, d.provisioned, d.on_demand_max, d.warm_throughput)
    enabled = next((s for s in table.insights if s.index is None and s.status == "ENABLED"), None)
    if enabled is not None and enabled.mode in ("THROTTLED_KEYS", "ACCESSED_AND_THROTTLED_KEYS"):
        spec["contributor_insights"] = enabled.mode
    gsis = []
    for g in d.gsis:
        gsi: dict[str, Any] = {"name": g.name, "partition_key": _key(g.partition_key)}
        if g.sort_key is not None:
            gsi["sort_key"] = _key(g.sort_key)
        gsi["projection"] = g.projection
        if g.projection == "INCLUDE":
            gsi["non_key_attributes"] = list(g.non_key_attributes)
        gsi |= _limits(table, g.name, g.provisioned, g.on_demand_max, g.warm_throughput)
        gsis.append(gsi)
    if gsis:
        spec["gsis"] = gsis
    spec["item_size_bytes"] = min(MAX_ITEM_BYTES, max(1, round(table.item_bytes)))
    return spec


def _value_type(table: TableImport, attribute: str) -> str:
    return "N" if table.definition.attributes.get(attribute) == "N" else "S"


def distribution(table: TableImport, key: KeyDistribution) -> tuple[dict[str, Any], str]:
    """The attribute's distribution in today's format, and a comment on how close it is."""
    kind = _value_type(table, key.attribute)
    typed = {"type": "N"} if kind == "N" else {}
    fit = key.fit
    if fit is None:
        count = key.assumed_count or 1
        fmt = {} if kind == "N" else {"format": key.attribute + "-{:07d}"}
        return {"dist": "uniform", "count": count, **fmt, **typed}, key.source
    tail = fit.tail
    room = WEIGHTED_KEYS_MAX - len(key.hot)
    folded = fold_tail(tail.shares(room), tail.mass, fit.hot[-1]) if tail is not None else None
    if tail is None or folded is not None:
        weights = {"-".join(c.keys): c.share * 100 for c in key.hot}
        shares = folded if folded is not None else np.zeros(0)
        for offset, share in enumerate(shares):
            rank = len(key.hot) + 1 + offset
            name = str(10**12 + rank) if kind == "N" else f"~tail-{rank}"
            weights[name] = float(share) * 100
        if tail is None or len(shares) == tail.keys:
            how = "the hot keys by name, the fitted tail as ~tail-<rank> (exact)"
        else:
            how = (
                f"the hot keys by name; the fitted tail's {tail.mass * 100:.1f} % folded onto "
                f"{len(shares):,} of its {tail.keys:,} keys, none above the last hot key's "
                f"{fit.hot[-1] * 100:.3f} %"
            )
        return {"dist": "weighted", "weights": weights, **typed}, f"{key.source}; {how}"
    s = max(fit.zipf_exponent, 1e-6)
    fmt = {} if kind == "N" else {"format": key.attribute + "-{:07d}"}
    return (
        {"dist": "zipf", "count": fit.unique, "s": round(s, 4), **fmt, **typed},
        f"{key.source}; one Zipf for all (the tail is too heavy to fold onto "
        f"{room:,} keys): top key measured {fit.hot[0] * 100:.2f} %, this Zipf gives it "
        f"{fit.zipf_share(1) * 100:.2f} %",
    )


def fold_tail(shares: np.ndarray, mass: float, cap: float) -> np.ndarray | None:
    """The tail's first keys holding its whole mass: each share scaled by one factor and
    capped at `cap` (no tail key above the last measured one, as the report says), the
    factor found by bisection; None when even every key at the cap holds less than
    `mass`. All the tail's keys given: the shares themselves."""
    total = float(shares.sum())
    if total <= 0 or len(shares) * cap < mass * (1 - 1e-9):
        return None
    if abs(total - mass) <= 1e-12 * max(mass, 1e-300):
        return shares

    def held(factor: float) -> float:
        return float(np.minimum(cap, shares * factor).sum())

    low, high = 0.0, max(1.0, mass / total)
    while held(high) < mass * (1 - 1e-12):
        high *= 2
    for _ in range(100):
        mid = (low + high) / 2
        low, high = (mid, high) if held(mid) < mass else (low, mid)
    return np.minimum(cap, shares * high)


def phases(table: TableImport, period_s: int) -> tuple[list[dict[str, Any]], list[str]]:
    ops = [o for o in table.operations if o.operation in OPERATIONS]
    left_out = [
        f"{o.operation} ({o.total:,.0f} requests)"
        for o in table.operations
        if o.operation not in OPERATIONS
    ]
    if not ops:
        return [], left_out
    per = max(1, STRETCH_S // period_s)
    periods = len(ops[0].requests)
    stretches: list[dict[str, Any]] = []
    for first in range(0, periods, per):
        last = min(periods, first + per)
        seconds = (last - first) * period_s
        counts = {OPERATIONS[o.operation]: sum(o.requests[first:last]) for o in ops}
        stretches.append({"seconds": seconds, "counts": counts})
    merged: list[dict[str, Any]] = []
    for s in stretches:
        if merged:
            prev = merged[-1]
            rate_prev = sum(prev["counts"].values()) / prev["seconds"]
            rate = sum(s["counts"].values()) / s["seconds"]
            shares_close = all(
                abs(
                    prev["counts"].get(op, 0) / max(rate_prev * prev["seconds"], 1e-9)
                    - s["counts"].get(op, 0) / max(rate * s["seconds"], 1e-9)
                )
                <= MERGE_TOLERANCE
                for op in set(prev["counts"]) | set(s["counts"])
            )
            if shares_close and abs(rate - rate_prev) <= MERGE_TOLERANCE * max(rate_prev, 1e-9):
                prev["seconds"] += s["seconds"]
                for op, c in s["counts"].items():
                    prev["counts"][op] = prev["counts"].get(op, 0) + c
                continue
        merged.append({"seconds": s["seconds"], "counts": dict(s["counts"])})
    out: list[dict[str, Any]] = []
    elapsed = 0
    for i, s in enumerate(merged):
        total = sum(s["counts"].values())
        rate = round(total / s["seconds"], 3)
        name = f"t{elapsed // 3600:02d}{(elapsed % 3600) // 60:02d}"
        used = {op: c for op, c in s["counts"].items() if c > 0}
        phase: dict[str, Any] = {
            "name": name if name not in {p["name"] for p in out} else f"{name}-{i}"
        }
        if len(used) <= 1:
            phase["operation"] = next(iter(used), "put")
            phase["rate"] = rate
        else:
            phase["rate"] = rate
            phase["mix"] = [
                {"op": op, "weight": round(c / total * 100, 4)} for op, c in sorted(used.items())
            ]
        phase["duration_s"] = s["seconds"]
        out.append(phase)
        elapsed += s["seconds"]
    return out, left_out


def draft(result: ImportResult, table_name: str | None = None) -> tuple[str, Playbook]:
    """One table of the import as a playbook (YAML text, and the Playbook it parses to:
    it is valid, or this raises)."""
    table = next((t for t in result.tables if table_name in (None, t.definition.name)), None)
    if table is None:
        raise ValueError(f"the import holds no table {table_name}")
    d = table.definition
    attributes: dict[str, Any] = {}
    notes = [
        f"hotbench import of {d.name} ({result.region}), {result.window.start:%Y-%m-%d %H:%M} "
        f"to {result.window.end:%Y-%m-%d %H:%M} UTC, per {result.window.period_s} s, from the "
        f"{result.source}"
        + (f"; key values anonymized ({result.anonymized})" if result.anonymized else ""),
        "DRAFT in today's playbook format (console/importer/playbook_draft.py): one phase per "
        f"{STRETCH_S // 60} minutes at its average rate; the per-minute curve, auto scaling and "
        "history come with the playbook format's next version",
        f"item size: {table.item_bytes:,.0f} bytes, {table.item_bytes_source}",
        "table: DynamoDB DescribeTable"
        + (
            "; capacity: the highest ProvisionedRead/WriteCapacityUnits (Maximum) of the window"
            if d.billing_mode == "PROVISIONED"
            else ""
        ),
        "rates: " + "; ".join(f"{o.operation}: {o.source}" for o in table.operations),
    ]
    for key in table.keys:
        if key.attribute in attributes:
            continue
        dist, how = distribution(table, key)
        attributes[key.attribute] = dist
        notes.append(f"{key.attribute}: {how}")
    sort_keys = [k for k in (d.sort_key, *(g.sort_key for g in d.gsis)) if k is not None]
    for k in sort_keys:
        if k.name not in attributes:
            attributes[k.name] = (
                {"dist": "monotonic", "type": "N"} if k.type == "N" else {"dist": "uuid"}
            )
            notes.append(f"{k.name}: a new value per request (sort keys are not rendered)")
    if d.lsis:
        notes.append(
            "left out: LSIs " + ", ".join(i.name for i in d.lsis) + " (the format has none)"
        )
    load_phases, left_out = phases(table, result.window.period_s)
    if left_out:
        notes.append("left out: operations today's phases cannot send: " + ", ".join(left_out))
    if not load_phases:
        load_phases = [
            {"name": "idle", "operation": "put", "rate": 0, "duration_s": result.window.period_s}
        ]
        notes.append("no requests were recorded: one idle phase")
    for m in (*result.missing, *table.missing):
        notes.append("missing: " + m.line())
    document = {
        "name": f"import-{d.name}"[:200],
        "description": f"{d.name} as imported from {result.region}, "
        f"{result.window.start:%Y-%m-%d %H:%M} to {result.window.end:%Y-%m-%d %H:%M} UTC",
        "tables": [table_spec(table)],
        "load": {"attributes": attributes, "phases": load_phases},
    }
    playbook = parse_playbook(document, f"<import of {d.name}>")
    header = "".join(f"# {line}\n" for line in notes)
    body = yaml.safe_dump(document, sort_keys=False, width=100, allow_unicode=True)
    return header + body, playbook
