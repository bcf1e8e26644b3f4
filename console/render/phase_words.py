"""A phase of a playbook in words, for the plan: its kind (its arrivals and what an
iteration does, in the words of loadgen.format.kinds), and a mix's shares or a scenario's
steps in order, so an operator can read what a run will do before it does.

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
    ThinkStep,
    TransactGetStep,
    TransactWriteStep,
    UpdateStep,
    think_words,
)


def _seconds(value: float) -> str:
    return f"{value:g} s"


def _key(template: Mapping[str, str | int]) -> str:
    return "/".join(str(v) for v in template.values()) if template else "drawn key"


def _what(step: AnyStep) -> str:
    """What one step does, e.g. `lock LOCK/0, wait 0.3 s, ttl 5 s`."""
    if isinstance(step, LockStep):
        return f"lock {_key(step.key)}, wait {_seconds(step.wait_s)}, ttl {_seconds(step.ttl_s)}"
    if isinstance(step, ReleaseStep):
        return f"release {step.lock}"
    if isinstance(step, ThinkStep):
        return f"think {think_words(step.seconds)}"
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
        extras.append(f"then think {think_words(step.think_s)}")
    if step.on_failure != "fail":
        extras.append(f"on failure {step.on_failure}")
    more = ", " + ", ".join(extras) if extras else ""
    return f"{step.label} ({_what(step)}{more})"


def phase_lines(phase: Phase, scenarios: Mapping[str, Scenario]) -> list[str]:
    """The phase's lines (the first its summary in its kind's words, then one per mix
    entry, then the steps of each scenario it runs)."""
    iterations = phase.kind.iterations
    lines = [f"{phase.name}: {phase.kind.summary(phase.duration_s)}"]
    lines += [f"  {step_words(e)}" for e in iterations.listed_steps()]
    for name in iterations.listed_scenarios():
        scenario = scenarios.get(name)
        if scenario is not None:
            steps = " > ".join(step_words(s) for s in scenario.steps)
            lines.append(f"  {name}: {steps}")
    return lines
