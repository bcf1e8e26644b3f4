"""A run's step records: the state store, and marking a step running/done/failed so an
interrupted step is resumed by calling it again."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from console.run.errors import StateError
from console.run.settings import Settings
from console.run.state import (
    RunState,
    StateStore,
    Status,
    Step,
    utc_now,
)


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
            f"`hotbench up --run {state.run_id} {state.source_playbook}` resumes it before {what}"
        )
