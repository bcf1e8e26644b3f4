"""`hotbench advise` for a mix's or scenario's steps: the ceilings of ONE key or of what
the data becomes (loadgen.analysis.ceilings), found in the steps as written.

- a `lock` step whose key is the same for every user: one lock item, so at most
  1 / hold iterations a second in all, whatever the capacity;
- a write that gives a GSI's partition key one constant value: every entry of that
  index on one partition;
- a `query` with `collection: true` (no `since`) of a key that the scenario's own writes
  keep adding new items under: its read cost grows every iteration.

A key is "the same for every user" when its template names no variable, or only
variables that are themselves constants; `{user}`, `{iteration}`, `{seq}`, `{now}`, a
template using them or a drawn variable make it vary. Times (a lock's hold, an
iteration) come from the think times written and the latency model of the simulation
(`RequestTimes`, emulator.params), so advice and simulation share their physics.
Pure: no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

from emulator.params import CapacityParams
from loadgen.analysis.ceilings import (
    GROWTH_FIX,
    LOCK_FIX,
    CollectionGrowth,
    LockLoad,
    collection_growth,
    constant_key_ceiling,
    growth_words,
    iterations_until_read_ceiling,
    lock_ceiling,
    lock_poll_units,
)
from loadgen.format.playbook import Phase, Playbook, TableSpec
from loadgen.format.workload_spec import (
    AnyStep,
    BatchWriteStep,
    LockStep,
    PutStep,
    QueryStep,
    ReleaseStep,
    ThinkStep,
    TransactWriteStep,
    UpdateStep,
    template_names,
    think_mean,
)

VARYING_BUILTINS = frozenset({"user", "iteration", "seq", "now", "n"})
"""Built-in variables whose value differs between users or iterations."""
NEW_ITEM_BUILTINS = frozenset({"iteration", "seq", "now"})
"""Built-ins that make a sort key new at every iteration (so the collection grows)."""
GROWTH_POINTS = (1, 100, 1_000, 10_000)
"""The iterations at which a growing collection's read cost is shown."""


class RequestTimes(Protocol):
    """What advice needs of the simulation's latency model (emulator.params)."""

    @property
    def write_s(self) -> float: ...

    @property
    def read_s(self) -> float: ...


@dataclass(frozen=True)
class FixedTimes:
    """Request times given directly (a what-if, or a test), instead of the latency
    model's."""

    write_s: float
    read_s: float


@dataclass(frozen=True)
class ScenarioFinding:
    """One ceiling found in a phase's steps, in words (shown as a note of the table)."""

    phase: str
    kind: str
    """"lock", "constant index key" or "growing collection"."""
    words: str


def scenario_findings(
    playbook: Playbook,
    table: TableSpec,
    phase: Phase,
    params: CapacityParams,
    times: RequestTimes,
) -> list[ScenarioFinding]:
    """The ceilings of a mix or scenario phase's steps against `table`."""
    steps, variables = _steps_of(playbook, phase)
    if not steps:
        return []
    cycle = _cycle_s(steps, phase, times)
    arrivals = phase.kind.arrivals
    users = arrivals.peak_users()
    iterations_per_s = (users / cycle if users else arrivals.peak_rate()) if cycle > 0 else 0.0
    load = _PhaseLoad(
        phase=phase,
        table=table,
        steps=steps,
        variables=variables,
        users=users,
        cycle=cycle,
        iterations_per_s=iterations_per_s,
        params=params,
        times=times,
    )
    return _locks(load) + _constant_index_keys(load) + _growing_collections(load)


@dataclass(frozen=True)
class _PhaseLoad:
    """What each finding reads of one phase: its steps and the variables they may name,
    the table, how many users run it and how fast, and the physics."""

    phase: Phase
    table: TableSpec
    steps: list[AnyStep]
    variables: dict[str, Any]
    users: int
    cycle: float
    """One iteration's mean seconds (`_cycle_s`)."""
    iterations_per_s: float
    params: CapacityParams
    times: RequestTimes


# --- finding the steps and their keys -------------------------------------------------------


def _steps_of(playbook: Playbook, phase: Phase) -> tuple[list[AnyStep], dict[str, Any]]:
    """The steps one iteration runs (a scenario's, or a mix's entries and the scenarios
    they call: the playbook's one walk of them), and the scenario variables the keys may
    name."""
    steps, run = playbook.load.iteration_steps(phase)
    variables: dict[str, Any] = {}
    for name in run:
        variables.update(playbook.load.scenarios[name].vars)
    return [s for s in steps if s.op != "scenario"], variables


def constant_value(template: Any, variables: dict[str, Any], depth: int = 0) -> str | None:
    """The value a key template has for every user and iteration, or None when it
    varies (names a varying built-in, a drawn variable, or a variable that does)."""
    if not isinstance(template, str | int):
        return None  # a distribution: drawn
    names = template_names(template)
    if not names:
        return str(template)
    if depth > 8:
        return None
    values = {}
    for name in names:
        if name in VARYING_BUILTINS or name not in variables:
            return None
        value = constant_value(variables[name], variables, depth + 1)
        if value is None:
            return None
        values[name] = value
    return str(template).format(**values)


def _grows(template: Any, variables: dict[str, Any], depth: int = 0) -> bool:
    """Whether a sort key template is new at every iteration (names iteration, seq or
    now, directly or through a variable)."""
    if not isinstance(template, str) or depth > 8:
        return False
    for name in template_names(template):
        if name in NEW_ITEM_BUILTINS:
            return True
        if name in variables and _grows(variables[name], variables, depth + 1):
            return True
    return False


# --- times ----------------------------------------------------------------------------------


def _step_s(step: AnyStep, times: RequestTimes) -> float:
    """One step's mean time: its requests (the latency model's single-request times; a
    lock that is free at once is one conditional put) and its think times."""
    if isinstance(step, ThinkStep):
        return think_mean(step.seconds) * step.repeat
    reads = step.op in ("get", "query", "scan", "batch_get", "transact_get")
    request = times.read_s if reads else times.write_s
    return (request + think_mean(step.think_s)) * step.repeat


def _cycle_s(steps: list[AnyStep], phase: Phase, times: RequestTimes) -> float:
    """One iteration without waiting on a lock, plus the user's think between them."""
    return sum(_step_s(s, times) for s in steps) + phase.kind.arrivals.mean_think_s()


# --- the three findings ---------------------------------------------------------------------


def _locks(given: _PhaseLoad) -> list[ScenarioFinding]:
    steps, variables, phase, users = given.steps, given.variables, given.phase, given.users
    cycle, params, times = given.cycle, given.params, given.times
    peak_rate = phase.kind.arrivals.peak_rate()
    found = []
    for i, step in enumerate(steps):
        if not isinstance(step, LockStep):
            continue
        key = {a: constant_value(v, variables) for a, v in step.key.items()}
        if not key or any(v is None for v in key.values()):
            continue  # a lock per user (or per namespace): no shared ceiling
        # Held from the acquire to its release step (or the iteration's end).
        release = next(
            (
                j
                for j in range(i + 1, len(steps))
                if isinstance(steps[j], ReleaseStep) and steps[j].lock == step.label  # type: ignore[union-attr]
            ),
            len(steps),
        )
        hold = sum(_step_s(s, times) for s in steps[i : release + 1])
        contenders = users or max(1, math.ceil(peak_rate * max(cycle, hold)))
        load = LockLoad(contenders, hold, cycle, step.wait_s)
        ceiling = lock_ceiling(load)
        polls = lock_poll_units(contenders, step.poll.initial_s, step.size_bytes, params)
        shown = ", ".join(f"{a}={v}" for a, v in key.items())
        found.append(
            ScenarioFinding(
                phase.name,
                "lock",
                f"lock {step.label} ({shown}) is one item for every user: "
                f"{ceiling.words(load)}; the waiting users' polls cost it about "
                f"{polls:,.0f} WCU/s (a failed conditional put is charged)"
                + (f". {LOCK_FIX}" if ceiling.saturated else ""),
            )
        )
    return found


def _writes_of(step: AnyStep) -> list[tuple[dict[str, Any], dict[str, Any], int, int | None]]:
    """(key templates, attribute templates, items per iteration, size) of a write step."""
    if isinstance(step, PutStep | UpdateStep):
        return [(step.key, step.attributes, step.repeat, step.size_bytes)]
    # getattr: a batch's or a transaction member's written attributes, where the
    # format gives them (a write without them draws them, as a single operation does).
    if isinstance(step, BatchWriteStep) and not step.delete:
        attributes = getattr(step, "attributes", None) or {}
        return [(step.key, attributes, step.items * step.repeat, step.size_bytes)]
    if isinstance(step, TransactWriteStep):
        return [
            (m.key, getattr(m, "attributes", None) or {}, step.repeat, m.size_bytes)
            for m in step.members
            if m.action in ("put", "update")
        ]
    return []


def _constant_index_keys(given: _PhaseLoad) -> list[ScenarioFinding]:
    steps, variables, phase, table = given.steps, given.variables, given.phase, given.table
    iterations_per_s, params = given.iterations_per_s, given.params
    found = []
    for gsi in table.gsis:
        names = [k.name for k in gsi.partition_keys]
        per_iteration = 0.0
        value: str | None = None
        size = table.item_size_bytes
        for step in steps:
            for key, attributes, items, bytes_ in _writes_of(step):
                # A multi-attribute key is one key only when every attribute is constant.
                constants = []
                for name in names:
                    template = attributes.get(name, key.get(name))
                    constants.append(
                        constant_value(template, variables) if template is not None else None
                    )
                if any(c is None for c in constants):
                    continue
                value = constants[0] if len(names) == 1 else f"({', '.join(map(str, constants))})"
                per_iteration += items
                size = bytes_ or size
        if value is None:
            continue
        ceiling = constant_key_ceiling(gsi.name, value, size, params)
        found.append(
            ScenarioFinding(
                phase.name,
                "constant index key",
                ceiling.words(per_iteration * iterations_per_s),
            )
        )
    return found


def _growing_collections(given: _PhaseLoad) -> list[ScenarioFinding]:
    steps, variables, phase, table = given.steps, given.variables, given.phase, given.table
    iterations_per_s, params = given.iterations_per_s, given.params
    found = []
    for query in steps:
        if not isinstance(query, QueryStep) or not query.collection or query.since is not None:
            continue
        if query.index is None:
            pk, sk = table.partition_key.name, table.sort_key
        else:
            gsi = next((g for g in table.gsis if g.name == query.index), None)
            if gsi is None:
                continue
            # (a step cannot query a multi-attribute GSI: workload_checks refuses it)
            pk, sk = gsi.partition_keys[0].name, (gsi.sort_keys[0] if gsi.sort_keys else None)
        read_key = query.key.get(pk)
        if read_key is None or sk is None:
            continue
        added, size = 0.0, table.item_size_bytes
        for step in steps:
            for key, attributes, items, bytes_ in _writes_of(step):
                merged = {**key, **attributes}
                if merged.get(pk) == read_key and _grows(merged.get(sk.name), variables):
                    added += items
                    size = bytes_ or size
        if added == 0:
            continue
        growth = CollectionGrowth(added, size, consistent=query.consistent_read)
        points = collection_growth(growth, list(GROWTH_POINTS), params)
        words = f"query {query.label} reads {pk}={read_key} whole: {growth_words(growth, points)}"
        limit = iterations_until_read_ceiling(growth, iterations_per_s, params)
        if limit is not None:
            words += (
                f"; at {iterations_per_s:.3g} iterations/s its reads alone pass one "
                f"partition's {params.partition_rcu:,.0f} RCU/s by iteration {limit:,}, and "
                "every page is a round trip more, so iterations slow down as the data grows"
            )
        words += f". {GROWTH_FIX}"
        found.append(ScenarioFinding(phase.name, "growing collection", words))
    return found
