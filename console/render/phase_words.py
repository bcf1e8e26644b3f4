"""A phase of a playbook in words, for the plan: its load model, and a mix's shares or a
scenario's steps in order, so an operator can read what a run will do before it does.

A phase of one operation keeps the line it always had (`w: put 200/s for 60 s`).
"""

from __future__ import annotations

from collections.abc import Mapping

from loadgen.format.playbook import Phase, Scenario
from loadgen.format.workload_spec import (
    AnyStep,
    BatchGetStep,
    BatchWriteStep,
    DeleteStep,
    LockStep,
    PutStep,
    QueryStep,
    ReleaseStep,
    ScanStep,
    ScenarioCall,
    ThinkRange,
    ThinkStep,
    TransactGetStep,
    TransactWriteStep,
    UpdateStep,
    Users,
)


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _think(think: float | ThinkRange) -> str:
    if isinstance(think, ThinkRange):
        return f"{think.min:g}-{think.max:g} s"
    return _seconds(think)


def _key(template: Mapping[str, str | int]) -> str:
    return "/".join(str(v) for v in template.values()) if template else "drawn key"


def _what(step: AnyStep) -> str:
    """What one step does, e.g. `lock LOCK/0, wait 0.3 s, ttl 5 s`."""
    if isinstance(step, LockStep):
        return f"lock {_key(step.key)}, wait {_seconds(step.wait_s)}, ttl {_seconds(step.ttl_s)}"
    if isinstance(step, ReleaseStep):
        return f"release {step.lock}"
    if isinstance(step, ThinkStep):
        return f"think {_think(step.seconds)}"
    if isinstance(step, ScenarioCall):
        return f"scenario {step.scenario}"
    if isinstance(step, BatchWriteStep):
        return f"batch_write {step.items} {'deletes' if step.delete else 'items'} {_key(step.key)}"
    if isinstance(step, BatchGetStep):
        return f"batch_get {step.keys} keys {_key(step.key)}"
    if isinstance(step, TransactWriteStep):
        actions = ", ".join(m.action for m in step.members)
        return f"transact_write of {len(step.members)}: {actions}"
    if isinstance(step, TransactGetStep):
        return f"transact_get of {len(step.members)}"
    if isinstance(step, ScanStep):
        return "scan" + (f" {step.segments} segments" if step.segments > 1 else "")
    what = f"{step.op} {_key(step.key)}"
    if isinstance(step, QueryStep):
        if step.index:
            what += f" on {step.index}"
        if step.collection:
            what += ", collection"
        if step.since:
            what += f" since {{{step.since}}}"
    if isinstance(step, PutStep | UpdateStep | DeleteStep):
        if step.condition == "attribute_not_exists":
            what += " if new"
        elif step.condition == "version":
            what += " if version matches"
    return what


def step_words(step: AnyStep) -> str:
    """One step: its name and what it does, e.g. `take (lock LOCK/0, wait 0.3 s, ...)`."""
    extras = []
    if step.repeat > 1:
        extras.append(f"x{step.repeat}")
    if step.think_s:
        extras.append(f"then think {_think(step.think_s)}")
    if step.on_failure != "fail":
        extras.append(f"on failure {step.on_failure}")
    more = ", " + ", ".join(extras) if extras else ""
    return f"{step.label} ({_what(step)}{more})"


def _load(phase: Phase) -> str:
    users = phase.users
    if users is None:
        rate = f"{phase.rate:,.0f}/s" if phase.rate is not None else "ramp"
        if phase.mix is None and phase.scenario is None:
            return rate
        return f"{rate} arrivals onto up to {phase.arrival_users:,} users"
    if isinstance(users, Users):
        shown = f"users {users.start:,}->{users.end:,}"
        if users.steps:
            shown += f" in {users.steps} steps"
    else:
        shown = f"{users:,} users"
    if phase.pacing_s is not None:
        shown += f", an iteration every {_seconds(phase.pacing_s)}"
    elif phase.think_s is not None:
        shown += f", think {_think(phase.think_s)}"
    return shown


def phase_lines(phase: Phase, scenarios: Mapping[str, Scenario]) -> list[str]:
    """The phase's lines (the first its summary, then one per mix entry or scenario)."""
    retry = f", retry {phase.retry.mode}" if phase.retry.mode != "none" else ""
    during = f"for {phase.duration_s:,.0f} s"
    if phase.mix is None and phase.scenario is None:
        return [f"{phase.name}: {phase.operation} {_load(phase)} {during}{retry}"]
    if phase.scenario is not None:
        lines = [f"{phase.name}: {_load(phase)}, scenario {phase.scenario} {during}{retry}"]
        names = [phase.scenario]
    else:
        assert phase.mix is not None
        total = sum(e.weight or 0.0 for e in phase.mix) or 1.0
        shares = ", ".join(f"{e.label} {100 * (e.weight or 0.0) / total:.0f} %" for e in phase.mix)
        lines = [f"{phase.name}: {_load(phase)}, mix {during}{retry}: {shares}"]
        lines += [f"  {step_words(e)}" for e in phase.mix if not isinstance(e, ScenarioCall)]
        names = [e.scenario for e in phase.mix if isinstance(e, ScenarioCall)]
    for name in names:
        scenario = scenarios.get(name)
        if scenario is not None:
            steps = " > ".join(step_words(s) for s in scenario.steps)
            lines.append(f"  {name}: {steps}")
    return lines
