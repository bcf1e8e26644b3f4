"""The search: optuna's TPE sampler over one group of tables' space, each candidate a full
simulation run on the machine's cores.

Why optuna and not a search of our own: the space is mixed (a categorical billing mode,
integer capacities on a grid, a shard count) and conditional (capacity only when
provisioned, a maximum only on demand), each evaluation costs a simulation, and the
criteria are constraints rather than a cost. Optuna's TPE handles conditional mixed
spaces defined as they are sampled, takes constraints (`constraints_func`: a
constraint-aware TPE that models the feasible region), is seeded for repeatable runs,
and has an ask/tell interface, so the simulations run in our own process pool and the
results are told back in a fixed order. It is maintained and widely used; writing a
comparable sampler here would be a project of its own.

Determinism: trials are asked in batches of BATCH whatever the number of cores, and
told in the order asked, so the same seed and number of trials give the same trials
(and the simulation is seeded by the playbook): `--jobs` changes the wall time only.
A wall-clock budget (`budget_s`) stops between batches, so it can end a search earlier
on a slower machine.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import multiprocessing.context
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from emulator.params import CapacityParams
from loadgen.format.playbook import parse_playbook
from loadgen.results.records import PlaybookResult
from loadgen.simulation.simulate import simulate

BATCH = 4
"""Trials asked at once (and simulated in parallel): fixed, so results do not depend on
the number of cores."""


def simulate_data(data: dict[str, Any], params: CapacityParams) -> PlaybookResult:
    """One candidate: its playbook data parsed and simulated, as `hotbench simulate` does."""
    return simulate(parse_playbook(data, "<candidate>"), params)


def _simulate_in_worker(data: dict[str, Any], params: dict[str, Any]) -> PlaybookResult:
    """The process pool's task (module level, so that it can be sent to a worker). The
    parameters travel as their fields: the compiled emulator's frozen dataclass does not
    survive pickling (its __setattr__ refuses the unpickler)."""
    return simulate_data(data, CapacityParams(**params))


def _context() -> multiprocessing.context.BaseContext:
    """fork where this process runs one thread: the workers start at once, with the
    simulation imported, and leave nothing behind. With other threads (the TUI's), a
    fork could copy a lock one of them holds: forkserver then, whose server process is
    forked before any of them."""
    if threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["loadgen.analysis.optimize_search"])
    return context


@contextmanager
def _real_stderr() -> Iterator[None]:
    """The process's own stderr while helpers start: multiprocessing hands the resource
    tracker `sys.stderr.fileno()`, and where an app has put a stream of its own there
    (Textual's capture, whose descriptor is not a file) the start fails with "bad
    value(s) in fds_to_keep"."""
    try:
        usable = sys.stderr is not None and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        usable = False
    if usable or sys.__stderr__ is None:
        yield
        return
    saved, sys.stderr = sys.stderr, sys.__stderr__
    try:
        yield
    finally:
        sys.stderr = saved


def _stop_helpers() -> None:
    """The forkserver and the resource tracker it started live until this process ends;
    stop them with the pool (their `_stop`, which CPython's own tests use: there is no
    public way), so that a long-lived process (the console) keeps no idle helpers."""
    from multiprocessing import forkserver, resource_tracker

    for helper in (
        getattr(forkserver, "_forkserver", None),
        getattr(resource_tracker, "_resource_tracker", None),
    ):
        stop = getattr(helper, "_stop", None)
        if callable(stop):
            stop()


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Simulator:
    """Simulates candidates, in worker processes when there is more than one job."""

    def __init__(self, params: CapacityParams, jobs: int) -> None:
        self.params = params
        self.jobs = max(1, jobs)
        self._pool: Executor | None = None
        self.simulations = 0
        self.seconds = 0.0

    def __enter__(self) -> Simulator:
        if self.jobs > 1:
            with _real_stderr():
                self._pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=_context())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
            _stop_helpers()

    def run(self, candidates: list[dict[str, Any]]) -> list[PlaybookResult]:
        started = time.perf_counter()
        if self._pool is None or len(candidates) == 1:
            results = [simulate_data(c, self.params) for c in candidates]
        else:
            fields = {f.name: getattr(self.params, f.name) for f in dataclasses.fields(self.params)}
            with _real_stderr():  # a worker (or the forkserver) may start here
                futures = [self._pool.submit(_simulate_in_worker, c, fields) for c in candidates]
            results = [f.result() for f in futures]
        self.simulations += len(candidates)
        self.seconds += time.perf_counter() - started
        return results


@dataclass(frozen=True)
class Scored:
    """What the search learns of one trial: the objective and the constraint."""

    cost: float
    """Monthly USD."""
    violation: float
    """0 when every criterion holds, else how far the nearest-to-passing misses by."""


Propose = Callable[[Any], Any]
"""(an optuna trial) -> a candidate (the caller's configuration)."""
Evaluate = Callable[[list[Any]], list[Scored]]
"""Candidates -> their scores (simulating those not simulated before)."""


@contextmanager
def quiet_optuna() -> Iterator[None]:
    """Optuna logs every trial at INFO; the command prints its own progress."""
    import optuna

    level = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(level)


def run_study(
    propose: Propose,
    evaluate: Evaluate,
    seeds: list[dict[str, Any]],
    trials: int,
    seed: int,
    budget_s: float | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Ask `trials` trials (seeded ones first: `seeds` are optuna parameter dicts), in
    batches of BATCH, and tell each its score; returns how many ran."""
    import warnings

    import optuna
    from optuna.samplers import TPESampler

    with quiet_optuna(), warnings.catch_warnings():
        # `group` (a parameter group per conditional branch: capacity only when
        # provisioned) is marked experimental since optuna 2.8; said once here, not per run.
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        sampler = TPESampler(
            seed=seed,
            multivariate=True,
            group=True,
            constant_liar=True,
            n_startup_trials=max(4, min(10, trials // 4)),
        )
        study = optuna.create_study(direction="minimize", sampler=sampler)
        for params in seeds[:trials]:
            study.enqueue_trial(params, skip_if_exists=True)
        started = time.perf_counter()
        done = 0
        while done < trials:
            if budget_s is not None and done and time.perf_counter() - started > budget_s:
                break
            batch = [study.ask() for _ in range(min(BATCH, trials - done))]
            candidates = [propose(t) for t in batch]
            scores = evaluate(candidates)
            for trial, score in zip(batch, scores, strict=True):
                # feasible at 0 or less: the constraint-aware TPE models where that holds
                trial.set_constraint("criteria", score.violation)
                study.tell(trial, score.cost)
            done += len(batch)
            if progress is not None:
                progress(done, trials)
    return done
