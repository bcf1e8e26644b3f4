"""An import rendered as a playbook that replays the recorded window.

- the traffic: per-minute rate curves (`rate: {per_minute: [...]}`, or `rate: {csv: ...}`
  beside the playbook for long stretches), each minute's requests exactly as CloudWatch
  counted them (succeeded + throttled). The playbook format runs one phase at a time, so
  operations served together are one `mix` phase whose curve is their sum, and a new
  phase starts where an operation's share of the minute moves more than
  `SHARE_TOLERANCE` (5 % of its share, or half a percentage point, whichever is larger)
  from the phase's own: each operation's requests per minute stay within that of the
  recorded counts. A stretch served by one operation is `operation` + curve (the
  vectorised engine);
- the table as DescribeTable shows it; a provisioned table (and GSI) at the highest
  capacity CloudWatch shows in the window (ProvisionedRead/WriteCapacityUnits, Maximum),
  which is where its auto scaling took it; its auto scaling and history (previous peak)
  in the blocks of the capacity-over-time format (`auto_scaling`, `history`), written as
  comments until the playbook format validates them (`CAPACITY_BLOCKS_LIVE`); LSIs are
  left out (the format has none);
- each partition key (the table's and each GSI's): `weighted`, the measured hot keys by
  name with their shares, then the fitted tail as `~tail-<rank>` keys: all of them when
  the report counted at most `WEIGHTED_KEYS_MAX` keys (exact), else the tail's mass
  folded onto the first of them (one scale factor, each capped at the last hot key's
  share: no tail key hotter than the report allows); when even that cannot hold the
  tail, one `zipf` over the unique count with the one-Zipf exponent (the header says how
  close it comes to the top key). A key with no report: `uniform` over the count assumed;
- launch what-ifs (`WhatIf`): every minute times `scale`, and the curve's peak times
  `peak` (each minute raised in proportion to how far it stands above the window's
  quietest), so "three of these days at once, with a sharper noon" is one import;
- a header of comments saying where each number came from, and every missing-data line.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np
import yaml

from console.importer.import_result import (
    ImportResult,
    KeyDistribution,
    KeyPart,
    TableImport,
    TimeWindow,
    UnitsPair,
)
from emulator.itemsize import MAX_ITEM_BYTES
from loadgen.format.kinds.rate_curve import PerMinuteRate
from loadgen.format.playbook import WARM_MINIMUM, Playbook, parse_playbook

WEIGHTED_KEYS_MAX = 2_000
SHARE_TOLERANCE = 0.05
"""A phase's operation shares stay within this fraction of each minute's own share..."""
SHARE_FLOOR = 0.005
"""...or within this many (half a percentage point) of the minute's requests."""
CSV_MINUTES = 120
"""A phase's curve longer than this many minutes goes to a CSV beside the playbook."""
CAPACITY_BLOCKS_LIVE = True
"""Whether the playbook format validates FORMAT 34's `auto_scaling` and `history` (the
capacity-over-time change, loadgen/format/capacity_spec.py): False writes them as
comments, said so (for a format without them)."""
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


@dataclass(frozen=True)
class WhatIf:
    """A launch what-if on the recorded traffic: `scale` times every minute, and the
    peak minute `peak` times as high (each minute m raised by (peak - 1) times
    (r_m - r_min) / (r_max - r_min): the quietest minute stays, the shape sharpens)."""

    scale: float = 1.0
    peak: float = 1.0

    @property
    def recorded(self) -> bool:
        return self.scale == 1.0 and self.peak == 1.0

    def apply(self, totals: np.ndarray) -> np.ndarray:
        """The per-minute totals (every operation's) as the what-if offers them: one factor
        per minute, which the operations of that minute share."""
        return totals * self.factors(totals)

    def factors(self, totals: np.ndarray) -> np.ndarray:
        factor = np.full(len(totals), self.scale, dtype=np.float64)
        if self.peak != 1.0 and len(totals) and totals.max() > totals.min():
            lift = (totals - totals.min()) / (totals.max() - totals.min())
            factor *= 1.0 + (self.peak - 1.0) * lift
        return factor

    def words(self) -> str:
        parts = []
        if self.scale != 1.0:
            parts.append(f"every minute x{self.scale:g}")
        if self.peak != 1.0:
            parts.append(
                f"the peak x{self.peak:g} (each minute raised in proportion above the quietest)"
            )
        return "; ".join(parts) or "as recorded"


@dataclass
class Stretch:
    """Minutes [first, last) served in fixed shares by the same operations."""

    first: int
    last: int
    counts: np.ndarray
    """Requests per operation (columns) per minute (rows) of the stretch."""

    @property
    def shares(self) -> np.ndarray:
        total = self.counts.sum()
        return self.counts.sum(axis=0) / total if total > 0 else np.zeros(self.counts.shape[1])


def _fits(counts: np.ndarray) -> bool:
    """Whether one set of shares (the stretch's) keeps every minute's operations within
    SHARE_TOLERANCE of their own counts."""
    total = counts.sum()
    if total <= 0:
        return True
    shares = counts.sum(axis=0) / total
    minutes = counts.sum(axis=1)
    busy = minutes > 0
    own = counts[busy] / minutes[busy, None]
    allowed = np.maximum(SHARE_TOLERANCE * own, SHARE_FLOOR)
    return bool((np.abs(own - shares) <= allowed + 1e-12).all())


def stretches(counts: np.ndarray) -> list[Stretch]:
    """The minutes cut where the operations' shares move (greedy: a minute joins the
    stretch while one set of shares still fits every minute of it)."""
    out: list[Stretch] = []
    first = 0
    periods = counts.shape[0]
    for m in range(1, periods + 1):
        if m < periods and _fits(counts[first : m + 1]):
            continue
        out.append(Stretch(first, m, counts[first:m]))
        first = m
    return out


def _clock(window_start: Any, minute: int) -> str:
    t = window_start + timedelta(minutes=minute)
    return f"t{t:%H%M}" if minute < 1440 else f"d{minute // 1440}-t{t:%H%M}"


def _rates(values: np.ndarray) -> list[float]:
    # Three decimals of a rate a second: each minute's requests within 0.06 of the count.
    return [round(float(v), 3) for v in values]


@dataclass
class Traffic:
    """The load's phases, the CSV files they read (name -> rates), the notes."""

    phases: list[dict[str, Any]]
    inline: list[dict[str, Any]]
    """The same phases with every curve inline (validated without the CSV files)."""
    csvs: dict[str, list[float]]
    left_out: list[str]
    per_minute: np.ndarray
    """Requests each minute offered per operation (rows minutes, columns `ops`)."""
    ops: list[str]


def traffic(
    table: TableImport,
    window: TimeWindow,
    what_if: WhatIf = WhatIf(),
    csv_stem: str | None = None,
) -> Traffic:
    """The recorded requests as per-minute curves: one phase per stretch of stable shares."""
    ops = [o for o in table.operations if o.operation in OPERATIONS and o.total > 0]
    left_out = [
        f"{o.operation} ({o.total:,.0f} requests)"
        for o in table.operations
        if o.operation not in OPERATIONS and o.total > 0
    ]
    if not ops:
        return Traffic([], [], {}, left_out, np.zeros((0, 0)), [])
    names = [OPERATIONS[o.operation] for o in ops]
    counts = np.array([o.requests for o in ops], dtype=np.float64).T
    period_s = window.period_s
    if period_s != 60:
        # An older window is read at 300 or 3600 s: each period's requests spread evenly
        # over its minutes (the rate constant within a period, as the missing line says).
        counts = np.repeat(counts / (period_s // 60), period_s // 60, axis=0)
    totals = counts.sum(axis=1)
    counts = counts * what_if.factors(totals)[:, None]
    phases: list[dict[str, Any]] = []
    inline: list[dict[str, Any]] = []
    csvs: dict[str, list[float]] = {}
    for s in stretches(counts):
        minutes = s.counts.sum(axis=1)
        curve = _rates(minutes / 60.0)
        name = _clock(window.start, s.first)
        phase: dict[str, Any] = {"name": name}
        used = [(op, share) for op, share in zip(names, s.shares, strict=True) if share > 0]
        if len(used) <= 1:
            phase["operation"] = used[0][0] if used else "put"
        phase["rate"] = {"per_minute": curve}
        if len(used) > 1:
            phase["mix"] = [
                {"op": op, "weight": round(float(share) * 100, 4)} for op, share in used
            ]
        inline.append(phase)
        shown = dict(phase)
        if csv_stem is not None and len(curve) > CSV_MINUTES:
            file = f"{csv_stem}.{name}.csv"
            csvs[file] = curve
            shown["rate"] = {"csv": file}
        phases.append(shown)
    return Traffic(phases, inline, csvs, left_out, counts, names)


SIDES = {"ReadCapacityUnits": "read", "WriteCapacityUnits": "write"}


def auto_scaling_block(table: TableImport, index: str | None) -> dict[str, Any] | None:
    """FORMAT 34's `auto_scaling` of the table or a GSI: per side, the target tracking
    policy's target with the scalable target's min and max (Application Auto Scaling)."""
    out: dict[str, Any] = {}
    for target in table.auto_scaling.targets:
        if target.index != index:
            continue
        side = SIDES.get(target.dimension.rsplit(":", 1)[-1])
        policy = next(
            (
                p
                for p in table.auto_scaling.policies
                if p.index == index
                and p.dimension == target.dimension
                and p.policy_type == "TargetTrackingScaling"
                and p.target_value is not None
            ),
            None,
        )
        if side is None or policy is None:
            continue
        block: dict[str, Any] = {
            "target_pct": round(float(policy.target_value or 0), 3),
            "min": target.min_capacity,
            "max": target.max_capacity,
        }
        if policy.scale_out_cooldown_s is not None:
            block["scale_out_cooldown_s"] = policy.scale_out_cooldown_s
        if policy.scale_in_cooldown_s is not None:
            block["scale_in_cooldown_s"] = policy.scale_in_cooldown_s
        if policy.disable_scale_in:
            block["disable_scale_in"] = True
        out[side] = block
    return out or None


def _units_peak(table: TableImport, metric: str, index: str | None, period_s: int) -> int | None:
    series = table.series_of(metric, index)
    if series is None or series.returned == 0 or max(series.values) <= 0:
        return None
    return int(np.ceil(max(series.values) / period_s))


def history_block(table: TableImport, period_s: int) -> dict[str, Any] | None:
    """FORMAT 34's `history`: what the table did before the replay starts. An on-demand
    table's previous peak (the window's busiest minute, Consumed*CapacityUnits Sum / 60:
    the partitions it has are at least those it served), a provisioned table's highest
    provisioned capacity (Provisioned*CapacityUnits, Maximum), the warm throughput
    DescribeTable reports."""
    d = table.definition
    out: dict[str, Any] = {}
    if d.billing_mode == "PAY_PER_REQUEST":
        peak = _pair(
            _units_peak(table, "ConsumedReadCapacityUnits", None, period_s),
            _units_peak(table, "ConsumedWriteCapacityUnits", None, period_s),
        )
        if peak:
            out["previous_on_demand_peak"] = peak
    else:
        provisioned = _pair(
            _peak(table, "ProvisionedReadCapacityUnits", None),
            _peak(table, "ProvisionedWriteCapacityUnits", None),
        )
        if provisioned:
            out["previous_provisioned"] = provisioned
    if (warm := _pair(d.warm_throughput.read, d.warm_throughput.write)) is not None:
        out["previous_warm"] = warm
    return out or None


def capacity_blocks(table: TableImport, period_s: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the table's blocks, each GSI's by name): auto_scaling and history per FORMAT 34."""
    own: dict[str, Any] = {}
    if (scaling := auto_scaling_block(table, None)) is not None:
        own["auto_scaling"] = scaling
    if (history := history_block(table, period_s)) is not None:
        own["history"] = history
    gsis = {
        g.name: {"auto_scaling": block}
        for g in table.definition.gsis
        if (block := auto_scaling_block(table, g.name)) is not None
    }
    return own, gsis


def _commented(block: dict[str, Any], indent: str) -> str:
    body = yaml.safe_dump(block, sort_keys=False, width=100, default_flow_style=None)
    return "".join(f"{indent}# {line}\n" for line in body.splitlines())


@dataclass
class Rendered:
    """One table of an import as a playbook: its text, the Playbook it parses to (valid,
    or rendering raises), the CSV files it reads (name -> rates a second per minute),
    and the requests per minute per operation it offers."""

    text: str
    playbook: Playbook
    csvs: dict[str, list[float]]
    offered: np.ndarray
    operations: list[str]


def render(
    result: ImportResult,
    table_name: str | None = None,
    what_if: WhatIf = WhatIf(),
    csv_stem: str | None = None,
) -> Rendered:
    """One table of the import as a playbook that replays its window (module docstring).
    `csv_stem`: long curves go to `<csv_stem>.<phase>.csv` beside the playbook (None:
    every curve inline)."""
    table = next((t for t in result.tables if table_name in (None, t.definition.name)), None)
    if table is None:
        raise ValueError(f"the import holds no table {table_name}")
    d = table.definition
    w = result.window
    attributes: dict[str, Any] = {}
    notes = [
        f"hotbench import of {d.name} ({result.region}), {w.start:%Y-%m-%d %H:%M} "
        f"to {w.end:%Y-%m-%d %H:%M} UTC, per {w.period_s} s, from the {result.source}"
        + (f"; key values anonymized ({result.anonymized})" if result.anonymized else ""),
        "traffic: each operation's requests per minute (SuccessfulRequestLatency SampleCount "
        "+ ThrottledRequests Sum, per minute) as rate curves; operations served together are "
        f"one mix, a new phase where a share moves more than {SHARE_TOLERANCE:.0%} of itself "
        f"(or {SHARE_FLOOR:.1%} of the minute)",
        f"what-if: {what_if.words()}",
        f"item size: {table.item_bytes:,.0f} bytes, {table.item_bytes_source}",
        "table: DynamoDB DescribeTable"
        + (
            "; capacity: the highest ProvisionedRead/WriteCapacityUnits (Maximum) of the window"
            + (", where no auto scaling moves it" if CAPACITY_BLOCKS_LIVE else "")
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
        where = "table" if key.index is None else f"GSI {key.index}"
        notes.append(f"{key.attribute} ({where}): {how}")
    sort_keys = [k for k in (d.sort_key, *(g.sort_key for g in d.gsis)) if k is not None]
    for k in sort_keys:
        if k.name not in attributes:
            attributes[k.name] = (
                {"dist": "monotonic", "type": "N"} if k.type == "N" else {"dist": "uuid"}
            )
            notes.append(f"{k.name}: a new value per request (sort keys are not in the reports)")
    if d.lsis:
        notes.append(
            "left out: LSIs " + ", ".join(i.name for i in d.lsis) + " (the format has none)"
        )
    load = traffic(table, w, what_if, csv_stem)
    if load.left_out:
        notes.append("left out: operations a phase cannot send: " + ", ".join(load.left_out))
    phases, inline = load.phases, load.inline
    if not phases:
        phases = inline = [
            {"name": "idle", "operation": "put", "rate": 0, "duration_s": w.period_s}
        ]
        notes.append("no requests were recorded: one idle phase")
    own_blocks, gsi_blocks = capacity_blocks(table, w.period_s)
    if own_blocks or gsi_blocks:
        notes.append(
            "auto_scaling: Application Auto Scaling's scalable targets (min, max) and target "
            "tracking policies; history: "
            + (
                "the busiest minute's Consumed*CapacityUnits (Sum / 60)"
                if d.billing_mode == "PAY_PER_REQUEST"
                else "the highest Provisioned*CapacityUnits (Maximum)"
            )
            + " and DescribeTable's warm throughput"
            + (
                "; a side under auto scaling starts at its Provisioned*CapacityUnits at the "
                "window's start, and the model's target tracking moves it"
                if CAPACITY_BLOCKS_LIVE and d.billing_mode == "PROVISIONED"
                else ""
            )
        )
    if (own_blocks or gsi_blocks) and not CAPACITY_BLOCKS_LIVE:
        notes.append(
            "auto_scaling and history below are commented out: the playbook format does not "
            "validate them yet (capacity over time, issue 34); the capacity is the window's "
            "highest instead"
        )
    for m in (*result.missing, *table.missing):
        notes.append("missing: " + m.line())
    spec = table_spec(table)
    document: dict[str, Any] = {
        "name": f"import-{d.name}"[:200],
        "description": f"{d.name} as imported from {result.region}, "
        f"{w.start:%Y-%m-%d %H:%M} to {w.end:%Y-%m-%d %H:%M} UTC"
        + ("" if what_if.recorded else f"; what-if: {what_if.words()}"),
        "tables": [spec],
        "load": {"attributes": attributes, "phases": inline},
    }
    if CAPACITY_BLOCKS_LIVE:
        _start_where_scaling_starts(table, spec, own_blocks, gsi_blocks)
        spec |= own_blocks
        for gsi in spec.get("gsis", []):
            gsi |= gsi_blocks.get(gsi["name"], {})
    playbook = parse_playbook(document, f"<import of {d.name}>")
    document["load"]["phases"] = phases
    header = "".join(f"# {line}\n" for line in notes)
    body = yaml.safe_dump(document, sort_keys=False, width=100, allow_unicode=True)
    if not CAPACITY_BLOCKS_LIVE:
        body = _with_commented_blocks(body, d.name, own_blocks, gsi_blocks)
    return Rendered(header + body, playbook, load.csvs, load.per_minute, load.ops)


def _first(table: TableImport, metric: str, index: str | None) -> int | None:
    series = table.series_of(metric, index)
    if series is None or series.returned == 0:
        return None
    first = next((v for v in series.values if v > 0), None)
    return None if first is None else int(first)


def _start_where_scaling_starts(
    table: TableImport, spec: dict[str, Any], own: dict[str, Any], gsis: dict[str, Any]
) -> None:
    """A provisioned side under auto scaling starts the replay where the window started
    (its first Provisioned*CapacityUnits datapoint, within the policy's min and max), not
    at the window's highest: the model's target tracking takes it from there, as
    Application Auto Scaling did."""
    if spec.get("billing_mode") != "PROVISIONED":
        return
    owners = [(spec, None, own.get("auto_scaling"))] + [
        (g, g["name"], gsis.get(g["name"], {}).get("auto_scaling")) for g in spec.get("gsis", [])
    ]
    for owner, index, scaling in owners:
        for side, metric in (
            ("read", "ProvisionedReadCapacityUnits"),
            ("write", "ProvisionedWriteCapacityUnits"),
        ):
            policy = (scaling or {}).get(side)
            start = _first(table, metric, index)
            if policy is None or start is None:
                continue
            owner[f"{side}_capacity"] = min(policy["max"], max(policy["min"], start))


def _with_commented_blocks(body: str, table: str, own: dict[str, Any], gsis: dict[str, Any]) -> str:
    """The YAML with FORMAT 34's blocks as comments where they belong: the table's after
    its `name:` line, each GSI's after its own."""
    lines = body.splitlines(keepends=True)
    out: list[str] = []
    in_gsis = False
    for line in lines:
        out.append(line)
        stripped = line.strip()
        if line.startswith("- name: ") and stripped == f"- name: {table}" and own:
            out.append(_commented(own, "  "))
        elif line.startswith("  gsis:"):
            in_gsis = True
        elif in_gsis and line.startswith("  - name: "):
            name = stripped.removeprefix("- name: ")
            if name in gsis:
                out.append(_commented(gsis[name], "    "))
        elif in_gsis and not line.startswith("  ") and not line.startswith("  -"):
            in_gsis = False
    return "".join(out)


def draft(result: ImportResult, table_name: str | None = None) -> tuple[str, Playbook]:
    """One table of the import as a playbook with every curve inline (YAML text, and the
    Playbook it parses to)."""
    rendered = render(result, table_name)
    return rendered.text, rendered.playbook


def starting_at(playbook: Playbook, capacity: dict[str, int]) -> Playbook:
    """The playbook's provisioned table and GSIs at `capacity` (`read`, `write`,
    `read:INDEX`, `write:INDEX`, as recorded.capacity_at gives), each within its auto
    scaling's min and max: a replay of later minutes starts where the account was."""
    tables = []
    for spec in playbook.tables:
        if spec.billing_mode != "PROVISIONED":
            tables.append(spec)
            continue

        def side(owner: Any, name: str, key: str) -> dict[str, int]:
            value = capacity.get(key)
            if value is None:
                return {}
            policy = getattr(owner.auto_scaling, name, None) if owner.auto_scaling else None
            if policy is not None:
                value = min(policy.max, max(policy.min, value))
            return {f"{name}_capacity": value}

        gsis = [
            g.model_copy(
                update=side(g, "read", f"read:{g.name}") | side(g, "write", f"write:{g.name}")
            )
            for g in spec.gsis
        ]
        own = side(spec, "read", "read") | side(spec, "write", "write")
        tables.append(spec.model_copy(update=own | {"gsis": gsis}))
    return playbook.model_copy(update={"tables": tables})


def minutes_of(playbook: Playbook, first: int, last: int) -> Playbook:
    """The playbook's load cut to minutes [first, last) of its per-minute curves (a
    backtest of a busy hour, not the whole day): phases outside dropped, the ones across
    an edge cut. ValueError when the cut holds no minute of any curve."""
    kept = []
    start = 0
    for phase in playbook.load.phases:
        rate = phase.rate
        minutes = len(rate.per_minute) if isinstance(rate, PerMinuteRate) else 0
        lo, hi = max(first, start), min(last, start + minutes)
        if isinstance(rate, PerMinuteRate) and lo < hi:
            cut = PerMinuteRate(per_minute=rate.per_minute[lo - start : hi - start])
            kept.append(phase.model_copy(update={"rate": cut, "duration_s": cut.duration_s}))
        start += minutes
    if not kept:
        raise ValueError(
            f"minutes {first}-{last} hold none of the playbook's {start:,} minutes of curves"
        )
    load = playbook.load.model_copy(update={"phases": kept})
    return playbook.model_copy(update={"load": load})
