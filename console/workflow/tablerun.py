"""`run`'s part: one table run on the run's own tables, recorded as it goes so a killed
command can be resumed."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from console.workflow import processes
from console.workflow.awserrors import aws_errors
from console.workflow.errors import InfraError, StateError, WorkflowError
from console.workflow.hooks import Hooks
from console.workflow.options import RunOptions
from console.workflow.processes import WORKER_MARKER
from console.workflow.run_context import find_spec
from console.workflow.run_state import (
    RunState,
    StateStore,
    Status,
    TableRun,
    TableState,
    TaskRecord,
    utc_now,
)
from console.workflow.runrecord import save_run
from console.workflow.settings import Settings
from loadgen.playbook import Playbook, TableSpec
from loadgen.results import to_full_scale


class RecordingFleet:
    """Passes through to a fleet and records what it started in the state at once, so a
    killed command leaves the pids (or task ARNs) a resumed one must stop.

    It is also where a UI's cancel reaches a table run: the coordinator asks the fleet
    how many workers run every half second, and `check_cancel` raises KeyboardInterrupt
    there, so the coordinator stops the fleet in its `finally` as on Ctrl-C."""

    def __init__(
        self,
        inner: Any,
        on_start: Callable[[Any], None],
        check_cancel: Callable[[], None] = lambda: None,
    ) -> None:
        self.inner = inner
        self.on_start = on_start
        self.check_cancel = check_cancel

    def start(self, run_id: str, workers: int, env: dict[str, str]) -> None:
        try:
            self.inner.start(run_id, workers, env)
        finally:
            self.on_start(self.inner)

    def running(self) -> int:
        self.check_cancel()
        n: int = self.inner.running()
        return n

    def stop(self, reason: str) -> None:
        self.inner.stop(reason)

    def notes(self) -> list[str]:
        out: list[str] = self.inner.notes()
        return out

    def leftovers(self) -> list[tuple[str, str]]:
        """(worker, command that stops it), for fleets that can say (the coordinator asks
        when stopping failed)."""
        found = getattr(self.inner, "leftovers", None)
        return list(found()) if callable(found) else []


class RecordedTableRun:
    """One table run at a time, as loadgen.live does it, on tables this run owns."""

    def __init__(
        self,
        store: StateStore,
        state: RunState,
        settings: Settings,
        playbook: Playbook,
        options: RunOptions,
        hooks: Hooks,
        client: Any,
    ) -> None:
        self.store, self.state, self.settings = store, state, settings
        self.playbook, self.options, self.hooks, self.client = playbook, options, hooks, client
        self.ecs: Any = None
        if state.target == "aws":
            from console.workflow import aws

            self.ecs = aws.session(settings).client("ecs")

    def run(self, table_run: TableRun) -> None:
        from loadgen.coordinator import FleetOptions
        from loadgen.live import LiveOptions, pause, polled_memory_check, run_one

        state, hooks = self.state, self.hooks
        if table_run.status == Status.RUNNING or table_run.interrupted:
            # RUNNING: the command was killed (-9); interrupted: Ctrl-C, SIGTERM, SIGHUP
            self._stop_orphans(table_run)
            hooks.say(f"{table_run.label} was interrupted: running it again")
        elif table_run.status == Status.FAILED:
            self._stop_orphans(table_run)
            hooks.say(f"{table_run.label} failed last time: running it again")
        table_run.interrupted = False
        spec = find_spec(self.playbook, table_run.variant)
        table = state.tables[spec.name]
        self._seed(spec, table)
        self._pause(table_run, spec, pause)
        table_run.fleet_run_id = f"{state.run_id}-{spec.name}-{table_run.repeat}-" + (
            secrets.token_hex(2)
        )
        table_run.status = Status.RUNNING
        table_run.started_at = utc_now()
        table_run.worker_pids = []
        self.store.save(state)
        assert state.results_table is not None
        endpoint = state.emulator.endpoint if state.target == "local" and state.emulator else None
        live = LiveOptions(
            workers=state.workers,
            scale=state.scale,
            endpoint=endpoint,
            region=state.region,
            fleet=FleetOptions(barrier_timeout_s=self.options.barrier_timeout_s),
            fleet_factory=lambda: RecordingFleet(
                self._new_fleet(), self._recorder(table_run), hooks.check_cancel
            ),
        )
        if self.options.timeout_s is not None:
            live.timeout_s = self.options.timeout_s
        plan = live.plan(
            table_run.fleet_run_id, self.playbook, spec.name, table.name, table_run.repeat, endpoint
        )
        hooks.say(f"running {table_run.label} with {state.workers} workers")
        try:
            with aws_errors("ecs:RunTask", state.region):
                # Local: the emulator's memory bound, once it refuses, stops the run as partial.
                stop = polled_memory_check(endpoint) if endpoint is not None else None
                result = run_one(
                    plan, self.client, state.results_table, endpoint, live, self._say, stop
                )
        except BaseException as exc:
            table_run.status = Status.FAILED
            table_run.interrupted = isinstance(exc, KeyboardInterrupt)
            table_run.finished_at = utc_now()
            self._record_tasks(table_run)
            self.store.save(state)
            if isinstance(exc, Exception) and not isinstance(exc, WorkflowError):
                raise InfraError(f"{table_run.label} failed: {exc}") from exc
            raise
        full = to_full_scale(result, state.scale)
        path = Path("results") / f"{spec.name}-{table_run.repeat}.json"
        save_run(self.store.run_dir(state.run_id) / path, full)
        table_run.result_path = str(path)
        table_run.status = Status.DONE
        table_run.finished_at = utc_now()
        from console.cost.tally import record_run_units

        record_run_units(state.usage, table.name, full)
        self._record_tasks(table_run)
        self.store.save(state)

    def _say(self, message: str) -> None:
        """Progress lines of the coordinator; while the barrier fills they are the only
        call back into us, so a cancel is honoured here too."""
        self.hooks.check_cancel()
        self.hooks.say(message)

    def _seed(self, spec: TableSpec, table: TableState) -> None:
        from loadgen.seed import seed_table

        if not spec.seed_items or table.seeded_items is not None:
            return
        with aws_errors("dynamodb:BatchWriteItem", self.state.region):
            n = seed_table(
                self.client,
                table.name,
                self.playbook,
                spec,
                self.state.scale,
                self.options.seed_items,
                progress=self._say,  # a bar and the time left; Ctrl-C stops it too
            )
        table.seeded_items = n
        from console.cost.tally import record_seed_units

        record_seed_units(self.state.usage, self.playbook, spec, table.name, n)
        self.store.save(self.state)
        self.hooks.say(f"seeded {n:,} items into {table.name}")

    def _pause(self, table_run: TableRun, spec: TableSpec, pause: Callable[..., None]) -> None:
        """The playbook's pause before a repeat, minus what already passed since the
        previous repeat finished (a resumed run does not wait twice)."""
        if table_run.repeat == 1:
            return
        run_spec = next(r for r in self.playbook.runs() if r.table == spec.name)
        previous = next(
            (
                tr
                for tr in self.state.table_runs
                if tr.variant == spec.name and tr.repeat == table_run.repeat - 1
            ),
            None,
        )
        passed = (
            (utc_now() - previous.finished_at).total_seconds()
            if previous and previous.finished_at
            else 0.0
        )
        emulator = self.state.emulator if self.state.target == "local" else None
        if emulator is not None:
            # The emulator is ours: `pause_scale` of the pause in real time, the rest
            # skipped on its clock, so the physics (splits, cooling) sees the whole pause,
            # as with `hotbench run`'s in-process emulator.
            rest = run_spec.pause_s - passed
            if rest > 0:
                pause(rest, self.options.pause_scale, _skipper(emulator.endpoint), self.hooks.say)
            return
        wanted = run_spec.pause_s * self.options.pause_scale
        if wanted - passed > 0:
            pause(wanted - passed, 1.0, None, self.hooks.say)

    def _new_fleet(self) -> Any:
        if self.state.target == "local":
            from loadgen.fleet import LocalFleet
            from loadgen.live import LOCAL_CREDENTIALS

            return LocalFleet(
                log_dir=str(self.store.run_dir(self.state.run_id) / "workers"),
                extra_env=LOCAL_CREDENTIALS,
            )
        from console.workflow import aws

        return aws.make_fleet(self.state, aws.outputs_from_state(self.state), self.ecs)

    def _recorder(self, table_run: TableRun) -> Callable[[Any], None]:
        def record(fleet: Any) -> None:
            if self.state.target == "local":
                table_run.worker_pids = [p.pid for p in fleet.procs.values()]
            else:
                known = {t.id for t in self.state.tasks}
                self.state.tasks += [
                    TaskRecord(id=arn, run_label=table_run.label, pull_started_at=utc_now())
                    for arn in fleet.task_arns
                    if arn not in known
                ]
            self.store.save(self.state)

        return record

    def _record_tasks(self, table_run: TableRun) -> None:
        """AWS: each task's billed span from DescribeTasks (pull start to stop)."""
        if self.state.target != "aws":
            return
        from console.workflow import aws

        arns = [t.id for t in self.state.tasks if t.run_label == table_run.label]
        if not arns:
            return
        cluster = aws.outputs_from_state(self.state).cluster_arn or ""
        with contextlib.suppress(WorkflowError):
            described = {
                t.id: t
                for t in aws.task_records(self.ecs, cluster, arns, table_run.label, self.state)
            }
            self.state.tasks = [described.get(t.id, t) for t in self.state.tasks]

    def _stop_orphans(self, table_run: TableRun) -> None:
        """Workers of a table run whose coordinator was killed: stop them before the
        table run starts again (they would add load nobody counts)."""
        for pid in table_run.worker_pids:
            processes.stop(pid, WORKER_MARKER)
        if self.state.target == "aws":
            stop_tasks(self.state, self.ecs, label=table_run.label)


def stop_tasks(state: RunState, ecs: Any, label: str | None = None) -> list[str]:
    from console.workflow import aws

    stopped: list[str] = []
    try:
        cluster = aws.outputs_from_state(state).cluster_arn
    except StateError:
        return stopped
    for task in state.tasks:
        if task.stopped_at is None and (label is None or task.run_label == label):
            with aws_errors("ecs:StopTask", state.region):
                ecs.stop_task(cluster=cluster, task=task.id, reason="hotbench: run stopped")
            task.stopped_at = utc_now()
            stopped.append(task.id)
    return stopped


def _skipper(endpoint: str) -> Callable[[float], None]:
    """Skip seconds on a local emulator's clock (POST /_hotbench/skip)."""

    def skip(seconds: float) -> None:
        import httpx

        try:
            reply = httpx.post(
                f"{endpoint}/_hotbench/skip", params={"seconds": seconds}, timeout=10
            )
            reply.raise_for_status()
        except httpx.HTTPError as exc:
            raise InfraError(
                f"could not skip {seconds:.0f} s on the emulator at {endpoint} ({exc}); "
                "`hotbench down RUN_ID` stops it, `hotbench up` starts a new one"
            ) from None

    return skip
