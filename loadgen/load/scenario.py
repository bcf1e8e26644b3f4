"""The one interpreter of a phase's iterations, shared by the simulation and live runs.

A user's iteration is a generator: `program.iteration(user)` yields `Action`s (an
`OpAction` to perform against the table, or a `ThinkAction` to wait) and receives an
`ActionOutcome` for each `OpAction` (None for a think); it returns an `IterationEnd` saying how
the iteration ended. The driver (the virtual-time engine, or the live worker) performs
the actions and owns the clock the user reads (`UserState.clock`), so the same program
runs in virtual time and in real time and the two can be compared row by row.

What lives here is the APPLICATION's logic: the order of steps, variables and key
templates, captures, repeats, what a failure does (retry the step, fail the iteration,
continue), resending unprocessed batch members, paging, and a lock's polling with
backoff, heartbeat and release. The application's SDK retries are not here: the driver
runs each `OpAction` through the shared retry module and sends back the final outcome
with its attempt count.
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

import numpy as np

from loadgen.format.playbook import Phase, Playbook, Scenario, TableSpec
from loadgen.format.workload_spec import (
    AnyStep,
    Backoff,
    BatchGetStep,
    BatchWriteStep,
    DeleteStep,
    FailureReason,
    GetStep,
    LockStep,
    Operation,
    PutStep,
    QueryStep,
    ReleaseStep,
    ScanStep,
    ScenarioCall,
    ThinkStep,
    TransactGetStep,
    TransactWriteStep,
    UpdateStep,
    think_seconds,
)
from loadgen.load.keys import ItemGenerator, Sampler, Value, sampler_for

# --- the protocol --------------------------------------------------------------------------
# Its records are built for every simulated request (an outcome per attempt, a member
# per batched item): plain slotted dataclasses, not frozen, because a frozen one's
# __init__ sets each field through object.__setattr__, about 7 times the cost of a
# plain one (emulator.model's Decision and GsiWrite are plain classes for the same
# reason). None is changed after it is handed over (the engine completes an outcome
# before it sends it).

Key = Mapping[str, Value]


@dataclass(slots=True)
class Condition:
    """A write's condition, for the driver to evaluate against the item it holds
    (simulation) or to send as a ConditionExpression (live).

    attribute_not_exists: the item must not exist. version: the item's `version`
    attribute must equal `version` (0 = absent); the write stores version + 1.
    lock_free: absent, or its `expiresAt` < `now` (the write stores owner and expiry).
    lock_owner: the item's `owner` must be `owner` (a heartbeat or a release).
    """

    kind: Literal["attribute_not_exists", "version", "lock_free", "lock_owner"]
    version: int | None = None
    owner: str | None = None
    now: float | None = None


@dataclass(slots=True)
class Member:
    """One item of a batch or a transaction."""

    action: Literal["put", "update", "delete", "get", "condition_check"]
    key: Key
    size_bytes: int = 0
    attributes: Mapping[str, Value] = field(default_factory=dict)
    condition: Condition | None = None


@dataclass(slots=True)
class OpAction:
    """One request to perform on the run's table."""

    step: str
    """The step it belongs to (a lock's heartbeat: `<lock step>.heartbeat`)."""
    operation: Operation
    table: str
    """The table variant's name."""
    key: Key = field(default_factory=dict)
    """The item's primary key; for a query the partition key (of `index` if set)."""
    index: str | None = None
    size_bytes: int = 0
    """Size of the item written (put/update); 0 for reads and deletes."""
    attributes: Mapping[str, Value] = field(default_factory=dict)
    """Other attributes written (index keys, lock owner and expiresAt)."""
    condition: Condition | None = None
    members: tuple[Member, ...] = ()
    consistent_read: bool = False
    limit: int | None = None
    exclusive_start_key: Any = None
    collection: bool = False
    """A query of the items actually stored under `key` (else one item, as before)."""
    since: float | None = None
    """Only the collection's items written after this time (seconds on the run's clock)."""
    segment: int | None = None
    total_segments: int | None = None


@dataclass(slots=True)
class ThinkAction:
    """Wait `seconds` (virtual in simulation); the driver sends back None."""

    seconds: float
    step: str | None = None


Action = OpAction | ThinkAction

Status = Literal[
    "ok", "throttled", "condition_failed", "transaction_cancelled", "unprocessed", "error"
]


@dataclass(slots=True)
class ActionOutcome:
    """What the driver saw of one OpAction, after the SDK's retries."""

    status: Status
    latency_s: float = 0.0
    """From the first attempt's send to the final answer, backoff included."""
    attempts: int = 1
    items: int = 0
    bytes: int = 0
    consumed: float = 0.0
    """Capacity units consumed (all attempts)."""
    last_evaluated_key: Any = None
    reasons: tuple[str, ...] = ()
    """A cancelled transaction's CancellationReasons (in member order); an error's code."""
    unprocessed: tuple[int, ...] = ()
    """Indices (into the action's members) of unprocessed batch items or keys."""
    version: int | None = None
    """The item's version after the request (a get, or a versioned write)."""


@dataclass(slots=True)
class StepTime:
    """How long one step of an iteration took (requests, backoff and polls; not its
    trailing think time), and whether it succeeded."""

    step: str
    seconds: float
    ok: bool


@dataclass(frozen=True, slots=True)
class IterationEnd:
    """How an iteration ended: the generator's return value."""

    ok: bool
    reason: FailureReason | None
    seconds: float
    """From its start to its end on the user's clock, think steps included."""
    steps: tuple[StepTime, ...]
    failed_step: str | None = None


@dataclass
class UserState:
    """One user: its number, the clock it reads, its random source and its variables
    (declared ones set at each iteration's start, captured ones kept across iterations)."""

    user: int
    clock: Callable[[], float]
    rng: random.Random
    iteration: int = 0
    vars: dict[str, Any] = field(default_factory=dict)
    locks: dict[str, _HeldLock] = field(default_factory=dict)

    @property
    def owner(self) -> str:
        return f"user-{self.user}"


@dataclass
class _HeldLock:
    key: Key
    last_beat: float
    heartbeat_s: float | None
    ttl_s: float
    size_bytes: int


Iteration = Generator[Action, ActionOutcome | None, IterationEnd]


# --- key and variable rendering ------------------------------------------------------------


class _Draws:
    """Attribute values drawn from the load's distributions, in blocks (one numpy draw
    per 256 rows instead of one per request: the draws dominate otherwise)."""

    BLOCK = 256

    def __init__(self, generator: ItemGenerator, rng: np.random.Generator) -> None:
        self.generator = generator
        self.rng = rng
        self.block: dict[str, np.ndarray] = {}
        self.row = self.BLOCK
        self.seq = 0

    def next(self) -> dict[str, Value]:
        if not self.generator.names:
            return {}
        if self.row >= self.BLOCK:
            self.block = self.generator.draw(self.rng, self.BLOCK, self.seq)
            self.seq += self.BLOCK
            self.row = 0
        values = self.generator.render(self.block, self.row)
        self.row += 1
        return values


def _number(value: Any) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value))


class _Context:
    """What a program needs to render its requests on one table."""

    def __init__(self, playbook: Playbook, phase: Phase, table: TableSpec, seed: int) -> None:
        self.playbook = playbook
        self.phase = phase
        self.table = table
        self.types = {k.name: k.type for k in table.key_attributes()}
        attributes = {**playbook.load.attributes, **phase.attributes}
        names = [k.name for k in table.key_attributes()]
        self.draws = _Draws(
            ItemGenerator(attributes, names, table.primary_key_names()),
            np.random.default_rng(seed),
        )
        # `{seq}`: one counter for the whole program, so one stand-in serves every
        # rendering (it holds nothing but the counter).
        self.seq = _Lazy(itertools.count())
        self.primary = table.primary_key_names()
        self.index_keys = {g.name: g.key_names() for g in table.gsis}

    def env(self, user: UserState, n: int | None = None) -> dict[str, Any]:
        env = {**user.vars, "user": user.user, "iteration": user.iteration}
        env["now"] = int(user.clock() * 1000)
        env["seq"] = self.seq
        if n is not None:
            env["n"] = n
        return env

    def item(
        self,
        user: UserState,
        key: Mapping[str, str | int],
        names: list[str],
        n: int | None = None,
        extra: Mapping[str, str | int] | None = None,
        env: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Value], dict[str, Value]]:
        """The key (`names`) and the other indexed attributes of one request: templates
        first, the load's distributions for the rest (as a single-operation phase).

        `env`: the variables, when the caller renders several items at one instant (a
        batch's members: only `n` differs, and the caller sets it), built once instead
        of per item."""
        values = self.draws.next()  # a new dict per call: filled in place
        if env is None:
            env = self.env(user, n)
        types = self.types
        # Every template of every request is rendered here (inline: a call per attribute
        # cost as much as the rendering).
        for attr, template in ({**key, **extra} if extra else key).items():
            if isinstance(template, str):
                text = template.format_map(env) if "{" in template else template
            else:
                text = str(template)
            values[attr] = _number(text) if types.get(attr) == "N" else text
        keyed = {name: values[name] for name in names if name in values}
        others = {k: v for k, v in values.items() if k not in keyed}
        return keyed, others


class _Lazy:
    """`{seq}` in a template: the next number only when a template uses it."""

    def __init__(self, counter: Iterator[int]) -> None:
        self.counter = counter

    def __format__(self, spec: str) -> str:
        return format(next(self.counter), spec)


# --- the programs --------------------------------------------------------------------------


def _backoff(backoff: Backoff, attempt: int, rng: random.Random) -> float:
    """Full-jitter exponential backoff: uniform in [0, min(max, initial x mult^attempt)]."""
    return rng.uniform(0.0, min(backoff.max_s, backoff.initial_s * backoff.multiplier**attempt))


@dataclass
class _StepEnd:
    ok: bool
    reason: FailureReason | None = None


def _failure(outcome: ActionOutcome) -> FailureReason:
    if outcome.status == "throttled":
        return "retries_exhausted" if outcome.attempts > 1 else "throttled"
    if outcome.status == "unprocessed":
        return "unprocessed_items"
    if outcome.status in ("condition_failed", "transaction_cancelled"):
        return outcome.status
    return "error"


class Program:
    """A phase's iterations on one table: a scenario, a mix, or one operation."""

    def __init__(self, playbook: Playbook, phase: Phase, table: TableSpec, seed: int = 0) -> None:
        self.ctx = _Context(playbook, phase, table, seed or playbook.load.seed)
        self.phase = phase
        self.scenarios = playbook.load.scenarios
        self._var_samplers: dict[int, Sampler] = {}
        self._var_rng = np.random.default_rng((seed or playbook.load.seed) + 1)
        # What an iteration runs, from the phase's kind (loadgen.format.kinds): the one
        # scenario every iteration runs, or entries picked by weight (one operation is a
        # mix of one entry).
        iterations = phase.kind.iterations
        self.scenario: Scenario | None = None
        if iterations.scenario_name is not None:
            self.scenario = self.scenarios[iterations.scenario_name]
        self.entries: list[AnyStep] = []
        self.cumulative: list[float] = []
        total = 0.0
        for entry in iterations.entries:
            total += entry.weight or 0.0
            self.entries.append(entry)
            self.cumulative.append(total)

    @property
    def step_names(self) -> list[str]:
        """Every step the results can name, in order."""
        if self.scenario is not None:
            return [s.label for s in self.scenario.steps]
        return [e.label for e in self.entries]

    def iteration(self, user: UserState) -> Iteration:
        """One iteration of `user`: a generator of actions (see the module docstring)."""
        if self.scenario is not None:
            return self._steps(user, self.scenario)
        pick = user.rng.random() * self.cumulative[-1]
        entry = self.entries[min(bisect.bisect_right(self.cumulative, pick), len(self.entries) - 1)]
        if isinstance(entry, ScenarioCall):
            return self._steps(user, self.scenarios[entry.scenario])
        return self._steps(user, None, [entry])

    def _steps(
        self, user: UserState, scenario: Scenario | None, steps: list[AnyStep] | None = None
    ) -> Iteration:
        start = user.clock()
        if scenario is not None:
            self._declare(user, scenario)
            steps = list(scenario.steps)
        assert steps is not None
        times: list[StepTime] = []
        end = _StepEnd(True)
        failed: str | None = None
        for step in steps:
            for _ in range(step.repeat):
                began = user.clock()
                end = yield from self._with_app_retries(user, step)
                times.append(StepTime(step.label, user.clock() - began, end.ok))
                if not end.ok and step.on_failure != "continue":
                    failed = step.label
                    break
                pause = think_seconds(step.think_s, user.rng)
                if pause > 0:
                    yield from self._think(user, pause, step.label)
            if failed is not None:
                break
        # An application releases its locks in a `finally`: a lock left to its TTL is
        # what a crashed worker does, not one whose iteration failed.
        if user.locks:
            yield from self._release_all(user)
        ok = failed is None
        user.iteration += 1
        return IterationEnd(
            ok=ok,
            reason=None if ok else end.reason,
            seconds=user.clock() - start,
            steps=tuple(times),
            failed_step=failed,
        )

    def _declare(self, user: UserState, scenario: Scenario) -> None:
        env = self.ctx.env(user)
        for name, value in scenario.vars.items():
            if isinstance(value, str):
                user.vars[name] = value.format_map(env) if "{" in value else value
            elif isinstance(value, int | float):
                user.vars[name] = value
            else:  # a distribution: drawn at every iteration's start
                sampler = self._var_samplers.get(id(value))
                if sampler is None:
                    sampler = self._var_samplers[id(value)] = sampler_for(value)
                drawn = sampler.draw(self._var_rng, 1, user.iteration)
                user.vars[name] = sampler.render(int(drawn[0]))
            env[name] = user.vars[name]

    def _with_app_retries(self, user: UserState, step: AnyStep) -> Generator[Action, Any, _StepEnd]:
        end = yield from self._step(user, step)
        if step.on_failure != "retry":
            return end
        attempt = 0
        while not end.ok and attempt < step.retry_attempts:
            yield from self._think(
                user, _backoff(step.retry_backoff, attempt, user.rng), step.label
            )
            attempt += 1
            end = yield from self._step(user, step)
        return end

    def _think(
        self, user: UserState, seconds: float, step: str | None
    ) -> Generator[Action, Any, None]:
        """A pause; a held lock is renewed within it when its heartbeat falls due."""
        remaining = seconds
        while remaining > 0:
            beats = [h.last_beat + h.heartbeat_s for h in user.locks.values() if h.heartbeat_s]
            due = min(beats) - user.clock() if beats else remaining
            chunk = max(0.0, min(remaining, due))
            if chunk > 0:
                yield ThinkAction(chunk, step)
                remaining -= chunk
            if beats and remaining > 0:
                yield from self._heartbeats(user)
            elif not beats:
                break

    def _op(self, user: UserState, action: OpAction) -> Generator[Action, Any, ActionOutcome]:
        """Perform one request, renewing held locks first when their heartbeat is due."""
        yield from self._heartbeats(user)
        outcome = yield action
        assert isinstance(outcome, ActionOutcome), (
            "the driver must send an ActionOutcome for an OpAction"
        )
        return outcome

    def _heartbeats(self, user: UserState) -> Generator[Action, Any, None]:
        for name, held in list(user.locks.items()):
            # The slack keeps a renewal due "now" from missing by a rounding error
            # (the think before it ends exactly at the due time).
            if held.heartbeat_s and user.clock() - held.last_beat >= held.heartbeat_s - 1e-6:
                held.last_beat = user.clock()
                yield OpAction(
                    step=f"{name}.heartbeat",
                    operation="update",
                    table=self.ctx.table.name,
                    key=held.key,
                    size_bytes=held.size_bytes,
                    attributes={
                        "owner": user.owner,
                        "expiresAt": _number(round(user.clock() + held.ttl_s, 3)),
                    },
                    condition=Condition("lock_owner", owner=user.owner),
                )

    def _release_all(self, user: UserState) -> Generator[Action, Any, None]:
        for name in list(user.locks):
            yield from self._release(user, name, f"{name}.release")

    def _release(
        self, user: UserState, lock: str, step: str
    ) -> Generator[Action, Any, ActionOutcome]:
        held = user.locks.pop(lock, None)
        if held is None:
            return ActionOutcome("ok")
        outcome = yield OpAction(
            step=step,
            operation="delete",
            table=self.ctx.table.name,
            key=held.key,
            condition=Condition("lock_owner", owner=user.owner),
        )
        assert isinstance(outcome, ActionOutcome)
        return outcome

    def _capture(self, user: UserState, step: AnyStep, outcome: ActionOutcome) -> None:
        for var, what in step.capture.items():
            if what == "now":
                user.vars[var] = user.clock()
            elif what == "items":
                user.vars[var] = outcome.items
            elif what == "bytes":
                user.vars[var] = outcome.bytes
            elif what == "version":
                user.vars[var] = outcome.version or 0
            elif what == "last_key":
                user.vars[var] = outcome.last_evaluated_key

    def _step(self, user: UserState, step: AnyStep) -> Generator[Action, Any, _StepEnd]:
        ctx = self.ctx
        table = ctx.table.name
        if isinstance(step, ThinkStep):
            yield from self._think(user, think_seconds(step.seconds, user.rng), step.label)
            return _StepEnd(True)
        if isinstance(step, LockStep):
            return (yield from self._lock(user, step))
        if isinstance(step, ReleaseStep):
            outcome = yield from self._release(user, step.lock, step.label)
            return _StepEnd(
                outcome.status == "ok", None if outcome.status == "ok" else _failure(outcome)
            )
        if isinstance(step, QueryStep | ScanStep):
            return (yield from self._paged(user, step))
        if isinstance(step, BatchWriteStep | BatchGetStep):
            return (yield from self._batch(user, step))
        action = self._single_action(user, step, table)
        outcome = yield from self._op(user, action)
        if outcome.status == "ok":
            self._after_write(user, step, action, outcome)
            self._capture(user, step, outcome)
            return _StepEnd(True)
        return _StepEnd(False, _failure(outcome))

    def _single_action(self, user: UserState, step: AnyStep, table: str) -> OpAction:
        ctx = self.ctx
        if isinstance(step, GetStep):
            key, _ = ctx.item(user, step.key, ctx.primary)
            return OpAction(
                step.label,
                "get",
                table,
                key,
                consistent_read=step.consistent_read or self.phase.consistent_read,
            )
        if isinstance(step, PutStep | UpdateStep):
            key, others = ctx.item(user, step.key, ctx.primary, extra=step.attributes)
            return OpAction(
                step.label,
                step.op,
                table,
                key,
                size_bytes=step.size_bytes or ctx.table.item_size_bytes,
                attributes=others,
                condition=self._condition(user, step.condition, step.version_var),
            )
        if isinstance(step, DeleteStep):
            key, _ = ctx.item(user, step.key, ctx.primary)
            return OpAction(
                step.label,
                "delete",
                table,
                key,
                condition=self._condition(user, step.condition, step.version_var),
            )
        if isinstance(step, TransactWriteStep):
            members = []
            for n, m in enumerate(step.members):
                key, others = ctx.item(user, m.key, ctx.primary, n=n)
                members.append(
                    Member(
                        m.action,
                        key,
                        size_bytes=0
                        if m.action in ("delete", "condition_check")
                        else m.size_bytes or ctx.table.item_size_bytes,
                        attributes=others,
                        condition=self._condition(user, m.condition, m.version_var),
                    )
                )
            return OpAction(step.label, "transact_write", table, members=tuple(members))
        if isinstance(step, TransactGetStep):
            members = [
                Member("get", ctx.item(user, m.key, ctx.primary, n=n)[0])
                for n, m in enumerate(step.members)
            ]
            return OpAction(step.label, "transact_get", table, members=tuple(members))
        raise TypeError(f"no single request for a {type(step).__name__}")

    def _condition(self, user: UserState, kind: str | None, version_var: str) -> Condition | None:
        if kind is None:
            return None
        if kind == "version":
            return Condition("version", version=int(user.vars.get(version_var, 0)))
        return Condition("attribute_not_exists")

    def _after_write(
        self, user: UserState, step: AnyStep, action: OpAction, outcome: ActionOutcome
    ) -> None:
        """A versioned write that succeeded: the user now knows the next version."""
        condition = action.condition
        if condition is not None and condition.kind == "version":
            var = getattr(step, "version_var", "version")
            user.vars[var] = (
                outcome.version if outcome.version is not None else (condition.version or 0) + 1
            )
        elif isinstance(step, GetStep) and outcome.version is not None:
            user.vars["version"] = outcome.version

    def _lock(self, user: UserState, step: LockStep) -> Generator[Action, Any, _StepEnd]:
        key, _ = self.ctx.item(user, step.key, self.ctx.primary)
        deadline = user.clock() + step.wait_s
        polls = 0
        while True:
            now = user.clock()
            outcome = yield from self._op(
                user,
                OpAction(
                    step.label,
                    "put",
                    self.ctx.table.name,
                    key,
                    size_bytes=step.size_bytes,
                    attributes={
                        "owner": user.owner,
                        "expiresAt": _number(round(now + step.ttl_s, 3)),
                    },
                    condition=Condition("lock_free", owner=user.owner, now=now),
                ),
            )
            if outcome.status == "ok":
                user.locks[step.label] = _HeldLock(
                    key, user.clock(), step.heartbeat_s, step.ttl_s, step.size_bytes
                )
                return _StepEnd(True)
            if outcome.status != "condition_failed":
                return _StepEnd(False, _failure(outcome))
            wait = _backoff(step.poll, polls, user.rng)
            polls += 1
            if user.clock() + wait > deadline:
                left = deadline - user.clock()
                if left > 0:
                    yield from self._think(user, left, step.label)
                return _StepEnd(False, "lock_timeout")
            yield from self._think(user, wait, step.label)

    def _paged(
        self, user: UserState, step: QueryStep | ScanStep
    ) -> Generator[Action, Any, _StepEnd]:
        ctx = self.ctx
        if isinstance(step, QueryStep):
            names = ctx.index_keys[step.index][:1] if step.index else ctx.primary[:1]
            key, _ = ctx.item(user, step.key, names)
            since = user.vars.get(step.since) if step.since else None
            segment = total = None
        else:
            key, since = {}, None
            total = step.segments
            segment = user.user % step.segments
        start: Any = None
        items = size = pages = 0
        last = ActionOutcome("ok")
        while True:
            action = OpAction(
                step.label,
                "query" if isinstance(step, QueryStep) else "scan",
                ctx.table.name,
                key,
                index=step.index,
                consistent_read=step.consistent_read or self.phase.consistent_read,
                limit=step.limit,
                exclusive_start_key=start,
                collection=getattr(step, "collection", False),
                since=float(since) if since is not None else None,
                segment=segment,
                total_segments=total,
            )
            last = yield from self._op(user, action)
            if last.status != "ok":
                return _StepEnd(False, _failure(last))
            items += last.items
            size += last.bytes
            pages += 1
            start = last.last_evaluated_key
            if start is None or (step.pages is not None and pages >= step.pages):
                break
        self._capture(
            user, step, ActionOutcome("ok", items=items, bytes=size, last_evaluated_key=start)
        )
        return _StepEnd(True)

    def _batch(
        self, user: UserState, step: BatchWriteStep | BatchGetStep
    ) -> Generator[Action, Any, _StepEnd]:
        ctx = self.ctx
        count = step.items if isinstance(step, BatchWriteStep) else step.keys
        members: list[Member] = []
        # The members are rendered at one instant: one set of variables, and one merge
        # of the key and attribute templates, for all of them (`n` set per member).
        templates: Mapping[str, str | int] = step.key
        if isinstance(step, BatchWriteStep) and step.attributes:
            templates = {**step.key, **step.attributes}
        env = ctx.env(user)
        for n in range(count):
            env["n"] = n
            key, others = ctx.item(user, templates, ctx.primary, env=env)
            if isinstance(step, BatchGetStep):
                members.append(Member("get", key))
            elif step.delete:
                members.append(Member("delete", key))
            else:
                size = step.size_bytes or ctx.table.item_size_bytes
                members.append(Member("put", key, size_bytes=size, attributes=others))
        operation: Operation = "batch_write" if isinstance(step, BatchWriteStep) else "batch_get"
        resends = 0
        items = 0
        pending = tuple(members)
        while True:
            outcome = yield from self._op(
                user, OpAction(step.label, operation, ctx.table.name, members=pending)
            )
            items += outcome.items
            if outcome.status == "ok":
                break
            if outcome.status != "unprocessed":
                return _StepEnd(False, _failure(outcome))
            if step.on_unprocessed == "ignore":
                break
            if step.on_unprocessed == "fail" or resends >= step.unprocessed_retries:
                return _StepEnd(False, "unprocessed_items")
            yield from self._think(
                user, _backoff(step.retry_backoff, resends, user.rng), step.label
            )
            resends += 1
            pending = tuple(pending[i] for i in outcome.unprocessed)
        self._capture(user, step, ActionOutcome("ok", items=items))
        return _StepEnd(True)
