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

from emulator.params import DEFAULT_LATENCY, DEFAULT_PARAMS, CapacityParams
from emulator.units import read_units, write_units
from loadgen.analysis.scaling_lag import scaling_lags
from loadgen.analysis.scenario_advice import RequestTimes, scenario_findings
from loadgen.format.playbook import (
    Distribution,
    Phase,
    Playbook,
    TableSpec,
    Throughput,
)
from loadgen.load.keys import ItemGenerator, sampler_for
from loadgen.load.writes import IndexPlan, index_plan


@dataclass(frozen=True)
class HotKey:
    """The most frequent value of a key attribute and its share of the requests."""

    attribute: str
    """The attribute's name; for a multi-attribute key, its names in parentheses."""
    value: str
    """The value as sent, or a description when no single value stands out."""
    share: float
    parts: tuple[HotKey, ...] = ()
    """A multi-attribute key's hottest value of each attribute, in key order (its
    share is their product: the attributes are drawn independently)."""

    def words(self) -> str:
        return f"{self.attribute}={self.value} ({_pct(self.share)} of requests)"

    def share_of(self, attribute: str) -> float:
        """The hottest value's share of one of this key's attributes."""
        for part in self.parts or (self,):
            if part.attribute == attribute:
                return part.share
        raise KeyError(attribute)


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


def advise(
    playbook: Playbook,
    params: CapacityParams = DEFAULT_PARAMS,
    times: RequestTimes = DEFAULT_LATENCY,
    *,
    scaling: bool = True,
) -> list[TableAdvice]:
    """The advice for every table that takes load, in the order of load.runs. `times`:
    the simulation's latency model (emulator.params.LatencyParams), for how long a
    scenario's steps take, so the advice and the simulation share their physics.
    `scaling` False leaves out the auto scaling notes, which run the model's policy over
    the whole load: a caller that reads only the checks (the optimizer, once per
    candidate) need not pay for them."""
    tables = list(dict.fromkeys(run.table for run in playbook.runs()))
    return [
        advise_table(playbook, playbook.table(name), params, times, scaling=scaling)
        for name in tables
    ]


def advise_table(
    playbook: Playbook,
    table: TableSpec,
    p: CapacityParams,
    times: RequestTimes = DEFAULT_LATENCY,
    *,
    scaling: bool = True,
) -> TableAdvice:
    advice = TableAdvice(table.name, _summary(table, p))
    for index, phase in enumerate(playbook.load.phases):
        if not phase.kind.iterations.one_request:
            # Steps, not one operation at a rate: the ceilings of one key or of the data
            # grown (loadgen.analysis.scenario_advice); the partition arithmetic below is per
            # operation and is not applied to them.
            for finding in scenario_findings(playbook, table, phase, p, times):
                advice.notes.append(f"[{finding.phase}] {finding.kind}: {finding.words}")
            # A mix's plain entries (an imported day's operations) at their shares of the
            # phase's rate: the same arithmetic as a phase of that one operation.
            peak = phase.kind.arrivals.peak_rate()
            for step, share in phase.kind.iterations.operation_shares():
                as_phase = phase.model_copy(
                    update={
                        "operation": step.op,
                        "mix": None,
                        "consistent_read": bool(getattr(step, "consistent_read", False)),
                    }
                )
                _operation(advice, playbook, table, as_phase, index, peak * share, p)
            continue
        _operation(advice, playbook, table, phase, index, phase.kind.arrivals.peak_rate(), p)
    if table.sort_key is not None and any(
        c.hot_key and c.scope == "table" for c in advice.hot_keys
    ):
        first_split = p.split_heat_s + p.split_delay_s
        advice.notes.append(
            f"split for heat can later spread a hot item collection by sort key (the model "
            f"lands it about {first_split / 60:.0f} minutes after the heat begins): too late "
            "for a launch, and never for a monotonic sort key"
        )
    if scaling:
        # Auto scaling's reaction is run, not reckoned: the model's own policy on this load.
        for lag in scaling_lags(playbook, table, p):
            advice.notes.append(f"auto scaling: {lag.words()}")
    return advice


# --- the two kinds of phase -----------------------------------------------------------------


def _plural(operation: str) -> str:
    """`puts`, `gets`, `queries`."""
    return f"{operation[:-1]}ies" if operation.endswith("y") else f"{operation}s"


def _operation(
    advice: TableAdvice,
    playbook: Playbook,
    table: TableSpec,
    phase: Phase,
    index: int,
    rate: float,
    p: CapacityParams,
) -> None:
    """The partition and table arithmetic of `phase`'s one operation at `rate`/s."""
    if rate <= 0:
        return
    attrs = {**playbook.load.attributes, **phase.attributes}
    primary = table.primary_key_names()
    if phase.operation in ("put", "update"):
        _writes(advice, table, phase, index, rate, attrs, primary, p)
    else:
        _reads(advice, table, phase, index, rate, attrs, primary, p)


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
    generator = ItemGenerator(attrs, [k.name for k in table.key_attributes()], primary)
    rewrites = rewrite_share(table, phase, generator, primary, rate)
    for gsi in table.gsis:
        g_hot = hottest_key([k.name for k in gsi.partition_keys], attrs, primary)
        cost = index_cost(index_plan(table, gsi, generator, attrs, p), attrs, rewrites, g_hot)
        _scope_checks(
            advice, table, gsi.name, phase, index, "write", rate, cost.per_write, g_hot, p, cost
        )
        words = cost.words(gsi.name)
        if words and words not in advice.notes:
            advice.notes.append(words)


def rewrite_share(
    table: TableSpec, phase: Phase, generator: ItemGenerator, primary: list[str], rate: float
) -> float:
    """The share of a write phase's writes that rewrite an existing item: none when the
    key never repeats; else what is left once the phase's new items are written (of N
    items, S seeded, W writes drawn: about (N - S)(1 - e^(-W/N)) new ones, the uniform
    case; the phase alone, earlier phases not counted)."""
    radices = [generator.samplers[n].finite for n in primary]
    if any(r is None for r in radices):
        return 0.0
    items = float(math.prod(int(r or 1) for r in radices))
    writes = rate * phase.duration_s
    if writes <= 0:
        return 0.0
    seeded = min(float(table.seed_items), items)
    new = (items - seeded) * (1.0 - math.exp(-writes / items))
    return max(0.0, min(1.0, 1.0 - new / writes))


@dataclass(frozen=True)
class IndexCost:
    """What one table write costs one GSI on average, by the one charging rule
    (loadgen.load.writes.class_units, from emulator.units.index_write_units)."""

    per_write: float
    """Index write units per table write: puts and deletes."""
    on_hot_key: float
    """Of them, the units that land on the hottest index key's partition: its share of
    the puts, and of the deletes of entries that move away from it."""
    moves: float
    """Share of the writes that move the item's entry (2 index writes each)."""
    moving: tuple[str, ...]
    single: int
    """Units of one index write (the entry's size)."""
    rewrites_free: bool
    """A rewrite that changes nothing the index holds costs it nothing (KEYS_ONLY,
    INCLUDE): the index is written only for new or moved items."""

    def words(self, name: str) -> str:
        if self.moves > 0:
            return (
                f"index {name}: {', '.join(self.moving)} drawn per request, so "
                f"{_pct(self.moves)} of the writes move the item's index entry, and such a "
                f"write costs the index 2 writes (a delete on the old key's partition, a put "
                f"on the new key's; DynamoDB's GSI write rule): {self.per_write:.2f} WCU per "
                f"table write instead of {self.single}. Mark "
                f"{', '.join(self.moving)} per_item: true if an item keeps its value"
            )
        if self.rewrites_free:
            return (
                f"index {name}: a rewrite that changes nothing it holds costs it nothing "
                f"(its projection leaves out what the writes change): {self.per_write:.2f} "
                "WCU per table write, from new items only"
            )
        return ""


def index_cost(
    plan: IndexPlan, attrs: dict[str, Distribution], rewrites: float, hot: HotKey
) -> IndexCost:
    """Each class's units (the one rule) weighed by how often the load's writes fall in
    it: new items, rewrites that move the entry, rewrites that change it in place."""
    # The chance a fresh draw keeps the old value, from the draws' own weights.
    same = {n: sampler_for(attrs[n]).same for n in (*plan.moving, *plan.watched)}
    stays = math.prod(same[n] for n in plan.moving)
    moves = 1.0 - stays
    in_place = 1.0 if plan.always_rewritten else 1.0 - math.prod(same[n] for n in plan.watched)
    new_u, moved_u, rewritten_u, unchanged_u = plan.units
    stay_put = in_place * rewritten_u[1] + (1.0 - in_place) * unchanged_u[1]
    put = (1.0 - rewrites) * new_u[1] + rewrites * (moves * moved_u[1] + (1.0 - moves) * stay_put)
    delete = rewrites * moves * moved_u[0]
    # An entry on the hot key moves away unless the new draw keeps every moving value.
    keeps_hot = math.prod(hot.share_of(n) if n in plan.pk else same[n] for n in plan.moving)
    hot_delete = rewrites * hot.share * (1.0 - keeps_hot) * moved_u[0] if plan.moving else 0.0
    return IndexCost(
        put + delete,
        hot.share * put + hot_delete,
        rewrites * moves,
        plan.moving,
        new_u[1],
        not plan.always_rewritten and rewrites > 0 and unchanged_u[1] == 0,
    )


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
    cost: IndexCost | None = None,
) -> None:
    """The partition check and the table-level limits of one phase on the table or one
    of its GSIs: the same arithmetic for both, so it is written once. `cost`: a GSI's
    units by the charging rule (moves cost a delete and a put, on two partitions)."""
    scope = "table" if gsi_name is None else f"index {gsi_name}"
    offered = rate * units
    shown = f"{units:g}" if units == int(units) else f"{units:.2f}"
    per_request = (
        f"{_num(rate)} {_plural(phase.operation)}/s x {shown} {'WCU' if kind == 'write' else 'RCU'}"
    )
    on_key = rate * cost.on_hot_key if cost is not None else None
    advice.checks.append(
        _partition_check(
            phase, index, scope, kind, hot, offered, p, gsi=gsi_name is not None, on_key=on_key
        )
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
    on_key: float | None = None,
) -> LimitCheck:
    """The hottest key's share of the offered units against one partition (`on_key`: the
    units on it when they are not that share, a GSI whose entries move)."""
    limit = p.partition_wcu if kind == "write" else p.partition_rcu
    unit = "WCU" if kind == "write" else "RCU"
    name = f"partition {kind}"
    if kind == "read" and not (phase.consistent_read and not gsi):
        # Any replica serves an eventually consistent read (a GSI serves no other kind),
        # so one partition takes eventual_read_factor times its rate [AWS
        # reference.md#which-replica-serves-a-read]; the model's own rule.
        limit *= p.eventual_read_factor
        name = "partition read (eventually consistent, any replica)"
    if on_key is None or abs(on_key - hot.share * offered) < 1e-9 * max(1.0, offered):
        on_key = hot.share * offered
        arithmetic = (
            f"{hot.attribute}={hot.value} takes {_pct(hot.share)} x {_num(offered)} {unit}/s "
            f"= {_num(on_key)} {unit}/s"
        )
    else:
        arithmetic = (
            f"{hot.attribute}={hot.value} takes {_pct(hot.share)} of the puts and the deletes "
            f"of the entries leaving it (of {_num(offered)} {unit}/s) = {_num(on_key)} {unit}/s"
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
            f"give the index a higher-cardinality partition key, key it on {hot.attribute} "
            f"together with an attribute of at least {shards} even values (a multi-attribute "
            f"GSI key), or shard {hot.attribute} in the index key into at least {shards} "
            f"suffixes: {_num(on_key / shards)} WCU/s each (playbooks/gsi-hot-key.yaml)"
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
        name,
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
        policy = owner.auto_scaling and (
            owner.auto_scaling.write if write else owner.auto_scaling.read
        )
        if policy:
            at_target = math.ceil(offered / (policy.target_pct / 100.0) - 1e-9)
            fix = (
                f"set auto_scaling {field_name} min{' of index ' + gsi_name if gsi_name else ''} "
                f"to at least {at_target:,} {unit} ({_num(offered)} at "
                f"{policy.target_pct:g} %) before the launch: the policy starts from "
                f"{_num(capacity)} and climbs a step every few minutes (the auto scaling note)"
            )
        else:
            fix = (
                f"provision at least {_round_up(offered)} {unit} "
                f"({'write' if write else 'read'}_capacity"
                f"{' of index ' + gsi_name if gsi_name else ''}); the burst pool "
                f"({p.burst_s:g} s of capacity) only delays the throttling"
            )
        check(f"provisioned {field_name}", capacity, seconds, fix)
        return out
    initial = p.ondemand_initial_wcu if write else p.ondemand_initial_rcu
    warm = (owner_warm.write if write else owner_warm.read) if owner_warm else None
    history = table.table_history() if gsi is None else None
    # The table's past raises what it takes at once (its previous peak doubled, capacity
    # provisioned or warm throughput set before): the model's own rule, TableHistory.
    known = history.warm_floor()[1 if write else 0] if history is not None else 0.0
    base = max(initial, float(warm or 0), min(known, p.table_quota_units))
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
        if known > max(initial, float(warm or 0)):
            name = "history ceiling"  # a table that served this before
        elif warm and warm > initial:
            name = "warm-throughput ceiling"
        else:
            name = "new on-demand ceiling"
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


def hottest_key(names: list[str], attrs: dict[str, Distribution], primary: list[str]) -> HotKey:
    """The most frequent value of a key of these attributes and its share of requests:
    one attribute's (`hottest`), or for a multi-attribute GSI key the combination of
    each attribute's hottest value, whose share is the product of theirs (the load
    draws each attribute on its own). A hot tenant spread over a second attribute of
    ten even values puts a tenth of its traffic on each composite key."""
    if len(names) == 1:
        return hottest(names[0], attrs, primary)
    parts = tuple(hottest(name, attrs, primary) for name in names)
    # A part with no single hot value (spread per item, or unique) reads "any zone".
    values = [f"any {p.attribute}" if p.value.startswith("(") else p.value for p in parts]
    return HotKey(
        f"({', '.join(names)})",
        f"({', '.join(values)})",
        math.prod(p.share for p in parts),
        parts,
    )


def hottest(attribute: str, attrs: dict[str, Distribution], primary: list[str]) -> HotKey:
    """The most frequent value of `attribute` and its share of requests.

    An attribute marked per_item that is not part of the primary key is derived from the
    item's key by a hash (loadgen.load.keys.ItemGenerator.derive), which spreads it evenly
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
