"""The hard wall-clock limit of a run: `python -m console.workflow.reaper RUN_ID ...`.

Started detached by `up`; sleeps until the run's deadline, then runs `down` if the run is
still up, and exits as soon as the run is down. A laptop closed at lunch or a terminal
killed mid-run therefore never leaves a provisioned stack billing for a day.

It re-reads the state when its file changes (a stat a second, see `_sleep`), so a deadline
brought forward or a run taken down is acted on within a second, not at the next 30 s poll.

A `down` that leaves something (a destroy that failed, throttling, credentials that
stopped working) is tried again, after `reaper_retry_s`, doubling up to RETRY_MAX_S, until
nothing is left, or until the run's backstop in the account has acted (its schedules
deleted the tables and stopped the tasks: what is left then is free), or, for a run
without one, for GIVE_UP_S.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from console import interrupts
from console.run.errors import WorkflowError
from console.run.hooks import Hooks
from console.run.settings import Settings
from console.run.state import RunState, StateStore, Status, Step, utc_now

RETRY_MAX_S = 900.0
"""The longest wait between two attempts of `down`."""
GIVE_UP_S = 24 * 3600.0
"""A run without a backstop: how long after its deadline the reaper keeps trying."""
BACKSTOP_ACTS_S = 300.0
"""How long after its time the backstop is taken to have acted (Scheduler invokes a
one-time schedule at its time, "flexible window OFF", and retries a refused call)."""
POLL_S = 30.0
"""The longest the reaper goes without reading the state, changed or not."""
WATCH_S = 1.0
"""How often it looks at the state file's modification time: a stat, nearly free."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m console.workflow.reaper")
    parser.add_argument("run_id")
    parser.add_argument("--settings", required=True, help="the run's settings as JSON")
    parser.add_argument("--runs-dir", required=True)
    parser.add_argument("--poll", type=float, default=POLL_S)
    args = parser.parse_args(argv)
    try:
        with interrupts.termination_as_interrupt():
            return _reap(args)
    except KeyboardInterrupt as exc:  # `down` stops the reaper with SIGTERM; Ctrl-C alike
        print(f"{utc_now():%H:%M:%S} reaper of {args.run_id}: {interrupts.what(exc)}", flush=True)
        return interrupts.exit_code(exc)


def _reap(args: argparse.Namespace) -> int:
    settings = Settings.model_validate_json(args.settings).model_copy(
        update={"runs_dir": Path(args.runs_dir)}
    )
    store = StateStore(settings.runs_dir)
    announced = False
    while True:
        try:
            state = store.load(args.run_id)
        except WorkflowError:
            return 0  # the run folder was removed
        if not announced:
            print(f"reaper of {args.run_id}: down at {state.deadline} if still up", flush=True)
            announced = True
        coming_up = state.record(Step.UP).status in (Status.PENDING, Status.RUNNING)
        if not state.billable_up and not coming_up:
            print(f"{utc_now():%H:%M:%S} the run is down: nothing to do", flush=True)
            return 0
        if state.deadline is not None and utc_now() >= state.deadline:
            print(f"{utc_now():%H:%M:%S} deadline {state.deadline} passed: down", flush=True)
            return _down_until_nothing_left(args.run_id, settings, store)
        wait = POLL_S if state.deadline is None else (state.deadline - utc_now()).total_seconds()
        _sleep(store.path(args.run_id), max(0.5, min(args.poll, wait)))


def _down_until_nothing_left(
    run_id: str,
    settings: Settings,
    store: StateStore,
    pause: Callable[[float], None] = time.sleep,
) -> int:
    """`down`, again and again with a doubling wait, until it leaves nothing (0), or the
    backstop has acted or the reaper gives up (6: what is left is in the state)."""
    from console.workflow.steps import down

    wait = settings.reaper_retry_s
    while True:
        try:
            report = down(run_id, settings, Hooks(say=lambda m: print(m, flush=True)))
            if report.nothing_left:
                print(f"{utc_now():%H:%M:%S} nothing left", flush=True)
                return 0
            left = ", ".join(f"{x.kind} {x.id}" for x in report.leftovers)
            print(f"{utc_now():%H:%M:%S} left: {left}", flush=True)
        except WorkflowError as exc:  # credentials, a run busy, AWS refusing: try again
            print(f"{utc_now():%H:%M:%S} down failed: {exc}", flush=True)
        try:
            state = store.load(run_id)
        except WorkflowError:
            return 0  # the run folder was removed
        if not state.billable_up:
            return 0
        why = _stop_trying(state)
        if why is not None:
            print(f"{utc_now():%H:%M:%S} {why}", flush=True)
            return 6
        print(f"{utc_now():%H:%M:%S} trying again in {wait:.0f} s", flush=True)
        pause(wait)
        wait = min(RETRY_MAX_S, wait * 2)


def _stop_trying(state: RunState) -> str | None:
    """Why the reaper stops trying (None: it goes on): the backstop has acted, or a run
    without one is a day past its deadline."""
    outputs = (state.terraform.outputs or {}) if state.terraform else {}
    at = outputs.get("backstop_at")
    now = utc_now()
    if at:
        acted = datetime.fromisoformat(str(at).replace("Z", "+00:00"))
        if now >= acted + timedelta(seconds=BACKSTOP_ACTS_S):
            return (
                f"the backstop in the account acted at {acted:%H:%M} UTC (the run's tables "
                f"deleted, its tasks stopped); what is left costs nothing: `hotbench down "
                f"{state.run_id}` removes it"
            )
        return None
    if state.deadline is not None and now >= state.deadline + timedelta(seconds=GIVE_UP_S):
        return f"giving up a day after the deadline: `hotbench down {state.run_id}` by hand"
    return None


def _sleep(
    state_file: Path,
    seconds: float,
    clock: Callable[[], float] = time.monotonic,
    pause: Callable[[float], None] = time.sleep,
) -> None:
    """Sleep up to `seconds`, waking early when `state_file` changes (the state is saved by
    a rename, so its modification time or inode moves) or goes away. `clock` and `pause`
    are there for a test to drive it without waiting."""
    seen = _stamp(state_file)
    end = clock() + seconds
    while (left := end - clock()) > 0:
        pause(min(WATCH_S, left))
        if _stamp(state_file) != seen:
            return


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_ino, info.st_mtime_ns


if __name__ == "__main__":
    sys.exit(main())
