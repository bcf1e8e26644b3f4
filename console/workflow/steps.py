"""The steps of a run: plan, up, prewarm, run, watch, tally, down (and `runs`).

Each step loads the run's state, does its part, and saves the state after every change
that matters, so it can be resumed after a crash by calling the same step again (or
`down`, which needs nothing but the state). The target (local emulator or AWS) is
recorded in the state at `up`; later steps follow it. Steps that change a run hold its
lock (lock.py); `down` interrupts a holder rather than wait.

Steps block; they report through `Hooks` and never touch a terminal (see hooks.py).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

from console.infra.errors import TerraformApplyError, TerraformError
from console.output import write_json
from console.workflow import local, processes
from console.workflow.awserrors import aws_errors
from console.workflow.errors import CostRefused, InfraError, StateError, WorkflowError
from console.workflow.hooks import Hooks
from console.workflow.lock import run_lock
from console.workflow.options import RunOptions, UpOptions, WarmTarget
from console.workflow.planning import make_plan, table_names, variants_in_runs
from console.workflow.reports import CostTally, DownReport, Leftover, PlanReport
from console.workflow.runrecord import read_run, save_run
from console.workflow.samples import WatchFrame
from console.workflow.settings import Settings
from console.workflow.state import (
    IndexState,
    RunState,
    StateStore,
    Status,
    Step,
    TableRun,
    TableState,
    TaskRecord,
    TerraformState,
    new_run_id,
    utc_now,
)
from loadgen.playbook import Playbook, TableSpec, load_playbook
from loadgen.results import PlaybookResult, to_full_scale

WORKER_MARKER = "loadgen.worker"
REAPER_MODULE = "console.workflow.reaper"


# -- plumbing ------------------------------------------------------------------------------


def _store(settings: Settings) -> StateStore:
    return StateStore(settings.runs_dir)


@contextlib.contextmanager
def _step(store: StateStore, state: RunState, step: Step) -> Iterator[None]:
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


def _require_up(state: RunState, what: str) -> None:
    if state.record(Step.DOWN).status == Status.DONE and not state.billable_up:
        raise StateError(f"run {state.run_id} is down; `hotbench up` starts a new one")
    if state.record(Step.UP).status != Status.DONE:
        raise StateError(
            f"run {state.run_id} is not up yet (up: {state.record(Step.UP).status}); "
            f"`hotbench up --run {state.run_id} {state.playbook_path}` resumes it before {what}"
        )


def _dynamodb(state: RunState, settings: Settings) -> Any:
    if state.target == "local":
        return local.client(state)
    from console.workflow import aws

    return aws.session(_run_settings(state, settings)).client("dynamodb")


def _run_settings(state: RunState, settings: Settings) -> Settings:
    """The settings with the run's own target and region (recorded at `up`)."""
    return settings.model_copy(update={"target": state.target, "region": state.region})


def _find_spec(playbook: Playbook, variant: str) -> TableSpec:
    try:
        return playbook.table(variant)
    except KeyError:
        raise StateError(f"the playbook no longer has a table {variant!r}") from None


# -- plan ----------------------------------------------------------------------------------


def plan(
    playbook_path: str | Path, settings: Settings, options: UpOptions | None = None
) -> PlanReport:
    """What `up` would create (tables, GSIs, capacity, warm throughput, on-demand maximum,
    fleet), its price per hour while up and while workers run, and the estimated cost of
    the whole run. Creates nothing and calls no AWS API (prices: the dated table, see
    console/infra/prices.py)."""
    return make_plan(playbook_path, settings, options or UpOptions())


def check_credentials(settings: Settings) -> str:
    """AWS: the caller's ARN, or CredentialsError (exit 2) before anything is created."""
    from console.workflow import aws

    return aws.caller_identity(settings)


# -- up ------------------------------------------------------------------------------------


def up(
    playbook_path: str | Path,
    settings: Settings,
    hooks: Hooks,
    options: UpOptions | None = None,
    run_id: str | None = None,
) -> RunState:
    """Create what the plan lists and record it in the state.

    Asks `hooks.confirm` with the plan's cost first (raises CostRefused when declined,
    or when the estimate is over `settings.max_cost_usd`). local: starts `hotbench
    emulator serve` detached on a free loopback port (pid and port in the state) and
    creates the tables and the results table; aws: the Terraform kit in a per-run copy
    (plan summary through `say`, apply streamed, outputs into the state). Starts the
    reaper that runs `down` at the run's deadline. Given an existing `run_id` whose `up`
    was interrupted, continues it.
    """
    options = options or UpOptions()
    store = _store(settings)
    if run_id is not None and store.path(run_id).exists():
        state = store.load(run_id)
        if state.record(Step.UP).status == Status.DONE:
            hooks.say(f"run {run_id} is already up")
            return state
        hooks.say(f"resuming up of run {run_id}")
        settings = _run_settings(state, settings)
        options = UpOptions(
            workers=state.workers,
            scale=state.scale,
            task_cpu=options.task_cpu,
            task_memory=options.task_memory,
            cpu_architecture=options.cpu_architecture,
            emulator_store=state.emulator.store if state.emulator else options.emulator_store,
            create_delay_s=options.create_delay_s,
        )
    else:
        if settings.target == "local" and not 0 < options.scale <= 1:
            raise WorkflowError("--scale must be in (0, 1]", 2)
        if options.workers < 1:
            raise WorkflowError("--workers must be at least 1", 2)
        run_id = run_id or new_run_id()
        report = make_plan(playbook_path, settings, options, run_id=run_id)
        _accept_cost(report, settings, hooks)
        if settings.target == "aws":
            check_credentials(settings)  # before anything exists
        playbook = load_playbook(playbook_path)
        now = utc_now()
        state = RunState(
            run_id=run_id,
            target=settings.target,
            region=settings.region,
            playbook_path=str(Path(playbook_path).resolve()),
            playbook_name=playbook.name,
            created_at=now,
            deadline=now + timedelta(seconds=settings.max_wall_s),
            estimated_cost_usd=report.estimated_cost_usd,
            scale=options.scale if settings.target == "local" else 1.0,
            workers=options.workers,
        )
        state.record(Step.PLAN).status = Status.DONE
        state.record(Step.PLAN).finished_at = now
        store.save(state)
        hooks.say(f"run {run_id}: state in {store.path(run_id)}")
    with run_lock(store.run_dir(state.run_id), "up"), _step(store, state, Step.UP):
        _start_reaper(store, state, settings)
        if state.target == "local":
            _up_local(store, state, options, hooks)
        else:
            _up_aws(store, state, settings, options, hooks)
    return state


def _accept_cost(report: PlanReport, settings: Settings, hooks: Hooks) -> None:
    cost = report.estimated_cost_usd
    where = "would cost on AWS" if report.hypothetical else "is estimated at"
    if (
        settings.max_cost_usd is not None
        and cost > settings.max_cost_usd
        and not (report.hypothetical)
    ):
        raise CostRefused(
            f"the run {where} ${cost:,.2f}, over --max-cost-usd ${settings.max_cost_usd:,.2f}; "
            "nothing was created (fewer tables, a shorter playbook or a higher limit)"
        )
    question = (
        f"Create {len(report.tables)} table(s) and {report.fleet.workers} worker(s) on "
        f"{report.target}? The run {where} ${cost:,.2f} "
        f"(${report.per_hour_while_up:,.2f}/h while up, "
        f"+${report.per_hour_while_running:,.2f}/h while workers run; prices "
        f"{report.prices_region} as of {report.prices_as_of})"
    )
    if not hooks.confirm(question):
        raise CostRefused("not confirmed; nothing was created (--yes skips the question)")


def _start_reaper(store: StateStore, state: RunState, settings: Settings) -> None:
    """A detached process that runs `down` at the deadline if the run is still up: the
    hard wall-clock limit holds even when the terminal that started the run is gone."""
    if state.reaper_pid is not None and processes.is_ours(state.reaper_pid, state.run_id):
        return
    argv = [
        "-m",
        REAPER_MODULE,
        state.run_id,
        "--settings",
        _run_settings(state, settings).model_dump_json(),
        "--runs-dir",
        str(store.runs_dir.resolve()),
    ]
    state.reaper_pid = processes.spawn_detached(argv, store.run_dir(state.run_id) / "reaper.log")
    store.save(state)


def _up_local(store: StateStore, state: RunState, options: UpOptions, hooks: Hooks) -> None:
    playbook = load_playbook(state.playbook_path)
    if not local.emulator_alive(state.emulator):
        if state.emulator is not None:
            hooks.say("the emulator of this run is gone: its tables went with it; starting anew")
            for table in state.tables.values():
                table.deleted_at = table.deleted_at or utc_now()
            state.tables = {}
            state.results_table = None
        state.emulator = local.start_emulator(
            store.run_dir(state.run_id), options, state.scale, hooks
        )
        store.save(state)
    hooks.say(f"emulator at {state.emulator.endpoint if state.emulator else '?'}")
    client = local.client(state)
    _create_tables(store, state, playbook, client, hooks)


def _create_tables(
    store: StateStore, state: RunState, playbook: Playbook, client: Any, hooks: Hooks
) -> None:
    from loadgen.resultstore import ResultStore, wait_active

    specs = variants_in_runs(playbook)
    for i, spec in enumerate(specs):
        hooks.check_cancel()
        name = table_names(state.target, state.run_id, spec.name)
        hooks.progress("creating tables", i / (len(specs) + 1))
        existing = state.tables.get(spec.name)
        if existing is None or existing.deleted_at is not None:
            hooks.say(f"creating {name}")
            try:
                client.create_table(
                    **spec.create_table_request(name, tags={"hotbench:run-id": state.run_id})
                )
            except Exception as exc:
                if getattr(exc, "response", {}).get("Error", {}).get("Code") != (
                    "ResourceInUseException"
                ):
                    raise
            state.tables[spec.name] = _table_state(spec, name)
            store.save(state)
        wait_active(client, name)
    results = f"{state.run_id}-results"
    if state.results_table is None:
        hooks.say(f"creating {results}")
        with contextlib.suppress(Exception):  # exists already after a resumed up
            ResultStore(client, results, state.run_id).create_table()
        state.results_table = results
        store.save(state)
    wait_active(client, results)
    hooks.progress("creating tables", 1.0)


def _table_state(spec: TableSpec, name: str, arn: str | None = None) -> TableState:
    return TableState(
        variant=spec.name,
        name=name,
        arn=arn,
        billing_mode=spec.billing_mode,
        read_capacity=spec.read_capacity,
        write_capacity=spec.write_capacity,
        warm_read=spec.warm_throughput.read if spec.warm_throughput else None,
        warm_write=spec.warm_throughput.write if spec.warm_throughput else None,
        contributor_insights=spec.contributor_insights is not None,
        gsis=[
            IndexState(
                name=g.name,
                read_capacity=g.read_capacity,
                write_capacity=g.write_capacity,
                warm_read=g.warm_throughput.read if g.warm_throughput else None,
                warm_write=g.warm_throughput.write if g.warm_throughput else None,
            )
            for g in spec.gsis
        ],
        created_at=utc_now(),
    )


def _up_aws(
    store: StateStore, state: RunState, settings: Settings, options: UpOptions, hooks: Hooks
) -> None:
    from console.workflow import aws

    playbook = load_playbook(state.playbook_path)
    variants = [s.name for s in variants_in_runs(playbook)]
    if state.terraform is None:
        owner = settings.owner or aws.caller_identity(settings)
        workdir = aws.copy_stack(store.run_dir(state.run_id))
        assert state.deadline is not None
        state.terraform = TerraformState(
            workdir=str(workdir),
            variables=aws.tf_variables(state, settings, options, owner, variants, state.deadline),
        )
        store.save(state)  # from here on, `down` knows where to destroy from
    tf = aws.terraform(state.terraform, settings)
    with aws_errors("terraform", state.region):
        hooks.say("terraform init")
        tf.init()
        planned = tf.plan()
        for line in planned.summary.lines():
            hooks.say(line)
        hooks.check_cancel()
        try:
            outputs = tf.apply(planned, on_progress=hooks.say)
        except TerraformApplyError as exc:
            if exc.destroyed:
                state.terraform.destroyed_at = utc_now()
                store.save(state)
            raise
    state.terraform.outputs = aws.outputs_to_json(outputs)
    state.terraform.applied_at = utc_now()
    for variant, table in outputs.tables.items():
        state.tables[variant] = _table_state(_find_spec(playbook, variant), table.name, table.arn)
    state.results_table = outputs.results_table
    store.save(state)


# -- prewarm -------------------------------------------------------------------------------


def prewarm(
    run_id: str,
    settings: Settings,
    hooks: Hooks,
    targets: list[WarmTarget] | None = None,
    timeout_s: float = 1800.0,
) -> RunState:
    """UpdateTable WarmThroughput on each table and GSI (`targets`, default the
    playbook's warm_throughput), then wait until DescribeTable says ACTIVE, reporting
    progress through `hooks.progress`. Locally, `say` also gives each table's partition
    count from /_hotbench/partitions. A table already at least that warm is skipped
    (warm throughput can only be raised)."""
    store = _store(settings)
    state = store.load(run_id)
    _require_up(state, "prewarm")
    settings = _run_settings(state, settings)
    playbook = load_playbook(state.playbook_path)
    if targets is None:
        targets = []
        for spec in variants_in_runs(playbook):
            if spec.warm_throughput:
                targets.append(
                    WarmTarget(
                        spec.name, None, spec.warm_throughput.read, spec.warm_throughput.write
                    )
                )
            targets += [
                WarmTarget(spec.name, g.name, g.warm_throughput.read, g.warm_throughput.write)
                for g in spec.gsis
                if g.warm_throughput
            ]
    with run_lock(store.run_dir(run_id), "prewarm"), _step(store, state, Step.PREWARM):
        client = _dynamodb(state, settings)
        waiting: list[tuple[str, str | None]] = []
        for target in targets:
            hooks.check_cancel()
            table = state.tables.get(target.variant)
            if table is None:
                raise StateError(
                    f"run {run_id} has no table {target.variant!r} "
                    f"(it has {', '.join(state.tables) or 'none'})"
                )
            with aws_errors("dynamodb:UpdateTable", state.region):
                if _raise_warm(client, table, target, hooks):
                    waiting.append((table.name, target.index))
            store.save(state)
        _wait_warm(client, waiting, timeout_s, hooks, state.region)
        if state.target == "local" and state.emulator is not None:
            for table in state.tables.values():
                parts = local.partitions(state.emulator, table.name)
                for index in (parts or {}).get("indexes", []):
                    hooks.say(
                        f"{table.variant}{'/' + index['index'] if index.get('index') else ''}: "
                        f"{index.get('partition_count')} partition(s)"
                    )
    return state


def _current_warm(description: dict[str, Any], index: str | None) -> tuple[int, int, str]:
    if index is None:
        warm = description.get("WarmThroughput") or {}
    else:
        gsi = next(
            (g for g in description.get("GlobalSecondaryIndexes", []) if g["IndexName"] == index),
            None,
        )
        if gsi is None:
            raise StateError(f"table {description.get('TableName')} has no GSI {index!r}")
        warm = gsi.get("WarmThroughput") or {}
    return (
        int(warm.get("ReadUnitsPerSecond", 0)),
        int(warm.get("WriteUnitsPerSecond", 0)),
        str(warm.get("Status", "ACTIVE")),
    )


def _raise_warm(client: Any, table: TableState, target: WarmTarget, hooks: Hooks) -> bool:
    """UpdateTable when the target is above the current warm values; True if it was."""
    described = client.describe_table(TableName=table.name)["Table"]
    read_now, write_now, _status = _current_warm(described, target.index)
    read = max(read_now, target.read or 0)
    write = max(write_now, target.write or 0)
    where = table.variant + (f"/{target.index}" if target.index else "")
    if (read, write) == (read_now, write_now):
        hooks.say(f"{where}: already warm at {read_now:,} read / {write_now:,} write units/s")
        return False
    warm = {"ReadUnitsPerSecond": read, "WriteUnitsPerSecond": write}
    hooks.say(f"{where}: warm throughput -> {read:,} read / {write:,} write units/s")
    if target.index is None:
        client.update_table(TableName=table.name, WarmThroughput=warm)
        table.warm_read, table.warm_write = read, write
    else:
        client.update_table(
            TableName=table.name,
            GlobalSecondaryIndexUpdates=[
                {"Update": {"IndexName": target.index, "WarmThroughput": warm}}
            ],
        )
        for gsi in table.gsis:
            if gsi.name == target.index:
                gsi.warm_read, gsi.warm_write = read, write
    return True


def _wait_warm(
    client: Any,
    waiting: list[tuple[str, str | None]],
    timeout_s: float,
    hooks: Hooks,
    region: str,
) -> None:
    """Poll DescribeTable until every raised warm throughput says ACTIVE."""
    if not waiting:
        return
    deadline = time.monotonic() + timeout_s
    pending = list(waiting)
    while pending:
        hooks.check_cancel()
        hooks.progress("warming", 1 - len(pending) / len(waiting))
        still = []
        for name, index in pending:
            with aws_errors("dynamodb:DescribeTable", region):
                described = client.describe_table(TableName=name)["Table"]
            if _current_warm(described, index)[2] != "ACTIVE":
                still.append((name, index))
        pending = still
        if pending and time.monotonic() > deadline:
            raise InfraError(
                f"warm throughput not ACTIVE after {timeout_s:.0f} s on "
                + ", ".join(n + (f"/{i}" if i else "") for n, i in pending)
            )
        if pending:
            time.sleep(1.0)
    hooks.progress("warming", 1.0)


# -- run -----------------------------------------------------------------------------------


class _RecordingFleet:
    """Passes through to a fleet and records what it started in the state at once, so a
    killed command leaves the pids (or task ARNs) a resumed one must stop."""

    def __init__(self, inner: Any, on_start: Callable[[Any], None]) -> None:
        self.inner = inner
        self.on_start = on_start

    def start(self, run_id: str, workers: int, env: dict[str, str]) -> None:
        try:
            self.inner.start(run_id, workers, env)
        finally:
            self.on_start(self.inner)

    def running(self) -> int:
        n: int = self.inner.running()
        return n

    def stop(self, reason: str) -> None:
        self.inner.stop(reason)

    def notes(self) -> list[str]:
        out: list[str] = self.inner.notes()
        return out


def run(
    run_id: str, settings: Settings, hooks: Hooks, options: RunOptions | None = None
) -> PlaybookResult:
    """The playbook's table runs on the provisioned tables, through the start barrier:
    LocalFleet locally, EcsFleet on AWS. Seeds each table first (once). Each table run's
    result is saved in the run folder when it finishes, so a resumed `run` skips finished
    ones, stops orphans of an interrupted one and runs it again. Returns the playbook's
    result (the same format as `hotbench simulate`), also saved as result.json."""
    options = options or RunOptions()
    store = _store(settings)
    state = store.load(run_id)
    _require_up(state, "run")
    settings = _run_settings(state, settings)
    playbook = load_playbook(state.playbook_path)
    if not state.table_runs:
        state.table_runs = [
            TableRun(variant=r.table, repeat=k)
            for r in playbook.runs()
            for k in range(1, r.repeats + 1)
        ]
    with run_lock(store.run_dir(run_id), "run"), _step(store, state, Step.RUN):
        if state.target == "local" and not local.emulator_alive(state.emulator):
            raise InfraError(
                f"the emulator of run {run_id} is not running (pid "
                f"{state.emulator.pid if state.emulator else '?'} gone): its tables went "
                f"with it; `hotbench down {run_id}` and a new `hotbench up`"
            )
        client = _dynamodb(state, settings)
        runner = _TableRunner(store, state, settings, playbook, options, hooks, client)
        for table_run in state.table_runs:
            if table_run.status == Status.DONE:
                continue
            hooks.check_cancel()
            runner.run(table_run)
        result = PlaybookResult(
            playbook.name,
            "run",
            state.scale,
            runs=[
                read_run(store.run_dir(run_id) / tr.result_path)
                for tr in state.table_runs
                if tr.result_path
            ],
            started_at=min(
                (tr.started_at for tr in state.table_runs if tr.started_at), default=utc_now()
            ).isoformat(timespec="seconds"),
            target=state.target,
        )
        result.wall_s = sum(
            (tr.finished_at - tr.started_at).total_seconds()
            for tr in state.table_runs
            if tr.finished_at and tr.started_at
        )
        write_json(store.run_dir(run_id) / "result.json", result.to_json())
    return result


class _TableRunner:
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
        from loadgen.live import LiveOptions, pause, run_one
        from loadgen.messages import RunPlan

        state, hooks = self.state, self.hooks
        if table_run.status == Status.RUNNING:
            self._stop_orphans(table_run)
            hooks.say(f"{table_run.label} was interrupted: running it again")
        spec = _find_spec(self.playbook, table_run.variant)
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
            fleet_factory=lambda: _RecordingFleet(self._new_fleet(), self._recorder(table_run)),
        )
        if self.options.timeout_s is not None:
            live.timeout_s = self.options.timeout_s
        plan = RunPlan(
            table_run.fleet_run_id,
            self.playbook,
            spec.name,
            table.name,
            repeat=table_run.repeat,
            scale=state.scale,
            workers=state.workers,
            endpoint=endpoint,
            region=state.region,
            timeout_s=live.timeout_s,
            concurrency=live.concurrency,
            drain_s=live.drain_s,
        )
        hooks.say(f"running {table_run.label} with {state.workers} workers")
        try:
            with aws_errors("ecs:RunTask", state.region):
                result = run_one(plan, self.client, state.results_table, endpoint, live, hooks.say)
        except BaseException as exc:
            table_run.status = Status.FAILED
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
        if table.billing_mode == "PAY_PER_REQUEST":
            totals = full.totals()
            state.usage.write_request_units += totals.consumed_wcu
            state.usage.read_request_units += totals.consumed_rcu
        self._record_tasks(table_run)
        self.store.save(state)

    def _seed(self, spec: TableSpec, table: TableState) -> None:
        from loadgen.seed import seed_table

        if not spec.seed_items or table.seeded_items is not None:
            return
        self.hooks.say(f"seeding {table.name}")
        with aws_errors("dynamodb:BatchWriteItem", self.state.region):
            n = seed_table(
                self.client,
                table.name,
                self.playbook,
                spec,
                self.state.scale,
                self.options.seed_items,
            )
        table.seeded_items = n
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
        wanted = run_spec.pause_s * self.options.pause_scale
        passed = (
            (utc_now() - previous.finished_at).total_seconds()
            if previous and previous.finished_at
            else 0.0
        )
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
            _stop_tasks(self.state, self.ecs, label=table_run.label)


def _stop_tasks(state: RunState, ecs: Any, label: str | None = None) -> list[str]:
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


# -- watch ---------------------------------------------------------------------------------


def watch(
    run_id: str,
    settings: Settings,
    interval_s: float = 1.0,
    stop: threading.Event | None = None,
) -> Iterator[WatchFrame]:
    """Frames of new samples every `interval_s` while the run is up: the workers'
    progress items (both targets), the emulator's per-second metrics (local), CloudWatch's
    1-minute series (aws). Ends after the run step finishes (last frame `finished`), when
    the run is down, or when `stop` is set. Reading only: safe beside a running `run`."""
    from console.workflow.watching import Watcher

    return Watcher(_store(settings), run_id, settings, interval_s, stop).frames()


# -- tally ---------------------------------------------------------------------------------


def tally(run_id: str, settings: Settings, refresh_prices: bool = False) -> CostTally:
    """What the run cost from what it used and for how long: provisioned WCU/RCU-hours,
    on-demand request units, warm throughput above the defaults, Contributor Insights,
    the dashboard and GetMetricData requests, Fargate vCPU- and GB-seconds from each
    task's pull start to its stop. Locally: what the same run would have cost on AWS.
    `refresh_prices` fetches the prices from the Price List API first."""
    from console.workflow.tallying import tally_state

    store = _store(settings)
    state = store.load(run_id)
    prices = None
    if refresh_prices:
        from console.workflow import aws
        from console.workflow.pricelist import fetch_prices, pricing_client

        with aws_errors("pricing:GetProducts", "us-east-1"):
            prices = fetch_prices(pricing_client(aws.session(settings)), settings.prices_region)
    result = tally_state(state, settings, prices)
    with contextlib.suppress(StateError), run_lock(store.run_dir(run_id), "tally"):
        state = store.load(run_id)
        state.cost_so_far_usd = result.total_usd
        record = state.record(Step.TALLY)
        record.status = Status.DONE
        record.started_at = record.started_at or utc_now()
        record.finished_at = utc_now()
        store.save(state)
    return result


# -- down ----------------------------------------------------------------------------------


def down(run_id: str, settings: Settings, hooks: Hooks) -> DownReport:
    """Destroy everything the state records, then make sure. local: delete the tables
    and stop the emulator (and any orphaned worker). aws: terraform destroy, stop any
    task still running, then sweep by the run-id tag (Tagging API, each hit confirmed by
    its own Describe; IAM roles by ListRoles + ListRoleTags). Never raises for what it
    finds left: the report lists each leftover with the command that deletes it."""
    store = _store(settings)
    store.load(run_id)  # a clear error for an unknown run before taking any lock
    with run_lock(store.run_dir(run_id), "down", interrupt_holder=True):
        state = store.load(run_id)  # what the interrupted holder saved
        settings = _run_settings(state, settings)
        with _step(store, state, Step.DOWN):
            if state.target == "local":
                report = _down_local(store, state, hooks)
            else:
                report = _down_aws(store, state, settings, hooks)
            state.leftovers = [f"{x.kind} {x.id}" for x in report.leftovers]
            store.save(state)
        if state.reaper_pid is not None and state.reaper_pid != os.getpid():
            processes.stop(state.reaper_pid, state.run_id)
    return report


def _down_local(store: StateStore, state: RunState, hooks: Hooks) -> DownReport:
    removed: list[str] = []
    leftovers: list[Leftover] = []
    notes: list[str] = []
    for table_run in state.table_runs:
        for pid in table_run.worker_pids:
            if processes.is_ours(pid, WORKER_MARKER):
                processes.stop(pid, WORKER_MARKER)
                removed.append(f"worker process {pid}")
    emu = state.emulator
    names = [t.name for t in state.tables.values() if t.deleted_at is None]
    if state.results_table:
        names.append(state.results_table)
    if emu is not None and local.emulator_alive(emu):
        client = local.client(state)
        for name in names:
            try:
                client.delete_table(TableName=name)
                removed.append(f"table {name}")
            except Exception as exc:
                if getattr(exc, "response", {}).get("Error", {}).get("Code") != (
                    "ResourceNotFoundException"
                ):
                    leftovers.append(
                        Leftover(kind="dynamodb:table", id=name, delete_command=f"kill {emu.pid}")
                    )
        remaining = set(client.list_tables().get("TableNames", [])) & set(names)
        for name in sorted(remaining):
            leftovers.append(
                Leftover(kind="dynamodb:table", id=name, delete_command=f"kill {emu.pid}")
            )
        if local.stop_emulator(emu):
            removed.append(f"emulator process {emu.pid}")
            # its tables lived in its memory: none survives it
            leftovers = [x for x in leftovers if x.kind != "dynamodb:table"]
        else:
            leftovers.append(
                Leftover(kind="process", id=str(emu.pid), delete_command=f"kill -9 {emu.pid}")
            )
    elif emu is not None and emu.stopped_at is None and names:
        notes.append(f"the emulator (pid {emu.pid}) was already gone; its tables went with it")
    now = utc_now()
    if emu is not None and not local.emulator_alive(emu):
        emu.stopped_at = emu.stopped_at or now
    for table in state.tables.values():
        if table.deleted_at is None and not any(x.id == table.name for x in leftovers):
            table.deleted_at = now
    return DownReport(
        run_id=state.run_id, target="local", removed=removed, leftovers=leftovers, notes=notes
    )


def _down_aws(store: StateStore, state: RunState, settings: Settings, hooks: Hooks) -> DownReport:
    from console.workflow import aws
    from console.workflow.sweep import sweep

    removed: list[str] = []
    notes: list[str] = []
    session = aws.session(settings)
    if any(t.stopped_at is None for t in state.tasks):
        removed += [f"task {arn}" for arn in _stop_tasks(state, session.client("ecs"))]
        store.save(state)
    tf_state = state.terraform
    if tf_state is not None and tf_state.destroyed_at is None:
        hooks.say("terraform destroy")
        try:
            with aws_errors("terraform destroy", state.region):
                aws.terraform(tf_state, settings).destroy(on_progress=hooks.say)
            tf_state.destroyed_at = utc_now()
            removed.append("terraform stack")
            for table in state.tables.values():
                table.deleted_at = table.deleted_at or tf_state.destroyed_at
        except (WorkflowError, TerraformError) as exc:
            notes.append(f"terraform destroy failed: {exc}")
        store.save(state)
    hooks.say("sweeping by tag hotbench:run-id=" + state.run_id)
    with aws_errors("tag:GetResources", state.region):
        leftovers = sweep(session.client, aws.RUN_TAG, state.run_id, state.region)
    return DownReport(
        run_id=state.run_id, target="aws", removed=removed, leftovers=leftovers, notes=notes
    )


# -- runs ----------------------------------------------------------------------------------


def runs(settings: Settings) -> list[RunState]:
    """Every run in the runs folder, oldest first, with its step and `billable_up`; for a
    local run, whether its emulator is really alive is checked (a reboot ends it)."""
    out = _store(settings).all_runs()
    for state in out:
        if state.target == "local" and state.emulator and not local.emulator_alive(state.emulator):
            state.emulator.stopped_at = state.emulator.stopped_at or utc_now()
    return out
