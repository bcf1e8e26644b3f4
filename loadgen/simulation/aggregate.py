"""The aggregate engine: open arrivals by key class, for days and weeks at production rates.

A capacity model's state changes per tick, not per request. For open arrivals whose keys
are drawn independently from a distribution, the requests a tick brings to each route (a
partition of the table and of every GSI the write touches) are a multinomial draw over
the routes' probabilities (`key_classes.KeyClasses`), so nothing needs doing per request.

Each second of run time:

1. The second's due requests (the same `Schedule` the per-request engine and the live
   worker use) are drawn by key class: one multinomial per independent group of classes.
2. **Quiet second**: if every resource on their routes holds the whole second's demand at
   the end of its first tick (the earliest any of them is admitted per request), they
   are admitted in full at once (`CapacityModel.admit_in_full`). A
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
buckets stand at the end of a quiet second (its demand taken at its first tick's end, then
refilled to the end, which is what arrivals spread evenly over the second leave; the per-request
engine admits at the end of each tick). Each second draws from random streams of its own
(`_Engine._stream`), so which path a second takes never changes what later seconds draw.
docs/model.md#the-aggregate-engine.
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

QUIET_BLOCK_MAX_S = 60
"""Quiet seconds go to the model in blocks of up to this many (each second admitted at
its start, up to the first that does not fit); a block never crosses a minute of model
time, the grain auto scaling watches, and doubles after each that fitted whole."""
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
                if len(index.pk) != 1 or len(index.sk) > 1:
                    # Its classes would be combinations of several attributes' classes,
                    # hashed together: not built (the per-request engine hashes them).
                    raise Unsupported(
                        f"GSI {index.name!r} has a multi-attribute key, which only the "
                        "per-request engine hashes"
                    )
                sk_name = index.sk[0] if index.sk else None
                dims.append(Dim(table.gsis[index.name].keyspace, index.pk[0], sk_name))
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
    drawn_on: int = -1
    """The engine's partition-map epoch the draws were made on (`_Engine.epoch`)."""


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
        # Every second draws from streams of its own (`_stream`), derived from one draw
        # of the phase's generator: see `_stream` for why.
        self._bits = np.random.PCG64(int(p.rng.integers(1 << 62)))
        self._origin = self._bits.state
        self.rng = np.random.Generator(self._bits)
        self.base_all: list[Partition] = p.table.base.keyspace.all
        self.gsi_all: list[list[Partition]] = [
            p.table.gsis[name].keyspace.all for name, _ in self.gsis
        ]
        self.units_w = int(p.units) if p.is_write else 0
        self.units_r = float(p.units)
        self.indexes: list[tuple[str | None, float, list[Partition]]] = [
            (None, self.units_w if p.is_write else self.units_r, self.base_all)
        ]
        """Each dim's index (None: the table), units per request and partitions."""
        self.indexes += [
            (name, float(units), parts)
            for (name, units), parts in zip(self.gsis, self.gsi_all, strict=True)
        ]
        self.seq = p.seq
        self.epoch = 0
        """How many times the key classes were recomputed: a draw is on the map of its epoch."""

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
        """Seconds looked at (and maybe drawn), not yet run: a block admitted in part
        leaves its later seconds' draws for what follows."""
        block_s = 1
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
            ran = 1
            if first.n == 0:
                self.model.advance(p.start + self._end(first))
            else:
                at = p.start + first.k * tick
                self.model.advance(at)
                self._refresh()
                if wait > 0:
                    wait -= 1
                    if self._busy(first):
                        wait = 0  # it all fitted after all
                else:
                    # Blocks end at a minute of model time (what auto scaling sums) and
                    # before the model's next scheduled change (a split, growth, a
                    # capacity change landing, auto scaling's next datapoint): the ticks
                    # a block skips must change nothing its seconds are admitted by.
                    minute_end = (math.floor(at / 60.0 + 1e-9) + 1) * 60.0
                    settled = self.model.settled_until(at)
                    while len(pending) < block_s:
                        nxt = next(seconds, None)
                        if nxt is None:
                            break
                        pending.append(nxt)
                    block = [pending[0]]
                    for cand in pending[1:block_s]:
                        if p.start + cand.k_end * tick > minute_end + 1e-9:
                            break
                        if p.start + cand.k * tick >= settled - 1e-9:
                            break
                        block.append(cand)
                    ran = self._quiet(block, self._admitted_at(first))
                    if ran == len(block):
                        backoff = 1
                        block_s = min(QUIET_BLOCK_MAX_S, block_s * 2)
                    elif ran:
                        wait = 1  # the second that did not fit: tick by tick, next
                    else:
                        self._busy(first)
                        ran = 1
                        block_s = 1
                        wait = backoff
                        backoff = min(QUIET_RETRY_MAX_S, backoff * 2)
            last = pending[ran - 1]
            del pending[:ran]
            t_end = self._end(last)
            if t_end >= next_report or not pending:
                p.clock.at(p.label, t_end, p.duration_s, last.done + last.n)
                next_report = t_end + PROGRESS_EVERY_S
        return self.seq, p.duration_s

    def _end(self, second: _Second) -> float:
        return min(second.k_end * self.p.tick_s, self.p.duration_s)

    def _admitted_at(self, second: _Second) -> float:
        """Model time a second's requests admitted in full are taken at: the end of its
        first tick, the earliest the per-request engine admits any of them (it admits a
        tick's requests at the tick's end). Taken at the second's start instead, a GSI
        log began to drain a tick early, so a log that later filled refused a tick later
        than per request, and whether a second went quiet or tick by tick (which a burst
        grace decides) shifted the first throttle by a tick."""
        return self.p.start + min((second.k + 1) * self.p.tick_s, self.p.duration_s)

    def _refresh(self) -> bool:
        """Recompute the key classes if a partition map changed (a split, growth, a
        capacity change landing); True if it did. Seconds drawn before are drawn again
        when used (`_drawn`)."""
        if not self.classes.stale():
            return False
        self.classes.refresh()
        self.epoch += 1
        return True

    def _stream(self, k: int, which: int) -> None:
        """Point `self.rng` at stream `which` of the second starting at tick `k`: 0 its
        requests' classes, 1 everything else drawn while it (or a block it starts) runs.

        Why: which path a second takes (a quiet block, a busy second, how far a block
        reached) depends on the model's state, and with one running stream each path
        consumed a different number of draws, so every later second drew other requests.
        A parameter that changes no outcome (a burst grace that only decides whether a
        whole second fits at its start) then moved every figure by sampling noise, and
        calibration took that noise for the parameter's effect. With a stream per second,
        a second admits the same requests in the same order whichever path came before,
        as the per-request engine's draws never depend on admission. PCG64 jumps to a
        stream in a few microseconds (`advance`), a new generator per second costs ~90."""
        self._bits.state = self._origin
        self._bits.advance(((k << 1) | which) << 64)

    def _drawn(self, second: _Second) -> list[np.ndarray]:
        """The second's draw by class, on the partition map in force."""
        if second.draws is None or second.drawn_on != self.epoch:
            self._stream(second.k, 0)
            second.draws = self._draw(second.n)
            second.drawn_on = self.epoch
        return second.draws

    def _draw(self, n: int) -> list[np.ndarray]:
        """Each group's class counts for `n` requests."""
        return [
            self.rng.multinomial(n, g.probs) if len(g.probs) > 1 else np.array([n])
            for g in self.classes.groups
        ]

    # quiet seconds ---------------------------------------------------------------------
    def _quiet(self, block: list[_Second], now: float) -> int:
        """Admit a block of seconds' requests, each second's in full at `now` + s, up to
        the first that does not fit: how many were admitted."""
        n = sum(second.n for second in block)
        drawn = [self._drawn(second) for second in block]
        self._stream(block[0].k, 1)
        loads = self._loads(drawn, n)
        ran = self.model.admit_in_full(self.table, loads, self.p.is_write, now=now)
        for second in block[:ran]:
            self._succeeded(second.index, second.n)
            self.seq += second.n
        return ran

    def _loads(self, seconds: list[list[np.ndarray]], n: int) -> list[IndexLoad]:
        """Drawn requests (per second, class counts per group) as the model's loads."""
        placed = self.classes.placements(self.rng, seconds, self.seq, n)
        loads = []
        for (index, units, parts), (pids, counts, hashes, positions) in zip(
            self.indexes, placed, strict=True
        ):
            loads.append(
                IndexLoad(
                    index,
                    units,
                    [parts[i] for i in pids.tolist()],
                    counts.tolist(),
                    hashes.tolist(),
                    positions.tolist(),
                    len(seconds),
                )
            )
        return loads

    def _succeeded(self, second: int, n: int) -> None:
        """Count `n` requests of run second `second` admitted in full."""
        counts = self.p.result.second(second)
        counts.sent += n
        counts.succeeded += n
        if self.p.is_write:
            counts.consumed_wcu += n * self.units_w
            counts.add_index_units((name, n * units) for name, units in self.gsis)
        else:
            counts.consumed_rcu += n * self.units_r

    def _pids(self, cls: list[np.ndarray]) -> list[np.ndarray]:
        """Partition ids per dim of routes given by their class in every group."""
        out = []
        for g, col in self.classes.group_of_dim:
            out.append(self.classes.groups[g].pids[cls[g], col])
        return out

    # busy seconds ----------------------------------------------------------------------
    def _busy(self, second: _Second) -> bool:
        """A second whose demand does not fit in full (or may not): the requests whose
        every resource has room for the second's whole demand on it are admitted in full
        at its first tick's end, whatever the order of the rest; the others tick by tick, as the
        per-request engine admits them. True if everything fitted after all."""
        draws = self._drawn(second)
        self._stream(second.k, 1)
        at = self._admitted_at(second)
        loads = self._loads([draws], second.n)
        room = self.model.room_for(self.table, loads, self.p.is_write, now=at)
        if all(all(flags) for flags in room) and self.model.admit_in_full(
            self.table, loads, self.p.is_write, now=at
        ):
            self._succeeded(second.index, second.n)
            self.seq += second.n
            return True
        # Which requests are clear (every partition they take has room): those clear in
        # every group. The groups are drawn independently, so how many are clear in all
        # is a chain of hypergeometric draws, and which of each group's clear requests
        # they are, a multivariate one; only the others need pairing into routes.
        n = second.n
        fine: list[np.ndarray] = []  # per dim, by partition id: has room
        for d, (load, flags) in enumerate(zip(loads, room, strict=True)):
            ok_d = np.zeros(len(self.indexes[d][2]), dtype=bool)
            ok_d[[part.pid for part, flag in zip(load.parts, flags, strict=True) if flag]] = True
            fine.append(ok_d)
        clear_in: list[np.ndarray] = []
        for g, group in enumerate(self.classes.groups):
            ok = np.ones(len(group.probs), dtype=bool)
            for col, d in enumerate(group.dims):
                ok &= fine[d][group.pids[:, col]]
            clear_in.append(np.where(ok, draws[g], 0))
        m = int(clear_in[0].sum())
        for cx in clear_in[1:]:
            if m:
                good = int(cx.sum())
                m = int(self.rng.hypergeometric(good, n - good, m)) if good < n else m
        tight = draws
        if m:
            clear = [
                cx
                if int(cx.sum()) == m
                else self.rng.multivariate_hypergeometric(cx, m, method="marginals")
                for cx in clear_in
            ]
            if not self.model.admit_in_full(
                self.table, self._loads([clear], m), self.p.is_write, now=at
            ):
                m = 0  # not expected: each share had room; all of it tick by tick then
            else:
                self._succeeded(second.index, m)
                tight = [x - c for x, c in zip(draws, clear, strict=True)]
        cls, sizes = _paired(self.rng, tight)
        self._ticks(second, cls, sizes, m, fine)
        return False

    def _ticks(
        self,
        second: _Second,
        cls: list[np.ndarray],
        sizes: np.ndarray,
        rest: int,
        fine: list[np.ndarray],
    ) -> None:
        """The second tick by tick, as the per-request engine runs it, for the routes
        given (classes per group, counts); `rest` of the second's requests were admitted
        already. The routes' requests and the rest share the ticks at random (given the
        second's counts, how the ticks' own draws would share them). `fine`: per dim, by
        partition id, whether the partition has room for the second's whole demand."""
        p = self.p
        tick = p.tick_s
        counts = p.result.second(second.index)
        ticks = second.k_end - second.k
        dues = []
        prev = second.done
        for j in range(second.k, second.k_end):
            due = p.schedule.due_by(min((j + 1) * tick, p.duration_s))
            dues.append(due - prev)
            prev = due
        routes: _Routes | None = _Routes(self, cls, ticks, second.n, fine)
        pool = np.append(sizes, rest)
        seq = self.seq
        for j, n_j in zip(range(second.k, second.k_end), dues, strict=True):
            t = j * tick
            now = p.start + min((j + 1) * tick, p.duration_s)
            self.model.advance(now)
            if n_j <= 0:
                continue
            share = self.rng.multivariate_hypergeometric(pool, n_j, method="marginals")
            pool -= share
            k = int(share[:-1].sum())
            if k:
                if self._refresh():
                    # The map changed within the second: the rest is placed on the new one.
                    routes = None
                if routes is None:
                    cls_j, sizes_j = _paired(self.rng, self._draw(k))
                    fresh = _Routes(self, cls_j, 1, k, None)
                    fresh.admit(
                        list(range(len(sizes_j))),
                        sizes_j.tolist(),
                        0,
                        k,
                        now,
                        p.offset + t,
                        t,
                        counts,
                    )
                else:
                    nz = np.flatnonzero(share[:-1])
                    routes.admit(
                        nz.tolist(),
                        share[nz].tolist(),
                        j - second.k,
                        k,
                        now,
                        p.offset + t,
                        t,
                        counts,
                    )
            seq += n_j
        self.seq += second.n


class _Routes:
    """Routes admitted tick by tick: each one's partitions, and a key drawn from its
    requests for every tick (the model samples one per call, as it does per route and
    tick in the per-request engine).

    With `fine` (per dim, which partitions have room for the second's whole demand),
    routes that differ only in partitions with room are admitted as one: their requests
    need the same resources without room, which decide alone whether each is refused;
    their shares of the partitions with room are admitted apart, for those admitted
    (`CapacityModel.admit_shares`, then `admit_in_full`)."""

    def __init__(
        self,
        engine: _Engine,
        cls: list[np.ndarray],
        ticks: int,
        span: int,
        fine: list[np.ndarray] | None,
    ) -> None:
        self.engine = engine
        self.ticks = ticks
        pids = engine._pids(cls)
        self.pids: list[list[int]] = [pid.tolist() for pid in pids]
        self.parts: list[list[Partition]] = [
            [parts[i] for i in pid.tolist()]
            for (_, _, parts), pid in zip(engine.indexes, pids, strict=True)
        ]
        every = [np.repeat(c, ticks) for c in cls]  # route r's key for tick j: r * ticks + j
        keys = engine.classes.keys(engine.rng, every, engine.seq, span)
        self.hashes: list[list[int]] = [h.tolist() for h, _ in keys]
        self.positions: list[list[float]] = [q.tolist() for _, q in keys]
        self.signature: list[int] | None = None
        """Per route: its class of routes alike where it matters (None: no two alike)."""
        self.tight: list[list[bool]] = []
        """Per route and dim: whether that partition lacks room."""
        if fine is not None and len(pids) > 1:
            tight = np.stack([~f[pid] for f, pid in zip(fine, pids, strict=True)])
            if not tight.all():
                key = np.where(tight, np.stack(pids) + 1, 0)  # 0: a partition with room
                _, signature = np.unique(key, axis=1, return_inverse=True)
                self.signature = signature.reshape(-1).tolist()
                self.tight = tight.T.tolist()

    def admit(
        self,
        which: list[int],
        sizes: list[int],
        tick: int,
        n: int,
        now: float,
        run_t: float,
        phase_t: float,
        second: Counts,
    ) -> None:
        """Routes `which` with `sizes` requests in tick `tick`, in a random order: the
        per-request engine's `_admit` for requests whose item has no past. `n`: the
        requests of the tick among which these fall (the first throttle's time within
        the tick is where its refusal falls among them)."""
        if self.signature is None:
            self._one_by_one(which, sizes, tick, n, now, run_t, phase_t, second)
            return
        e = self.engine
        p = e.p
        alike: dict[int, list[int]] = {}
        for i in range(len(which)):
            alike.setdefault(self.signature[which[i]], []).append(i)
        classes = list(alike.values())
        order = e.rng.permutation(len(classes)).tolist() if len(classes) > 1 else [0]
        index_units: dict[str, float] = {}
        result, out = p.result, p.out
        seen = 0
        ticks = self.ticks
        dims = len(e.indexes)
        for c in order:
            members = classes[c]
            routes = [which[i] for i in members]
            counts = [sizes[i] for i in members]
            count = sum(counts)
            first = routes[0]
            tight = self.tight[first]
            shares = []
            for d in range(dims):
                if tight[d]:
                    index, units, _ = e.indexes[d]
                    shares.append(
                        IndexLoad(
                            index,
                            units,
                            [self.parts[d][first]],
                            [count],
                            [self.hashes[d][r * ticks + tick] for r in routes],
                            [self.positions[d][r * ticks + tick] for r in routes],
                        )
                    )
            decision = e.model.admit_shares(e.table, shares, count, p.is_write, now=now)
            accepted = decision.accepted
            if accepted:
                self._admit_with_room(routes, counts, accepted, tick, now)
                if p.is_write:
                    second.consumed_wcu += accepted * e.units_w
                    for name, gunits in e.gsis:
                        index_units[name] = index_units.get(name, 0.0) + accepted * gunits
                else:
                    second.consumed_rcu += accepted * e.units_r
            second.sent += count
            second.succeeded += accepted
            if decision.throttle is not None and decision.refused:
                second.throttled += decision.refused
                second.by_reason[decision.throttle.reason] += decision.refused
                second.by_exception[decision.throttle.exception] += decision.refused
                within = (seen + accepted) / n * p.tick_s
                if result.first_throttle_s is None:
                    result.first_throttle_s = run_t + within
                if out.first_throttle_s is None:
                    out.first_throttle_s = phase_t + within
            seen += count
        if index_units:
            second.add_index_units(index_units.items())

    def _admit_with_room(
        self, routes: list[int], counts: list[int], accepted: int, tick: int, now: float
    ) -> None:
        """The shares with room of `accepted` of the requests of `routes`: which of them
        were admitted is a draw without replacement from the routes' counts."""
        e = self.engine
        if accepted < sum(counts):
            taken = e.rng.multivariate_hypergeometric(
                np.array(counts, dtype=np.int64), accepted, method="marginals"
            ).tolist()
        else:
            taken = counts
        first = routes[0]
        loads = []
        for d in range(len(e.indexes)):
            if self.tight[first][d]:
                continue
            by_part: dict[int, int] = {}
            sample: dict[int, int] = {}
            for r, k in zip(routes, taken, strict=True):
                if k:
                    pid = self.pids[d][r]
                    by_part[pid] = by_part.get(pid, 0) + k
                    sample.setdefault(pid, r)
            index, units, parts = e.indexes[d]
            at = [sample[pid] * self.ticks + tick for pid in by_part]
            loads.append(
                IndexLoad(
                    index,
                    units,
                    [parts[pid] for pid in by_part],
                    list(by_part.values()),
                    [self.hashes[d][i] for i in at],
                    [self.positions[d][i] for i in at],
                )
            )
        # Each of these partitions had room for the second's whole demand on it.
        e.model.admit_in_full(e.table, loads, e.p.is_write, now=now)

    def _one_by_one(
        self,
        which: list[int],
        sizes: list[int],
        tick: int,
        n: int,
        now: float,
        run_t: float,
        phase_t: float,
        second: Counts,
    ) -> None:
        """Each route with its own call."""
        e = self.engine
        p = e.p
        model = e.model
        table = e.table
        gsis = e.gsis
        base_parts = self.parts[0]
        gsi_parts = self.parts[1:]
        base_h, base_s = self.hashes[0], self.positions[0]
        order = e.rng.permutation(len(which)).tolist() if len(which) > 1 else range(len(which))
        index_units: dict[str, int] = {}
        result, out = p.result, p.out
        seen = 0
        ticks = self.ticks
        for i in order:
            r = which[i]
            count = sizes[i]
            at = r * ticks + tick
            if p.is_write:
                writes = []
                gparts = []
                for g in range(len(gsis)):
                    name, gunits = gsis[g]
                    writes.append(
                        GsiWrite(name, self.hashes[g + 1][at], self.positions[g + 1][at], gunits)
                    )
                    gparts.append(gsi_parts[g][r])
                decision = model.write(
                    table,
                    base_h[at],
                    base_s[at],
                    e.units_w,
                    writes,
                    count,
                    now=now,
                    part=base_parts[r],
                    gsi_parts=gparts,
                )
                accepted = decision.accepted
                second.consumed_wcu += accepted * e.units_w
                if accepted:
                    for name, gunits in gsis:
                        index_units[name] = index_units.get(name, 0) + accepted * gunits
            else:
                decision = model.read(
                    table,
                    base_h[at],
                    base_s[at],
                    e.units_r,
                    None,
                    count,
                    now=now,
                    part=base_parts[r],
                )
                accepted = decision.accepted
                second.consumed_rcu += accepted * e.units_r
            second.sent += count
            second.succeeded += accepted
            if decision.throttle is not None and decision.refused:
                second.throttled += decision.refused
                second.by_reason[decision.throttle.reason] += decision.refused
                second.by_exception[decision.throttle.exception] += decision.refused
                within = (seen + accepted) / n * p.tick_s
                if result.first_throttle_s is None:
                    result.first_throttle_s = run_t + within
                if out.first_throttle_s is None:
                    out.first_throttle_s = phase_t + within
            seen += count
        if index_units:
            second.add_index_units(index_units.items())


def _paired(
    rng: np.random.Generator, draws: list[np.ndarray]
) -> tuple[list[np.ndarray], np.ndarray]:
    """Requests of independent groups paired at random: each route (a class in every
    group) with its count, as independent draws per request pair them (each group's
    classes laid out request by request and shuffled against the first group's)."""
    first = np.flatnonzero(draws[0])
    many = [g for g, d in enumerate(draws) if g > 0 and len(d) > 1]
    if not many:
        cls = [first] + [np.zeros(len(first), dtype=np.int64) for _ in draws[1:]]
        return cls, draws[0][first]
    key = np.repeat(np.arange(len(draws[0]), dtype=np.int64), draws[0])
    for g in many:
        labels = np.repeat(np.arange(len(draws[g]), dtype=np.int64), draws[g])
        key = key * len(draws[g]) + rng.permutation(labels)
    routes, sizes = np.unique(key, return_counts=True)
    out: list[np.ndarray] = [np.zeros(len(routes), dtype=np.int64) for _ in draws]
    rest = routes
    for g in reversed(many):
        rest, out[g] = np.divmod(rest, len(draws[g]))
    out[0] = rest
    return out, sizes
