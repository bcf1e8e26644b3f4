"""A run's state: what exists, where, since when, what it cost so far, what comes next.

It is written atomically (temp file, fsync, rename) to `<runs_dir>/<run-id>/state.json`
after every change that matters, *before* the step goes on, so a crash, a closed
terminal, Ctrl-C or SIGKILL at any point leaves a file that says what to resume and,
above all, what to destroy. `down` needs nothing but this file.
"""

from __future__ import annotations

import contextlib
import json
import os
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from console.run.errors import StateError
from console.run.settings import FleetName, TargetName

FORMAT = "hotbench.run-state/1"
STATE_FILE = "state.json"


def utc_now() -> datetime:
    return datetime.now(UTC)


def seconds_between(start: datetime | None, end: datetime | None, now: datetime) -> float:
    """The seconds from one recorded time to another (no end yet: to `now`; no start:
    0): how long a thing the state records stood, for the tally."""
    if start is None:
        return 0.0
    return max(0.0, ((end or now) - start).total_seconds())


class Step(StrEnum):
    """The steps in the order an operator takes them."""

    PLAN = "plan"
    UP = "up"
    PREWARM = "prewarm"
    RUN = "run"
    TALLY = "tally"
    DOWN = "down"


class Status(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    """Started and not finished: after a crash, this is the step to resume."""
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class StepRecord(Model):
    step: Step
    status: Status = Status.PENDING
    started_at: datetime | None = None
    finished_at: datetime | None = None
    error: str | None = None
    """The message of the failure, as the user saw it."""


class EmulatorProcess(Model):
    """The detached `hotbench emulator serve` of a local run."""

    pid: int
    host: str = "127.0.0.1"
    port: int
    scale: float
    started_at: datetime
    log_path: str
    store: str | None = None
    """Its item store (`--store keys|full`; None: the emulator's default, full)."""
    stopped_at: datetime | None = None

    @property
    def endpoint(self) -> str:
        return f"http://{self.host}:{self.port}"


class IndexState(Model):
    """A GSI as created: its capacity (provisioned) and warm throughput."""

    name: str
    has_sort_key: bool = False
    """Contributor Insights keeps twice the rules for a key with a sort key."""
    read_capacity: int | None = None
    write_capacity: int | None = None
    warm_read: int | None = None
    warm_write: int | None = None


class CapacityMoveState(Model):
    """Provisioned capacity of the table (`index` None) or a GSI in force from `at_s`
    seconds after the table was created (console.cost.record.CapacityMove)."""

    at_s: float
    index: str | None = None
    read: float
    write: float


class TableState(Model):
    """One variant's physical table and what it is billed for."""

    variant: str
    name: str
    arn: str | None = None
    billing_mode: Literal["PROVISIONED", "PAY_PER_REQUEST"]
    has_sort_key: bool = False
    """Contributor Insights keeps twice the rules for a key with a sort key."""
    read_capacity: int | None = None
    write_capacity: int | None = None
    warm_read: int | None = None
    warm_write: int | None = None
    contributor_insights: bool = False
    gsis: list[IndexState] = Field(default_factory=list)
    table_class: Literal["STANDARD", "STANDARD_INFREQUENT_ACCESS"] = "STANDARD"
    reserved_write: int = 0
    """Provisioned units covered by reserved capacity (the playbook's reserved_capacity)."""
    reserved_read: int = 0
    reserved_term_years: int = 1
    created_at: datetime | None = None
    deleted_at: datetime | None = None
    seeded_items: int | None = None
    """Items seeded so far (None: not seeded yet; seeding is redone from the start)."""
    moves: list[CapacityMoveState] = Field(default_factory=list)
    """How its provisioned capacity moved (auto scaling, UpdateTable), as the tally
    prices it; empty: it stood at read_capacity/write_capacity throughout."""


class TaskRecord(Model):
    """One Fargate task (or local worker process) and the times it is billed between."""

    id: str
    """Task ARN on AWS, `pid:<n>` locally."""
    run_label: str
    pull_started_at: datetime | None = None
    stopped_at: datetime | None = None
    vcpu: float = 1.0
    memory_gb: float = 2.0
    architecture: str = "X86_64"
    last_status: str | None = None
    """ECS's lastStatus when last described (PROVISIONING ... RUNNING ... STOPPED), or
    MISSING once ECS forgot the task (about an hour after it stopped)."""
    last_seen_at: datetime | None = None
    """When DescribeTasks last answered for it: the bill's end when the stop is unknown."""
    stopped_reason: str | None = None
    """ECS's stoppedReason and each container's reason (e.g. CannotPullContainerError)."""
    backstop: str | None = None
    """AWS: its StopTask schedule in the backstop group: `scheduled`, `none` (the stack
    has no backstop), or why it could not be made."""


class Restart(Model):
    """A table run run again on its table deleted and created anew, so that it meets
    the table a fresh run meets (written to the result: docs/results.md)."""

    after: str
    """How the attempt that heated the table ended: killed, interrupted or failed."""
    attempt_of: str
    """Whose attempt it was (variant#repeat): a later repeat's makes the earlier ones of
    the same table run again, from a new table, so the later one meets its history."""
    table: str = "recreated"


class InvocationRecord(Model):
    """One Lambda invocation: one worker's window of a table run (loadgen.live.windows),
    how it ended and what it was billed."""

    id: str
    """`<table run>/w<worker>/j<window>`, or the request id once Lambda gave one."""
    run_label: str
    worker: int
    window: int = 0
    memory_mb: int
    architecture: str = "X86_64"
    started_at: datetime
    """When the invoke call went out."""
    ended_at: datetime | None = None
    """When its answer came (None: still running, or the command was killed first)."""
    state: str = "invoking"
    """loadgen.live.lambda_invokes.Invocation.state: invoking, throttled, returned, failed,
    no answer, not started."""
    status: str | None = None
    """The worker's own answer: complete, partial, refused, aborted, failed."""
    reason: str | None = None
    billed_ms: int | None = None
    """Lambda's Billed Duration (its REPORT line); None: not known, priced from the times."""
    attempts: int = 0


class TableRun(Model):
    """One entry of playbook.runs() x repeat: a load run on one table."""

    variant: str
    repeat: int
    fleet_run_id: str | None = None
    """The coordinator's run id in the results table (None: not started)."""
    status: Status = Status.PENDING
    started_at: datetime | None = None
    finished_at: datetime | None = None
    result_path: str | None = None
    """Its RunResult JSON, relative to the run folder, once finished."""
    worker_pids: list[int] = Field(default_factory=list)
    """Local workers, so a resumed command can stop orphans of a killed coordinator."""
    interrupted: bool = False
    """Stopped by Ctrl-C, SIGTERM or SIGHUP (status FAILED): the next `run` says so."""
    restart: Restart | None = None
    """Why this table run runs on a table made again: an earlier attempt (its own or a
    later repeat's) sent load that heated and split it (console/workflow/table_reset.py)."""

    @property
    def label(self) -> str:
        return f"{self.variant}#{self.repeat}"

    @property
    def attempted(self) -> str | None:
        """How an attempt that may have sent load ended (`killed`, `interrupted`,
        `failed`), or None: never started, or finished."""
        if self.status == Status.RUNNING:
            return "killed"  # the command died (kill -9) with the table run going
        if self.interrupted:
            return "interrupted"
        return "failed" if self.status == Status.FAILED else None


class TerraformState(Model):
    """AWS: the per-run copy of the stack, its variables, and what `apply` returned."""

    workdir: str
    variables: dict[str, Any]
    outputs: dict[str, Any] | None = None
    """`terraform output -json` as returned (parsed again by console.infra.parse_outputs)."""
    applied_at: datetime | None = None
    destroyed_at: datetime | None = None


class ImageState(Model):
    """AWS: the worker image the run's task definition runs, pinned by digest, and what
    its build and storage are billed for (console/targets/worker_image.py)."""

    reference: str
    """`<repository>@sha256:<digest>`: what the task definition names."""
    digest: str
    builder: str
    """docker, podman, finch, codebuild, or `given` (HOTBENCH_WORKER_IMAGE)."""
    tag: str | None = None
    """`src-<hash of the sources>` of a build (None: a given image)."""
    size_bytes: int | None = None
    """ECR's imageSizeInBytes (compressed layers: what ECR storage bills)."""
    pushed_at: datetime | None = None
    """When the run's repository began to store it (None: stored elsewhere, not ours)."""
    build_id: str | None = None
    build_started_at: datetime | None = None
    build_finished_at: datetime | None = None
    build_log_url: str | None = None
    source_bucket: str | None = None
    source_key: str | None = None
    source_bytes: int | None = None
    source_uploaded_at: datetime | None = None


class UnitsUsed(Model):
    """Request units one table (index None) or one GSI consumed in one part of the run."""

    table: str
    """Physical table name."""
    index: str | None = None
    label: str = "load"
    """`load` or `seeding`."""
    write_units: float = 0.0
    read_units: float = 0.0


class Usage(Model):
    """What the run used, for the tally; filled in as it happens."""

    units: list[UnitsUsed] = Field(default_factory=list)
    """Request units by table and GSI (full scale), as console.workflow.run_cost records them."""
    write_request_units: float = 0.0
    """Earlier state files' on-demand write units (tables only); read as the table's."""
    read_request_units: float = 0.0
    """Earlier state files' on-demand read units."""
    get_metric_data_metrics: int = 0
    """Metrics requested from CloudWatch GetMetricData (billed per 1,000)."""
    contributor_insights_events: int = 0


class RunState(Model):
    """Everything about one run; the file is the truth, memory is a cache."""

    format: str = FORMAT
    run_id: str
    target: TargetName
    region: str
    playbook_path: str
    """The playbook the run reads: its copy in the run folder (`playbook.yaml`), made at
    `up`, so `down` and the reaper work whatever happens to the original."""
    playbook_name: str
    playbook_source: str | None = None
    """Where the playbook was copied from (None: a run made before copies were kept)."""
    trimmed: str | None = None
    """What `up --duration-scale/--table/--phase` made of the playbook (the copy is the
    trimmed one), said in the run's results; None: the playbook as written."""
    aws_profile: str | None = None
    """AWS: the profile the run was created with (None: the standard credential chain);
    every later step of the run uses it."""
    account: str | None = None
    """AWS: the account the run was created in; a step in another account is refused."""
    created_at: datetime = Field(default_factory=utc_now)
    updated_at: datetime = Field(default_factory=utc_now)
    deadline: datetime | None = None
    """The hard wall-clock limit: after it, `down` runs by itself."""
    steps: list[StepRecord] = Field(default_factory=lambda: [StepRecord(step=s) for s in Step])
    estimated_cost_usd: float | None = None
    """The plan's estimate, shown and accepted before `up`."""
    cost_so_far_usd: float = 0.0
    """Billed (or, locally, would-be-billed) so far; refreshed by every step and `runs`."""
    scale: float = 1.0
    """Local: the emulator's and the load's scale (AWS runs at 1)."""
    workers: int = 2
    """Fleet size chosen at `up` and priced by the plan (processes, Fargate tasks, or
    Lambda invocations at a time)."""
    fleet: FleetName = "ecs"
    """AWS: the fleet that runs the workers (a local run: the one it is priced as). Runs
    recorded before there was a choice ran ECS."""
    worker_memory_mb: int | None = None
    """Each worker's memory as sized at `up` (a Fargate task's, a Lambda function's)."""
    reaper_pid: int | None = None
    """The detached process that runs `down` at `deadline` if the run is still up."""
    emulator: EmulatorProcess | None = None
    terraform: TerraformState | None = None
    image: ImageState | None = None
    """AWS: the worker image by digest, once built or resolved (None: not yet)."""
    tables: dict[str, TableState] = Field(default_factory=dict)
    results_table: str | None = None
    table_runs: list[TableRun] = Field(default_factory=list)
    tasks: list[TaskRecord] = Field(default_factory=list)
    invocations: list[InvocationRecord] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    leftovers: list[str] = Field(default_factory=list)
    """What the last `down` could not confirm gone (empty: nothing left)."""

    # -- questions a UI asks -------------------------------------------------------------

    @property
    def source_playbook(self) -> str:
        """The playbook as the user named it (for messages that suggest a new `up`)."""
        return self.playbook_source or self.playbook_path

    def record(self, step: Step) -> StepRecord:
        return next(r for r in self.steps if r.step == step)

    @property
    def next_step(self) -> Step | None:
        """The step to take next; None once the run is down. A RUNNING step first (a
        crash left it), then the last step that failed or was interrupted (an
        interrupted `run` is resumed by `run`, not by the optional `prewarm` before it),
        then the first pending step after the last one done."""
        if self.record(Step.DOWN).status == Status.DONE:
            return None
        for r in self.steps:
            if r.status == Status.RUNNING:
                return r.step
        failed = [r for r in self.steps if r.status == Status.FAILED]
        if failed:
            return max(failed, key=lambda r: r.started_at or self.created_at).step
        done = [i for i, r in enumerate(self.steps) if r.status == Status.DONE]
        after = done[-1] + 1 if done else 0
        for r in self.steps[after:]:
            if r.status == Status.PENDING:
                return r.step
        return None

    @property
    def current_step(self) -> Step:
        """The last step started (what `hotbench runs` shows)."""
        started = [r for r in self.steps if r.started_at is not None]
        return (
            max(started, key=lambda r: r.started_at or self.created_at).step
            if started
            else (Step.PLAN)
        )

    def step_words(self, holder_alive: bool) -> str:
        """The last step started and how it stands, as `hotbench runs` shows it: a step
        stopped by Ctrl-C, SIGTERM or SIGHUP is `interrupted`, and so is one that says
        `running` when no live command holds the run (its command was killed)."""
        record = self.record(self.current_step)
        stopped = record.status == Status.FAILED and record.error == "interrupted"
        killed = record.status == Status.RUNNING and not holder_alive
        return f"{self.current_step} {'interrupted' if stopped or killed else record.status}"

    @property
    def billable_up(self) -> bool:
        """Whether anything that costs money (or, locally, holds a process) may exist."""
        if self.record(Step.DOWN).status == Status.DONE and not self.leftovers:
            return False
        if self.leftovers:
            return True
        if self.emulator is not None:
            # the tables live in the emulator's memory: up while it runs, gone with it
            return self.emulator.stopped_at is None
        return bool(
            any(t.deleted_at is None and t.created_at is not None for t in self.tables.values())
            or (
                self.terraform is not None
                and self.terraform.destroyed_at is None
                and (self.terraform.applied_at is not None or self.record(Step.UP).started_at)
            )
            or any(t.stopped_at is None for t in self.tasks)
            or any(i.ended_at is None for i in self.invocations)
        )


class StateStore:
    """The runs folder: one sub-folder per run, each with its state.json."""

    def __init__(self, runs_dir: Path) -> None:
        self.runs_dir = Path(runs_dir)

    def run_dir(self, run_id: str) -> Path:
        return self.runs_dir / run_id

    def path(self, run_id: str) -> Path:
        return self.run_dir(run_id) / STATE_FILE

    def save(self, state: RunState) -> None:
        """Atomic: a reader (or a resumed command) sees the old file or the new one."""
        state.updated_at = utc_now()
        target = self.path(state.run_id)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{STATE_FILE}.{os.getpid()}.tmp")
        data = state.model_dump_json(indent=2) + "\n"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        tmp.replace(target)
        with contextlib.suppress(OSError):  # the rename itself durable (POSIX only)
            fd = os.open(target.parent, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)

    def load(self, run_id: str) -> RunState:
        path = self.path(run_id)
        try:
            raw = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            known = ", ".join(s.run_id for s in self.all_runs()[-5:]) or "none"
            raise StateError(
                f"no run {run_id!r} in {self.runs_dir}/ (recent runs: {known}); "
                "`hotbench runs` lists them, HOTBENCH_RUNS_DIR chooses the folder"
            ) from None
        try:
            data: dict[str, Any] = json.loads(raw)
            return RunState.model_validate(data)
        except (ValueError, ValidationError) as exc:
            raise StateError(f"{path} is not a hotbench run state ({exc})") from None

    def all_runs(self) -> list[RunState]:
        """Every readable run, oldest first (unreadable folders are skipped)."""
        out: list[RunState] = []
        if not self.runs_dir.is_dir():
            return out
        for child in sorted(self.runs_dir.iterdir()):
            if (child / STATE_FILE).is_file():
                with contextlib.suppress(StateError):
                    out.append(self.load(child.name))
        return sorted(out, key=lambda s: s.created_at)
