"""Virtual-time simulation: a playbook's load through the capacity model, no HTTP.

Time advances in ticks. Each tick, the requests the schedule makes due are drawn by the
same key generator a live worker uses, located on their partitions in bulk, grouped by
route (the partitions and limits they need), and admitted group by group in a random
order: a group of n is exactly n sequential requests, so the only approximation is that
requests within one tick arrive at the tick's end.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from emulator.capacity import TableCapacity
from emulator.capacity_record import PROVISIONED_SERIES, CapacityRecord
from emulator.keyspace import Partition, key_bytes, partition_hash, sort_position
from emulator.model import CapacityModel, GsiWrite
from emulator.params import DEFAULT_PARAMS, CapacityParams
from loadgen.format.playbook import Phase, Playbook, TableSpec
from loadgen.load.arrivals import Schedule
from loadgen.load.keys import ItemGenerator, Sampler, mix64
from loadgen.load.seed import seed_blocks
from loadgen.load.writes import (
    KEYS_ONLY_BYTES,
    NEW,
    ItemStates,
    TablePlan,
    classes,
    previous,
    record,
    store_key,
    table_plan,
)
from loadgen.results.records import PhaseResult, PlaybookResult, RunResult
from loadgen.simulation.closed_loop import EngineOptions, PhaseRun, simulate_phase
from loadgen.simulation.item_collections import ItemCollections

TICK_S = 0.05
PRECOMPUTE_LIMIT = 200_000
__all__ = ["KEYS_ONLY_BYTES", "KeyMapper", "Simulation", "simulate"]

Progress = Callable[[str, float], None]
"""(label, fraction done of the current run) -> None."""


class KeyMapper:
    """One attribute's value indices as the model sees them: hash and sort position.

    Finite value sets (up to PRECOMPUTE_LIMIT values) are rendered once, so the hash is
    exactly what the endpoint computes from the same value and the order is DynamoDB's.
    A larger set hashes its heavy values (`Sampler.heavy`: a zipf's busiest, each drawn
    at least `HEAVY_SHARE` of the time) exactly too, and the rest by a hash of the
    index: which busy customers share a partition decides whether it throttles (zipf
    s=1 over a million customers at 6,000 writes/s on eight partitions: the busiest
    partition takes 1,207 writes/s by the values' hashes, 1,033 by the indices'), while
    where the rare values land only averages out. Never-repeating values use a hash of
    the index (an MD5 of a random UUID is as uniform as any), and every set larger than
    PRECOMPUTE_LIMIT the index as the position (monotonic values rise with it).
    """

    def __init__(self, sampler: Sampler) -> None:
        self.sampler = sampler
        self._hashes: np.ndarray | None = None
        self._positions: np.ndarray | None = None
        finite = sampler.finite
        self.exact = finite is not None and finite <= PRECOMPUTE_LIMIT
        self.head = 0 if self.exact else min(sampler.heavy, PRECOMPUTE_LIMIT)
        """The first indices hashed exactly in a set too large to hash in full."""
        self._head_hashes: np.ndarray | None = None

    def _exact_hashes(self, count: int) -> np.ndarray:
        render = self.sampler.render
        return np.array(
            [partition_hash(key_bytes(render(i))) for i in range(count)], dtype=np.uint64
        )

    def _precompute(self) -> None:
        finite = self.sampler.finite
        assert finite is not None
        values = [self.sampler.render(i) for i in range(finite)]
        self._hashes = np.array([partition_hash(key_bytes(v)) for v in values], dtype=np.uint64)
        order = sorted(range(finite), key=lambda i: sort_position(values[i]))
        ranks = np.empty(finite, dtype=np.float64)
        ranks[np.array(order, dtype=np.int64)] = np.arange(finite, dtype=np.float64)
        self._positions = ranks

    def hashes(self, idx: np.ndarray) -> np.ndarray:
        if not self.exact:
            out = mix64(idx)
            if self.head:
                if self._head_hashes is None:
                    self._head_hashes = self._exact_hashes(self.head)
                heavy = idx < self.head
                out[heavy] = self._head_hashes[idx[heavy]]
            return out
        if self._hashes is None:
            self._precompute()
        assert self._hashes is not None
        return self._hashes[idx]

    def positions(self, idx: np.ndarray) -> np.ndarray:
        if not self.exact:
            return idx.astype(np.float64)
        if self._positions is None:
            self._precompute()
        assert self._positions is not None
        return self._positions[idx]


@dataclass
class _TableLoad:
    """What one table needs to turn drawn items into model calls."""

    spec: TableSpec
    generator: ItemGenerator
    mappers: dict[str, KeyMapper]
    plan: TablePlan
    """What each class of request costs, from the one charging rule (loadgen.load.writes)."""
    states: ItemStates | None
    """The items of a finite primary-key space (None: every item is new)."""
    primary: list[str]


def _table_load(
    spec: TableSpec,
    phase: Phase,
    playbook: Playbook,
    cache: dict[tuple[str, str], KeyMapper],
    params: CapacityParams,
    stores: dict[str, ItemStates | None] | None = None,
) -> _TableLoad:
    attributes = {**playbook.load.attributes, **phase.attributes}
    key_names = [k.name for k in spec.key_attributes()]
    primary = spec.primary_key_names()
    generator = ItemGenerator(attributes, key_names, primary)
    mappers = {}
    for name, sampler in generator.samplers.items():
        cache_key = (phase.name if name in phase.attributes else "", name)
        mapper = cache.get(cache_key)
        if mapper is None:
            mapper = cache[cache_key] = KeyMapper(sampler)
        mappers[name] = mapper
    is_write = phase.operation in ("put", "update")
    plan = table_plan(spec, generator, attributes, phase.consistent_read, is_write, params)
    states = None
    if stores is not None:
        states = stores.get(store_key(spec.name, attributes, primary))
        if states is not None:
            for name in plan.tracked:
                states.track(name)
    return _TableLoad(spec, generator, mappers, plan, states, primary)


def _new_states(spec: TableSpec, generator: ItemGenerator, primary: list[str]) -> ItemStates | None:
    """An empty item store for a finite primary-key space; None for a never-repeating one."""
    radices = [generator.samplers[n].finite for n in primary]
    if any(r is None for r in radices):
        return None
    tracked = [n for n in generator.names if n not in primary]
    return ItemStates([int(r or 0) for r in radices], tracked)


def _group(
    cols: list[np.ndarray], radices: list[int], with_inverse: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Requests with identical routes, in the order of their (mixed-radix) route: each
    group's first request and count, and (`with_inverse`) each request's group. One int64
    key when the radices fit, else the same order row by row."""
    if math.prod(radices) < (1 << 62):
        key = cols[0].astype(np.int64)
        for col, radix in zip(cols[1:], radices[1:], strict=True):
            key = key * np.int64(radix) + col
        if not with_inverse:
            _, first, counts = np.unique(key, return_index=True, return_counts=True)
            return first, counts, None
        _, first, inverse, counts = np.unique(
            key, return_index=True, return_inverse=True, return_counts=True
        )
        return first, counts, inverse
    rows = np.stack(cols, axis=1)
    _, first, inverse, counts = np.unique(
        rows, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    return first, counts, inverse.reshape(-1)


def run_capacity(
    records: dict[str | None, CapacityRecord], start: float, end: float
) -> dict[str, Any]:
    """The provisioned capacity of a table and its GSIs from `start` to `end` (model
    seconds) in the capacity record's JSON shape, on the run's clock: the point in force at
    `start` at 0, then every later change before `end` (what a run's cost prices step by
    step, console.cost.capacity_moves)."""
    out: dict[str, Any] = {}
    for index, kept in records.items():
        first = kept.at(start)
        points = [p for p in kept.points if start < p.t < end]
        series = ([first] if first is not None else []) + points
        out[index or "$table"] = {
            "series": [
                {**p.as_dict(), "t": round(max(0.0, p.t - start), 3)}
                for p in series
                if p.kind == PROVISIONED_SERIES
            ]
        }
    return out


class Simulation:
    """Runs a playbook in virtual time; one model for the whole playbook."""

    def __init__(
        self,
        playbook: Playbook,
        params: CapacityParams = DEFAULT_PARAMS,
        tick_s: float = TICK_S,
        progress: Progress | None = None,
        seed_limit: int | None = None,
    ) -> None:
        self.playbook = playbook
        self.params = params
        self.tick_s = tick_s
        self.progress = progress
        self.seed_limit = seed_limit
        """Seed at most this many items per table, as a live run with the same limit
        does (None: the playbook's seed_items)."""
        self.model = CapacityModel(params)
        self.rng = np.random.default_rng(playbook.load.seed)
        self.now = 0.0
        self.seq = 0
        self._mappers: dict[tuple[str, str], KeyMapper] = {}
        self._stores: dict[str, ItemStates | None] = {}
        """Item states by table and primary-key distributions (loadgen.load.writes.store_key),
        for the tables whose charges depend on the items' past."""
        self._closed_state: dict[str, tuple[ItemCollections, dict[Any, Any]]] = {}
        """The closed-loop engine's growing state per table: collections and items,
        kept across its phases and repeats as the table keeps its data."""

    def run(self) -> PlaybookResult:
        started = datetime.now(UTC).isoformat(timespec="seconds")
        wall0 = time.perf_counter()
        result = PlaybookResult(
            self.playbook.name, "simulate", self.params.scale, started_at=started, target="model"
        )
        for run in self.playbook.runs():
            spec = self.playbook.table(run.table)
            if spec.name not in self.model.tables:
                # The history travels in the request's tag; auto scaling, a service apart
                # from DynamoDB, is put on as a Terraform apply of the variant would.
                self.model.create_table(
                    spec.create_table_request(spec.name),
                    self.now,
                    auto_scaling=spec.auto_scaling_specs(),
                )
                self._prepare_items(spec)
            for repeat in range(1, run.repeats + 1):
                if repeat > 1 and run.pause_s > 0:
                    self.idle(run.pause_s)
                result.runs.append(self.run_once(spec, repeat))
        result.wall_s = time.perf_counter() - wall0
        return result

    def _prepare_items(self, spec: TableSpec) -> None:
        """Item stores for a table whose charges depend on its items' past (whether an
        item existed, what its index keys were), with the items a live run seeds."""
        load = self.playbook.load
        primary = spec.primary_key_names()
        keys = [k.name for k in spec.key_attributes()]
        needed = False
        by_phase = []
        for phase in load.phases:
            if phase.kind.engine != "requests":
                continue  # the closed-loop engine keeps its own item state
            attributes = {**load.attributes, **phase.attributes}
            generator = ItemGenerator(attributes, keys, primary)
            by_phase.append((attributes, generator))
            is_write = phase.operation in ("put", "update")
            plan = table_plan(
                spec, generator, attributes, phase.consistent_read, is_write, self.params
            )
            needed = needed or plan.needs_state
        if not needed:
            return
        for attributes, generator in by_phase:
            key = store_key(spec.name, attributes, primary)
            if key not in self._stores:
                self._stores[key] = _new_states(spec, generator, primary)
        if spec.seed_items == 0 or self.seed_limit == 0:
            return
        seed_attrs = {**load.attributes, **load.seed_attributes}
        key = store_key(spec.name, seed_attrs, primary)
        try:
            blocks = seed_blocks(self.playbook, spec, self.seed_limit)
            for generator, block in blocks:
                if key not in self._stores:
                    self._stores[key] = _new_states(spec, generator, primary)
                states = self._stores[key]
                if states is None:
                    return
                mappers = {n: self._mapper(("seed", n), generator) for n in states.hashes}
                current = {
                    n: (m.hashes(block[n]), m.positions(block[n])) for n, m in mappers.items()
                }
                rows = states.rows_of(states.ids(block, primary))
                record(states, rows, np.ones(len(rows), dtype=bool), current)
        except ValueError:
            return  # no finite key to seed by: a live run refuses it, nothing to mark

    def _mapper(self, key: tuple[str, str], generator: ItemGenerator) -> KeyMapper:
        mapper = self._mappers.get(key)
        if mapper is None:
            mapper = self._mappers[key] = KeyMapper(generator.samplers[key[1]])
        return mapper

    def idle(self, seconds: float) -> None:
        """Let time pass with no traffic (splits land, pressure cools)."""
        self.now += seconds
        self.model.advance(self.now)

    def run_once(self, spec: TableSpec, repeat: int) -> RunResult:
        phases = self.playbook.load.phases
        result = RunResult(spec.name, repeat, sum(p.duration_s for p in phases))
        started = self.now
        offset = 0.0
        for phase in phases:
            result.phases.append(self._phase(spec, phase, offset, result))
            offset += phase.duration_s
        if spec.auto_scaling_specs():
            result.capacity = run_capacity(
                self.model.capacity_records(spec.name), started, self.now
            )
        return result

    def _phase(
        self, spec: TableSpec, phase: Phase, offset: float, result: RunResult
    ) -> PhaseResult:
        """The phase on the engine its kind names (loadgen.format.kinds: `requests`, this
        module's vectorised open loop; `iterations`, the closed-loop engine)."""
        if phase.kind.engine == "iterations":
            return self._closed_loop_phase(spec, phase, offset, result)
        return self._open_loop_phase(spec, phase, offset, result)

    def _open_loop_phase(
        self, spec: TableSpec, phase: Phase, offset: float, result: RunResult
    ) -> PhaseResult:
        """One operation at open arrivals: every tick's due requests drawn, located and
        admitted in bulk."""
        load = _table_load(spec, phase, self.playbook, self._mappers, self.params, self._stores)
        table = self.model.tables[spec.name]
        schedule = Schedule.for_phase(phase)
        out = PhaseResult(
            phase.name, phase.operation, offset, phase.duration_s, offered=schedule.total
        )
        tick_of = _Tick(
            load, table, phase.operation in ("put", "update"), result, out, phase.consistent_read
        )
        phase_start = self.now
        done = 0
        tick = self.tick_s
        ticks = int(np.ceil(phase.duration_s / tick - 1e-9))
        label = f"{spec.name} #{result.repeat} {phase.name}"
        next_report = 0.0
        for k in range(ticks):
            t = k * tick
            t1 = min((k + 1) * tick, phase.duration_s)
            due = schedule.due_by(t1)
            n = due - done
            done = due
            now = phase_start + t1
            self.model.advance(now)
            if n > 0:
                self._tick(tick_of, n, now, offset + t, t)
            if self.progress is not None and t1 >= next_report:
                self.progress(label, t1 / phase.duration_s)
                next_report = t1 + 5.0
        self.now = phase_start + phase.duration_s
        self.model.advance(self.now)
        for second in range(int(offset), int(offset + phase.duration_s)):
            result.second(second)  # a second with no traffic is still in the run's series
        out.counts.add(result.totals_between(offset, phase.duration_s))
        return out

    def _closed_loop_phase(
        self, spec: TableSpec, phase: Phase, offset: float, result: RunResult
    ) -> PhaseResult:
        """A users, mix, scenario or retrying phase: request by request in virtual time
        (loadgen.simulation.closed_loop), on the same model and clock as every other phase."""
        out = PhaseResult(phase.name, phase.kind.iterations.label, offset, phase.duration_s)
        state = self._closed_state.setdefault(spec.name, (ItemCollections(), {}))
        run = PhaseRun(
            self.playbook, spec, phase, self.model, self.now, offset, result, out, *state
        )
        simulate_phase(
            run, EngineOptions(self.params, seed=self.playbook.load.seed + len(result.phases))
        )
        self.now += phase.duration_s
        self.model.advance(self.now)
        for second in range(int(offset), int(offset + phase.duration_s)):
            result.second(second)
        out.counts.add(result.totals_between(offset, phase.duration_s))
        out.offered = out.counts.sent
        if self.progress is not None:
            self.progress(f"{spec.name} #{result.repeat} {phase.name}", 1.0)
        return out

    def _tick(self, tk: _Tick, n: int, now: float, run_t: float, phase_t: float) -> None:
        """The `n` requests due in one tick. Writes to items with a past are admitted in
        rounds, the k-th write of each item in round k, so each sees what the admitted
        writes before it left (a throttled one leaves the item as it was)."""
        load = tk.load
        idx = load.generator.draw(self.rng, n, self.seq)
        self.seq += n
        states = load.states
        if states is None:
            self._admit(tk, idx, None, n, 0, now, run_t, phase_t)
            return
        rows = states.rows_of(states.ids(idx, load.primary))
        rank = occurrences(rows) if tk.is_write else None
        if rank is None or not rank.any():
            self._admit(tk, idx, rows, n, 0, now, run_t, phase_t)
            return
        seen = 0
        for r in range(int(rank.max()) + 1):
            sel = np.nonzero(rank == r)[0]
            part = {name: values[sel] for name, values in idx.items()}
            seen = self._admit(tk, part, rows[sel], n, seen, now, run_t, phase_t)

    def _admit(
        self,
        tk: _Tick,
        idx: dict[str, np.ndarray],
        rows: np.ndarray | None,
        n_tick: int,
        seen: int,
        now: float,
        run_t: float,
        phase_t: float,
    ) -> int:
        """Admit drawn requests (all of a tick, or one round of it) group by group; the
        count of the tick's requests taken so far, `seen` plus these."""
        load, table, result, out = tk.load, tk.table, tk.result, tk.out
        plan = load.plan
        n = len(idx[tk.pk_name])
        base_ks = table.base.keyspace
        pk_hash = load.mappers[tk.pk_name].hashes(idx[tk.pk_name])
        sk_pos = (
            load.mappers[tk.sk_name].positions(idx[tk.sk_name])
            if tk.sk_name
            else np.zeros(n, dtype=np.float64)
        )
        base_pids = base_ks.locate_many(pk_hash, sk_pos)
        states = load.states
        current: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        before: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        existed: np.ndarray | None = None
        if states is not None and rows is not None:
            # The item's past: whether it existed, and its tracked attributes' values.
            if tk.is_write:
                for name in states.hashes:
                    m = load.mappers[name]
                    current[name] = (m.hashes(idx[name]), m.positions(idx[name]))
                existed, before = previous(states, rows, current)
            else:
                existed = states.existed[rows]
        cols = [base_pids]
        radices = [len(base_ks.all)]
        # Per GSI: (hash, position, partition id) of the new entry, then, when the item's
        # past decides the charge, per request: put units, and the old entry's hash,
        # position, partition id and delete units. Without a past (a never-repeating key)
        # every request is a new item: one class, one charge.
        gsi_cols: list[tuple[np.ndarray, ...]] = []
        moved_any = False
        if tk.is_write:
            changed = {name: before[name][0] != h for name, (h, _) in current.items()}
            for g, gks in zip(plan.indexes, tk.gsi_keyspaces, strict=True):
                ghash = load.mappers[g.pk].hashes(idx[g.pk])
                gpos = (
                    load.mappers[g.sk].positions(idx[g.sk])
                    if g.sk
                    else np.zeros(n, dtype=np.float64)
                )
                gpids = gks.locate_many(ghash, gpos)
                sentinel = len(gks.all)
                radices.append(sentinel + 1)
                if existed is None:
                    put = g.units[NEW][1]
                    cols.append(gpids if put > 0 else np.full(n, sentinel, dtype=np.int64))
                    gsi_cols.append((ghash, gpos, gpids))
                    continue
                units = np.array(g.units, dtype=np.int64)[classes(g, existed, changed)]
                old_u, new_u = units[:, 0], units[:, 1]
                cols.append(np.where(new_u > 0, gpids, sentinel))
                old_h, old_p, old_pids = ghash, gpos, gpids
                if old_u.any():
                    # A moved entry's delete lands on its OLD key's partition.
                    moved_any = True
                    old_h = before[g.pk][0] if g.pk in before else ghash
                    old_p = before[g.sk][1] if g.sk is not None and g.sk in before else gpos
                    old_pids = gks.locate_many(old_h, old_p)
                    cols.append(np.where(old_u > 0, old_pids, sentinel))
                    radices.append(sentinel + 1)
                if new_u.min() != new_u.max():
                    cols.append(new_u)
                    radices.append(int(new_u.max()) + 1)
                gsi_cols.append((ghash, gpos, gpids, new_u, old_h, old_p, old_pids, old_u))
        table_units: np.ndarray | None = None
        if existed is not None:
            by_existed = plan.write_units if tk.is_write else plan.read_units
            if by_existed[0] != by_existed[1]:
                table_units = np.where(existed, by_existed[1], by_existed[0])
                cols.append(existed.astype(np.int64))
                radices.append(2)
        fixed_units = plan.write_units[0] if tk.is_write else plan.read_units[0]
        recording = tk.is_write and states is not None
        first, counts, inverse = _group(cols, radices, recording)
        groups = len(first)
        second = result.second(int(run_t + 1e-9))
        order = self.rng.permutation(groups).tolist() if groups > 1 else range(groups)
        accepted_by_group = np.zeros(groups, dtype=np.int64) if recording else None
        names = tk.gsi_names
        # Each group's values, taken at its first request once for the whole tick as
        # Python numbers (one gather and one tolist per column, not a numpy scalar index
        # and a conversion per group and column inside the loop).
        counts_g = counts.tolist()
        pk_g = pk_hash[first].tolist()
        sk_g = sk_pos[first].tolist()
        part_g = [base_ks.all[p] for p in base_pids[first].tolist()]
        if table_units is not None:
            units_g = table_units[first].tolist()
        else:
            fixed = int(fixed_units) if tk.is_write else float(fixed_units)
            units_g = [fixed] * groups
        gsi_g = [[col[first].tolist() for col in c] for c in gsi_cols]
        # Whole units each index was charged in this call, added to the second once (a
        # sum of whole numbers: the same total as adding them group by group).
        index_units: dict[str, int] = {}
        for grp in order:
            count = counts_g[grp]
            part = part_g[grp]
            if tk.is_write:
                units_w = units_g[grp]
                writes = []
                gparts = []
                old_parts: list[Partition | None] = []
                for g, name, gks, c in zip(
                    plan.indexes, names, tk.gsi_keyspaces, gsi_g, strict=True
                ):
                    if len(c) == 3:
                        writes.append(GsiWrite(name, c[0][grp], c[1][grp], g.units[NEW][1]))
                        gparts.append(gks.all[c[2][grp]])
                        old_parts.append(None)
                        continue
                    gh, gp, gpids, nu, oh, op, opids, ou = c
                    o = ou[grp]
                    writes.append(GsiWrite(name, gh[grp], gp[grp], nu[grp], oh[grp], op[grp], o))
                    gparts.append(gks.all[gpids[grp]])
                    old_parts.append(gks.all[opids[grp]] if o > 0 else None)
                decision = self.model.write(
                    table,
                    pk_g[grp],
                    sk_g[grp],
                    units_w,
                    writes,
                    count,
                    now=now,
                    part=part,
                    gsi_parts=gparts,
                    gsi_old_parts=old_parts if moved_any else None,
                )
                second.consumed_wcu += decision.accepted * units_w
                if decision.accepted:  # what the model charged each index (on-demand bills it)
                    for w in writes:
                        used = w.units + w.old_units
                        if used:
                            index_units[w.index] = (
                                index_units.get(w.index, 0) + decision.accepted * used
                            )
            else:
                units_r = units_g[grp]
                decision = self.model.read(
                    table,
                    pk_g[grp],
                    sk_g[grp],
                    units_r,
                    None,
                    count,
                    now=now,
                    part=part,
                    consistent=tk.consistent,
                )
                second.consumed_rcu += decision.accepted * units_r
            if accepted_by_group is not None:
                accepted_by_group[grp] = decision.accepted
            second.sent += count
            second.succeeded += decision.accepted
            if decision.throttle is not None and decision.refused:
                second.throttled += decision.refused
                second.by_reason[decision.throttle.reason] += decision.refused
                second.by_exception[decision.throttle.exception] += decision.refused
                # Within the tick, requests arrive evenly; the first refusal came after
                # the ones admitted before it.
                at = (seen + decision.accepted) / n_tick * self.tick_s
                if result.first_throttle_s is None:
                    result.first_throttle_s = run_t + at
                if out.first_throttle_s is None:
                    out.first_throttle_s = phase_t + at
            seen += count
        if index_units:
            second.add_index_units(index_units.items())
        if recording and states is not None and rows is not None:
            assert inverse is not None and accepted_by_group is not None
            # A group's first `accepted` requests (in draw order) were admitted.
            by_group = np.argsort(inverse, kind="stable")
            starts = np.cumsum(counts) - counts
            rank = np.empty(n, dtype=np.int64)
            rank[by_group] = np.arange(n) - starts[inverse[by_group]]
            record(states, rows, rank < accepted_by_group[inverse], current)
        return seen


def occurrences(rows: np.ndarray) -> np.ndarray:
    """Each request's count of earlier requests (in draw order) on the same item."""
    order = np.argsort(rows, kind="stable")
    srows = rows[order]
    starts = np.ones(len(rows), dtype=bool)
    starts[1:] = srows[1:] != srows[:-1]
    first = np.maximum.accumulate(np.where(starts, np.arange(len(rows)), 0))
    rank = np.empty(len(rows), dtype=np.int64)
    rank[order] = np.arange(len(rows)) - first
    return rank


class _Tick:
    """What every tick of one phase shares (looked up once per phase, not per tick)."""

    def __init__(
        self,
        load: _TableLoad,
        table: TableCapacity,
        is_write: bool,
        result: RunResult,
        out: PhaseResult,
        consistent: bool = False,
    ) -> None:
        self.load = load
        self.consistent = consistent
        """Reads are strongly consistent (`consistent_read: true`): the partition's leader
        serves them; else any replica may (emulator `CapacityModel.read`)."""
        self.table = table
        self.is_write = is_write
        self.result = result
        self.out = out
        spec = load.spec
        self.pk_name = spec.partition_key.name
        self.sk_name = spec.sort_key.name if spec.sort_key else None
        self.gsi_names = [g.name for g in load.plan.indexes]
        self.gsi_keyspaces = [table.gsis[name].keyspace for name in self.gsi_names]


def simulate(
    playbook: Playbook,
    params: CapacityParams = DEFAULT_PARAMS,
    progress: Progress | None = None,
    tick_s: float = TICK_S,
    seed_limit: int | None = None,
) -> PlaybookResult:
    """Run every table run of a playbook through the capacity model in virtual time."""
    return Simulation(playbook, params, tick_s, progress, seed_limit).run()
