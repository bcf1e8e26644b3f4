"""Checks of mixes and scenarios that span the playbook: names that must exist elsewhere.

A model validator sees one model; these see the whole playbook (the tables a scenario's
steps run against, the variables its templates use, the lock a release names), and
locate each problem at the field that is wrong so the message can name its line.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from loadgen.format.workload_spec import (
    BUILTIN_VARS,
    AnyStep,
    LockStep,
    QueryStep,
    ReleaseStep,
    ScanStep,
    ScenarioCall,
    ThinkStep,
    step_templates,
    template_names,
)

if TYPE_CHECKING:
    from loadgen.format.playbook import Phase, Playbook, Problem, TableSpec

Loc = tuple[int | str, ...]

_BATCH_OPS = ("batch_write", "batch_get", "transact_write", "transact_get")


def did_you_mean(name: str, valid: list[str]) -> str:
    """ " (did you mean 'x'?)" for the valid name closest to a mistyped one, else ""."""
    close = difflib.get_close_matches(name, valid, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _phases_running(playbook: Playbook, scenario: str) -> list[Phase]:
    return [p for p in playbook.load.phases if p.kind.iterations.scenario_name == scenario]


def _tables(playbook: Playbook) -> list[TableSpec]:
    names = {run.table for run in playbook.runs()}
    return [t for t in playbook.tables if t.name in names]


def _key_names(step: AnyStep, table: TableSpec) -> tuple[list[str], str | None]:
    """The key attributes a step must be given on `table` and the index it needs, if any
    (a query's key is the partition key of the index it reads; a scan needs none)."""
    index = getattr(step, "index", None)
    if isinstance(step, ScanStep):
        return [], index
    if isinstance(step, QueryStep):
        if index is None:
            return [table.partition_key.name], None
        gsi = next((g for g in table.gsis if g.name == index), None)
        return ([k.name for k in gsi.partition_keys] if gsi else []), index
    return table.primary_key_names(), None


def step_problems(
    playbook: Playbook,
    loc: Loc,
    step: AnyStep,
    phases: list[Phase],
    known_vars: set[str],
) -> Iterator[tuple[Loc, str]]:
    if isinstance(step, ThinkStep | ReleaseStep | ScenarioCall):
        return
    # A key attribute left out of `key` is drawn: every phase that runs the step must
    # have a distribution for it.
    drawn = set(playbook.load.attributes)
    for phase in phases:
        drawn &= set(playbook.load.attributes) | set(phase.attributes)
    for table in _tables(playbook):
        keys, index = _key_names(step, table)
        if index is not None and index not in [g.name for g in table.gsis]:
            gsis = [g.name for g in table.gsis]
            yield (
                (*loc, "index"),
                f"table {table.name} has no GSI {index!r}"
                + did_you_mean(index, gsis)
                + (f"; its GSIs: {', '.join(gsis)}" if gsis else "; it has no GSIs"),
            )
            continue
        gsi = next((g for g in table.gsis if g.name == index), None)
        if isinstance(step, QueryStep) and gsi is not None and gsi.multi_attribute:
            # A step's query sends one key attribute's condition; a multi-attribute
            # key needs every partition-key attribute's (and the sort keys' in order).
            yield (
                (*loc, "index"),
                f"table {table.name}'s GSI {index} has a multi-attribute key, which a "
                "step cannot query yet; query it from your own client against `hotbench "
                "emulator serve`, or write to it here (writes are modelled in full)",
            )
            continue
        given = set(getattr(step, "key", None) or {})
        members = getattr(step, "members", None)
        for name in keys:
            if members is not None:
                missing_at = [
                    m
                    for m, member in enumerate(members)
                    if name not in member.key and name not in drawn
                ]
                for m in missing_at:
                    yield (
                        (*loc, "members", m, "key"),
                        f"table {table.name} needs key attribute {name!r}: give it in key "
                        f"or a distribution in load.attributes",
                    )
            elif name not in given and name not in drawn:
                yield (
                    (*loc, "key"),
                    f"table {table.name} needs key attribute {name!r}: give it in key "
                    f'(e.g. {name}: "LOCK#{{user}}") or a distribution in load.attributes',
                )
    op = str(getattr(step, "op", ""))
    allowed = set(BUILTIN_VARS) - ({"n"} if op not in _BATCH_OPS else set())
    for where, template in step_templates(step):
        for name in template_names(template):
            if name not in allowed and name not in known_vars:
                valid = sorted(allowed | known_vars)
                yield (
                    (*loc, *where),
                    f"template {template!r} uses {{{name}}}, which is not a variable"
                    + did_you_mean(name, valid)
                    + f"; variables here: {', '.join(valid)}",
                )
    since = getattr(step, "since", None)
    if since is not None and since not in known_vars:
        yield (
            (*loc, "since"),
            f"since names {since!r}, which no step captures and vars does not declare; "
            f"capture it in an earlier step (capture: {{{since}: now}})",
        )


def _scenario_problems(playbook: Playbook, name: str) -> Iterator[tuple[Loc, str]]:
    scenario = playbook.load.scenarios[name]
    base: Loc = ("load", "scenarios", name)
    phases = _phases_running(playbook, name) or list(playbook.load.phases)
    captured = {var for step in scenario.steps for var in step.capture}
    for var in sorted(captured & set(scenario.vars)):
        yield (
            (*base, "vars", var),
            f"{var!r} is both declared in vars and captured by a step; rename one "
            "(a declared variable is set again at every iteration's start)",
        )
    known = set(scenario.vars) | captured
    known |= {s.version_var for s in scenario.steps if hasattr(s, "version_var")}
    for template_var, value in scenario.vars.items():
        if isinstance(value, str):
            for used in template_names(value):
                if used not in set(BUILTIN_VARS) - {"n"} and used not in known:
                    yield (
                        (*base, "vars", template_var),
                        f"template {value!r} uses {{{used}}}, which is not a variable",
                    )
    names: list[str] = []
    locks: list[str] = []
    for i, step in enumerate(scenario.steps):
        loc: Loc = (*base, "steps", i)
        if step.name is None:
            yield ((*loc, "op"), f"a scenario's steps need a name (this {step.op} step has none)")
        elif step.name in names:
            yield ((*loc, "name"), f"step names must be unique in a scenario: {step.name!r}")
        names.append(step.label)
        if step.weight is not None:
            yield ((*loc, "weight"), "weight applies to a mix entry, not a scenario step")
        if isinstance(step, ScenarioCall):
            yield ((*loc, "op"), "a scenario cannot call a scenario; list its steps here")
        if isinstance(step, LockStep):
            locks.append(step.label)
        if isinstance(step, ReleaseStep) and step.lock not in locks:
            yield (
                (*loc, "lock"),
                f"releases {step.lock!r}, which is no earlier lock step"
                + did_you_mean(step.lock, locks)
                + (f"; lock steps so far: {', '.join(locks)}" if locks else ""),
            )
        yield from step_problems(playbook, loc, step, phases, known)


def unknown_scenario(playbook: Playbook, name: str, loc: Loc) -> tuple[Loc, str]:
    valid = list(playbook.load.scenarios)
    listed = f"; load.scenarios has: {', '.join(valid)}" if valid else "; load.scenarios is empty"
    return (loc, f"no scenario {name!r}" + did_you_mean(name, valid) + listed)


def workload_problems(playbook: Playbook) -> list[Problem]:
    """Every cross-reference problem of the playbook's mixes and scenarios, located (a
    phase's own, by its kind's forms: loadgen.format.kinds)."""
    problems: list[Problem] = []
    for p, phase in enumerate(playbook.load.phases):
        problems += phase.kind.problems(playbook, p)
    for name in playbook.load.scenarios:
        if not name.replace("-", "").replace("_", "").replace(".", "").isalnum():
            problems.append(
                (("load", "scenarios", name), "scenario names use letters, digits, '-', '_', '.'")
            )
            continue
        problems += list(_scenario_problems(playbook, name))
    return problems
