"""The steps of a run: plan, up, prewarm, run, watch, tally, down (and `runs`).

Each step loads the run's state, does its part, and saves the state after every change
that matters, so it can be resumed after a crash by calling the same step again (or
`down`, which needs nothing but the state). The target (local emulator or AWS) is
recorded in the state at `up`; later steps follow it.

Steps block; they report through `Hooks` and never touch a terminal (see hooks.py).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

from console.workflow.hooks import Hooks
from console.workflow.options import RunOptions, UpOptions, WarmTarget
from console.workflow.reports import CostTally, DownReport, PlanReport
from console.workflow.samples import WatchFrame
from console.workflow.settings import Settings
from console.workflow.state import RunState
from loadgen.results import PlaybookResult


def plan(
    playbook_path: str | Path, settings: Settings, options: UpOptions | None = None
) -> PlanReport:
    """What `up` would create (tables, GSIs, capacity, warm throughput, on-demand maximum,
    fleet), its price per hour while up and while workers run, and the estimated cost of
    the whole run. Creates nothing and calls no AWS API (prices: the dated table, see
    console/infra/prices.py)."""
    raise NotImplementedError


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
    raise NotImplementedError


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
    count from /_hotbench/partitions. A table with nothing to warm is skipped."""
    raise NotImplementedError


def run(
    run_id: str, settings: Settings, hooks: Hooks, options: RunOptions | None = None
) -> PlaybookResult:
    """The playbook's table runs on the provisioned tables, through the start barrier:
    LocalFleet locally, EcsFleet on AWS. Seeds each table first (once). Each table run's
    result is saved in the run folder when it finishes, so a resumed `run` skips finished
    ones, stops orphans of an interrupted one and runs it again. Returns the playbook's
    result (the same format as `hotbench simulate`), also saved as result.json."""
    raise NotImplementedError


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
    raise NotImplementedError


def tally(run_id: str, settings: Settings, refresh_prices: bool = False) -> CostTally:
    """What the run cost from what it used and for how long: provisioned WCU/RCU-hours,
    on-demand request units, warm throughput above the defaults, Contributor Insights,
    the dashboard and GetMetricData requests, Fargate vCPU- and GB-seconds from each
    task's pull start to its stop. Locally: what the same run would have cost on AWS.
    `refresh_prices` fetches the prices from the Price List API first."""
    raise NotImplementedError


def down(run_id: str, settings: Settings, hooks: Hooks) -> DownReport:
    """Destroy everything the state records, then make sure. local: delete the tables
    and stop the emulator (and any orphaned worker). aws: terraform destroy, stop any
    task still running, then sweep by the run-id tag (Tagging API, each hit confirmed by
    its own Describe; IAM roles by ListRoles + ListRoleTags). Never raises for what it
    finds left: the report lists each leftover with the command that deletes it."""
    raise NotImplementedError


def runs(settings: Settings) -> list[RunState]:
    """Every run in the runs folder, oldest first, with its step and `billable_up`."""
    raise NotImplementedError
