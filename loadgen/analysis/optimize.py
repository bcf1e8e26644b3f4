"""`hotbench optimize`: the cheapest configuration of a playbook's tables that passes its
criteria in simulation (docs/optimize.md).

The tables that vary are split into groups that criteria tie together (a comparison of
two tables, a criterion over every run); each group is searched on its own, simulating
only its tables' runs. Every candidate is a full simulation of those runs, judged by
the playbook's criteria (loadgen.analysis.criteria) and priced for a month of traffic
and for the run by the caller's pricing (the console's one cost record): no surrogate
decides a verdict. The winners are written into the playbook, which is simulated whole,
as `hotbench check` will, before it is reported. Pure: the pricing is handed in, the
caller writes the files.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from emulator.params import DEFAULT_PARAMS, CapacityParams
from loadgen.analysis.advise import TableAdvice, advise
from loadgen.analysis.criteria import CostOf, Verdict, evaluate
from loadgen.analysis.optimize_margin import Margin, margin_of
from loadgen.analysis.optimize_search import Scored, Simulator, run_study
from loadgen.analysis.optimize_space import (
    PROVISIONED,
    Peaks,
    TableSpace,
    Values,
    WriteShardCount,
    apply_all,
    table_space,
)
from loadgen.format.optimize_spec import MonthSpec, OptimizeSpec, TableSearch
from loadgen.format.playbook import Criterion, Playbook, parse_playbook
from loadgen.results.records import PlaybookResult


@dataclass(frozen=True)
class Costs:
    """What a configuration costs: a month of traffic, and the playbook's run itself."""

    month_usd: float
    run_usd: float
    upfront_usd: float = 0.0
    """Reserved capacity's upfront payment, made once for its term (the month carries
    its share)."""
    lines: tuple[tuple[str, float], ...] = ()
    """The month's cost lines (what, USD)."""
    notes: tuple[str, ...] = ()


Pricing = Callable[[Playbook, PlaybookResult, list[str]], Costs | None]
"""(the candidate playbook, its result, the tables to price) -> their costs; None when
the configuration cannot be priced (a table class without recorded prices)."""


@dataclass
class Evaluation:
    """One configuration of a group's tables, simulated, judged and priced."""

    label: str
    """"as written", "naive fix", "seed", or "trial N"."""
    configs: dict[str, Values]
    words: str
    costs: Costs
    margins: list[Margin]
    throttle_rate: float
    """Throttled / offered requests over the varied tables' runs."""
    month_short: list[str] = field(default_factory=list)
    """Where provisioned capacity is below the mean rate the month repeats for hours."""

    @property
    def verdicts(self) -> list[Verdict]:
        return [m.verdict for m in self.margins]

    @property
    def passed(self) -> bool:
        return all(m.passed for m in self.margins) and not self.month_short

    @property
    def violation(self) -> float:
        return sum(m.violation for m in self.margins) + (1.0 if self.month_short else 0.0)

    @property
    def flagged(self) -> list[Margin]:
        return [m for m in self.margins if m.within_tolerance]

    def rank_key(self) -> tuple[float, float, float]:
        """Cheapest month, then cheapest run, then the smaller settings (warm throughput
        is not in the bill: of two equal bills, the lower setting)."""
        units = sum(
            float(v)
            for values in self.configs.values()
            for k, v in values.items()
            if isinstance(v, int | float) and not isinstance(v, bool) and k != "reserved_term"
        )
        return (round(self.costs.month_usd, 6), round(self.costs.run_usd, 6), units)


@dataclass
class GroupOutcome:
    """The search of one group of tables."""

    tables: list[str]
    spaces: list[TableSpace]
    written: Evaluation
    naive: Evaluation
    evaluations: list[Evaluation]
    trials: int
    best: Evaluation | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def passing(self) -> list[Evaluation]:
        return sorted((e for e in self.evaluations if e.passed), key=Evaluation.rank_key)

    def closest(self) -> Evaluation:
        """The configuration within the bounds that failed by the least (the playbook as
        written where the arithmetic ruled out every one, and nothing was searched)."""
        failed = [e for e in self.evaluations if not e.passed] or [self.written]
        return min(failed, key=lambda e: (e.violation, e.costs.month_usd))


@dataclass
class OptimizeReport:
    playbook: str
    month: MonthSpec
    groups: list[GroupOutcome]
    criteria_added: list[str]
    """Criteria the search added (a playbook without any), which best.yaml carries."""
    best_data: dict[str, Any] | None = None
    best_text: str | None = None
    final: Evaluation | None = None
    """The best playbook simulated whole, as `hotbench check` runs it."""
    final_result: PlaybookResult | None = None
    simulations: int = 0
    simulated_s: float = 0.0
    wall_s: float = 0.0

    @property
    def passed(self) -> bool:
        return self.final is not None and self.final.passed


@dataclass(frozen=True)
class OptimizeOptions:
    trials: int = 40
    seed: int = 1
    jobs: int = 1
    budget_s: float | None = None
    params: CapacityParams = DEFAULT_PARAMS
    progress: Callable[[str], None] | None = None


def optimize(
    data: dict[str, Any],
    pricing: Pricing,
    cost_of: CostOf | None,
    options: OptimizeOptions,
    source: str = "<playbook>",
) -> OptimizeReport:
    """Search every group of varied tables of the playbook `data` (its YAML mapping, with
    its `optimize:` section) and verify the winners whole."""
    started = time.perf_counter()
    data, added = _with_criteria(data)
    playbook = parse_playbook(data, source)
    spec = playbook.optimize or OptimizeSpec()
    varied = list(spec.tables) if spec.tables is not None else _loaded(playbook)
    # the checks only (the bounds are proved from them): no auto scaling notes
    advice = {a.table: a for a in advise(playbook, options.params, scaling=False)}
    report = OptimizeReport(playbook.name, spec.month, [], added)
    with Simulator(options.params, options.jobs) as simulator:
        for group, linked in _groups(playbook, varied):
            report.groups.append(
                _search_group(
                    _Search(playbook, data, spec, advice, pricing, cost_of, options, simulator),
                    group,
                    linked,
                )
            )
        if all(g.best is not None for g in report.groups):
            _verify(
                report, _Search(playbook, data, spec, advice, pricing, cost_of, options, simulator)
            )
        report.simulations = simulator.simulations
        report.simulated_s = simulator.seconds
    report.wall_s = time.perf_counter() - started
    return report


@dataclass
class _Search:
    playbook: Playbook
    data: dict[str, Any]
    spec: OptimizeSpec
    advice: dict[str, TableAdvice]
    pricing: Pricing
    cost_of: CostOf | None
    options: OptimizeOptions
    simulator: Simulator

    def say(self, message: str) -> None:
        if self.options.progress is not None:
            self.options.progress(message)


def _loaded(playbook: Playbook) -> list[str]:
    return list(dict.fromkeys(r.table for r in playbook.runs()))


def _with_criteria(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Without criteria, each varied table must throttle at most the optimize section's
    max_throttle_rate (default 1 %): added to the data, so best.yaml carries them."""
    if data.get("criteria"):
        return data, []
    probe = parse_playbook({**data, "criteria": []})
    spec = probe.optimize or OptimizeSpec()
    varied = list(spec.tables) if spec.tables is not None else _loaded(probe)
    added = [
        {
            "name": f"{t} throttles at most {spec.max_throttle_rate * 100:g} %",
            "metric": "throttle_rate",
            "table": t,
            "max": spec.max_throttle_rate,
        }
        for t in varied
    ]
    return {**data, "criteria": added}, [str(c["name"]) for c in added]


def _groups(playbook: Playbook, varied: list[str]) -> list[tuple[list[str], list[str]]]:
    """The varied tables in groups that criteria tie together, each with the fixed tables
    its criteria also measure (simulated as written)."""
    loaded = _loaded(playbook)
    parent = {t: t for t in loaded}

    def root(t: str) -> str:
        while parent[t] != t:
            parent[t] = parent[parent[t]]
            t = parent[t]
        return t

    for c in playbook.criteria:
        tied = loaded if c.table is None else [c.table] + ([c.compare.table] if c.compare else [])
        for other in tied[1:]:
            parent[root(other)] = root(tied[0])
    out: list[tuple[list[str], list[str]]] = []
    seen: set[str] = set()
    for t in varied:
        r = root(t)
        if r in seen:
            continue
        seen.add(r)
        members = [x for x in loaded if root(x) == r]
        out.append(([x for x in members if x in varied], [x for x in members if x not in varied]))
    return out


def _subset(data: dict[str, Any], playbook: Playbook, tables: list[str]) -> dict[str, Any]:
    """The playbook with only `tables`' runs and the criteria about them alone."""
    out = dict(data)
    out["load"] = {
        **data["load"],
        "runs": [r.model_dump() for r in playbook.runs() if r.table in tables],
    }
    every = set(_loaded(playbook)) <= set(tables)

    def about(c: Criterion) -> bool:
        if c.table is None:
            return every
        return c.table in tables and (c.compare is None or c.compare.table in tables)

    out["criteria"] = [
        raw
        for raw, parsed in zip(data.get("criteria") or [], playbook.criteria, strict=True)
        if about(parsed)
    ]
    section = out.get("optimize")
    if isinstance(section, dict) and isinstance(section.get("tables"), dict):
        out["optimize"] = {
            **section,
            "tables": {k: v for k, v in section["tables"].items() if k in tables},
        }
    return out


def _search_group(ctx: _Search, varied: list[str], linked: list[str]) -> GroupOutcome:
    tables = varied + linked
    base = _subset(ctx.data, ctx.playbook, tables)
    ctx.say(f"{', '.join(varied)}: simulating the playbook as written")
    written_result = ctx.simulator.run([base])[0]
    spec = ctx.spec
    spaces = [
        table_space(
            ctx.playbook,
            t,
            (spec.tables or {}).get(t) or TableSearch(),
            ctx.advice[t],
            ctx.options.params,
            _measured_peaks(written_result, t, ctx.playbook),
            spec.month,
        )
        for t in varied
    ]
    cache: dict[tuple[Any, ...], PlaybookResult] = {}
    evaluations: list[Evaluation] = []

    def key(configs: dict[str, Values]) -> tuple[Any, ...]:
        return tuple(s.sim_key(configs[s.name]) for s in spaces)

    def simulate(batch: list[dict[str, Values]]) -> list[PlaybookResult]:
        todo = {key(c): c for c in batch if key(c) not in cache}
        datas = [apply_all(base, spaces, c) for c in todo.values()]
        for k, result in zip(todo, ctx.simulator.run(datas), strict=True):
            cache[k] = result
        return [cache[key(c)] for c in batch]

    def judge(
        label: str, configs: dict[str, Values], result: PlaybookResult, priced: bool = True
    ) -> Evaluation:
        """The simulated configuration with each of its priced options (table class,
        reservation), judged and priced; the best of them (`priced` False: as given)."""
        combos = (
            itertools.product(*[s.priced(configs[s.name]) for s in spaces])
            if priced
            else [tuple(configs[s.name] for s in spaces)]
        )
        best: Evaluation | None = None
        room: Callable[[Criterion], float | None] | None = None
        for combo in combos:
            chosen = {s.name: values for s, values in zip(spaces, combo, strict=True)}
            candidate = parse_playbook(apply_all(base, spaces, chosen), "<candidate>")
            costs = ctx.pricing(candidate, result, varied)
            if costs is None:
                continue
            room = room or _headroom(candidate, ctx.options.params)
            margins = [
                margin_of(v, result, room(v.criterion))
                for v in evaluate(candidate, result, ctx.cost_of)
            ]
            ev = Evaluation(
                label,
                chosen,
                "; ".join(
                    f"{s.name}: {s.words(chosen[s.name]) or 'as the playbook has it'}"
                    if len(spaces) > 1
                    else s.words(chosen[s.name])
                    for s in spaces
                ),
                costs,
                margins,
                _throttle_rate(result, varied),
                _month_short(candidate, result, varied, spec.month),
            )
            if best is None or _better(ev, best):
                best = ev
        if best is None:
            raise ValueError("no table class of the configuration has recorded prices")
        return best

    written = judge(
        "as written", {s.name: s.written() for s in spaces}, written_result, priced=False
    )
    naive_configs = {s.name: s.naive_values for s in spaces}
    naive = judge("naive fix", naive_configs, simulate([naive_configs])[0], priced=False)

    def propose(trial: Any) -> dict[str, Values]:
        return {s.name: s.suggest(trial, f"{s.name}.") for s in spaces}

    counter = itertools.count(1)

    def score(batch: list[dict[str, Values]]) -> list[Scored]:
        out = []
        for configs, result in zip(batch, simulate(batch), strict=True):
            ev = judge(f"trial {next(counter)}", configs, result)
            evaluations.append(ev)
            # A millionth of a dollar per thousand units of settings: of two equal bills
            # (warm throughput is not in the bill) the search learns to prefer the lower.
            out.append(Scored(ev.costs.month_usd + 1e-9 * ev.rank_key()[2], ev.violation))
        return out

    seeds = _seed_params(spaces)

    def progress(done: int, total: int) -> None:
        passing = [e for e in evaluations if e.passed]
        cheapest = min((e.costs.month_usd for e in passing), default=None)
        best = (
            f"cheapest passing ${cheapest:,.2f}/month"
            if cheapest is not None
            else "none passes yet"
        )
        ctx.say(f"{', '.join(varied)}: {done} of {total} configurations simulated, {best}")

    possible = all(s.modes for s in spaces)
    trials = (
        run_study(
            propose,
            score,
            seeds,
            ctx.options.trials,
            ctx.options.seed,
            ctx.options.budget_s,
            progress,
        )
        if possible
        else 0
    )
    outcome = GroupOutcome(varied, spaces, written, naive, evaluations, trials)
    outcome.notes = [n for s in spaces for n in s.notes]
    passing = outcome.passing
    outcome.best = passing[0] if passing else None
    outcome.notes += _shard_notes(outcome)
    return outcome


def _headroom(playbook: Playbook, params: CapacityParams) -> Callable[[Criterion], float | None]:
    """For a criterion: how far the nearest limit of its runs sits above the offered load
    (the advice's arithmetic on the candidate; negative where a burst pool absorbs it):
    its checks only, so not the auto scaling notes' run of the policy per candidate."""
    advice = {a.table: a for a in advise(playbook, params, scaling=False)}

    def room(c: Criterion) -> float | None:
        tables = [c.table] if c.table is not None else list(advice)
        rooms = [
            check.limit_units / check.offered_units - 1.0
            for t in tables
            if t in advice
            for check in advice[t].checks
            if check.offered_units > 0 and (c.phase is None or check.phase == c.phase)
        ]
        return min(rooms) if rooms else None

    return room


def _better(a: Evaluation, b: Evaluation) -> bool:
    """Of two pricings of one simulation: the passing one, else the nearer to passing;
    then the cheaper."""
    if a.passed != b.passed:
        return a.passed
    if not a.passed and abs(a.violation - b.violation) > 1e-12:
        return a.violation < b.violation
    return a.rank_key() < b.rank_key()


def _seed_params(spaces: list[TableSpace]) -> list[dict[str, Any]]:
    """The trials the search starts from: each table's seeds (the proven bounds, per
    billing mode, and 20 % above), side by side."""
    per_table = [s.seeds() for s in spaces]
    count = max((len(p) for p in per_table), default=0)
    out = []
    for i in range(count):
        params: dict[str, Any] = {}
        for space, seeds in zip(spaces, per_table, strict=True):
            if seeds:
                params.update(space.params(f"{space.name}.", seeds[i % len(seeds)]))
        out.append(params)
    return out


def _throttle_rate(result: PlaybookResult, tables: list[str]) -> float:
    runs = [r for r in result.runs if r.table in tables]
    offered = sum(r.offered for r in runs)
    return sum(r.totals().throttled for r in runs) / offered if offered else 0.0


def _month_short(
    playbook: Playbook, result: PlaybookResult, tables: list[str], month: MonthSpec
) -> list[str]:
    """A month that repeats the load for longer than the run and the burst pool can carry
    needs provisioned capacity of at least the load's mean rate (the pool holds 300 s
    of capacity: docs/optimize.md#the-month)."""
    out = []
    for name in tables:
        spec = playbook.table(name)
        runs = [r for r in result.runs if r.table == name]
        load_s = sum(r.duration_s for r in runs)
        if spec.billing_mode != PROVISIONED or load_s <= 0:
            continue
        if month.peak_hours_per_day * 3600 <= load_s + DEFAULT_PARAMS.burst_s:
            continue
        totals = [r.totals() for r in runs]
        scaled = spec.auto_scaling_specs().get(None)
        # a side under auto scaling follows the load up to its maximum
        w_top = scaled.write.max_capacity if scaled and scaled.write else spec.write_capacity
        r_top = scaled.read.max_capacity if scaled and scaled.read else spec.read_capacity
        owners: list[tuple[str, float, float, int | None, int | None]] = [
            (
                name,
                sum(t.consumed_wcu for t in totals) / load_s,
                sum(t.consumed_rcu for t in totals) / load_s,
                w_top,
                r_top,
            )
        ]
        for g in spec.gsis:
            owners.append(
                (
                    f"{name} {g.name}",
                    sum(t.consumed_wcu_by_index.get(g.name, 0.0) for t in totals) / load_s,
                    0.0,
                    g.write_capacity,
                    g.read_capacity,
                )
            )
        for who, wcu, rcu, w_cap, r_cap in owners:
            for mean, cap, unit in ((wcu, w_cap, "WCU"), (rcu, r_cap, "RCU")):
                if cap is not None and mean > cap * 1.0001:
                    out.append(
                        f"{who}: {cap:,} {unit} is below the load's mean {mean:,.0f} {unit}/s, "
                        f"which the month repeats {month.peak_hours_per_day:g} h a day"
                    )
    return out


def _measured_peaks(result: PlaybookResult, table: str, playbook: Playbook) -> Peaks:
    runs = [r for r in result.runs if r.table == table]
    index_write: dict[str, float] = {}
    for run in runs:
        for counts in run.seconds.values():
            for g, units in counts.consumed_wcu_by_index.items():
                index_write[g] = max(index_write.get(g, 0.0), units)
    return Peaks(
        max((r.peak("consumed_wcu", 1) for r in runs), default=0.0),
        max((r.peak("consumed_rcu", 1) for r in runs), default=0.0),
        index_write,
        {},
    )


def _shard_notes(outcome: GroupOutcome) -> list[str]:
    """Where a key is shardable: the fewest shards that pass, and whether capacity alone
    could (the naive fix adds capacity only)."""
    out = []
    for space in outcome.spaces:
        dim = next((d for d in space.dims if isinstance(d, WriteShardCount)), None)
        if dim is None:
            continue
        passing = [
            e.configs[space.name]["shards"]
            for e in outcome.evaluations
            if e.passed and "shards" in e.configs[space.name]
        ]
        unsharded = [
            e
            for e in [outcome.written, outcome.naive, *outcome.evaluations]
            if e.configs[space.name].get("shards", 1) == 1
        ]
        alone = min(unsharded, key=lambda e: e.throttle_rate) if unsharded else None
        if passing:
            out.append(f"the fewest shards of {dim.shards.key} that pass: {min(passing)}")
        if alone is not None and not alone.passed:
            out.append(
                "capacity alone cannot: unsharded, the best simulated "
                f"({alone.label}: {alone.words}) throttles {alone.throttle_rate * 100:.1f} %"
            )
        elif dim.low > 1:
            out.append("capacity alone cannot (the arithmetic above)")
    return out


# --- the winner, whole ----------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    """Quotes the strings YAML 1.1 readers take for booleans (Terraform's yamldecode reads
    an unquoted N as false)."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if value in ("N", "Y", "n", "y", "yes", "no", "on", "off"):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    return dumper.represent_str(value)


_Dumper.add_representer(str, _str)


def playbook_text(data: dict[str, Any]) -> str:
    """The playbook's data as YAML, in its own key order."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


def _verify(report: OptimizeReport, ctx: _Search) -> None:
    """Write each group's winner into the whole playbook and simulate it as `hotbench
    check` will (from the YAML text); a group whose winner fails there (the group was
    simulated alone, with its own random numbers) gives way to its next cheapest."""
    choices = {id(g): list(g.passing[:5]) for g in report.groups}
    for _ in range(5):
        configs: dict[str, Values] = {}
        spaces = [s for g in report.groups for s in g.spaces]
        for g in report.groups:
            assert g.best is not None
            configs.update(g.best.configs)
        data = apply_all(ctx.data, spaces, configs)
        text = playbook_text(data)
        playbook = parse_playbook(yaml.safe_load(text), "<best>")
        ctx.say("simulating the best playbook whole, as `hotbench check` will")
        result = ctx.simulator.run([yaml.safe_load(text)])[0]
        varied = [t for g in report.groups for t in g.tables]
        costs = ctx.pricing(playbook, result, varied)
        assert costs is not None
        margins = [margin_of(v, result) for v in evaluate(playbook, result, ctx.cost_of)]
        final = Evaluation(
            "best, whole",
            configs,
            "; ".join(g.best.words for g in report.groups if g.best is not None),
            costs,
            margins,
            _throttle_rate(result, varied),
            _month_short(playbook, result, varied, report.month),
        )
        report.best_data, report.best_text, report.final = data, text, final
        report.final_result = result
        if final.passed:
            return
        failing = {m.verdict.criterion.table for m in margins if not m.passed}
        moved = False
        for g in report.groups:
            if failing & set(g.tables) or None in failing:
                options = choices[id(g)]
                if len(options) > 1:
                    options.pop(0)
                    g.best = options[0]
                    moved = True
        if not moved:
            return


def describe_failure(outcome: GroupOutcome) -> list[str]:
    """Nothing passed: which criterion failed closest, and what bound to widen."""
    closest = outcome.closest()
    failing = sorted((m for m in closest.margins if not m.passed), key=lambda m: m.violation)
    lines = [
        f"nothing passed within the bounds ({outcome.trials} configurations simulated); "
        f"the closest: {closest.words or 'as written'} ({closest.label})"
    ]
    for m in failing[:1]:
        v = m.verdict
        lines.append(
            f"the criterion that failed closest: {v.criterion.name} (measured "
            f"{v.measured_text}, expected {v.expected})"
        )
    lines += [f"month: {s}" for s in closest.month_short[:1]]
    if outcome.naive.passed:
        lines.append(
            f"outside the bounds, the naive fix passes: {outcome.naive.words} at "
            f"${outcome.naive.costs.month_usd:,.2f} a month"
        )
    near = sorted((e for e in outcome.evaluations if not e.passed), key=lambda e: e.violation)[
        :3
    ] or [closest]
    hints = [h for e in near for s in outcome.spaces for h in s.edges(e.configs[s.name])]
    hints += [n for n in outcome.notes if "at least" in n or "left out" in n]
    lines += [f"widen: {h}" for h in dict.fromkeys(hints)] or [
        "widen: no bound of the search was reached; more --trials may find one, or the "
        "criteria ask for more than these tables can give"
    ]
    return lines


def frontier(evaluations: list[Evaluation]) -> list[Evaluation]:
    """The configurations no other beats on both monthly cost and throttle rate, from the
    least throttled to the cheapest."""
    ranked = sorted(evaluations, key=lambda e: (e.throttle_rate, e.costs.month_usd))
    out: list[Evaluation] = []
    cheapest = math.inf
    for e in ranked:
        if e.costs.month_usd < cheapest - 1e-9:
            out.append(e)
            cheapest = e.costs.month_usd
    return out
