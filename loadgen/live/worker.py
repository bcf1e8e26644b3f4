"""`python -m loadgen.live.worker`: one worker of a fleet, the same on a laptop, in a local
fleet and in a Fargate task.

Configured by environment (the only thing ECS can hand a task) or the same-named
arguments; the rest of the run (playbook, table, scale, limits) is read from the plan
item in the results table, so a task's overrides stay small and nothing about the run
lives only in the coordinator:

    HOTBENCH_RUN_ID            --run-id            run to join (required)
    HOTBENCH_WORKER            --worker            this worker's index, 0..M-1, or:
    HOTBENCH_WORKER_BASE + HOTBENCH_WORKER_COUNT   a range to claim the first free index
                                                   from (ECS starts up to 10 tasks per
                                                   RunTask call with the same overrides)
    HOTBENCH_RESULTS_TABLE     --results-table     results table name (required)
    HOTBENCH_CONTROL_ENDPOINT  --control-endpoint  endpoint of the results table (default AWS)
    HOTBENCH_BARRIER_TIMEOUT_S --barrier-timeout   seconds to wait for GO (default 300)
    HOTBENCH_WINDOW            --window            which window of a split run (default 0;
                                                   loadgen.live.windows)
    AWS_REGION                                     region (default us-east-1)

The Terraform task definition sets HOTBENCH_RUN_ID, HOTBENCH_RESULTS_TABLE and
AWS_REGION; the tables come from the plan item, never from the environment.

Exit codes: 0 complete; 3 refused (already started, or T0 passed); 4 barrier aborted;
5 stopped early (watchdog, op cap or the coordinator's stop: partial counts were written);
1 any other failure (a failed measuring loop still writes its counts with status `failed`).
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from emulator import eventloop
from loadgen.live.barrier import (
    BarrierAborted,
    BarrierRefused,
    claim_worker,
    successor_wait,
    worker_wait,
)
from loadgen.live.measure import Measurement
from loadgen.live.messages import COMPLETE, OP_CAP, REFUSED, WATCHDOG, RunPlan, WorkerReport
from loadgen.live.resultstore import ResultStore, make_client
from loadgen.live.sigv4 import resolve_credentials

EXIT_OK, EXIT_FAILED, EXIT_REFUSED, EXIT_ABORTED, EXIT_PARTIAL = 0, 1, 3, 4, 5
BACKSTOP_S = 15.0
"""Extra time after the watchdog's deadline before the hard backstop kills the process."""

T = TypeVar("T")


@dataclass
class WorkerConfig:
    run_id: str
    candidates: list[int]
    """Worker indices this process may claim (one, or a RunTask batch's range)."""
    results_table: str
    control_endpoint: str | None
    region: str
    barrier_timeout_s: float
    window: int = 0
    """Which window of a split run this process measures (a Lambda invocation's); window
    j > 0 starts from the run's GO item instead of the barrier."""


def parse_config(
    argv: Sequence[str] | None = None, env: dict[str, str] | None = None
) -> WorkerConfig:
    env = dict(os.environ) if env is None else env
    p = argparse.ArgumentParser(
        prog="python -m loadgen.live.worker",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--run-id", default=env.get("HOTBENCH_RUN_ID"))
    p.add_argument("--worker", type=int, default=env.get("HOTBENCH_WORKER"))
    p.add_argument("--results-table", default=env.get("HOTBENCH_RESULTS_TABLE"))
    p.add_argument("--control-endpoint", default=env.get("HOTBENCH_CONTROL_ENDPOINT") or None)
    p.add_argument(
        "--barrier-timeout", type=float, default=float(env.get("HOTBENCH_BARRIER_TIMEOUT_S", "300"))
    )
    p.add_argument("--window", type=int, default=int(env.get("HOTBENCH_WINDOW", "0")))
    args = p.parse_args(argv)
    if args.worker is not None:
        candidates = [int(args.worker)]
    elif "HOTBENCH_WORKER_BASE" in env:
        base = int(env["HOTBENCH_WORKER_BASE"])
        candidates = list(range(base, base + int(env.get("HOTBENCH_WORKER_COUNT", "1"))))
    else:
        candidates = []
    missing = [
        n
        for n, v in (
            ("HOTBENCH_RUN_ID", args.run_id),
            ("HOTBENCH_WORKER", candidates or None),
            ("HOTBENCH_RESULTS_TABLE", args.results_table),
        )
        if v is None
    ]
    if missing:
        p.error("missing configuration: " + ", ".join(missing))
    region = env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1"
    return WorkerConfig(
        args.run_id,
        candidates,
        args.results_table,
        args.control_endpoint,
        region,
        args.barrier_timeout,
        args.window,
    )


class _Writer:
    """Writes progress in a background thread: the event loop never waits for a
    control write, and a slow write is skipped rather than queued. After each write it
    reads the coordinator's abort item: one set while measuring stops the run
    (`on_abort`, e.g. Measurement.request_stop)."""

    def __init__(self, store: ResultStore) -> None:
        self.store = store
        self.on_abort: Callable[[str], None] | None = None
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="progress")
        self.busy = threading.Lock()
        self.last: dict[str, Any] | None = None
        self.failures = 0
        self.last_error: str | None = None

    def record_failures(self, report: WorkerReport) -> None:
        """Put the failed progress writes into the report that is written last."""
        report.progress_write_failures = self.failures
        if self.failures:
            report.notes.append(
                f"{self.failures} progress write(s) failed (last: {self.last_error}); "
                "the final counts are complete"
            )

    def _check_abort(self) -> None:
        """Read the coordinator's abort item after a progress write; a failed read is
        counted with the failed writes (the next write reads it again)."""
        if self.on_abort is None:
            return
        try:
            message = self.store.get_abort()
        except Exception as exc:  # counted and named in the final report
            self.failures += 1
            self.last_error = f"reading the abort item: {type(exc).__name__}: {exc}"
            return
        if message is not None:
            self.on_abort(message)

    def progress(self, report: WorkerReport) -> None:
        payload = report.to_json()  # serialised now, on the loop thread: a consistent copy
        self.last = payload
        if self.busy.acquire(blocking=False):

            def write() -> None:
                try:
                    self.store.put_report("progress", payload)
                except Exception as exc:  # counted and named in the final report
                    self.failures += 1
                    self.last_error = f"{type(exc).__name__}: {exc}"
                else:
                    self._check_abort()
                finally:
                    self.busy.release()

            self.pool.submit(write)


def _backstop(
    store: ResultStore, writer: _Writer, empty: WorkerReport, after_s: float
) -> threading.Timer:
    """A thread that ends the process if the event loop itself is stuck past the watchdog:
    it writes the last progress (or `empty`, this worker's and window's report with no
    counts) as a final report (status watchdog) and exits."""

    def fire() -> None:
        payload = dict(writer.last or empty.to_json())
        payload["status"] = WATCHDOG
        payload["progress_write_failures"] = writer.failures
        payload["snapshot"] = {
            "why": "backstop: the event loop did not return after the watchdog deadline",
            **(payload.get("snapshot") or {}),
        }
        try:
            store.put_report("final", payload)
        finally:
            os._exit(EXIT_PARTIAL)

    timer = threading.Timer(after_s, fire)
    timer.daemon = True
    timer.start()
    return timer


def run_worker(config: WorkerConfig) -> int:
    store = ResultStore(
        make_client(config.control_endpoint, config.region), config.results_table, config.run_id
    )
    plan: RunPlan = store.get_plan()
    window = plan.windows[config.window]
    try:
        worker = claim_worker(store, config.candidates, window.index)
    except BarrierRefused as exc:
        print(f"run {config.run_id}: refused: {exc}", file=sys.stderr, flush=True)
        return EXIT_REFUSED
    tag = f"worker {worker}/{plan.workers} run {config.run_id}" + (
        f" window {window.index}" if window.index else ""
    )
    try:
        if window.index == 0:
            t0 = worker_wait(store, worker, config.barrier_timeout_s)
        else:  # a later window of a split run: T0 passed, its own start is ahead
            t0 = successor_wait(store, worker, window, config.barrier_timeout_s)
    except BarrierRefused as exc:
        print(f"{tag}: refused: {exc}", file=sys.stderr, flush=True)
        # It holds the claim, so its final item is its own: say why it did not measure.
        report = WorkerReport(worker, status=REFUSED, notes=[str(exc)], window=window.index)
        report.written_at = time.time()
        store.put_report("final", report)
        return EXIT_REFUSED
    except BarrierAborted as exc:
        print(f"{tag}: {exc}", file=sys.stderr, flush=True)
        return EXIT_ABORTED
    credentials = resolve_credentials()
    writer = _Writer(store)
    end_s = window.bounded_end(plan.duration_s)
    backstop = _backstop(
        store,
        writer,
        WorkerReport(worker, window=window.index),
        t0 - time.time() + end_s + plan.drain_s + BACKSTOP_S,
    )
    print(f"{tag}: T0 in {t0 - time.time():.2f} s", file=sys.stderr, flush=True)
    measurement = Measurement(
        plan, worker, credentials, on_progress=writer.progress, window=window.index
    )
    writer.on_abort = measurement.request_stop
    try:
        report = eventloop.run(measurement.run(t0))
    finally:
        backstop.cancel()
    writer.record_failures(report)
    store.put_report("final", report)
    totals = report.totals()
    print(
        f"{tag}: {report.status}: sent {totals.sent}, succeeded {totals.succeeded}, "
        f"throttled {totals.throttled}, errors {totals.errors}, timeouts {totals.timeouts}, "
        f"late {totals.late}",
        file=sys.stderr,
        flush=True,
    )
    return exit_code(report.status)


def exit_code(status: str) -> int:
    """The process's exit code for a measured run's final status (docs/loadgen.md)."""
    if status == COMPLETE:
        return EXIT_OK
    if status in (WATCHDOG, OP_CAP):
        return EXIT_PARTIAL
    return EXIT_FAILED


def main(argv: Sequence[str] | None = None) -> int:
    config = parse_config(argv)
    try:
        return run_worker(config)
    except Exception as exc:  # the coordinator sees the missing final item; say why here
        print(
            f"run {config.run_id}: worker failed: {type(exc).__name__}: {exc}",
            file=sys.stderr,
            flush=True,
        )
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
