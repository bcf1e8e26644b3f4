"""What every step shares: the state store, marking a step running/done/failed, the
run's own settings and clients."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from console.targets import run_settings, target_for
from console.workflow.errors import StateError
from console.workflow.settings import Settings
from console.workflow.state import (
    RunState,
    StateStore,
    Status,
    Step,
    utc_now,
)
from loadgen.playbook import Playbook, TableSpec

WORKER_MARKER = "loadgen.worker"
"""In a worker's command line: how a recorded worker pid is recognised as ours."""


def store_for(settings: Settings) -> StateStore:
    return StateStore(settings.runs_dir)


@contextlib.contextmanager
def step(store: StateStore, state: RunState, step: Step) -> Iterator[None]:
    """Mark `step` running (saved), then done or failed (saved) with the error the user
    saw. A SIGKILL leaves it `running`: the next call of the step resumes it."""
    record = state.record(step)
    record.status = Status.RUNNING
    record.started_at = utc_now()
    record.finished_at = None
    record.error = None
    store.save(state)
    try:
        yield
    except KeyboardInterrupt:
        record.status = Status.FAILED
        record.error = "interrupted"
        record.finished_at = utc_now()
        store.save(state)
        raise
    except Exception as exc:
        record.status = Status.FAILED
        record.error = str(exc)
        record.finished_at = utc_now()
        store.save(state)
        raise
    record.status = Status.DONE
    record.finished_at = utc_now()
    store.save(state)


def refuse_if_down(state: RunState) -> None:
    """`down` on a run that is down already: exit 5 (the README's table), not a second
    "nothing left" that would hide a mistyped run id; leftovers make it go again."""
    record = state.record(Step.DOWN)
    if record.status == Status.DONE and not state.billable_up:
        when = f" at {record.finished_at:%Y-%m-%d %H:%M} UTC" if record.finished_at else ""
        raise StateError(
            f"run {state.run_id} is already down{when}; nothing is left to destroy "
            "(`hotbench runs` lists every run)"
        )


def require_up(state: RunState, what: str) -> None:
    if state.record(Step.DOWN).status == Status.DONE and not state.billable_up:
        raise StateError(f"run {state.run_id} is down; `hotbench up` starts a new one")
    if state.record(Step.UP).status != Status.DONE:
        raise StateError(
            f"run {state.run_id} is not up yet (up: {state.record(Step.UP).status}); "
            f"`hotbench up --run {state.run_id} {state.playbook_path}` resumes it before {what}"
        )


def dynamodb_client(state: RunState, settings: Settings) -> Any:
    """A DynamoDB client on the run's own tables (its target's endpoint and region)."""
    return target_for(state, settings).dynamodb_client(state)


__all__ = ["dynamodb_client", "find_spec", "require_up", "run_settings", "step", "store_for"]


def find_spec(playbook: Playbook, variant: str) -> TableSpec:
    try:
        return playbook.table(variant)
    except KeyError:
        raise StateError(f"the playbook no longer has a table {variant!r}") from None
