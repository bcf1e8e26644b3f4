"""`run`'s part: one table run on the run's own tables, recorded as it goes so a killed
command can be resumed."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

from console.run.errors import InfraError, WorkflowError
from console.run.hooks import Hooks
from console.run.options import RunOptions
from console.run.state import (
    RunState,
    StateStore,
    Status,
    TableRun,
    TableState,
    utc_now,
)
from console.run.tables import find_spec
from console.targets.awserrors import aws_errors
from console.targets.interface import Target
from console.workflow.runrecord import save_run
from loadgen.format.playbook import Playbook, TableSpec
from loadgen.results.records import to_full_scale


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
        on_poll: Callable[[], None] = lambda: None,
    ) -> None:
        self.inner = inner
        self.on_start = on_start
        self.check_cancel = check_cancel
        self.on_poll = on_poll

    def start(self, run_id: str, workers: int, env: dict[str, str]) -> None:
        try:
            self.inner.start(run_id, workers, env)
        finally:
            self.on_start(self.inner)

    def running(self) -> int:
        self.check_cancel()
        n: int = self.inner.running()
        self.on_poll()
        return n

    def released(self, t0: float, admitted: list[int]) -> None:
        self.inner.released(t0, admitted)

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
    """One table run at a time, as loadgen.live.playbook_run does it, on tables this run owns."""

    def __init__(
        self,
        store: StateStore,
        state: RunState,
        target: Target,
        playbook: Playbook,
        options: RunOptions,
        hooks: Hooks,
        client: Any,
    ) -> None:
        self.store, self.state, self.target = store, state, target
        self.playbook, self.options, self.hooks, self.client = playbook, options, hooks, client
        self.fleet = target.fleet(store, state)

    def run(self, table_run: TableRun) -> None:
        from loadgen.live.coordinator import FleetOptions
        from loadgen.live.playbook_run import LiveOptions, pause, polled_memory_check, run_one

        state, hooks = self.state, self.hooks
        if table_run.status == Status.RUNNING or table_run.interrupted:
            # RUNNING: the command was killed (-9); interrupted: Ctrl-C, SIGTERM, SIGHUP
            self.fleet.stop_orphans(table_run)
            hooks.say(f"{table_run.label} was interrupted: running it again")
        elif table_run.status == Status.FAILED:
            self.fleet.stop_orphans(table_run)
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
        # The save that says RUNNING is the first thing inside the try, so an interrupt
        # (Ctrl-C, or SIGTERM/SIGHUP raised as one) that lands in it, after the file is
        # replaced, or while the plan is still being made, is recorded as interrupted
        # too, never left RUNNING (seen: a SIGTERM inside the save left it RUNNING).
        try:
            self.store.save(state)
            assert state.results_table is not None
            endpoint = self.target.endpoint(state)
            live = LiveOptions(
                workers=state.workers,
                scale=state.scale,
                endpoint=endpoint,
                region=state.region,
                window_s=self.fleet.window_s,
                fleet=FleetOptions(
                    barrier_timeout_s=self.fleet.barrier_timeout_s(self.options),
                    clock=self.target.clock(),
                ),
                fleet_factory=lambda: RecordingFleet(
                    self.fleet.new_fleet(),
                    lambda fleet: self.fleet.record_started(fleet, table_run),
                    hooks.check_cancel,
                    lambda: self.fleet.seen(table_run),
                ),
            )
            if self.options.timeout_s is not None:
                live.timeout_s = self.options.timeout_s
            plan = live.plan(
                table_run.fleet_run_id,
                self.playbook,
                spec.name,
                table.name,
                table_run.repeat,
                endpoint,
            )
            hooks.say(f"running {table_run.label} with {state.workers} workers")
            with aws_errors("the fleet's start", state.region):
                # Local: the emulator's memory bound, once it refuses, stops the run as partial.
                stop = polled_memory_check(endpoint) if endpoint is not None else None
                changer = self.target.table_changer(state, table.name)
                result = run_one(
                    plan, self.client, state.results_table, endpoint, live, self._say, stop, changer
                )
        except BaseException as exc:
            table_run.status = Status.FAILED
            table_run.interrupted = isinstance(exc, KeyboardInterrupt)
            table_run.finished_at = utc_now()
            self.fleet.record_finished(table_run)
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
        from console.workflow.run_cost import record_run_units

        record_run_units(state.usage, table.name, full)
        self.fleet.record_finished(table_run)
        self.store.save(state)

    def _say(self, message: str) -> None:
        """Progress lines of the coordinator; while the barrier fills they are the only
        call back into us, so a cancel is honoured here too."""
        self.hooks.check_cancel()
        self.hooks.say(message)

    def _seed(self, spec: TableSpec, table: TableState) -> None:
        from loadgen.load.seed import seed_table

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
                skip=self.target.skipper(self.state),  # the emulator: its clock keeps the pace
            )
        table.seeded_items = n
        from console.workflow.run_cost import record_seed_units

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
        skip = self.target.skipper(self.state)
        if skip is not None:
            # The tables' clock is ours: `pause_scale` of the pause in real time, the rest
            # skipped on its clock, so the physics (splits, cooling) sees the whole pause,
            # as with `hotbench run`'s in-process emulator.
            rest = run_spec.pause_s - passed
            if rest > 0:
                pause(rest, self.options.pause_scale, skip, self.hooks.say)
            return
        wanted = run_spec.pause_s * self.options.pause_scale
        if wanted - passed > 0:
            pause(wanted - passed, 1.0, None, self.hooks.say)
