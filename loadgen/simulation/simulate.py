"""Virtual-time simulation: a playbook's load through the capacity model, no HTTP.

Time advances in ticks. Each tick, the requests the schedule makes due are drawn by the
same key generator a live worker uses, located on their partitions in bulk, grouped by
route (the partitions and limits they need), and admitted group by group in a random
order: a group of n is exactly n sequential requests, so the only approximation is that
requests within one tick arrive at the tick's end.

That is the per-request engine, which every phase can run on. A phase of open arrivals
whose requests need no item state runs on the aggregate engine instead
(loadgen/simulation/aggregate.py: the same draws by key class, with no work per request);
`engine` forces one or the other (docs/model.md#the-aggregate-engine).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np

from emulator.capacity import TableCapacity
from emulator.compositekey import composite_partition_hash
from emulator.keyspace import Partition
from emulator.model import CapacityModel, GsiWrite
from emulator.params import DEFAULT_PARAMS, CapacityParams
from loadgen.format.playbook import Phase, Playbook, TableSpec
from loadgen.load.arrivals import Schedule
from loadgen.load.keys import ItemGenerator, mix64
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
from loadgen.results.capacity_series import moved, run_capacity
from loadgen.results.records import PhaseResult, PlaybookResult, RunResult
from loadgen.simulation import aggregate
from loadgen.simulation.closed_loop import EngineOptions, PhaseRun, simulate_phase
from loadgen.simulation.item_collections import ItemCollections
from loadgen.simulation.key_mapper import KeyMapper
from loadgen.simulation.model_update import apply_change, wait_active
from loadgen.simulation.progress import Progress, ProgressClock, SimProgress, clock

TICK_S = 0.05
ENGINES = ("auto", "aggregate", "per-request")
"""`auto`: the aggregate engine for every phase it can run, per request for the rest."""
__all__ = [
    "ENGINES",
    "KEYS_ONLY_BYTES",
    "EngineUnavailable",
    "KeyMapper",
    "Progress",
    "SimProgress",
    "Simulation",
    "simulate",
]


class EngineUnavailable(ValueError):
    """The aggregate engine was asked for a phase it cannot run (the reason, in words)."""


EXACT_COMBINATIONS = 1_000_000
"""A multi-attribute key of at most this many value combinations is hashed exactly, each
combination the first time the load draws it (so at most this many cached hashes)."""


class CompositeKeyMapper:
    """Several attributes' value indices as one multi-attribute key (a GSI's partition
    key of up to four attributes, or its sort key): one hash and one position, as
    KeyMapper gives for one attribute.

    The combinations are numbered in mixed radix (the first attribute's index most
    significant). Up to EXACT_COMBINATIONS of them, each combination the load draws is
    rendered once and hashed by the endpoint's own function
    (`emulator.compositekey.composite_partition_hash`), so a composite key lands on the
    partition the emulator puts it on; a larger or never-repeating space uses a hash of
    the combination, as KeyMapper does for one such attribute. Positions are the parts'
    positions combined left to right: with each part's rank that is exactly the order of
    `composite_sort_position` (DynamoDB's: by the first attribute, then the second, ...).
    Hashed as drawn, not all at once: rendering and hashing 200,000 combinations of four
    attributes took 10 s, most of them never drawn.
    """

    def __init__(self, parts: list[KeyMapper]) -> None:
        self.parts = parts
        self.radices = [p.sampler.finite for p in parts]
        finite = math.prod(r or 0 for r in self.radices) if all(self.radices) else None
        self.exact = finite is not None and finite <= EXACT_COMBINATIONS
        self._hashes: dict[int, int] = {}

    def combined(self, cols: list[np.ndarray]) -> np.ndarray:
        """Each request's combination: its mixed-radix number where the combinations
        are hashed exactly, else a 64-bit mix of the parts' indices."""
        if self.exact:
            out = np.zeros(len(cols[0]), dtype=np.int64)
            for col, radix in zip(cols, self.radices, strict=True):
                out = out * np.int64(radix or 1) + col
            return out
        mixed = np.zeros(len(cols[0]), dtype=np.uint64)
        with np.errstate(over="ignore"):
            for col in cols:
                mixed = mix64(mixed * np.uint64(1_000_003) + col.astype(np.uint64))
        return mixed

    def _hash_of(self, combination: int) -> int:
        """One combination's hash, from its values as the endpoint would see them."""
        values = []
        for part, radix in zip(reversed(self.parts), reversed(self.radices), strict=True):
            combination, index = divmod(combination, int(radix or 1))
            values.append(part.sampler.render(index))
        return composite_partition_hash(values[::-1])

    def hashes(self, cols: list[np.ndarray]) -> np.ndarray:
        combined = self.combined(cols)
        if not self.exact:
            return mix64(combined)
        seen, inverse = np.unique(combined, return_inverse=True)
        cache = self._hashes
        out = np.fromiter(
            (
                cache[c] if c in cache else cache.setdefault(c, self._hash_of(c))
                for c in seen.tolist()
            ),
            dtype=np.uint64,
            count=len(seen),
        )
        return out[inverse.reshape(-1)]

    def positions(self, cols: list[np.ndarray]) -> np.ndarray:
        out = np.zeros(len(cols[0]), dtype=np.float64)
        for part, col, radix in zip(self.parts, cols, self.radices, strict=True):
            out = out * float(radix or (1 << 32)) + part.positions(col)
        return out


COMPOSITE_SEPARATOR = "\x1f"
"""Joins a multi-attribute key's attribute names (a control character no playbook's
attribute name has)."""


def composite_name(names: tuple[str, ...]) -> str:
    """The name a multi-attribute key is tracked by in an item's past (ItemStates)."""
    return COMPOSITE_SEPARATOR.join(names)


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
    composites: dict[str, tuple[tuple[str, ...], CompositeKeyMapper]]
    """The GSIs' multi-attribute keys by composite_name: their attributes and mapper."""

    def key_columns(
        self, names: tuple[str, ...], idx: dict[str, np.ndarray], n: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Hashes and positions of a key of these attributes (none: no sort key)."""
        if not names:
            return np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=np.float64)
        if len(names) == 1:
            m = self.mappers[names[0]]
            return m.hashes(idx[names[0]]), m.positions(idx[names[0]])
        _, mapper = self.composites[composite_name(names)]
        cols = [idx[name] for name in names]
        return mapper.hashes(cols), mapper.positions(cols)

    def tracked_columns(
        self, name: str, idx: dict[str, np.ndarray]
    ) -> tuple[np.ndarray, np.ndarray]:
        """An attribute's (or a multi-attribute key's) current hashes and positions."""
        if name in self.composites:
            names, _ = self.composites[name]
            return self.key_columns(names, idx, len(idx[names[0]]))
        m = self.mappers[name]
        return m.hashes(idx[name]), m.positions(idx[name])


def _table_load(
    spec: TableSpec,
    phase: Phase,
    playbook: Playbook,
    cache: dict[tuple[str, str], KeyMapper],
    params: CapacityParams,
    stores: dict[str, ItemStates | None] | None = None,
    composite_cache: dict[tuple[str, str], CompositeKeyMapper] | None = None,
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
    kept = {} if composite_cache is None else composite_cache
    composites = composite_mappers(plan, mappers, kept, phase)
    states = None
    if stores is not None:
        states = stores.get(store_key(spec.name, attributes, primary))
        if states is not None:
            for name in (*plan.tracked, *moving_composites(plan)):
                states.track(name)
    return _TableLoad(spec, generator, mappers, plan, states, primary, composites)


def composite_mappers(
    plan: TablePlan,
    mappers: dict[str, KeyMapper],
    cache: dict[tuple[str, str], CompositeKeyMapper],
    phase: Phase,
) -> dict[str, tuple[tuple[str, ...], CompositeKeyMapper]]:
    """A CompositeKeyMapper per multi-attribute key of the table's GSIs, kept across the
    phases that draw its attributes alike (its rendered combinations are the work)."""
    out: dict[str, tuple[tuple[str, ...], CompositeKeyMapper]] = {}
    for g in plan.indexes:
        for names in (g.pk, g.sk):
            if len(names) < 2:
                continue
            name = composite_name(names)
            key = (phase.name if any(n in phase.attributes for n in names) else "", name)
            mapper = cache.get(key)
            if mapper is None:
                mapper = cache[key] = CompositeKeyMapper([mappers[n] for n in names])
            out[name] = (names, mapper)
    return out


def moving_composites(plan: TablePlan) -> list[str]:
    """The multi-attribute keys whose entries can move (an attribute drawn per request):
    their previous value per item is kept, as an attribute's is, to delete the old entry
    on its own partition."""
    return [
        composite_name(names)
        for g in plan.indexes
        for names in (g.pk, g.sk)
        if len(names) > 1 and any(n in g.moving for n in names)
    ]


def _new_states(spec: TableSpec, generator: ItemGenerator, primary: list[str]) -> ItemStates | None:
    """An empty item store for a finite primary-key space; None for a never-repeating one."""
    radices = [generator.samplers[n].finite for n in primary]
    if any(r is None for r in radices):
        return None
    tracked = [n for n in generator.names if n not in primary]
    tracked += [composite_name(names) for names in composite_keys(spec)]
    return ItemStates([int(r or 0) for r in radices], tracked)


def composite_keys(spec: TableSpec) -> list[tuple[str, ...]]:
    """The multi-attribute keys (partition or sort) of a table's GSIs, as attribute names."""
    keys = [tuple(k.name for k in g.partition_keys) for g in spec.gsis]
    keys += [tuple(k.name for k in g.sort_keys) for g in spec.gsis]
    return [names for names in keys if len(names) > 1]


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


class Simulation:
    """Runs a playbook in virtual time; one model for the whole playbook."""

    def __init__(
        self,
        playbook: Playbook,
        params: CapacityParams = DEFAULT_PARAMS,
        tick_s: float = TICK_S,
        progress: Progress | None = None,
        seed_limit: int | None = None,
        *,
        engine: str = "auto",
        stop: Callable[[], bool] | None = None,
    ) -> None:
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
        self.playbook = playbook
        self.params = params
        self.tick_s = tick_s
        self.progress = progress
        self.engine = engine
        self.stop = stop
        """Asked every simulated second: True ends the simulation there, the run in
        progress kept as a partial result (Ctrl-C in `hotbench simulate`)."""
        self.stopped_at: float | None = None
        """Where the run in progress was stopped (run time), once `stop` said so."""
        self.seed_limit = seed_limit
        """Seed at most this many items per table, as a live run with the same limit
        does (None: the playbook's seed_items)."""
        self.model = CapacityModel(params)
        self.rng = np.random.default_rng(playbook.load.seed)
        self.now = 0.0
        self.seq = 0
        self._mappers: dict[tuple[str, str], KeyMapper] = {}
        self._composites: dict[tuple[str, str], CompositeKeyMapper] = {}
        self._stores: dict[str, ItemStates | None] = {}
        """Item states by table and primary-key distributions (loadgen.load.writes.store_key),
        for the tables whose charges depend on the items' past."""
        self._closed_state: dict[str, tuple[ItemCollections, dict[Any, Any]]] = {}
        """The closed-loop engine's growing state per table: collections and items,
        kept across its phases and repeats as the table keeps its data."""
        self._classes: dict[str, aggregate.Classified | str] = {}
        """Per table and phase's keys (distributions, operation): its key classes for the
        aggregate engine, or why it cannot run there (kept across phases and repeats:
        the table keeps its partitions; one copy per distinct keys, as a million-value
        attribute's classes take tens of MB)."""
        phases_s = sum(p.duration_s for p in playbook.load.phases)
        self.clock = ProgressClock(
            sum(r.repeats * phases_s + (r.repeats - 1) * r.pause_s for r in playbook.runs()),
            progress,
        )
        self._requests: dict[str, dict[str, Any]] = {}
        """Each table's settings as UpdateTable left them (CreateTable-shaped), for the
        playbook's capacity changes."""

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
                self._requests[spec.name] = spec.create_table_request(spec.name)
                self.model.create_table(
                    self._requests[spec.name],
                    self.now,
                    auto_scaling=spec.auto_scaling_specs(),
                )
                self._prepare_items(spec)
            for repeat in range(1, run.repeats + 1):
                if repeat > 1 and run.pause_s > 0:
                    self.idle(run.pause_s)
                result.runs.append(self.run_once(spec, repeat))
                if self.stopped_at is not None:
                    break
            if self.stopped_at is not None:
                break
        result.wall_s = time.perf_counter() - wall0
        return result

    def _stopping(self) -> bool:
        return self.stop is not None and self.stop()

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
                current = {}
                for n in states.hashes:
                    names = n.split(COMPOSITE_SEPARATOR)
                    parts = [self._mapper(("seed", a), generator) for a in names]
                    cols = [block[a] for a in names]
                    if len(parts) == 1:
                        current[n] = (parts[0].hashes(cols[0]), parts[0].positions(cols[0]))
                    else:  # a multi-attribute GSI key of the seeded item
                        both = self._composites.get(("seed", n))
                        if both is None:
                            both = self._composites[("seed", n)] = CompositeKeyMapper(parts)
                        current[n] = (both.hashes(cols), both.positions(cols))
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
        self.clock.passed(seconds)

    def run_once(self, spec: TableSpec, repeat: int) -> RunResult:
        phases = self.playbook.load.phases
        result = RunResult(spec.name, repeat, sum(p.duration_s for p in phases))
        offset = 0.0
        start = self.now
        for phase in phases:
            out = self._phase(spec, phase, offset, result)
            result.phases.append(out)
            self.clock.passed(out.duration_s, out.counts.sent)
            offset += out.duration_s
            if self.stopped_at is None and self._stopping():
                self.stopped_at = offset
            if self.stopped_at is not None:
                break
        if self.stopped_at is not None:
            result.partial = True
            result.duration_s = offset
            planned = clock(sum(p.duration_s for p in phases))
            result.notes.append(
                f"stopped (Ctrl-C) {clock(offset)} into the run of {planned}: its counts "
                "are those of the seconds simulated"
            )
        else:
            result.duration_s = offset  # a change's phase lasts as long as DynamoDB takes
        capacity = run_capacity(self.model.capacity_view(spec.name)["indexes"], start, self.now)
        if moved(capacity):
            result.capacity = capacity
        return result

    def _phase(
        self, spec: TableSpec, phase: Phase, offset: float, result: RunResult
    ) -> PhaseResult:
        """The phase on the engine its kind names (loadgen.format.kinds: `requests`, this
        module's vectorised open loop; `iterations`, the closed-loop engine; `control`, a
        capacity change: loadgen.simulation.model_update)."""
        engines = {
            "iterations": self._closed_loop_phase,
            "control": self._control_phase,
            "requests": self._open_loop_phase,
        }
        return engines[phase.kind.engine](spec, phase, offset, result)

    def _control_phase(
        self, spec: TableSpec, phase: Phase, offset: float, result: RunResult
    ) -> PhaseResult:
        """The phase's UpdateTable at its start; with `wait: active`, the phase lasts
        until the table and its GSIs are ACTIVE again (at least its duration_s)."""
        control = phase.kind.capacity_change()
        start = self.now
        self.model.advance(start)
        # No UpdateTable on an UPDATING table: the change waits for the one before it, as
        # every target's changer does (loadgen.live.segmented_run).
        asked = start + wait_active(self.model, spec.name, start)
        outcome = apply_change(self.model, self._requests, control, spec.name, asked)
        waited = asked - start
        if outcome.accepted and control.waits:
            outcome.active_after_s = wait_active(self.model, spec.name, asked)
            waited += outcome.active_after_s
        duration = float(math.ceil(max(phase.duration_s, waited) - 1e-9))
        self.now = start + duration
        self.model.advance(self.now)
        for second in range(int(offset), int(offset + duration)):
            result.second(second)
        self.clock.at(f"{spec.name} #{result.repeat} {phase.name}", duration, duration, 0)
        return PhaseResult(phase.name, control.label, offset, duration, offered=0, change=outcome)

    def _open_loop_phase(
        self, spec: TableSpec, phase: Phase, offset: float, result: RunResult
    ) -> PhaseResult:
        """One operation at open arrivals: every tick's due requests drawn, located and
        admitted in bulk."""
        load = _table_load(
            spec, phase, self.playbook, self._mappers, self.params, self._stores, self._composites
        )
        table = self.model.tables[spec.name]
        schedule = Schedule.for_phase(phase)
        out = PhaseResult(
            phase.name, phase.operation, offset, phase.duration_s, offered=schedule.total
        )
        is_write = phase.operation in ("put", "update")
        label = f"{spec.name} #{result.repeat} {phase.name}"
        phase_start = self.now
        classes = self._key_classes(spec, phase, load, table, is_write)
        if classes is not None:
            duration = self._aggregate_phase(classes, load, phase, schedule, offset, result, out)
        else:
            duration = self._per_request_phase(load, phase, schedule, offset, result, out, label)
        if duration < phase.duration_s:  # stopped
            self.stopped_at = offset + duration
            out.duration_s = duration
            out.offered = schedule.due_by(duration)
        self.now = phase_start + duration
        self.model.advance(self.now)
        for second in range(int(offset), int(offset + duration)):
            result.second(second)  # a second with no traffic is still in the run's series
        out.counts.add(result.totals_between(offset, duration))
        return out

    def _key_classes(
        self,
        spec: TableSpec,
        phase: Phase,
        load: _TableLoad,
        table: TableCapacity,
        is_write: bool,
    ) -> aggregate.Classified | None:
        """The aggregate engine's key classes for this phase, or None for the
        per-request engine (forced, or the phase needs what only it has)."""
        if self.engine == "per-request":
            return None
        # Phases with the same keys share their classes (a day of hourly phases: one).
        attributes = {**self.playbook.load.attributes, **phase.attributes}
        keys = {
            k.name: attributes[k.name].model_dump(mode="json")
            for k in spec.key_attributes()
            if k.name in attributes
        }
        key = json.dumps([spec.name, is_write, phase.consistent_read, keys], sort_keys=True)
        known = self._classes.get(key)
        if known is None:
            if load.states is not None:
                known = (
                    "its charges depend on each item's past (whether it existed, which "
                    "index keys it had), which only the per-request engine keeps"
                )
            elif not is_write and phase.consistent_read:
                # admit_in_full meets a read at any replica's rate; the leader alone
                # serves a strongly consistent one (CapacityModel.read's `consistent`).
                known = (
                    "its reads are strongly consistent (served by the leader alone), "
                    "which only the per-request engine charges"
                )
            else:
                try:
                    known = aggregate.classify(
                        table, spec, load.plan, load.generator, load.mappers, is_write
                    )
                except aggregate.Unsupported as exc:
                    known = str(exc)
            self._classes[key] = known
        if isinstance(known, str):
            if self.engine == "aggregate":
                raise EngineUnavailable(
                    f"phase {phase.name!r} of table {spec.name!r} cannot run on the aggregate "
                    f"engine: {known}; use --engine auto or per-request"
                )
            return None
        return known

    def _aggregate_phase(
        self,
        found: aggregate.Classified,
        load: _TableLoad,
        phase: Phase,
        schedule: Schedule,
        offset: float,
        result: RunResult,
        out: PhaseResult,
    ) -> float:
        """The phase on the aggregate engine; how much of it ran (all unless stopped)."""
        is_write = phase.operation in ("put", "update")
        plan = load.plan
        out.engine = "aggregate"
        run = aggregate.AggregatePhase(
            model=self.model,
            table=self.model.tables[load.spec.name],
            found=found,
            units=plan.write_units[0] if is_write else plan.read_units[0],
            is_write=is_write,
            schedule=schedule,
            duration_s=phase.duration_s,
            offset=offset,
            start=self.now,
            tick_s=self.tick_s,
            rng=self.rng,
            seq=self.seq,
            result=result,
            out=out,
            clock=self.clock,
            label=f"{load.spec.name} #{result.repeat} {phase.name}",
            stop=self.stop,
        )
        self.seq, ran = aggregate.run_phase(run)
        return ran

    def _per_request_phase(
        self,
        load: _TableLoad,
        phase: Phase,
        schedule: Schedule,
        offset: float,
        result: RunResult,
        out: PhaseResult,
        label: str,
    ) -> float:
        """The phase request by request, tick by tick; how much of it ran."""
        out.engine = "per-request"
        table = self.model.tables[load.spec.name]
        tick_of = _Tick(
            load, table, phase.operation in ("put", "update"), result, out, phase.consistent_read
        )
        phase_start = self.now
        done = 0
        tick = self.tick_s
        ticks = int(np.ceil(phase.duration_s / tick - 1e-9))
        next_report = 0.0
        second = int(offset + 1e-9)
        for k in range(ticks):
            t = k * tick
            starts = int(offset + t + 1e-9)
            if starts != second:
                second = starts
                if self._stopping():
                    return t
            t1 = min((k + 1) * tick, phase.duration_s)
            due = schedule.due_by(t1)
            n = due - done
            done = due
            now = phase_start + t1
            self.model.advance(now)
            if n > 0:
                self._tick(tick_of, n, now, offset + t, t)
            if t1 >= next_report:
                self.clock.at(label, t1, phase.duration_s, done)
                next_report = t1 + 5.0
        return phase.duration_s

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
        out.engine = "per-request"
        self.clock.at(
            f"{spec.name} #{result.repeat} {phase.name}",
            phase.duration_s,
            phase.duration_s,
            out.counts.sent,
        )
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
                    current[name] = load.tracked_columns(name, idx)
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
                ghash = load.key_columns(g.pk, idx, n)[0]
                gpos = load.key_columns(g.sk, idx, n)[1]
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
                    pk_name, sk_name = composite_name(g.pk), composite_name(g.sk)
                    old_h = before[pk_name][0] if pk_name in before else ghash
                    old_p = before[sk_name][1] if g.sk and sk_name in before else gpos
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
    *,
    engine: str = "auto",
    stop: Callable[[], bool] | None = None,
) -> PlaybookResult:
    """Run every table run of a playbook through the capacity model in virtual time
    (`engine`: ENGINES; `stop`: asked every simulated second, True ends it there)."""
    return Simulation(
        playbook, params, tick_s, progress, seed_limit, engine=engine, stop=stop
    ).run()
