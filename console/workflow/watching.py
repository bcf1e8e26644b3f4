"""`watch`: frames of per-second samples, from the workers, the emulator and CloudWatch.

Only reads: the state file (atomically replaced by the stepping command), the results
table, the emulator's metrics and CloudWatch. Each source remembers the last period it
emitted, so a frame carries only what is new.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from console.run.errors import WorkflowError
from console.run.samples import IndexSample, WatchFrame, WorkerStatus
from console.run.settings import Settings
from console.run.state import RunState, StateStore, Status, Step, TableRun, utc_now
from console.targets import MetricsSource, Target, target_class, target_for
from loadgen.live.messages import COMPLETE
from loadgen.results.histogram import LatencyHistogram
from loadgen.results.iteration_results import IterationCounts
from loadgen.results.records import Counts

STALE_S = 15.0
"""A worker's progress item is rewritten every 3 s (RunPlan.progress_s); one not
rewritten for this long is taken as lost, and seconds are no longer held back for it."""


class Watcher:
    def __init__(
        self,
        store: StateStore,
        run_id: str,
        settings: Settings,
        interval_s: float,
        stop: threading.Event | None,
    ) -> None:
        self.store, self.run_id, self.settings = store, run_id, settings
        self.interval_s = interval_s
        self.stop = stop or threading.Event()
        self.worker_done: dict[str, int] = {}
        """fleet run id -> last run second emitted from the workers."""
        self.worker_flushed: set[str] = set()
        self._target: Target | None = None
        self._source: MetricsSource | None = None
        self._client: Any = None
        self._pending_metrics = 0

    # -- the loop ------------------------------------------------------------------------

    def frames(self) -> Iterator[WatchFrame]:
        try:
            while not self.stop.is_set():
                state = self.store.load(self.run_id)
                finished = self._finished(state)
                yield self.frame(state, finished)
                if finished:
                    return
                self.stop.wait(self.interval_s)
        finally:
            if self._pending_metrics:
                self._count_metrics(0)

    @staticmethod
    def _finished(state: RunState) -> bool:
        run_status = state.record(Step.RUN).status
        return not state.billable_up or (
            run_status in (Status.DONE, Status.FAILED)
            and not any(tr.status == Status.RUNNING for tr in state.table_runs)
        )

    def frame(self, state: RunState, finished: bool = False) -> WatchFrame:
        samples: list[IndexSample] = []
        notes: list[str] = []
        current = next((tr for tr in state.table_runs if tr.status == Status.RUNNING), None)
        workers, label = None, current.label if current else None
        # the running table run, and any seen running that ended since: its last
        # seconds come from the final items, read once more
        to_read = [
            tr
            for tr in state.table_runs
            if tr.fleet_run_id
            and (tr.status == Status.RUNNING or tr.fleet_run_id in self.worker_done)
            and tr.fleet_run_id not in self.worker_flushed
        ]
        complete_until: datetime | None = None
        for tr in to_read:
            if state.results_table is None:
                break
            ended = tr.status != Status.RUNNING
            try:
                found, status, through = self._workers(state, tr, flush=ended or finished)
            except WorkflowError as exc:
                notes.append(f"workers: {exc}")
                continue
            except Exception as exc:  # the results table deleted under us by `down`
                notes.append(f"workers: {type(exc).__name__}")
                continue
            samples += found
            if not ended and through is not None:  # the running one's workers lag
                complete_until = through
            self.worker_done.setdefault(tr.fleet_run_id or "", -1)
            if ended:
                self.worker_flushed.add(tr.fleet_run_id or "")
            if not ended or current is None:
                # an ended run's final status too ("2 done"), while no other runs
                workers, label = status, tr.label
        if workers is not None and label is not None:
            run_of = next((tr for tr in state.table_runs if tr.label == label), None)
            if run_of is not None:
                workers = workers.model_copy(update={"tasks": lifecycle(state, run_of)})
        source = self.source(state)
        try:
            samples += source.samples(state, finished)
        except WorkflowError as exc:
            notes.append(f"{source.label}: {exc}")
        if source.requested:
            self._count_metrics(source.requested)
            source.requested = 0
        return WatchFrame(
            at=utc_now(),
            run_label=label,
            samples=samples,
            workers=workers,
            finished=finished,
            note="; ".join(notes) or None,
            complete_until=complete_until,
        )

    # -- sources -------------------------------------------------------------------------

    def target(self, state: RunState) -> Target:
        """The run's own target, in the run's recorded region (not the settings')."""
        if self._target is None:
            self._target = target_for(state, self.settings)
        return self._target

    def source(self, state: RunState) -> MetricsSource:
        if self._source is None:
            self._source = self.target(state).metrics_source()
        return self._source

    def client(self, state: RunState) -> Any:
        if self._client is None:
            self._client = self.target(state).dynamodb_client(state)
        return self._client

    def _workers(
        self, state: RunState, table_run: TableRun, flush: bool
    ) -> tuple[list[IndexSample], WorkerStatus, datetime | None]:
        """The new complete seconds of `table_run`'s workers, their status, and when the
        seconds they have all reported end (None before GO: nothing to wait for)."""
        from loadgen.live.resultstore import ResultStore

        assert table_run.fleet_run_id is not None and state.results_table is not None
        store = ResultStore(self.client(state), state.results_table, table_run.fleet_run_id)
        ready = store.ready_workers()
        go = store.get_go()
        progress = store.reports("progress")
        finals = store.reports("final")
        reports = {**progress, **finals}
        status = WorkerStatus(
            planned=state.workers,
            ready=len(ready),
            running=len([w for w in progress if w not in finals]) if go else 0,
            late=sum(r.totals().late for r in reports.values()),
            done=len([r for r in finals.values() if r.status == COMPLETE]),
            lost=len([r for r in finals.values() if r.status != COMPLETE]),
        )
        if go is None:
            return [], status, None
        if not reports:  # GO given, nothing reported yet: nothing from T0 on is complete
            return [], status, datetime.fromtimestamp(float(go["t0"]), UTC)
        t0 = float(go["t0"])
        now_t = utc_now().timestamp() - t0
        # second t is complete when every worker still reporting has written an item
        # after it ended; a worker silent for STALE_S is lost and waits for nobody
        fresh = [
            r.written_at - t0
            for w, r in reports.items()
            if w not in finals and now_t - (r.written_at - t0) < STALE_S
        ]
        # an admitted worker that has not reported yet holds back every second
        # (its first progress item is due a few seconds after T0)
        if now_t < STALE_S and any(int(w) not in reports for w in go.get("workers", [])):
            fresh.append(0.0)
        last_complete = 10**9 if flush else int(min(fresh, default=now_t)) - 1
        done_until = self.worker_done.get(table_run.fleet_run_id, -1)
        latency = LatencyHistogram()
        for r in reports.values():
            latency.merge(r.latency)
        scale = state.scale or 1.0
        samples = []
        seconds = sorted({t for r in reports.values() for t in r.seconds})
        has_iterations = any(r.iterations for r in reports.values())
        for t in seconds:
            if t <= done_until or t > last_complete:
                continue
            total = Counts()
            # a run with mix or scenario phases counts iterations in every second (0 too)
            iterations = IterationCounts() if has_iterations else None
            for r in reports.values():
                counts = r.seconds.get(t)
                if counts is not None:
                    total.add(counts)
                ended = r.iterations.get(t)
                if ended is not None:
                    iterations = iterations or IterationCounts()
                    iterations.add(ended)
            samples.append(
                IndexSample(
                    source="workers",
                    table=table_run.variant,
                    start=datetime.fromtimestamp(t0 + t, UTC),
                    accepted=total.succeeded / scale,
                    throttled=total.throttled / scale,
                    throttled_by_reason={k: v / scale for k, v in total.by_reason.items()},
                    consumed_wcu=total.consumed_wcu / scale,
                    consumed_rcu=total.consumed_rcu / scale,
                    p50_ms=latency.percentile(50),
                    p99_ms=latency.percentile(99),
                    iterations_ok=None if iterations is None else iterations.ok / scale,
                    iterations_failed_by_reason={}
                    if iterations is None
                    else {k: v / scale for k, v in iterations.failed.items()},
                )
            )
            self.worker_done[table_run.fleet_run_id] = t
        through = None if flush else datetime.fromtimestamp(t0 + last_complete + 1, UTC)
        return samples, status, through

    def _count_metrics(self, requested: int) -> None:
        """GetMetricData is billed per metric requested: the tally adds these up. The
        count is saved under the run's lock when no step holds it (watch never waits for
        a step); otherwise it is kept and saved at the next chance, at the latest when
        the watch ends."""
        from console.run.errors import StateError
        from console.run.lock import run_lock

        self._pending_metrics += requested
        try:
            with run_lock(self.store.run_dir(self.run_id), "watch"):
                state = self.store.load(self.run_id)
                state.usage.get_metric_data_metrics += self._pending_metrics
                self.store.save(state)
                self._pending_metrics = 0
        except StateError:
            pass


def lifecycle(state: RunState, table_run: TableRun) -> dict[str, int]:
    """How many of the table run's workers are in each state as their fleet last recorded
    them (ECS's PROVISIONING, PENDING, RUNNING, STOPPED, MISSING; a Lambda invocation's
    invoking, throttled, complete, failed): what the watch and the console show while
    the barrier waits. Empty for processes."""
    return target_class(state.target).fleet_kind(state.fleet).lifecycle(state, table_run)
