"""The start barrier: workers line up on a shared wall-clock T0, or nobody measures.

Peer tools start workers minutes apart and call it synchronised; the reference study
re-ran a finished runner 882 s late through a silent retry. Here:

- a worker first claims its (run id, worker index) with a conditional put; a second start
  of the same worker (a retried task, a double launch) finds the claim and refuses;
- it then writes READY and polls for the GO item, which the coordinator writes with T0 =
  now + lead time once all M workers are ready (or, at the barrier timeout, once at least
  N are: the rest are left out and the run is labelled partial; fewer than N aborts);
- a worker that reads a GO whose T0 has already passed, or that is not among the admitted
  workers, refuses: its window would not line up with the others'.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from loadgen.live.resultstore import ResultStore
from loadgen.live.windows import Window

START_TOLERANCE_S = 0.25
"""A worker may see GO this long after T0 and still start (polling granularity)."""


class BarrierRefused(RuntimeError):
    """This worker must not measure (already started, or too late for T0)."""


class BarrierAborted(RuntimeError):
    """The barrier was abandoned (coordinator abort or no GO in time)."""


def claim_worker(store: ResultStore, candidates: list[int], window: int = 0) -> int:
    """Claim the first unclaimed worker index among `candidates` (one index when the
    launcher set HOTBENCH_WORKER; a batch's range when ECS started the batch with one
    RunTask call), for `window` of a split run. None left means this is a second start:
    refuse."""
    for worker in candidates:
        if store.claim_start(worker, window):
            return worker
    who = (
        f"worker {candidates[0]}"
        if len(candidates) == 1
        else f"workers {candidates[0]}..{candidates[-1]}"
    ) + (f" window {window}" if window else "")
    why = f"{who} of run {store.run_id} already started; refusing to run twice"
    store.put_refusal(candidates[0], why)
    raise BarrierRefused(why)


def worker_wait(
    store: ResultStore,
    worker: int,
    timeout_s: float,
    poll_s: float = 0.2,
    clock: Callable[[], float] = time.time,
) -> float:
    """Report ready (after `claim_worker`), wait for GO; return T0 (wall clock) or raise."""
    store.put_ready(worker)
    give_up = clock() + timeout_s
    while True:
        go = store.get_go()
        if go is not None:
            t0 = float(go["t0"])
            if worker not in go.get("workers", []):
                raise BarrierRefused(
                    f"worker {worker} was not admitted at the barrier (it was not ready in time)"
                )
            late = clock() - t0
            if late > START_TOLERANCE_S:
                raise BarrierRefused(
                    f"worker {worker}: T0 passed {late:.2f} s ago; a late "
                    "window would not line up with the others, refusing"
                )
            return t0
        message = store.get_abort()
        if message is not None:
            raise BarrierAborted(f"coordinator aborted the run: {message}")
        if clock() > give_up:
            raise BarrierAborted(f"no GO within {timeout_s:.0f} s of being ready")
        time.sleep(poll_s)


def successor_wait(
    store: ResultStore,
    worker: int,
    window: Window,
    timeout_s: float,
    poll_s: float = 0.2,
    clock: Callable[[], float] = time.time,
) -> float:
    """The barrier of window j > 0 of a split run (loadgen.live.windows): this invocation
    does not report ready (its worker's window 0 did); it reads the run's GO item (waiting
    for it, up to `timeout_s`, when it was started before the barrier released the run)
    and returns T0 when its worker was admitted and its window has not begun yet (it
    waits for its first due request itself). It refuses when its window began more than
    START_TOLERANCE_S ago: a late start would send the window's first requests in a
    burst, not on their schedule."""
    give_up = clock() + timeout_s
    while True:
        message = store.get_abort()
        if message is not None:
            raise BarrierAborted(f"coordinator aborted the run: {message}")
        go = store.get_go()
        if go is not None:
            break
        if clock() > give_up:
            raise BarrierAborted(f"no GO within {timeout_s:.0f} s of starting")
        time.sleep(poll_s)
    if worker not in go.get("workers", []):
        raise BarrierRefused(f"worker {worker} was not admitted at the barrier")
    t0 = float(go["t0"])
    late = clock() - (t0 + window.start)
    if late > START_TOLERANCE_S:
        raise BarrierRefused(
            f"worker {worker} window {window.index}: started {late:.2f} s after its window "
            f"began (t={window.start:g} s); its share of the window is left out rather than "
            "sent in a burst"
        )
    return t0


class BarrierTimeout(RuntimeError):
    """Too few workers were ready at the barrier timeout; the run was aborted."""


def coordinator_go(
    store: ResultStore,
    expected: int,
    required: int,
    timeout_s: float,
    lead_s: float,
    poll_s: float = 0.25,
    on_status: Callable[[int, int], None] | None = None,
    clock: Callable[[], float] = time.time,
    gone: Callable[[], str | None] | None = None,
    gone_every_s: float = 2.0,
) -> tuple[float, list[int]]:
    """Wait until all `expected` workers are ready (or `required` of them at the timeout),
    then write GO with T0 = now + `lead_s` on `clock`. Returns (T0, admitted workers).

    `gone` is asked every `gone_every_s` while waiting: a reason when no worker can still
    come (all stopped), and the barrier fails with it instead of at the timeout (a fleet
    of Fargate tasks that cannot pull their image would wait minutes for nothing). It
    fails on the second such answer in a row only: one answer may be a fleet's view that
    has not caught up yet (ECS's DescribeTasks is eventually consistent, loadgen.live.ecs_tasks).
    """
    give_up = clock() + timeout_s
    last = -1
    asked_at: float | None = None
    gone_before = False
    while True:
        ready = store.ready_workers()
        if on_status is not None and len(ready) != last:
            on_status(len(ready), expected)
            last = len(ready)
        if len(ready) >= expected:
            break
        if gone is not None and (asked_at is None or clock() - asked_at >= gone_every_s):
            asked_at = clock()
            why = gone()
            all_gone = why is not None and len(store.ready_workers()) < required
            if all_gone and gone_before:
                message = f"{len(ready)} of {expected} workers ready: {why}; aborting"
                store.put_abort(message)
                raise BarrierTimeout(message)
            gone_before = all_gone
        if clock() > give_up:
            if len(ready) >= required:
                break
            message = (
                f"only {len(ready)} of {expected} workers ready after {timeout_s:.0f} s "
                f"(need {required}); aborting"
            )
            store.put_abort(message)
            raise BarrierTimeout(message)
        time.sleep(poll_s)
    t0 = clock() + lead_s
    admitted = sorted(ready)
    store.put_go(t0, admitted)
    return t0, admitted
