"""Virtual-time simulation: a playbook's load through the capacity model, no HTTP.

Time advances in ticks. Each tick, the requests the schedule makes due are drawn by the
same key generator a live worker uses, located on their partitions in bulk, grouped by
route (the partitions and limits they need), and admitted group by group in a random
order: a group of n is exactly n sequential requests, so the only approximation is that
requests within one tick arrive at the tick's end.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from emulator.capacity import TableCapacity
from emulator.keyspace import KeySpace, key_bytes, partition_hash, sort_position
from emulator.model import CapacityModel, GsiWrite
from emulator.params import DEFAULT_PARAMS, CapacityParams
from emulator.units import read_units, write_units
from loadgen.arrivals import Schedule
from loadgen.keys import ItemGenerator, Sampler, mix64
from loadgen.playbook import Phase, Playbook, TableSpec
from loadgen.results import PhaseResult, PlaybookResult, RunResult

TICK_S = 0.05
PRECOMPUTE_LIMIT = 200_000
KEYS_ONLY_BYTES = 100
"""Approximate size of a KEYS_ONLY index entry: always one write unit."""

Progress = Callable[[str, float], None]
"""(label, fraction done of the current run) -> None."""


class KeyMapper:
    """One attribute's value indices as the model sees them: hash and sort position.

    Finite value sets (up to PRECOMPUTE_LIMIT values) are rendered once, so the hash is
    exactly what the endpoint computes from the same value and the order is DynamoDB's.
    Never-repeating values use a hash of the index (an MD5 of a random UUID is as uniform
    as any) and the index as the position (monotonic values rise with it).
    """

    def __init__(self, sampler: Sampler) -> None:
        self.sampler = sampler
        self._hashes: np.ndarray | None = None
        self._positions: np.ndarray | None = None
        finite = sampler.finite
        self.exact = finite is not None and finite <= PRECOMPUTE_LIMIT

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
            return mix64(idx)
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
    gsi_units: list[tuple[str, str, str | None, int]]
    """(index name, pk attribute, sk attribute, write units per table write)."""


def _table_load(
    spec: TableSpec,
    phase: Phase,
    playbook: Playbook,
    cache: dict[tuple[str, str], KeyMapper],
    params: CapacityParams,
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
    gsi_units = []
    for g in spec.gsis:
        projected = KEYS_ONLY_BYTES if g.projection == "KEYS_ONLY" else spec.item_size_bytes
        gsi_units.append(
            (
                g.name,
                g.partition_key.name,
                g.sort_key.name if g.sort_key else None,
                write_units(projected, params),
            )
        )
    return _TableLoad(spec, generator, mappers, gsi_units)


class Simulation:
    """Runs a playbook in virtual time; one model for the whole playbook."""

    def __init__(
        self,
        playbook: Playbook,
        params: CapacityParams = DEFAULT_PARAMS,
        tick_s: float = TICK_S,
        progress: Progress | None = None,
    ) -> None:
        self.playbook = playbook
        self.params = params
        self.tick_s = tick_s
        self.progress = progress
        self.model = CapacityModel(params)
        self.rng = np.random.default_rng(playbook.load.seed)
        self.now = 0.0
        self.seq = 0
        self._mappers: dict[tuple[str, str], KeyMapper] = {}

    def run(self) -> PlaybookResult:
        started = datetime.now(UTC).isoformat(timespec="seconds")
        wall0 = time.perf_counter()
        result = PlaybookResult(
            self.playbook.name, "simulate", self.params.scale, started_at=started, target="model"
        )
        for run in self.playbook.runs():
            spec = self.playbook.table(run.table)
            if spec.name not in self.model.tables:
                self.model.create_table(spec.create_table_request(spec.name), self.now)
            for repeat in range(1, run.repeats + 1):
                if repeat > 1 and run.pause_s > 0:
                    self.idle(run.pause_s)
                result.runs.append(self.run_once(spec, repeat))
        result.wall_s = time.perf_counter() - wall0
        return result

    def idle(self, seconds: float) -> None:
        """Let time pass with no traffic (splits land, pressure cools)."""
        self.now += seconds
        self.model.advance(self.now)

    def run_once(self, spec: TableSpec, repeat: int) -> RunResult:
        phases = self.playbook.load.phases
        result = RunResult(spec.name, repeat, sum(p.duration_s for p in phases))
        offset = 0.0
        for phase in phases:
            result.phases.append(self._phase(spec, phase, offset, result))
            offset += phase.duration_s
        return result

    def _phase(
        self, spec: TableSpec, phase: Phase, offset: float, result: RunResult
    ) -> PhaseResult:
        load = _table_load(spec, phase, self.playbook, self._mappers, self.params)
        table = self.model.tables[spec.name]
        schedule = Schedule.for_phase(phase)
        out = PhaseResult(
            phase.name, phase.operation, offset, phase.duration_s, offered=schedule.total
        )
        is_write = phase.operation in ("put", "update")
        units_w = write_units(spec.item_size_bytes, self.params)
        units_r = read_units(spec.item_size_bytes, phase.consistent_read, self.params)
        pk_name = spec.partition_key.name
        sk_name = spec.sort_key.name if spec.sort_key else None
        base_ks = table.base.keyspace
        gsi_keyspaces = [table.gsis[name].keyspace for name, *_ in load.gsi_units]
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
                self._tick(
                    load,
                    table,
                    base_ks,
                    gsi_keyspaces,
                    pk_name,
                    sk_name,
                    is_write,
                    units_w,
                    units_r,
                    n,
                    now,
                    offset + t,
                    t,
                    result,
                    out,
                )
            if self.progress is not None and t1 >= next_report:
                self.progress(label, t1 / phase.duration_s)
                next_report = t1 + 5.0
        self.now = phase_start + phase.duration_s
        self.model.advance(self.now)
        for second in range(int(offset), int(offset + phase.duration_s)):
            result.second(second)  # a second with no traffic is still in the run's series
        out.counts.add(result.totals_between(offset, phase.duration_s))
        return out

    def _tick(
        self,
        load: _TableLoad,
        table: TableCapacity,
        base_ks: KeySpace,
        gsi_keyspaces: list[KeySpace],
        pk_name: str,
        sk_name: str | None,
        is_write: bool,
        units_w: int,
        units_r: float,
        n: int,
        now: float,
        run_t: float,
        phase_t: float,
        result: RunResult,
        out: PhaseResult,
    ) -> None:
        idx = load.generator.draw(self.rng, n, self.seq)
        self.seq += n
        pk_hash = load.mappers[pk_name].hashes(idx[pk_name])
        sk_pos = (
            load.mappers[sk_name].positions(idx[sk_name])
            if sk_name
            else np.zeros(n, dtype=np.float64)
        )
        base_pids = base_ks.locate_many(pk_hash, sk_pos)
        route_key = base_pids.copy()
        gsi_cols: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        if is_write:
            for (_, gpk, gsk, _), gks in zip(load.gsi_units, gsi_keyspaces, strict=True):
                ghash = load.mappers[gpk].hashes(idx[gpk])
                gpos = (
                    load.mappers[gsk].positions(idx[gsk]) if gsk else np.zeros(n, dtype=np.float64)
                )
                gpids = gks.locate_many(ghash, gpos)
                gsi_cols.append((ghash, gpos, gpids))
                route_key = route_key * np.int64(len(gks.all) + 1) + gpids
        groups, first, counts = np.unique(route_key, return_index=True, return_counts=True)
        second = result.second(int(run_t + 1e-9))
        order = self.rng.permutation(len(groups)) if len(groups) > 1 else range(len(groups))
        seen = 0
        for g in order:
            i = int(first[g])
            count = int(counts[g])
            part = base_ks.all[int(base_pids[i])]
            if is_write:
                writes = [
                    GsiWrite(name, int(gh[i]), float(gp[i]), units)
                    for (name, _, _, units), (gh, gp, _) in zip(
                        load.gsi_units, gsi_cols, strict=True
                    )
                ]
                gparts = [
                    gks.all[int(gpids[i])]
                    for gks, (_, _, gpids) in zip(gsi_keyspaces, gsi_cols, strict=True)
                ]
                decision = self.model.write(
                    table,
                    int(pk_hash[i]),
                    float(sk_pos[i]),
                    units_w,
                    writes,
                    count,
                    now=now,
                    part=part,
                    gsi_parts=gparts,
                )
                second.consumed_wcu += decision.accepted * units_w
                if decision.accepted:  # what the model charged each index (on-demand bills it)
                    second.add_index_units((w.index, decision.accepted * w.units) for w in writes)
            else:
                decision = self.model.read(
                    table,
                    int(pk_hash[i]),
                    float(sk_pos[i]),
                    units_r,
                    None,
                    count,
                    now=now,
                    part=part,
                )
                second.consumed_rcu += decision.accepted * units_r
            second.sent += count
            second.succeeded += decision.accepted
            if decision.throttle is not None and decision.refused:
                second.throttled += decision.refused
                second.by_reason[decision.throttle.reason] += decision.refused
                second.by_exception[decision.throttle.exception] += decision.refused
                # Within the tick, requests arrive evenly; the first refusal came after
                # the ones admitted before it.
                at = (seen + decision.accepted) / n * self.tick_s
                if result.first_throttle_s is None:
                    result.first_throttle_s = run_t + at
                if out.first_throttle_s is None:
                    out.first_throttle_s = phase_t + at
            seen += count


def simulate(
    playbook: Playbook,
    params: CapacityParams = DEFAULT_PARAMS,
    progress: Progress | None = None,
    tick_s: float = TICK_S,
) -> PlaybookResult:
    """Run every table run of a playbook through the capacity model in virtual time."""
    return Simulation(playbook, params, tick_s, progress).run()
