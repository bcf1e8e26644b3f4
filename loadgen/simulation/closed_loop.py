"""The virtual-time engine of users, mixes and scenarios: request by request.

Today's phases (one operation at an open rate) run vectorised in loadgen.simulation.simulate; a
closed population, a mix, a scenario or the application's retries cannot, because each
user's next request waits on its last. Here every user is a generator from the one
interpreter (loadgen.load.scenario) and a discrete-event loop (a heap of due times) performs
its actions at their virtual times: each request is charged by the one charging rule
(emulator.units), admitted through the one capacity model (emulator.model) as the
endpoint's admission does, takes its time from the latency model (emulator.params
LatencyParams), and is retried as the application's SDK would (loadgen.load.sdk_retry). A
collection query reads what the run has written under its key (loadgen.simulation.item_collections).

State kept per item is what the charges and the conditions need (size, the GSI keys'
hashes, the time of the last write, a version, a lock's owner and expiry), only for
items the run writes; reads of items never written are charged as items of the
table's `item_size_bytes` when the table is seeded, else as misses.
"""

from __future__ import annotations

import bisect
import heapq
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from emulator.capacity import TableCapacity
from emulator.compositekey import composite_partition_hash, composite_sort_position
from emulator.keyspace import key_bytes, partition_hash, sort_position
from emulator.model import CapacityModel, Decision, GsiWrite
from emulator.params import DEFAULT_LATENCY, CapacityParams, LatencyParams
from emulator.units import (
    CollectionRead,
    IndexChange,
    TableWrite,
    collection_read_cost,
    index_write_units,
    read_units,
    scan_read_cost,
    table_write_units,
    transactional_read_units,
)
from loadgen.format.kinds import ClosedArrivals
from loadgen.format.playbook import Phase, Playbook, TableSpec
from loadgen.format.workload_spec import QueryStep
from loadgen.load.scenario import (
    ActionOutcome,
    Condition,
    Iteration,
    IterationEnd,
    Member,
    OpAction,
    Program,
    ThinkAction,
    UserState,
)
from loadgen.load.sdk_retry import AttemptKind, OperationAttempts, RetrySettings, SdkClient
from loadgen.results.iteration_results import at_second, iteration_totals
from loadgen.results.records import Counts, PhaseResult, RunResult
from loadgen.simulation.item_collections import EntryWrite, ItemCollections

NO_SORT_KEY = 0.0


@dataclass(slots=True)
class _Item:
    """What the engine knows of one item the run wrote."""

    size: int
    gsi_keys: tuple[Any, ...]
    stamp: float
    version: int = 0
    owner: str | None = None
    expires_at: float = 0.0


@dataclass(slots=True)
class _User:
    state: UserState
    client: SdkClient
    gen: Iteration | None = None
    started_at: float = 0.0
    start_second: int = 0
    # the operation in flight: its action, retries, and what it has cost so far
    action: OpAction | None = None
    attempts: OperationAttempts | None = None
    op_started: float = 0.0
    consumed: float = 0.0
    active: bool = True


@dataclass
class EngineOptions:
    """How a phase is simulated: the capacity and latency parameters, and the seed."""

    params: CapacityParams
    latency: LatencyParams = DEFAULT_LATENCY
    seed: int = 0


@dataclass
class PhaseRun:
    """One phase of one run, for the engine: where it starts and what it fills."""

    playbook: Playbook
    spec: TableSpec
    phase: Phase
    model: CapacityModel
    start: float
    """Virtual time at the phase's start (the model's clock)."""
    offset: float
    """Seconds from the run's start to the phase's (the result's seconds)."""
    result: RunResult
    out: PhaseResult
    collections: ItemCollections
    items: dict[tuple[Any, ...], _Item] = field(default_factory=dict)


def _hash(value: Any) -> int:
    # A string key's bytes are its UTF-8, which partition_hash takes a str for: the hash
    # (and its cache) without encoding it first, on every request.
    return partition_hash(value if isinstance(value, str) else key_bytes(value))


def _sort(value: Any) -> Any:
    return sort_position(value)


class ClosedLoopEngine:
    """Runs one phase's users (or open arrivals of iterations) to the phase's end."""

    def __init__(self, run: PhaseRun, options: EngineOptions) -> None:
        self.run = run
        self.opt = options
        self.params = options.params
        self.lat = options.latency
        spec = run.spec
        self.spec = spec
        self.table: TableCapacity = run.model.tables[spec.name]
        # The run's parts every request touches, bound once (attribute chains per request).
        self.model = run.model
        self.items = run.items
        self.collections = run.collections
        self.table_name = spec.name
        self._counts_now = math.nan
        self._counts_of: Counts | None = None
        self.program = Program(
            run.playbook, run.phase, spec, options.seed or run.playbook.load.seed
        )
        self.rng = random.Random(options.seed or run.playbook.load.seed)
        self.now = run.start
        self.end = run.start + run.phase.duration_s
        self.heap: list[tuple[float, int, int, Any]] = []
        self.seq = 0
        self.users: list[_User] = []
        self.population: ClosedArrivals | None = None
        """The phase's population; None for open arrivals of iterations."""
        self.pk = spec.partition_key.name
        self.sk = spec.sort_key.name if spec.sort_key else None
        self.gsis = [
            (g.name, tuple(k.name for k in g.partition_keys), tuple(k.name for k in g.sort_keys))
            for g in spec.gsis
        ]
        retry = run.phase.retry
        self.retry = RetrySettings(mode=retry.mode, max_attempts=retry.max_attempts)
        self.seeded = spec.seed_items > 0
        # A read that names no sort key (a query or scan page) is placed at the start of
        # its collection; the stand-in must compare with the index's sort keys.
        self._start_of: dict[str | None, Any] = {
            None: _start_position(spec.sort_key.type if spec.sort_key else None)
        }
        for g in spec.gsis:
            # (a step cannot query a multi-attribute GSI: workload_checks refuses it)
            self._start_of[g.name] = _start_position(g.sort_keys[0].type if g.sort_keys else None)
        self._track_collections()

    # --- set-up ----------------------------------------------------------------------
    def _track_collections(self) -> None:
        """Per-key state only where a query reads a collection; time-ordered when the
        step reads 'since' a watermark."""
        steps: list[Any] = list(self.run.phase.kind.iterations.entries)
        for scenario in self.run.playbook.load.scenarios.values():
            steps += scenario.steps
        ordered: dict[str | None, bool] = {}
        for step in steps:
            if isinstance(step, QueryStep) and step.collection:
                # Time-ordered when any query of it reads "since" a watermark.
                ordered[step.index] = ordered.get(step.index, False) or step.since is not None
        for index, by_time in ordered.items():
            if not self.run.collections.tracks(self.spec.name, index):
                self.run.collections.track(self.spec.name, index, by_time)

    def _new_user(self, n: int) -> _User:
        rng = random.Random((self.opt.seed or self.run.playbook.load.seed) * 7919 + n)
        state = UserState(user=n, clock=self._clock, rng=rng)
        return _User(state, SdkClient(self.retry, rng.random, self.now))

    def _clock(self) -> float:
        return self.now - self.run.start + self.run.offset

    def _push(self, t: float, user: int, payload: Any) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, user, payload))

    # --- the loop ----------------------------------------------------------------------
    def run_phase(self) -> None:
        # A population's users loop; open arrivals start iterations on free users.
        arrivals = self.run.phase.kind.arrivals
        if isinstance(arrivals, ClosedArrivals):
            self._closed_population(arrivals)
        else:
            self._open_arrivals()
        model = self.run.model
        while self.heap:
            t, _, u, payload = heapq.heappop(self.heap)
            if t >= self.end:
                break
            self.now = t
            model.advance(t)
            if u < 0:
                self._arrival(payload)
                continue
            # An outcome (or None, a think's end) resumes the user: tested first, as most
            # events are, and by type, since comparing an outcome with a string would
            # call the dataclass's __eq__.
            if payload is None or isinstance(payload, ActionOutcome):
                self._resume(u, payload)
            elif payload == "start":
                if self.users[u].active:
                    self._start_iteration(u)
            else:  # "attempt"
                self._attempt(u)
        self._cut_unfinished()

    def _closed_population(self, population: ClosedArrivals) -> None:
        self.population = population
        count = population.peak_users()
        schedule = population.levels(self.run.phase.duration_s)
        for n in range(count):
            self.users.append(self._new_user(n))
        # Start each user at the first moment the population includes it; the ramp down
        # stops users at their next iteration's start (k6's gracefulRampDown).
        first_in: dict[int, float] = {}
        for t, level in schedule:
            for n in range(level):
                first_in.setdefault(n, t)
        self._levels = schedule
        self._level_times = [at for at, _ in schedule]
        spread = population.start_spread_s()
        for n in range(count):
            if n in first_in:
                self._push(self.run.start + first_in[n] + spread * n / max(1, count), n, "start")

    def _level_at(self, t: float) -> int:
        """The population at `t` into the phase: the last step at or before it (one
        bisect per iteration start: a linear ramp has a step per user)."""
        i = bisect.bisect_right(self._level_times, t)
        return self._levels[i - 1][1] if i else 0

    def _open_arrivals(self) -> None:
        from loadgen.load.arrivals import Schedule

        schedule = Schedule.for_phase(self.run.phase)
        self.free: list[int] = []
        self.max_users = self.run.phase.kind.user_pool
        self._arrivals = schedule
        self._arrival_i = 0
        self._next_arrival()

    def _next_arrival(self) -> None:
        # One arrival event at a time: the schedule's send times are computed lazily.
        if self._arrival_i < self._arrivals.total:
            t = self.run.start + self._arrivals.send_time(self._arrival_i)
            self._push(t, -1, self._arrival_i)

    def _arrival(self, i: int) -> None:
        self._arrival_i = i + 1
        self._next_arrival()
        if self.free:
            u = self.free.pop()
        elif len(self.users) < self.max_users:
            self.users.append(self._new_user(len(self.users)))
            u = len(self.users) - 1
        else:
            at_second(self.run.result.iterations, self._second()).dropped += 1
            return
        self._start_iteration(u)

    def _second(self) -> int:
        return int(self.now - self.run.start + self.run.offset + 1e-9)

    def _start_iteration(self, u: int) -> None:
        user = self.users[u]
        if self.population is not None and u >= self._level_at(self.now - self.run.start):
            user.active = False  # ramped down
            return
        user.gen = self.program.iteration(user.state)
        user.started_at = self.now
        user.start_second = self._second()
        at_second(self.run.result.iterations, user.start_second).started += 1
        self._resume(u, None)

    def _resume(self, u: int, sent: ActionOutcome | None) -> None:
        user = self.users[u]
        assert user.gen is not None
        try:
            action = user.gen.send(sent)
        except StopIteration as stop:
            self._ended(u, stop.value)
            return
        if isinstance(action, ThinkAction):
            self._push(self.now + action.seconds, u, None)
            return
        user.action = action
        user.attempts = user.client.call()
        user.op_started = self.now
        user.consumed = 0.0
        self._attempt(u)

    def _ended(self, u: int, end: IterationEnd) -> None:
        user = self.users[u]
        user.gen = None
        counts = at_second(self.run.result.iterations, self._second())
        counts.record_end(end.ok, end.reason, end.seconds, ((s.step, s.seconds) for s in end.steps))
        population = self.population
        if population is None:  # open arrivals: the user is free for the next one
            self.free.append(u)
            return
        wait = population.pause_s(self.now - user.started_at, user.state.rng)
        self._push(self.now + wait, u, "start")

    def _cut_unfinished(self) -> None:
        """Iterations still running at the phase's end: stopped there, `unfinished`."""
        second = int(self.run.offset + self.run.phase.duration_s - 1e-9)
        for user in self.users:
            if user.gen is not None:
                user.gen.close()
                user.gen = None
                at_second(self.run.result.iterations, second).unfinished += 1

    # --- one attempt of an operation ------------------------------------------------------
    def _attempt(self, u: int) -> None:
        user = self.users[u]
        action, attempts = user.action, user.attempts
        assert action is not None and attempts is not None
        wait = attempts.before_send(self.now)
        if wait > 0:  # the adaptive limiter holds the send
            self._push(self.now + wait, u, "attempt")
            attempts.attempts -= 1  # counted when it is sent
            return
        outcome, latency, units = self._perform(action)
        user.consumed += units
        done = self.now + latency
        kind = _kind(outcome.status)
        decision = attempts.after(kind, done)
        if decision.retry:
            self._push(done + decision.delay_s, u, "attempt")
            return
        # The last attempt's outcome (a new one per attempt) becomes the operation's:
        # completed in place with what the whole operation took, instead of copied.
        outcome.latency_s = done - user.op_started
        outcome.attempts = attempts.attempts
        outcome.consumed = user.consumed
        at_second(self.run.result.iterations, self._second()).record_operation(
            outcome.status, outcome.attempts
        )
        user.action = user.attempts = None
        self._push(done, u, outcome)

    def _counts(self) -> Counts:
        """This second's counts, looked up once per event time: a batch's members and
        their index units all land in the one second."""
        if self.now != self._counts_now or self._counts_of is None:
            self._counts_of = self.run.result.second(self._second())
            self._counts_now = self.now
        return self._counts_of

    def _record(self, decision: Decision, units: float, is_write: bool) -> Counts:
        """Count one attempt's answer in this second; returns that second's counts."""
        second = self._counts()
        second.sent += 1
        if decision.accepted:
            second.succeeded += 1
            if is_write:
                second.consumed_wcu += units
            else:
                second.consumed_rcu += units
        elif decision.throttle is not None:
            second.throttled += 1
            second.by_reason[decision.throttle.reason] += 1
            second.by_exception[decision.throttle.exception] += 1
            if self.run.result.first_throttle_s is None:
                self.run.result.first_throttle_s = self._clock()
            if self.run.out.first_throttle_s is None:
                self.run.out.first_throttle_s = self._clock() - self.run.offset
        return second

    def _perform(self, action: OpAction) -> tuple[ActionOutcome, float, float]:
        """One attempt: (its outcome, its latency, the units it consumed)."""
        op = action.operation
        if op in ("put", "update", "delete"):
            return self._write(action, op == "delete", action.condition)
        if op == "get":
            return self._get(action.key, action.consistent_read)
        if op in ("query", "scan"):
            return self._page(action)
        if op == "batch_write":
            return self._batch_write(action)
        if op == "batch_get":
            return self._batch_get(action)
        if op == "transact_write":
            return self._transact_write(action)
        return self._transact_get(action)

    # --- items ---------------------------------------------------------------------------
    def _id(self, key: Mapping[str, Any]) -> tuple[Any, ...]:
        pk = key.get(self.pk)
        return (pk, key.get(self.sk)) if self.sk else (pk,)

    def _where(self, key: Mapping[str, Any]) -> tuple[int, Any]:
        pk_hash = _hash(key[self.pk])
        sk = key.get(self.sk) if self.sk else None
        return pk_hash, (_sort(sk) if sk is not None else self._start_of[None])

    def _passes(self, condition: Condition | None, item: _Item | None) -> bool:
        if condition is None:
            return True
        kind = condition.kind
        if kind == "attribute_not_exists":
            return item is None
        if kind == "lock_free":
            return item is None or item.expires_at < (condition.now or 0.0)
        if kind == "lock_owner":
            return item is not None and item.owner == condition.owner
        return (item.version if item else 0) == condition.version

    def _gsi_keys(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        """Each GSI's (partition key, sort key) of an item, or None where the item is not
        in that (sparse) index. A key of one attribute is its value; a multi-attribute
        key the tuple of its values (hashed and ordered as the endpoint does)."""
        out: list[tuple[Any, Any] | None] = []
        for _, pks, sks in self.gsis:
            if all(n in values for n in pks) and all(n in values for n in sks):
                pk = values[pks[0]] if len(pks) == 1 else tuple(values[n] for n in pks)
                sk = (
                    None
                    if not sks
                    else values[sks[0]]
                    if len(sks) == 1
                    else tuple(values[n] for n in sks)
                )
                out.append((pk, sk))
            else:
                out.append(None)
        return tuple(out)

    def _gsi_writes(
        self, old: _Item | None, new_keys: tuple[Any, ...] | None, new_size: int, now: float
    ) -> tuple[list[GsiWrite], list[EntryWrite]]:
        """What a write does to each GSI, charged by the one rule
        (emulator.units.index_write_units; projection ALL, so any write changes what an
        entry holds; KEYS_ONLY/INCLUDE entries are sized as the whole item [?]), and to
        the tracked collections."""
        writes: list[GsiWrite] = []
        entries: list[EntryWrite] = []
        old_size = old.size if old is not None else 0
        for g, (name, _, _) in enumerate(self.gsis):
            before = old.gsi_keys[g] if old is not None else None
            after = new_keys[g] if new_keys is not None else None
            if before is None and after is None:
                continue
            moved = before is not None and after is not None and before != after
            change = IndexChange(
                before is not None, after is not None, moved, True, old_size, new_size
            )
            old_units, new_units = index_write_units(change, self.params)
            gw = GsiWrite(name, 0, NO_SORT_KEY, new_units, old_units=old_units)
            if after is not None:
                gw.pk_hash, gw.sk_pos = _index_hash(after[0]), _index_sk(after[1])
            if before is not None and old_units:  # the old entry's delete, on its partition
                gw.old_pk_hash, gw.old_sk_pos = _index_hash(before[0]), _index_sk(before[1])
            writes.append(gw)
            if after is not None and before == after:  # the entry is rewritten in place
                entries.append(
                    EntryWrite(
                        self.table_name,
                        name,
                        after[0],
                        old_size,
                        new_size,
                        now,
                        old.stamp if old else None,
                    )
                )
                continue
            if after is not None:
                entries.append(EntryWrite(self.table_name, name, after[0], 0, new_size, now))
            if before is not None and old is not None:
                entries.append(
                    EntryWrite(self.table_name, name, before[0], old.size, 0, now, old.stamp)
                )
        return writes, entries

    def _write(
        self,
        action: OpAction | Member,
        deleting: bool,
        condition: Condition | None,
        transactional: bool = False,
    ) -> tuple[ActionOutcome, float, float]:
        """One put, update or delete: a request's own, or a batch's or a transaction's
        member (the write fields, key to attributes, are the same on both; a member is
        written without its condition, which its call has checked already)."""
        key = action.key
        items = self.items
        ident = self._id(key)
        item = items.get(ident)
        new_size = 0 if deleting else action.size_bytes or self.spec.item_size_bytes
        # A delete is sized on the item it removes, one of an item the run never wrote at
        # the minimum (the engine tracks no seeded item's GSI keys either).
        units = table_write_units(
            TableWrite(item.size if item is not None else 0, new_size, transactional),
            self.params,
        )
        pk_hash, sk_pos = self._where(key)
        passes = self._passes(condition, item)
        now = self._clock()
        writes: list[GsiWrite] = []
        entries: list[EntryWrite] = []
        new_keys = None
        if passes:
            attributes = action.attributes
            values = {**key, **attributes} if attributes else key
            new_keys = None if deleting else self._gsi_keys(values)
            writes, entries = self._gsi_writes(item, new_keys, new_size, now)
        decision = self.model.write(
            self.table, pk_hash, sk_pos, units, writes or None, now=self.now
        )
        counts = self._record(decision, units, True)
        if not decision.accepted:
            return ActionOutcome("throttled"), self.lat.throttled_s, 0.0
        if writes:
            counts.add_index_units([(w.index, w.units + w.old_units) for w in writes])
        latency = self.lat.write_s
        if not passes:
            return ActionOutcome("condition_failed"), latency, float(units)
        self._table_entry(item, new_size, now, key)
        write_entry = self.collections.write
        for entry in entries:
            write_entry(entry)
        if deleting:
            items.pop(ident, None)
            return ActionOutcome("ok"), latency, float(units)
        version = (item.version if item else 0) + 1
        owner = action.attributes.get("owner")
        expires = action.attributes.get("expiresAt")
        items[ident] = _Item(
            new_size,
            new_keys or (),
            now,
            version,
            str(owner) if owner is not None else None,
            float(expires) if expires is not None else 0.0,
        )
        return ActionOutcome("ok", version=version), latency, float(units)

    def _table_entry(
        self, item: _Item | None, new_size: int, now: float, key: Mapping[str, Any]
    ) -> None:
        """The table's own collection (a query of the table's partition key)."""
        old = item.size if item else 0
        if old or new_size:
            self.collections.write(
                EntryWrite(
                    self.table_name,
                    None,
                    key.get(self.pk),
                    old,
                    new_size,
                    now,
                    item.stamp if item else None,
                )
            )

    def _size_of(self, item: _Item | None) -> int:
        """An item's size: the run's write of it, else a seeded item's, else a miss."""
        if item is not None:
            return item.size
        return self.spec.item_size_bytes if self.seeded else 0

    def _item_bytes(self, key: Mapping[str, Any]) -> int:
        return self._size_of(self.run.items.get(self._id(key)))

    def _get(self, key: Mapping[str, Any], consistent: bool) -> tuple[ActionOutcome, float, float]:
        """One GetItem: a request's own, or a batch's member."""
        item = self.run.items.get(self._id(key))
        size = self._size_of(item)
        units = read_units(size, consistent, self.params)
        pk_hash, sk_pos = self._where(key)
        decision = self.run.model.read(
            self.table, pk_hash, sk_pos, units, now=self.now, consistent=consistent
        )
        self._record(decision, units, False)
        if not decision.accepted:
            return ActionOutcome("throttled"), self.lat.throttled_s, 0.0
        return (
            ActionOutcome(
                "ok", items=1 if size else 0, bytes=size, version=item.version if item else None
            ),
            self.lat.read_s,
            units,
        )

    def _page(self, action: OpAction) -> tuple[ActionOutcome, float, float]:
        """One page of a query or scan. The first page works out the whole read (its
        pages and units, by the one rule) and carries it in the last evaluated key, so
        the later pages read the snapshot the first one saw."""
        plan = action.exclusive_start_key
        if plan is None:
            plan = self._read_plan(action)
        pages, units_total, items_total, bytes_total, page = plan
        units = units_total / pages
        items = items_total // pages + (1 if page < items_total % pages else 0)
        size = bytes_total // pages
        key = action.key
        if action.operation == "query" and key:
            value = next(iter(key.values()))
            pk_hash = _hash(value)
        else:
            pk_hash = self.rng.getrandbits(64)  # a scan page: somewhere in the key space
        decision = self.run.model.read(
            self.table,
            pk_hash,
            self._start_of[action.index],
            units,
            action.index,
            now=self.now,
            consistent=action.consistent_read,
        )
        self._record(decision, units, False)
        if not decision.accepted:
            return ActionOutcome("throttled"), self.lat.throttled_s, 0.0
        nxt = (pages, units_total, items_total, bytes_total, page + 1) if page + 1 < pages else None
        latency = self.lat.read_s + self.lat.per_mb_s * size / (1024 * 1024)
        return ActionOutcome("ok", items=items, bytes=size, last_evaluated_key=nxt), latency, units

    def _read_plan(self, action: OpAction) -> tuple[int, float, int, int, int]:
        collections = self.run.collections
        table = self.spec.name
        if action.operation == "query":
            if not action.collection or not collections.tracks(table, action.index):
                size = self.spec.item_size_bytes  # one item, as a single-operation query
                return 1, read_units(size, action.consistent_read, self.params), 1, size, 0
            value = next(iter(action.key.values()))
            # What the collection holds, looked up once: its items and bytes are the
            # result, and the one rule charges them (ItemCollections.read_cost would
            # look them up again).
            held = collections.stats(table, action.index, value, action.since)
            cost = collection_read_cost(
                CollectionRead(held.items, held.bytes, action.consistent_read, action.limit),
                self.params,
            )
            return cost.pages, cost.units, held.items, held.bytes, 0
        held = collections.totals(table, action.index)
        target = self.table.base if action.index is None else self.table.gsis[action.index]
        segments = action.total_segments or 1
        read = CollectionRead(
            held.items // segments, held.bytes // segments, action.consistent_read, action.limit
        )
        partitions = max(1, math.ceil(target.keyspace.count / segments))
        cost = scan_read_cost(read, partitions, self.params)
        return cost.pages, cost.units, read.items, read.total_bytes, 0

    def _batch_write(self, action: OpAction) -> tuple[ActionOutcome, float, float]:
        """Each item admitted on its own (each rounded up to 1 KB separately); a refused
        one comes back in UnprocessedItems, and only when none is processed does the
        call fail with a throughput error [AWS reference.md#what-each-operation-costs]."""
        unprocessed: list[int] = []
        consumed = 0.0
        for i, m in enumerate(action.members):
            outcome, _, units = self._write(m, m.action == "delete", None)
            consumed += units
            if outcome.status != "ok":
                unprocessed.append(i)
        latency = self.lat.write_s + self.lat.batch_item_s * len(action.members)
        if len(unprocessed) == len(action.members):
            return ActionOutcome("throttled"), self.lat.throttled_s, 0.0
        if unprocessed:
            return (
                ActionOutcome(
                    "unprocessed",
                    unprocessed=tuple(unprocessed),
                    items=len(action.members) - len(unprocessed),
                ),
                latency,
                consumed,
            )
        return ActionOutcome("ok", items=len(action.members)), latency, consumed

    def _batch_get(self, action: OpAction) -> tuple[ActionOutcome, float, float]:
        unprocessed: list[int] = []
        consumed = 0.0
        for i, m in enumerate(action.members):
            outcome, _, units = self._get(m.key, action.consistent_read)
            consumed += units
            if outcome.status != "ok":
                unprocessed.append(i)
        latency = self.lat.read_s + self.lat.batch_item_s * len(action.members)
        if len(unprocessed) == len(action.members):
            return ActionOutcome("throttled"), self.lat.throttled_s, 0.0
        if unprocessed:
            return ActionOutcome("unprocessed", unprocessed=tuple(unprocessed)), latency, consumed
        return ActionOutcome("ok", items=len(action.members)), latency, consumed

    def _transact_write(self, action: OpAction) -> tuple[ActionOutcome, float, float]:
        """Conditions first (a failed one cancels all, with CancellationReasons in member
        order); then each member's write at twice the units [AWS]. A throttled member
        throttles the call [?: DynamoDB reports it as a cancellation reason]."""
        reasons = []
        for m in action.members:
            item = self.run.items.get(self._id(m.key))
            reasons.append("None" if self._passes(m.condition, item) else "ConditionalCheckFailed")
        if any(r != "None" for r in reasons):
            # [?] what a cancelled transaction is charged is not documented: charged as
            # reads of the checked items here (the prepare phase read them).
            return (
                ActionOutcome("transaction_cancelled", reasons=tuple(reasons)),
                self.lat.write_s,
                0.0,
            )
        consumed = 0.0
        for m in action.members:
            if m.action == "condition_check":
                units = transactional_read_units(self._item_bytes(m.key), self.params)
                pk_hash, sk_pos = self._where(m.key)
                decision = self.run.model.read(self.table, pk_hash, sk_pos, units, now=self.now)
                self._record(decision, units, False)
                if not decision.accepted:
                    return ActionOutcome("throttled"), self.lat.throttled_s, consumed
                consumed += units
                continue
            outcome, _, units = self._write(m, m.action == "delete", None, transactional=True)
            if outcome.status != "ok":
                return ActionOutcome("throttled"), self.lat.throttled_s, consumed
            consumed += units
        return (
            ActionOutcome("ok", items=len(action.members)),
            self.lat.write_s * self.lat.transaction_factor,
            consumed,
        )

    def _transact_get(self, action: OpAction) -> tuple[ActionOutcome, float, float]:
        consumed = 0.0
        for m in action.members:
            units = transactional_read_units(self._item_bytes(m.key), self.params)
            pk_hash, sk_pos = self._where(m.key)
            decision = self.run.model.read(self.table, pk_hash, sk_pos, units, now=self.now)
            self._record(decision, units, False)
            if not decision.accepted:
                return ActionOutcome("throttled"), self.lat.throttled_s, consumed
            consumed += units
        return (
            ActionOutcome("ok", items=len(action.members)),
            self.lat.read_s * self.lat.transaction_factor,
            consumed,
        )


def _start_position(kind: str | None) -> Any:
    """The lowest sort position of a key type (b"" for S and B, a float for N; none:
    the no-sort-key stand-in)."""
    return b"" if kind in ("S", "B") else NO_SORT_KEY


def _sk(value: Any) -> Any:
    return NO_SORT_KEY if value is None else _sort(value)


def _index_hash(key: Any) -> int:
    """A GSI key's hash: one value's, or a multi-attribute key's (a tuple of values)
    by the endpoint's own function."""
    return composite_partition_hash(key) if isinstance(key, tuple) else _hash(key)


def _index_sk(key: Any) -> Any:
    """A GSI sort key's position: one value's, or a multi-attribute key's (a tuple)."""
    return composite_sort_position(key) if isinstance(key, tuple) else _sk(key)


def _kind(status: str) -> AttemptKind:
    if status in ("ok", "unprocessed"):
        return AttemptKind.OK  # a partial batch is a 200: the application resends
    if status == "throttled":
        return AttemptKind.THROTTLED
    return AttemptKind.FAILED


def simulate_phase(run: PhaseRun, options: EngineOptions) -> None:
    """Run one users/mix/scenario phase into `run.result` (per-second attempt counts
    and iterations) and `run.out` (its iterations; its attempt totals are added by the
    caller, as for every phase)."""
    ClosedLoopEngine(run, options).run_phase()
    run.out.iterations = iteration_totals(run.result.iterations, run.offset, run.phase.duration_s)
