"""The aggregate engine: open arrivals by key class, for days and weeks at production rates.

A capacity model's state changes per tick, not per request. For open arrivals whose keys
are drawn independently from a distribution, the requests a tick brings to each route (a
partition of the table and of every GSI the write touches) are a multinomial draw over
the routes' probabilities (`key_classes.KeyClasses`), so nothing needs doing per request.

Each second of run time:

1. The second's due requests (the same `Schedule` the per-request engine and the live
   worker use) are drawn by key class: one multinomial per independent group of classes.
2. **Quiet second**: if every resource on their routes holds the whole second's demand at
   its start, they are admitted in full at once (`CapacityModel.admit_in_full`). A
   resource's room only grows with time, so admitting them one by one within the second
   would refuse none either: the counts are exactly the per-request engine's. Requests
   that all succeed need no pairing of their table and GSI partitions: the model is given
   each index's partitions and counts, so a second costs a step per partition.
3. **Busy second** (something would refuse): the second's draw is split over its ticks
   (multivariate hypergeometric: given the second's counts, exactly how the ticks' own
   draws would share them), each tick's routes are paired across groups at random, and
   each route is admitted in a random order with `CapacityModel.write`/`.read`, a count
   and a key drawn from the route's requests: what the per-request engine does with the
   requests it drew, so a busy tick is the same draw from the same distribution.

What differs from the per-request engine is only what no count depends on: which
particular keys a partition samples (one per call, so one per partition and second in a
quiet second, where the per-request engine samples one per route and tick), and where
buckets stand at the end of a quiet second (its demand taken at the start, then refilled
to the end, which is what arrivals spread evenly over the second leave; the per-request
engine admits at the end of each tick). docs/model.md#the-aggregate-engine.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from emulator.capacity import TableCapacity
from emulator.keyspace import Partition
from emulator.model import CapacityModel, GsiWrite, IndexLoad
from loadgen.format.playbook import TableSpec
from loadgen.load.arrivals import Schedule
from loadgen.load.keys import ItemGenerator
from loadgen.load.writes import NEW, TablePlan
from loadgen.results.records import Counts, PhaseResult, RunResult
from loadgen.simulation.key_classes import Dim, KeyClasses, Unsupported
from loadgen.simulation.key_mapper import KeyMapper
from loadgen.simulation.progress import ProgressClock

__all__ = ["AggregatePhase", "Classified", "Unsupported", "classify", "run_phase"]

QUIET_BLOCK_MAX_S = 16
"""Quiet seconds are admitted in blocks of up to this many (a block fits when its whole
demand does, so at low utilisation blocks grow; they never cross a minute of model time,
the grain auto scaling watches)."""
QUIET_GROW_AFTER = 4
"""Blocks in a row that fitted before the next is tried twice as long."""
QUIET_RETRY_MAX_S = 16
"""After a busy second, the next quiet attempt waits 1, 2, 4, ... up to this many seconds
(an attempt that fails costs a second's route building; busy seconds come in runs)."""
PROGRESS_EVERY_S = 5.0


@dataclass(frozen=True)
class Classified:
    """One table under one phase, ready for the aggregate engine."""

    classes: KeyClasses
    gsis: list[tuple[str, int]]
    """The GSIs its writes put to, with the units of each put (the dims after the
    table's)."""


def classify(
    table: TableCapacity,
    spec: TableSpec,
    plan: TablePlan,
    generator: ItemGenerator,
    mappers: dict[str, KeyMapper],
    is_write: bool,
) -> Classified:
    """The key classes of one table under one phase, and the GSIs its writes put to.
    Raises `Unsupported` when a key cannot be classified."""
    pk = spec.partition_key.name
    sk = spec.sort_key.name if spec.sort_key else None
    dims = [Dim(table.base.keyspace, pk, sk)]
    gsis: list[tuple[str, int]] = []
    if is_write:
        for index in plan.indexes:
            units = index.units[NEW][1]
            if units > 0:
                dims.append(Dim(table.gsis[index.name].keyspace, index.pk, index.sk))
                gsis.append((index.name, units))
    return Classified(KeyClasses(generator, mappers, dims), gsis)


@dataclass
class AggregatePhase:
    """One open-arrival phase of one table run, for `run_phase`."""

    model: CapacityModel
    table: TableCapacity
    found: Classified
    units: float
    """Each request's units on the table (write or read units)."""
    is_write: bool
    schedule: Schedule
    duration_s: float
    offset: float
    """Run time of the phase's start."""
    start: float
    """Model time of the phase's start."""
    tick_s: float
    rng: np.random.Generator
    seq: int
    """Sequence number of the phase's first request (a monotonic attribute's value)."""
    result: RunResult
    out: PhaseResult
    clock: ProgressClock
    label: str
    stop: Callable[[], bool] | None = None
    """Asked at each second: True ends the phase there."""


@dataclass
class _Second:
    """One run second of the phase: its ticks [k, k_end), its index in the run's
    series, its due requests (`done` before it, `n` in it), and their draw by class."""

    k: int
    k_end: int
    index: int
    done: int
    n: int
    draws: list[np.ndarray] | None = None


def run_phase(phase: AggregatePhase) -> tuple[int, float]:
    """Run the phase: the sequence number after its last request, and how much of it
    ran (its duration, unless `stop` ended it early)."""
    return _Engine(phase).run()


class _Engine:
    def __init__(self, p: AggregatePhase) -> None:
        self.p = p
        self.model = p.model
        self.table = p.table
        self.classes = p.found.classes
        self.gsis = p.found.gsis
        self.rng = p.rng
        self.base_all: list[Partition] = p.table.base.keyspace.all
        self.gsi_all: list[list[Partition]] = [
            p.table.gsis[name].keyspace.all for name, _ in self.gsis
        ]
        self.units_w = int(p.units) if p.is_write else 0
        self.units_r = float(p.units)
        self.seq = p.seq

    # the phase -------------------------------------------------------------------------
    def _seconds(self) -> Iterator[_Second]:
        """The phase's run seconds: their ticks and their due requests."""
        p = self.p
        tick = p.tick_s
        ticks = int(np.ceil(p.duration_s / tick - 1e-9))
        done = 0
        k = 0
        while k < ticks:
            index = int(p.offset + k * tick + 1e-9)
            k_end = k + 1
            while k_end < ticks and int(p.offset + k_end * tick + 1e-9) == index:
                k_end += 1
            due = p.schedule.due_by(min(k_end * tick, p.duration_s))
            yield _Second(k, k_end, index, done, due - done)
            done = due
            k = k_end

    def run(self) -> tuple[int, float]:
        p = self.p
        tick = p.tick_s
        seconds = self._seconds()
        pending: list[_Second] = []
        """Seconds looked at (and maybe drawn), not yet run: a block that did not fit
        leaves its later seconds' draws for the smaller blocks that follow."""
        block_s = 1
        fits = 0  # blocks of block_s in a row that fitted
        wait = 0  # seconds until the next quiet attempt
        backoff = 1
        next_report = 0.0
        while True:
            if not pending:
                nxt = next(seconds, None)
                if nxt is None:
                    break
                pending.append(nxt)
            first = pending[0]
            if first.k and p.stop is not None and p.stop():
                return self.seq, first.k * tick
            if first.n == 0:
                self.model.advance(p.start + self._end(first))
                del pending[0]
            elif wait > 0:
                wait -= 1
                self._busy(first)
                del pending[0]
            else:
                at = p.start + first.k * tick
                self.model.advance(at)
                if self.classes.stale():
                    self.classes.refresh()
                    for drawn in pending:
                        drawn.draws = None  # drawn on the old partition map
                # Blocks end at a minute of model time: what auto scaling sums.
                minute_end = (math.floor(at / 60.0 + 1e-9) + 1) * 60.0
                while len(pending) < block_s:
                    nxt = next(seconds, None)
                    if nxt is None:
                        break
                    pending.append(nxt)
                block = [pending[0]]
                for cand in pending[1:block_s]:
                    if p.start + cand.k_end * tick > minute_end + 1e-9:
                        break
                    block.append(cand)
                if self._quiet(block, at):
                    del pending[: len(block)]
                    backoff = 1
                    fits += 1
                    if fits >= QUIET_GROW_AFTER and block_s < QUIET_BLOCK_MAX_S:
                        block_s = min(QUIET_BLOCK_MAX_S, block_s * 2)
                        fits = 0
                elif len(block) > 1:
                    block_s = max(1, len(block) // 2)  # the same seconds, in a smaller block
                    fits = 0
                    continue
                else:
                    self._busy(first)
                    del pending[0]
                    wait = backoff
                    backoff = min(QUIET_RETRY_MAX_S, backoff * 2)
            done = first.done + first.n
            t_end = self._end(first)
            if t_end >= next_report or not pending:
                p.clock.at(p.label, t_end, p.duration_s, done)
                next_report = t_end + PROGRESS_EVERY_S
        return self.seq, p.duration_s

    def _end(self, second: _Second) -> float:
        return min(second.k_end * self.p.tick_s, self.p.duration_s)

    def _draw(self, n: int) -> list[np.ndarray]:
        """Each group's class counts for `n` requests."""
        return [
            self.rng.multinomial(n, g.probs) if len(g.probs) > 1 else np.array([n])
            for g in self.classes.groups
        ]

    # quiet seconds ---------------------------------------------------------------------
    def _quiet(self, block: list[_Second], now: float) -> bool:
        """Admit a block of seconds' requests in full at its start, if they all fit."""
        for second in block:
            if second.draws is None:
                second.draws = self._draw(second.n)
        draws = [sum(d) for d in zip(*(second.draws for second in block), strict=True)]
        n = sum(second.n for second in block)
        placed = self.classes.placements(self.rng, draws, self.seq, n)
        loads = []
        indexes: list[tuple[str | None, float, list[Partition]]] = [
            (None, self.units_w if self.p.is_write else self.units_r, self.base_all)
        ]
        indexes += [
            (name, float(units), parts)
            for (name, units), parts in zip(self.gsis, self.gsi_all, strict=True)
        ]
        for (index, units, parts), (pids, counts, hashes, positions) in zip(
            indexes, placed, strict=True
        ):
            loads.append(
                IndexLoad(
                    index,
                    units,
                    [parts[i] for i in pids.tolist()],
                    counts.tolist(),
                    hashes.tolist(),
                    positions.tolist(),
                )
            )
        if not self.model.admit_in_full(self.table, loads, self.p.is_write, now=now):
            return False
        for second in block:
            counts_s = self.p.result.second(second.index)
            counts_s.sent += second.n
            counts_s.succeeded += second.n
            if self.p.is_write:
                counts_s.consumed_wcu += second.n * self.units_w
                counts_s.add_index_units((name, second.n * units) for name, units in self.gsis)
            else:
                counts_s.consumed_rcu += second.n * self.units_r
        self.seq += n
        return True

    def _pids(self, cls: list[np.ndarray]) -> list[np.ndarray]:
        """Partition ids per dim of routes given by their class in every group."""
        out = []
        for g, col in self.classes.group_of_dim:
            out.append(self.classes.groups[g].pids[cls[g], col])
        return out

    # busy seconds ----------------------------------------------------------------------
    def _busy(self, second: _Second) -> None:
        """The second tick by tick, as the per-request engine runs it."""
        p = self.p
        tick = p.tick_s
        counts = p.result.second(second.index)
        dues = []
        prev = second.done
        for j in range(second.k, second.k_end):
            due = p.schedule.due_by(min((j + 1) * tick, p.duration_s))
            dues.append(due - prev)
            prev = due
        remaining = [d.copy() for d in second.draws] if second.draws is not None else None
        seq = self.seq
        for j, n_j in zip(range(second.k, second.k_end), dues, strict=True):
            t = j * tick
            t1 = min((j + 1) * tick, p.duration_s)
            now = p.start + t1
            self.model.advance(now)
            if n_j <= 0:
                continue
            if self.classes.stale():
                # The map changed within the second: the rest is drawn on the new one.
                self.classes.refresh()
                remaining = None
            if remaining is None:
                tick_draws = self._draw(n_j)
            else:
                tick_draws = []
                for left in remaining:
                    if len(left) == 1:
                        taken = np.array([n_j])
                    else:
                        taken = self.rng.multivariate_hypergeometric(left, n_j, method="marginals")
                    left -= taken
                    tick_draws.append(taken)
            self._tick(tick_draws, n_j, now, p.offset + t, t, seq, counts)
            seq += n_j
        self.seq += second.n

    def _tick(
        self,
        draws: list[np.ndarray],
        n: int,
        now: float,
        run_t: float,
        phase_t: float,
        seq: int,
        second: Counts,
    ) -> None:
        """One tick's routes, admitted in a random order (the per-request engine's
        `_admit` for requests whose item has no past)."""
        p = self.p
        cls, sizes = _paired(self.rng, draws)
        routes = len(sizes)
        keys = self.classes.keys(self.rng, cls, seq, n)
        pids = self._pids(cls)
        sizes_l = sizes.tolist()
        part_g = [self.base_all[i] for i in pids[0].tolist()]
        pk_g = keys[0][0].tolist()
        sk_g = keys[0][1].tolist()
        gsi_g = [
            ([parts[i] for i in pids[d].tolist()], keys[d][0].tolist(), keys[d][1].tolist())
            for d, parts in zip(range(1, len(pids)), self.gsi_all, strict=True)
        ]
        order = self.rng.permutation(routes).tolist() if routes > 1 else range(routes)
        index_units: dict[str, int] = {}
        result, out = p.result, p.out
        tick = p.tick_s
        seen = 0
        for r in order:
            count = sizes_l[r]
            if p.is_write:
                writes = []
                gparts = []
                for (name, gunits), (gp, gh, gs) in zip(self.gsis, gsi_g, strict=True):
                    writes.append(GsiWrite(name, gh[r], gs[r], gunits))
                    gparts.append(gp[r])
                decision = self.model.write(
                    self.table,
                    pk_g[r],
                    sk_g[r],
                    self.units_w,
                    writes,
                    count,
                    now=now,
                    part=part_g[r],
                    gsi_parts=gparts,
                )
                accepted = decision.accepted
                second.consumed_wcu += accepted * self.units_w
                if accepted:
                    for name, gunits in self.gsis:
                        index_units[name] = index_units.get(name, 0) + accepted * gunits
            else:
                decision = self.model.read(
                    self.table, pk_g[r], sk_g[r], self.units_r, None, count, now=now, part=part_g[r]
                )
                accepted = decision.accepted
                second.consumed_rcu += accepted * self.units_r
            second.sent += count
            second.succeeded += accepted
            if decision.throttle is not None and decision.refused:
                second.throttled += decision.refused
                second.by_reason[decision.throttle.reason] += decision.refused
                second.by_exception[decision.throttle.exception] += decision.refused
                at = (seen + accepted) / n * tick
                if result.first_throttle_s is None:
                    result.first_throttle_s = run_t + at
                if out.first_throttle_s is None:
                    out.first_throttle_s = phase_t + at
            seen += count
        if index_units:
            second.add_index_units(index_units.items())


def _paired(
    rng: np.random.Generator, draws: list[np.ndarray]
) -> tuple[list[np.ndarray], np.ndarray]:
    """A tick's requests of independent groups paired at random: each route (a class in
    every group) with its count, as independent draws per request would pair them (the
    contingency table with the groups' counts as margins, drawn by successive
    hypergeometric draws)."""
    first = np.flatnonzero(draws[0])
    cls = [first]
    sizes = draws[0][first]
    for d in draws[1:]:
        if len(d) == 1:
            cls.append(np.zeros(len(sizes), dtype=np.int64))
            continue
        left = d.copy()
        new_cls: list[list[int]] = [[] for _ in range(len(cls) + 1)]
        new_sizes: list[int] = []
        rows = [c.tolist() for c in cls]
        for i, size in enumerate(sizes.tolist()):
            taken = rng.multivariate_hypergeometric(left, size, method="marginals")
            left -= taken
            for c in np.flatnonzero(taken).tolist():
                for g in range(len(cls)):
                    new_cls[g].append(rows[g][i])
                new_cls[-1].append(c)
                new_sizes.append(int(taken[c]))
        cls = [np.array(c, dtype=np.int64) for c in new_cls]
        sizes = np.array(new_sizes, dtype=np.int64)
    return cls, sizes
