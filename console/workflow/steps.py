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
import dataclasses
import os
import shutil
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

from console.output import write_json
from console.run import processes
from console.run.errors import ConfigError, PreflightFailed, StateError
from console.run.hooks import Hooks
from console.run.lock import run_lock
from console.run.models import CostTally, DownReport, PlanReport
from console.run.options import RunOptions, UpOptions, WarmTarget
from console.run.samples import WatchFrame
from console.run.settings import Settings
from console.run.state import (
    RunState,
    StateStore,
    Status,
    Step,
    TableRun,
    utc_now,
)
from console.run.tables import variants_in_runs
from console.targets import target_for, target_named
from console.targets.awserrors import aws_errors
from console.targets.fleets import chosen_fleet
from console.targets.interface import Finding
from console.workflow.bringup import confirm_cost, refuse_over_limit, start_reaper
from console.workflow.planning import make_plan
from console.workflow.run_context import dynamodb_client, run_settings
from console.workflow.runrecord import read_run
from console.workflow.step_records import refuse_if_down, require_up, step, store_for
from console.workflow.tablerun import RecordedTableRun
from console.workflow.warming import raise_warm, wait_warm
from loadgen.format.playbook import Playbook, load_playbook
from loadgen.format.trim import Trim, load_trimmed
from loadgen.live.playbook_run import item_store_for
from loadgen.live.runid import new_run_id
from loadgen.results.records import PlaybookResult

# -- plan ----------------------------------------------------------------------------------


def plan(
    playbook_path: str | Path, settings: Settings, options: UpOptions | None = None
) -> PlanReport:
    """What `up` would create (tables, GSIs, capacity, warm throughput, on-demand maximum,
    fleet), its price per hour while up and while workers run, and the estimated cost of
    the whole run. Creates nothing and calls no AWS API (prices: the dated table, see
    console/cost/prices.py)."""
    return make_plan(playbook_path, settings, options or UpOptions())


def check_credentials(settings: Settings) -> str | None:
    """Who the target would create the run as (AWS: the caller's ARN), or CredentialsError
    (exit 2) before anything is created; None for a target without identities (local)."""
    return target_named(settings).identity()


def preflight(report: PlanReport, settings: Settings) -> list[Finding]:
    """What must be fixed before `up` may create anything (permissions, quotas, network),
    each naming the action, quota or setting and the fix; empty: nothing found. Findings
    of kind `not-checked` say what could not be checked (and block nothing)."""
    return target_named(settings).preflight(report)


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
    store = store_for(settings)
    if run_id is not None and store.path(run_id).exists():
        state = store.load(run_id)
        refuse_up_of_a_gone_run(state, settings)
        if state.record(Step.UP).status == Status.DONE:
            hooks.say(f"run {run_id} is already up")
            return state
        hooks.say(f"resuming up of run {run_id}")
        settings = run_settings(state, settings)
        emulator = options.emulator
        if state.emulator is not None and state.emulator.store is not None:
            emulator = dataclasses.replace(emulator, store=state.emulator.store)
        options = dataclasses.replace(
            options,
            workers=state.workers,
            scale=state.scale,
            emulator=emulator,
            lambda_memory_mb=state.worker_memory_mb,
        )
    else:
        target = target_named(settings)
        target.check_up_options(options)
        if options.workers < 1:
            raise ConfigError("--workers must be at least 1")
        run_id = run_id or new_run_id()
        report = make_plan(playbook_path, settings, options, run_id=run_id)
        unguarded = refuse_over_limit(report, settings)
        if unguarded is not None:
            hooks.say(unguarded)
        target.identity()  # credentials before the question, and before anything exists
        failed = [f for f in target.preflight(report) if f.blocks]
        if failed:
            raise PreflightFailed(failed)
        confirm_cost(report, hooks)
        trimmed = load_trimmed(playbook_path, options.trim)
        playbook = trimmed.playbook
        store_needed = item_store_for(playbook, options.emulator.store)
        if store_needed != options.emulator.store:
            hooks.say("mix and scenario phases read whole items: the emulator keeps them")
            emulator = dataclasses.replace(options.emulator, store=store_needed)
            options = dataclasses.replace(options, emulator=emulator)
        now = utc_now()
        state = RunState(
            run_id=run_id,
            target=settings.target,
            region=settings.region,
            aws_profile=settings.aws_profile,
            playbook_path=str(keep_playbook(store, run_id, Path(playbook_path), options.trim)),
            playbook_source=str(Path(playbook_path).resolve()),
            trimmed=trimmed.words() if options.trim else None,
            playbook_name=playbook.name,
            created_at=now,
            deadline=now + timedelta(seconds=settings.max_wall_s),
            estimated_cost_usd=report.estimated_cost_usd,
            scale=target.run_scale(options),
            workers=report.fleet.workers,
            fleet=chosen_fleet(settings, playbook),
            worker_memory_mb=round(report.fleet.memory_gb * 1024),
        )
        state.record(Step.PLAN).status = Status.DONE
        state.record(Step.PLAN).finished_at = now
        store.save(state)
        hooks.say(f"run {run_id}: state in {store.path(run_id)}")
    with run_lock(store.run_dir(state.run_id), "up"):
        state = store.load(state.run_id)  # as the last holder left it
        if state.record(Step.UP).status == Status.DONE:
            return state  # another command finished it meanwhile
        with step(store, state, Step.UP):
            start_reaper(store, state, settings)
            target_for(state, settings).provision(store, state, options, hooks)
    return state


PLAYBOOK_COPY = "playbook.yaml"


def keep_playbook(store: StateStore, run_id: str, source: Path, trim: Trim | None = None) -> Path:
    """The playbook copied into the run's folder: every later step, `down` and the reaper
    read the copy, so a playbook moved, edited or deleted after `up` changes nothing. A
    trimmed playbook (`--duration-scale`, `--table`, `--phase`) is kept as trimmed, with
    a comment saying so: the run is of that playbook."""
    copy = store.run_dir(run_id) / PLAYBOOK_COPY
    copy.parent.mkdir(parents=True, exist_ok=True)
    if not trim:
        shutil.copyfile(source, copy)
        return copy
    import yaml

    trimmed = load_trimmed(source, trim)
    text = yaml.safe_dump(trimmed.document, sort_keys=False, allow_unicode=True)
    copy.write_text(f"# {trimmed.words()}\n# from {source.resolve()}\n{text}", encoding="utf-8")
    return copy


def refuse_up_of_a_gone_run(state: RunState, settings: Settings) -> None:
    """`up --run` on a run that is down, or whose emulator died and took its tables
    with it, must not say "already up" (the next `run` would fail): exit 5 with the way
    on. Nothing is restarted in place: a run's tables and results table are recreated
    only by a new `up`, which keeps one run id = one set of resources."""
    if state.record(Step.DOWN).status == Status.DONE:
        raise StateError(
            f"run {state.run_id} is down; `hotbench up {state.source_playbook}` (without "
            "--run) starts a new run"
        )
    gone = target_for(state, settings).gone(state)
    if gone is not None:
        raise StateError(
            f"{gone}: `hotbench down {state.run_id}` clears the run, then `hotbench up "
            f"{state.source_playbook}` starts a new one"
        )


# -- image ---------------------------------------------------------------------------------


def build_image(run_id: str, settings: Settings, hooks: Hooks, rebuild: bool = True) -> RunState:
    """`hotbench image build`: build the worker image of an up run from the current
    sources (locally with docker/podman/finch, else by CodeBuild in the account), push it
    to the run's repository and pin it by digest in the state and the task definition.
    Sources already built are reused unless `rebuild`. StateError (exit 5) for a run
    whose workers are not containers (local)."""
    store = store_for(settings)
    _refuse_image_of_a_down_run(store.load(run_id))
    with run_lock(store.run_dir(run_id), "image build"):
        state = store.load(run_id)
        _refuse_image_of_a_down_run(state)
        target = target_for(state, settings)
        if target.worker_image(store, state, hooks, rebuild) is None:
            kind = target.fleet_kind(state.fleet)
            raise StateError(
                f"run {run_id}'s workers are {kind.worker_kind}, from no container image: "
                "there is no image to build"
            )
    return state


def _refuse_image_of_a_down_run(state: RunState) -> None:
    if state.record(Step.DOWN).status == Status.DONE:
        raise StateError(
            f"run {state.run_id} is down: its repository is gone; `hotbench up "
            f"{state.source_playbook}` starts a new run (and builds its image)"
        )


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
    store = store_for(settings)
    require_up(store.load(run_id), "prewarm")
    with run_lock(store.run_dir(run_id), "prewarm"):
        state = store.load(run_id)  # as the last holder left it
        require_up(state, "prewarm")
        _prewarm_locked(store, state, run_settings(state, settings), hooks, targets, timeout_s)
    return state


def _prewarm_locked(
    store: StateStore,
    state: RunState,
    settings: Settings,
    hooks: Hooks,
    targets: list[WarmTarget] | None,
    timeout_s: float,
) -> None:
    run_id = state.run_id
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
    with step(store, state, Step.PREWARM):
        if not targets:
            hooks.say(
                "the playbook sets no warm throughput: nothing to raise "
                "(--table VARIANT --write N raises one)"
            )
        client = dynamodb_client(state, settings)
        waiting: list[tuple[str, str | None]] = []
        deadline = time.monotonic() + timeout_s
        for target in targets:
            hooks.check_cancel()
            table = state.tables.get(target.variant)
            if table is None:
                raise StateError(
                    f"run {run_id} has no table {target.variant!r} "
                    f"(it has {', '.join(state.tables) or 'none'})"
                )
            with aws_errors("dynamodb:UpdateTable", state.region):
                if raise_warm(client, table, target, hooks, deadline):
                    waiting.append((table.name, target.index))
            store.save(state)
        wait_warm(client, waiting, timeout_s, hooks, state.region)
        target_for(state, settings).after_prewarm(state, hooks)


# -- run -----------------------------------------------------------------------------------


def run(
    run_id: str, settings: Settings, hooks: Hooks, options: RunOptions | None = None
) -> PlaybookResult:
    """The playbook's table runs on the provisioned tables, through the start barrier:
    LocalFleet locally, EcsFleet on AWS. Seeds each table first (once). Each table run's
    result is saved in the run folder when it finishes, so a resumed `run` skips finished
    ones, stops orphans of an interrupted one and runs it again. Returns the playbook's
    result (the same format as `hotbench simulate`), also saved as result.json."""
    options = options or RunOptions()
    store = store_for(settings)
    require_up(store.load(run_id), "run")  # a clear error before waiting for anything
    with run_lock(store.run_dir(run_id), "run"):
        state = store.load(run_id)  # as the last holder left it
        require_up(state, "run")
        return _run_locked(store, state, run_settings(state, settings), hooks, options)


def _run_locked(
    store: StateStore, state: RunState, settings: Settings, hooks: Hooks, options: RunOptions
) -> PlaybookResult:
    run_id = state.run_id
    playbook = load_playbook(state.playbook_path)
    if not state.table_runs:
        state.table_runs = [
            TableRun(variant=r.table, repeat=k)
            for r in playbook.runs()
            for k in range(1, r.repeats + 1)
        ]
    elif all(tr.status == Status.DONE for tr in state.table_runs):
        # nothing to run: the result as it was, said so, and the state left as it was
        result = _playbook_result(store, state, playbook)
        last = max((tr.finished_at for tr in state.table_runs if tr.finished_at), default=None)
        result.notes.append(
            f"nothing ran: every table run of {run_id} had finished"
            + (f" (the last at {last:%Y-%m-%d %H:%M:%S} UTC)" if last else "")
            + "; these are its results as they were. `hotbench up` makes a new run"
        )
        return result
    with step(store, state, Step.RUN):
        target = target_for(state, settings)
        target.require_alive(state)
        client = target.dynamodb_client(state)
        runner = RecordedTableRun(store, state, target, playbook, options, hooks, client)
        runner.restore()  # a table an earlier attempt heated is made anew first
        for table_run in state.table_runs:
            if table_run.status == Status.DONE:
                continue
            hooks.check_cancel()
            runner.run(table_run)
        result = _playbook_result(store, state, playbook)
        write_json(store.run_dir(run_id) / "result.json", result.to_json())
    return result


def _playbook_result(store: StateStore, state: RunState, playbook: Playbook) -> PlaybookResult:
    """The playbook's result from its table runs' records in the run folder, with what
    the reader must know of it (trimmed; what its scale does not preserve)."""
    result = PlaybookResult(
        playbook.name,
        "run",
        state.scale,
        runs=[
            read_run(store.run_dir(state.run_id) / tr.result_path)
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
    if state.trimmed:
        result.notes.append(state.trimmed)
    from loadgen.analysis.scale_rule import scale_notes  # the analysis: not for `runs`

    result.notes += [note.words for note in scale_notes(playbook, state.scale)]
    return result


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

    return Watcher(store_for(settings), run_id, settings, interval_s, stop).frames()


# -- tally ---------------------------------------------------------------------------------


def tally(run_id: str, settings: Settings, refresh_prices: bool = False) -> CostTally:
    """What the run cost from what it used and for how long: provisioned WCU/RCU-hours,
    on-demand request units, warm throughput above the defaults, Contributor Insights,
    the dashboard and GetMetricData requests, Fargate vCPU- and GB-seconds from each
    task's pull start to its stop. Locally: what the same run would have cost on AWS.
    `refresh_prices` fetches the prices from the Price List API first."""
    from console.workflow.run_cost import tally_state

    store = store_for(settings)
    state = store.load(run_id)
    prices = None
    if refresh_prices:
        from console.cost.pricelist import PRICING_REGION, fetch_prices, pricing_client
        from console.targets import aws_kit as aws

        with aws_errors("pricing:GetProducts", PRICING_REGION):
            prices = fetch_prices(pricing_client(aws.session(settings)), settings.prices_region)
    result = tally_state(state, settings.price_region, prices)
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
    store = store_for(settings)
    refuse_if_down(store.load(run_id))  # an unknown run's clear error, before any lock
    with run_lock(store.run_dir(run_id), "down", interrupt_holder=True):
        state = store.load(run_id)  # what the interrupted holder saved
        settings = run_settings(state, settings)
        with step(store, state, Step.DOWN):
            report = target_for(state, settings).teardown(store, state, hooks)
            state.leftovers = [f"{x.kind} {x.id}" for x in report.leftovers]
            store.save(state)
        # with something left, the reaper stays: at the deadline it tries again
        mine = state.reaper_pid is not None and state.reaper_pid != os.getpid()
        if report.nothing_left and mine and state.reaper_pid is not None:
            processes.stop(state.reaper_pid, state.run_id)
    return report


# -- runs ----------------------------------------------------------------------------------


def runs(settings: Settings) -> list[RunState]:
    """Every run in the runs folder, oldest first, with its step and `billable_up`; for a
    local run, whether its emulator is really alive is checked (a reboot ends it)."""
    out = store_for(settings).all_runs()
    for state in out:
        target_for(state, settings).refresh(state)
    return out
