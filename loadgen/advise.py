"""Before any run: which limit a playbook's load will hit first, by arithmetic alone.

For every table that takes load and every phase, the hottest key of each key
distribution gives a share of the traffic; that share of the offered units lands on one
partition of the table (or of a GSI), which serves 1,000 WCU/s and 3,000 RCU/s. The
table-level limits (provisioned capacity, the on-demand ceiling of a new or warmed table,
the on-demand maximum, the per-table quota) are compared with the whole phase. Every
constant comes from emulator.params, so the advice and the simulation share their
physics; the advice is the arithmetic a person would do on paper, while the simulation
adds what the paper leaves out (grace, isolation, splits, GSI propagation backlogs).

Pure: no I/O, so `hotbench advise`, the check reports and the console's plan screen
show the same words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from emulator.params import DEFAULT_PARAMS, CapacityParams
from emulator.units import read_units, write_units
from loadgen.keys import sampler_for
from loadgen.playbook import (
    Distribution,
    Phase,
    Playbook,
    TableSpec,
    Throughput,
)
from loadgen.simulate import KEYS_ONLY_BYTES


@dataclass(frozen=True)
class HotKey:
    """The most frequent value of a key attribute and its share of the requests."""

    attribute: str
    value: str
    """The value as sent, or a description when no single value stands out."""
    share: float

    def words(self) -> str:
        return f"{self.attribute}={self.value} ({_pct(self.share)} of requests)"


@dataclass(frozen=True)
class LimitCheck:
    """One limit against one phase's load."""

    phase: str
    phase_index: int
    scope: str
    """"table" or "index NAME"."""
    limit: str
    """e.g. "partition write", "provisioned write", "new on-demand ceiling write"."""
    offered_units: float
    """Units per second the phase puts on this limit at its peak rate."""
    limit_units: float
    arithmetic: str
    """How offered_units was reached, in words and numbers."""
    hot_key: HotKey | None = None
    seconds_to_hit: float | None = None
    """When the limit starts refusing, from the phase start; None when it never does."""
    fix: str = ""

    @property
    def utilisation(self) -> float:
        return self.offered_units / self.limit_units if self.limit_units else math.inf

    @property
    def hit(self) -> bool:
        return self.seconds_to_hit is not None

    def words(self) -> str:
        verdict = (
            f"HIT within {_secs(self.seconds_to_hit)}"
            if self.seconds_to_hit is not None
            else ("exceeded but absorbed for the phase" if self.utilisation > 1 else "ok")
        )
        return (
            f"{self.scope} {self.limit}: {self.arithmetic} against {_num(self.limit_units)} "
            f"= {_pct(self.utilisation)} -> {verdict}"
        )


@dataclass
class TableAdvice:
    """Every limit of one table (and its GSIs) against every phase of its load."""

    table: str
    summary: str
    checks: list[LimitCheck] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def first_hit(self) -> LimitCheck | None:
        """The limit the load meets first: earliest phase, then soonest, then the most
        over its limit."""
        hits = [c for c in self.checks if c.hit]
        if not hits:
            return None
        return min(hits, key=lambda c: (c.phase_index, c.seconds_to_hit or 0.0, -c.utilisation))

    @property
    def hot_keys(self) -> list[LimitCheck]:
        """Partition checks that are hit: a hot partition key of the table or an index."""
        return [c for c in self.checks if c.hit and c.hot_key is not None]

    def verdict(self) -> str:
        """The first limit hit and what fixes it, in one paragraph."""
        first = self.first_hit
        if first is None:
            top = max(self.checks, key=lambda c: c.utilisation, default=None)
            if top is None:
                return f"{self.table}: takes no load."
            return (
                f"{self.table}: no limit is reached; the closest is {top.scope} "
                f"{top.limit} at {_pct(top.utilisation)} ({_num(top.offered_units)} of "
                f"{_num(top.limit_units)} units/s in phase {top.phase})."
            )
        return (
            f"{self.table}: the first limit hit is the {first.scope} {first.limit} in "
            f"phase {first.phase}: {first.arithmetic} against {_num(first.limit_units)} "
            f"({first.utilisation:.1f}x), within {_secs(first.seconds_to_hit)}. "
            f"Fix: {first.fix}"
        )

    def lines(self) -> list[str]:
        """The advice as printed: summary, every check, notes, verdict."""
        out = [f"{self.table}: {self.summary}"]
        out += [f"  [{c.phase}] {c.words()}" for c in self.checks]
        out += [f"  note: {n}" for n in self.notes]
        out.append(f"  => {self.verdict()}")
        first = self.first_hit
        seen = {(first.scope, first.limit)} if first else set()
        for c in self.checks:
            if c.hit and (c.scope, c.limit) not in seen:
                seen.add((c.scope, c.limit))
                out.append(f"  also hit: {c.scope} {c.limit} in phase {c.phase}. Fix: {c.fix}")
        return out


def advise(playbook: Playbook, params: CapacityParams = DEFAULT_PARAMS) -> list[TableAdvice]:
    """The advice for every table that takes load, in the order of load.runs."""
    tables = list(dict.fromkeys(run.table for run in playbook.runs()))
    return [advise_table(playbook, playbook.table(name), params) for name in tables]


def advise_table(playbook: Playbook, table: TableSpec, p: CapacityParams) -> TableAdvice:
    advice = TableAdvice(table.name, _summary(table, p))
    for index, phase in enumerate(playbook.load.phases):
        rate = _peak_rate(phase)
        if rate <= 0:
            continue
        attrs = {**playbook.load.attributes, **phase.attributes}
        primary = table.primary_key_names()
        if phase.operation in ("put", "update"):
            _writes(advice, table, phase, index, rate, attrs, primary, p)
        else:
            _reads(advice, table, phase, index, rate, attrs, primary, p)
    if table.sort_key is not None and any(
        c.hot_key and c.scope == "table" for c in advice.hot_keys
    ):
        first_split = p.split_heat_s + p.split_delay_s
        advice.notes.append(
            f"split for heat can later spread a hot item collection by sort key (the model "
            f"lands it about {first_split / 60:.0f} minutes after the heat begins): too late "
            "for a launch, and never for a monotonic sort key"
        )
    return advice


# --- the two kinds of phase -----------------------------------------------------------------


def _writes(
    advice: TableAdvice,
    table: TableSpec,
    phase: Phase,
    index: int,
    rate: float,
    attrs: dict[str, Distribution],
    primary: list[str],
    p: CapacityParams,
) -> None:
    units = write_units(table.item_size_bytes, p)
    hot = hottest(table.partition_key.name, attrs, primary)
    _scope_checks(advice, table, None, phase, index, "write", rate, units, hot, p)
    for gsi in table.gsis:
        projected = KEYS_ONLY_BYTES if gsi.projection == "KEYS_ONLY" else table.item_size_bytes
        g_hot = hottest(gsi.partition_key.name, attrs, primary)
        g_units = write_units(projected, p)
        _scope_checks(advice, table, gsi.name, phase, index, "write", rate, g_units, g_hot, p)


def _reads(
    advice: TableAdvice,
    table: TableSpec,
    phase: Phase,
    index: int,
    rate: float,
    attrs: dict[str, Distribution],
    primary: list[str],
    p: CapacityParams,
) -> None:
    units = read_units(table.item_size_bytes, phase.consistent_read, p)
    hot = hottest(table.partition_key.name, attrs, primary)
    _scope_checks(advice, table, None, phase, index, "read", rate, units, hot, p)


def _scope_checks(
    advice: TableAdvice,
    table: TableSpec,
    gsi_name: str | None,
    phase: Phase,
    index: int,
    kind: str,
    rate: float,
    units: float,
    hot: HotKey,
    p: CapacityParams,
) -> None:
    """The partition check and the table-level limits of one phase on the table or one
    of its GSIs: the same arithmetic for both, so it is written once."""
    scope = "table" if gsi_name is None else f"index {gsi_name}"
    offered = rate * units
    per_request = (
        f"{_num(rate)} {phase.operation}s/s x {units:g} {'WCU' if kind == 'write' else 'RCU'}"
    )
    advice.checks.append(
        _partition_check(phase, index, scope, kind, hot, offered, p, gsi=gsi_name is not None)
    )
    advice.checks += _table_limits(
        phase, index, scope, kind, offered, per_request, table, gsi_name, p
    )


# --- the limits -----------------------------------------------------------------------------


def _partition_check(
    phase: Phase,
    index: int,
    scope: str,
    kind: str,
    hot: HotKey,
    offered: float,
    p: CapacityParams,
    gsi: bool = False,
) -> LimitCheck:
    """The hottest key's share of the offered units against one partition."""
    limit = p.partition_wcu if kind == "write" else p.partition_rcu
    unit = "WCU" if kind == "write" else "RCU"
    on_key = hot.share * offered
    arithmetic = (
        f"{hot.attribute}={hot.value} takes {_pct(hot.share)} x {_num(offered)} {unit}/s "
        f"= {_num(on_key)} {unit}/s"
    )
    seconds: float | None = None
    if on_key > limit:
        seconds = p.grace_s
        if gsi:
            # A GSI partition takes writes into its propagation log at up to
            # gsi_intake_factor times its rate; past that it refuses at once, below it the
            # log fills first (emulator.keyspace.GsiWriteLog).
            intake = p.gsi_intake_factor * limit
            if on_key <= intake:
                seconds = p.gsi_backlog_s * limit / (on_key - limit)
        if seconds > phase.duration_s:
            seconds = None
    shards = math.ceil(on_key / limit) if on_key > limit else 1
    if scope == "table" and kind == "write":
        fix = (
            f"shard {hot.attribute} into at least {shards} suffixes "
            f"({hot.value}#0..{hot.value}#{shards - 1}): {_num(on_key / shards)} WCU/s each, "
            f"and read all {shards} keys back (playbooks/write-sharding.yaml)"
        )
    elif kind == "write":
        fix = (
            f"give the index a higher-cardinality partition key, or shard {hot.attribute} in "
            f"the index key into at least {shards} suffixes: {_num(on_key / shards)} WCU/s "
            "each (playbooks/gsi-hot-key.yaml)"
        )
    else:
        fix = (
            f"cache {hot.attribute}={hot.value} (DAX) or keep {shards} copies of it under "
            f"suffixed keys and read a random one: {_num(on_key / shards)} RCU/s each"
        )
    return LimitCheck(
        phase.name,
        index,
        scope,
        f"partition {kind}",
        on_key,
        limit,
        arithmetic,
        hot,
        seconds,
        fix,
    )


def _table_limits(
    phase: Phase,
    index: int,
    scope: str,
    kind: str,
    offered: float,
    per_request: str,
    table: TableSpec,
    gsi_name: str | None,
    p: CapacityParams,
) -> list[LimitCheck]:
    """Provisioned capacity, or the on-demand ceiling, maximum and quota."""
    gsi = next((g for g in table.gsis if g.name == gsi_name), None)
    owner_warm = gsi.warm_throughput if gsi is not None else table.warm_throughput
    owner_max = gsi.on_demand_max if gsi is not None else table.on_demand_max
    write = kind == "write"
    unit = "WCU" if write else "RCU"
    arithmetic = f"{per_request} = {_num(offered)} {unit}/s"
    field_name = "write" if write else "read"
    out: list[LimitCheck] = []

    def check(limit_name: str, limit: float, seconds_if_over: float, fix: str) -> None:
        seconds = seconds_if_over if offered > limit else None
        if seconds is not None and seconds > phase.duration_s:
            seconds = None
        out.append(
            LimitCheck(
                phase.name, index, scope, limit_name, offered, limit, arithmetic, None, seconds, fix
            )
        )

    if table.billing_mode == "PROVISIONED":
        owner = gsi if gsi is not None else table
        capacity = float((owner.write_capacity if write else owner.read_capacity) or 0)
        pool = p.burst_s * capacity
        seconds = pool / (offered - capacity) if offered > capacity else 0.0
        check(
            f"provisioned {field_name}",
            capacity,
            seconds,
            f"provision at least {_round_up(offered)} {unit} "
            f"({'write' if write else 'read'}_capacity"
            f"{' of index ' + gsi_name if gsi_name else ''}); the burst pool "
            f"({p.burst_s:g} s of capacity) only delays the throttling",
        )
        return out
    initial = p.ondemand_initial_wcu if write else p.ondemand_initial_rcu
    warm = (owner_warm.write if write else owner_warm.read) if owner_warm else None
    base = max(initial, float(warm or 0))
    ceiling = base * p.ondemand_headroom
    where = f"warm_throughput {field_name}" + (f" of index {gsi_name}" if gsi_name else "")
    if ceiling >= p.table_quota_units:
        # The served ceiling never passes the per-table quota (emulator.capacity).
        check(
            f"table quota {field_name}",
            p.table_quota_units,
            p.grace_s,
            f"ask for a higher per-table {field_name} quota (Service Quotas) before launch",
        )
    else:
        name = "warm-throughput ceiling" if warm and warm > initial else "new on-demand ceiling"
        check(
            f"{name} {field_name}",
            ceiling,
            p.grace_s,
            f"set {where} to at least {_round_up(offered)} before launch (on-demand grows "
            f"only about {_num(p.ondemand_growth_step_wcu)} WCU/s per "
            f"{p.ondemand_growth_next_s / 60:.0f} minutes of sustained overload; "
            "playbooks/warm-throughput.yaml)",
        )
    cap = (owner_max.write if write else owner_max.read) if owner_max else None
    if cap is not None:
        check(
            f"on-demand maximum {field_name}",
            float(cap),
            p.grace_s,
            f"raise on_demand_max {field_name} to at least {_round_up(offered)}, or keep the "
            "cap as a cost limit and accept the throttling (playbooks/ondemand-max.yaml)",
        )
    return out


# --- key distributions ----------------------------------------------------------------------


def hottest(attribute: str, attrs: dict[str, Distribution], primary: list[str]) -> HotKey:
    """The most frequent value of `attribute` and its share of requests.

    An attribute marked per_item that is not part of the primary key is derived from the
    item's key by a hash (loadgen.keys.ItemGenerator.derive), which spreads it evenly
    over its values whatever its weights say.
    """
    dist = attrs[attribute]
    if dist.per_item and attribute not in primary:
        finite = sampler_for(dist).finite
        if finite is None:
            return HotKey(attribute, "(unique per item)", 0.0)
        return HotKey(attribute, "(any one value, derived per item)", 1.0 / finite)
    try:
        sampler = sampler_for(dist)
    except ValueError:  # a composite with a never-repeating part: no value repeats
        return HotKey(attribute, "(unique per request)", 0.0)
    if sampler.top is None:
        return HotKey(attribute, "(unique per request)", 0.0)
    index, share = sampler.top
    return HotKey(attribute, str(sampler.render(index)), share)


# --- words ----------------------------------------------------------------------------------


def _peak_rate(phase: Phase) -> float:
    if phase.ramp is not None:
        return max(phase.ramp.start, phase.ramp.end)
    return phase.rate or 0.0


def _summary(table: TableSpec, p: CapacityParams) -> str:
    if table.billing_mode == "PROVISIONED":
        mode = (
            f"PROVISIONED {_num(table.write_capacity or 0)} WCU / "
            f"{_num(table.read_capacity or 0)} RCU"
        )
    else:
        mode = "PAY_PER_REQUEST"
        if table.warm_throughput:
            mode += f", warm throughput {_throughput(table.warm_throughput)}"
        if table.on_demand_max:
            mode += f", on-demand max {_throughput(table.on_demand_max)}"
    return (
        f"{mode}; {_num(table.item_size_bytes)}-byte items = "
        f"{write_units(table.item_size_bytes, p)} WCU per write; "
        f"{len(table.gsis)} GSI(s)"
    )


def _throughput(t: Throughput) -> str:
    parts = ([f"{_num(t.write)} write"] if t.write else []) + (
        [f"{_num(t.read)} read"] if t.read else []
    )
    return " / ".join(parts)


def _round_up(units: float) -> str:
    return f"{math.ceil(units / 100) * 100:,}"


def _num(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 10 or value == int(value) else f"{value:,.2f}"


def _pct(fraction: float) -> str:
    if fraction == math.inf:
        return "inf %"
    return f"{fraction * 100:.1f} %" if fraction >= 0.001 else f"{fraction * 100:.3f} %"


def _secs(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return f"{seconds:,.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
