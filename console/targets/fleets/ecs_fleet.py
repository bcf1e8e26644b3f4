"""The ECS fleet: workers as Fargate tasks of the run's cluster, from the worker image.

Everything of the ECS fleet is here: its cost model (Fargate vCPU- and GB-hours from the
image pull to the stop), its Terraform module (terraform/modules/loadgen-fleet), the
worker image it runs (built here or in the account, pinned by digest), its preflight
(Fargate in the region, a network, ECS's service-linked role), the actions it calls, the
binding a table run starts tasks with (RunTask in batches, loadgen.live.ecs_tasks), each
task's lifecycle and stop reason (DescribeTasks), and what `down` does for it (stop the
tasks first; delete the deregistered task definition after the destroy).

What a first run on a real account meets and moto does not (docs/terraform.md):
- a Fargate task takes minutes from RunTask to RUNNING (ENI, image pull without cache,
  interpreter start), and may stop before it runs (CannotPullContainerError): the
  barrier waits `FARGATE_BARRIER_TIMEOUT_S` from RunTask and fails at once when every
  task has stopped, with each task's reasons;
- about an hour after a task stopped, ECS forgets it: DescribeTasks answers a MISSING
  failure and StopTask InvalidParameterException. `down` describes first, skips what is
  STOPPED or MISSING, collects StopTask errors per task, and always runs the destroy.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from console.cost.record import TaskUse, UsageRecord
from console.cost.setup import FARGATE_START_S, FleetShape
from console.infra import HotbenchOutputs
from console.render.cells import counted
from console.run.errors import StateError, WorkflowError
from console.run.hooks import Hooks
from console.run.models import PlanReport
from console.run.options import RunOptions, UpOptions
from console.run.settings import Settings
from console.run.state import (
    ImageState,
    RunState,
    StateStore,
    TableRun,
    TaskRecord,
    seconds_between,
    utc_now,
)
from console.targets import aws_kit as kit
from console.targets.aws_checks import check_fargate, check_network, check_service_linked_roles
from console.targets.awserrors import describe_error, error_code
from console.targets.fleets.fleet_kind import AwsAccount, FleetKind, Sizing
from console.targets.interface import Finding
from console.targets.worker_image import (
    BuildContext,
    ImagePlan,
    build_image,
    image_plan,
    resolve_given,
)
from loadgen.format.playbook import Playbook
from loadgen.live.ecs_tasks import EcsFleet, EcsNetwork, stop_reasons

if TYPE_CHECKING:
    from console.targets.interface import FleetBinding

FARGATE_BARRIER_TIMEOUT_S = 300.0
"""From RunTask: ENI attach, an uncached image pull and the interpreter's start commonly
take 1-3 minutes on Fargate (AWS blog "Speeding up task launch"; no official figure)."""
SEEN_EVERY_S = 30.0
"""How often a running fleet's tasks are described into the state (last seen, status),
so a killed command leaves a bill that ends near when the tasks were last seen."""
GONE_CODES = {
    "ClusterNotFoundException",
    "InvalidParameterException",
    "ResourceNotFoundException",
    "NoSuchEntity",
}
"""Errors ECS gives for a task or cluster it no longer knows (forgotten or deleted)."""

IN_ACCOUNT_BUILD = "the worker image built in the account (CodeBuild, its S3 source bucket)"
"""Only a run without a container engine and without HOTBENCH_WORKER_IMAGE calls these
(terraform/modules/image-build reads every bucket attribute the AWS provider refreshes)."""
PUSH = "the worker image (a push to the run's repository)"

ACTIONS: dict[str, list[str]] = {
    "terraform: the ECS fleet (cluster, task definition, image repository, network)": [
        "ecs:CreateCluster",
        "ecs:DeleteCluster",
        "ecs:DescribeClusters",
        "ecs:RegisterTaskDefinition",
        "ecs:DeregisterTaskDefinition",
        "ecs:DeleteTaskDefinitions",
        "ecs:DescribeTaskDefinition",
        "ecs:TagResource",
        "ecr:CreateRepository",
        "ecr:DeleteRepository",
        "ecr:DescribeRepositories",
        "ecr:TagResource",
        "ecr:ListTagsForResource",
        "ecr:PutLifecyclePolicy",
        "ecr:GetLifecyclePolicy",
        "ecr:DeleteLifecyclePolicy",
        "ec2:DescribeVpcs",
        "ec2:DescribeSubnets",
        "ec2:DescribeRouteTables",
        "ec2:DescribeSecurityGroups",
        "ec2:CreateSecurityGroup",
        "ec2:DeleteSecurityGroup",
        "ec2:AuthorizeSecurityGroupEgress",
        "ec2:RevokeSecurityGroupEgress",
        "ec2:CreateTags",
        "ec2:DescribeVpcEndpoints",
        "ec2:DescribeNetworkInterfaces",
        "ec2:CreateVpcEndpoint",
        "ec2:DeleteVpcEndpoints",
    ],
    PUSH: [
        "ecr:GetAuthorizationToken",
        "ecr:BatchCheckLayerAvailability",
        "ecr:InitiateLayerUpload",
        "ecr:UploadLayerPart",
        "ecr:CompleteLayerUpload",
        "ecr:PutImage",
        "ecr:DescribeImages",
        "ecr:BatchDeleteImage",
    ],
    IN_ACCOUNT_BUILD: [
        "codebuild:CreateProject",
        "codebuild:UpdateProject",
        "codebuild:DeleteProject",
        "codebuild:BatchGetProjects",
        "codebuild:StartBuild",
        "codebuild:BatchGetBuilds",
        "s3:CreateBucket",
        "s3:DeleteBucket",
        "s3:ListBucket",
        "s3:ListBucketVersions",
        "s3:GetBucketTagging",
        "s3:PutBucketTagging",
        "s3:GetBucketPolicy",
        "s3:GetBucketAcl",
        "s3:GetBucketCORS",
        "s3:GetBucketWebsite",
        "s3:GetBucketVersioning",
        "s3:GetAccelerateConfiguration",
        "s3:GetBucketRequestPayment",
        "s3:GetBucketLogging",
        "s3:GetLifecycleConfiguration",
        "s3:GetReplicationConfiguration",
        "s3:GetEncryptionConfiguration",
        "s3:GetBucketObjectLockConfiguration",
        "s3:GetBucketOwnershipControls",
        "s3:GetBucketPublicAccessBlock",
        "s3:PutBucketPublicAccessBlock",
        "s3:PutObject",
        "s3:DeleteObject",
        "s3:DeleteObjectVersion",
    ],
    "run, down and the sweep: the ECS fleet's tasks": [
        "ecs:RunTask",
        "ecs:StopTask",
        "ecs:DescribeTasks",
        "ecr:ListImages",
    ],
    "preflight: Fargate in the region": ["ssm:GetParameter"],
}
"""Every action the ECS fleet calls as the operator, by when (console.targets.preflight
adds the ones every run calls). Two that are easy to miss: the AWS provider lists a
security group's network interfaces before it deletes the group
(ec2:DescribeNetworkInterfaces: without it `destroy` stops there), and the sweep counts a
leftover repository's images (ecr:ListImages)."""


class EcsFleetKind(FleetKind):
    """Workers as Fargate tasks (module docstring)."""

    name = "ecs"
    worker_kind = "Fargate tasks"
    needs_image = True  # its workers run a container image, built and pinned at `up`
    barrier_timeout_s = FARGATE_BARRIER_TIMEOUT_S

    # -- before anything exists ----------------------------------------------------------
    def sizing(self, options: UpOptions, playbook: Playbook) -> Sizing:
        vcpu, memory = options.task_cpu / 1024, options.task_memory / 1024
        return Sizing(
            options.workers,
            vcpu,
            memory,
            options.cpu_architecture,
            f"{counted(options.workers, 'Fargate task')} of {vcpu:g} vCPU / {memory:g} GB "
            f"{options.cpu_architecture}, each from the worker image, started with RunTask",
        )

    def cost(self, options: UpOptions, playbook: Playbook) -> FleetShape:
        return FleetShape(
            options.workers,
            options.task_cpu / 1024,
            options.task_memory / 1024,
            options.cpu_architecture,
        )

    def start_note(self) -> str:
        return (
            f"each fleet start is priced at {FARGATE_START_S:.0f} s (tasks are billed from "
            "their image pull)"
        )

    def check_options(self, options: UpOptions, playbook: Playbook) -> None:
        return None  # a task runs any playbook for as long as it lasts

    def image_plan(self, settings: Settings, say: Callable[[str], None]) -> ImagePlan:
        return image_plan(settings, say)

    def operator_actions(self, settings: Settings | None) -> dict[str, list[str]]:
        """An image given by HOTBENCH_WORKER_IMAGE needs no push and no build; one built
        by a local engine no CodeBuild or S3."""
        if settings is None:
            return dict(ACTIONS)
        kind = image_plan(settings, lambda _line: None).kind
        skipped = {IN_ACCOUNT_BUILD} if kind != "codebuild" else set()
        if kind == "given":
            skipped.add(PUSH)
        return {group: actions for group, actions in ACTIONS.items() if group not in skipped}

    def preflight(self, account: AwsAccount, caller: str, report: PlanReport) -> list[Finding]:
        """A network for the tasks, Fargate in the region, ECS's service-linked role."""
        session = account.session()
        findings = check_network(session.client("ec2"), account.settings)
        findings += check_fargate(session.client("ssm"), account.settings.region)
        findings += check_service_linked_roles(session.client("iam"), caller, ["ecs.amazonaws.com"])
        return findings

    def terraform_variables(
        self, settings: Settings, state: RunState, options: UpOptions, playbook: Playbook
    ) -> dict[str, Any]:
        variables: dict[str, Any] = {
            "fleet": self.name,
            "task_count": options.workers,
            "task_cpu": options.task_cpu,
            "task_memory": options.task_memory,
            "cpu_architecture": options.cpu_architecture,
        }
        if settings.worker_image:
            variables["worker_image"] = settings.worker_image
        if settings.subnet_ids:
            variables["subnet_ids"] = list(settings.subnet_ids)
        if settings.security_group_ids:
            variables["security_group_ids"] = list(settings.security_group_ids)
        if settings.assign_public_ip is not None:
            variables["assign_public_ip"] = settings.assign_public_ip
        return variables

    # -- up and down ---------------------------------------------------------------------
    def before_apply(
        self, account: AwsAccount, store: StateStore, state: RunState, hooks: Hooks
    ) -> None:
        """A given image is resolved to its digest and named in the first apply; an image
        to build in the account needs the kit's build project (image_build)."""
        plan = image_plan(account.settings, hooks.say)
        if plan.kind == "given" and state.image is None:  # also on a resumed up
            assert account.settings.worker_image is not None
            state.image = resolve_given(account.settings.worker_image, _Image(account).ecr_in)
            hooks.say(f"image: {state.image.reference} (given)")
        tf_state = state.terraform
        assert tf_state is not None
        if "image_build" not in tf_state.variables:  # the first up: decide once
            variables = dict(tf_state.variables)
            if state.image is not None:  # given: the first apply already pins it
                variables["worker_image"] = state.image.reference
            variables["image_build"] = plan.kind == "codebuild"
            tf_state.variables = variables
            store.save(state)
        if state.image is None and plan.kind == "codebuild":
            _Image(account).with_build_project(store, state)  # a resumed up lost its engine

    def after_apply(
        self, account: AwsAccount, store: StateStore, state: RunState, hooks: Hooks
    ) -> None:
        """Get the workers an image pinned by digest: the one given, or one built from
        the worker's sources (locally or in the account) into the run's repository, and
        apply again so the task definition names that digest."""
        image = _Image(account)
        if state.image is None:
            image.build(store, state, image_plan(account.settings, hooks.say), hooks, False)
        image.pin(store, state, hooks)

    def worker_image(
        self,
        account: AwsAccount,
        store: StateStore,
        state: RunState,
        hooks: Hooks,
        rebuild: bool,
    ) -> ImageState | None:
        return _Image(account).worker_image(store, state, hooks, rebuild)

    def binding(self, account: Any, store: StateStore, state: RunState) -> FleetBinding:
        return EcsFleetBinding(account, store, state)

    def stop_all(self, account: AwsAccount, state: RunState) -> tuple[list[str], list[str]]:
        """Tasks first: described, then stopped; every error a note."""
        if not any(t.stopped_at is None for t in state.tasks):
            return [], []
        try:
            stopped, problems = stop_tasks(state, account.client("ecs"))
        except Exception as exc:  # credentials, throttling: the destroy still runs
            return [], [f"could not stop the run's tasks ({describe_error(exc)})"]
        return [f"task {arn}" for arn in stopped], problems

    def after_destroy(self, account: AwsAccount, state: RunState) -> list[str]:
        arn = (
            (state.terraform.outputs or {}).get("task_definition_arn") if state.terraform else None
        )
        return _Image(account).delete_task_definition(arn) if arn else []

    # -- watch and the tally ---------------------------------------------------------------
    def lifecycle(self, state: RunState, table_run: TableRun) -> dict[str, int]:
        """ECS's PROVISIONING, PENDING, RUNNING, STOPPED, or MISSING once forgotten."""
        out: dict[str, int] = {}
        for task in state.tasks:
            if task.run_label == table_run.label and task.last_status:
                out[task.last_status] = out.get(task.last_status, 0) + 1
        return out

    def stop_reasons(self, state: RunState, table_run: TableRun) -> list[str]:
        return [
            f"task {t.id.rsplit('/', 1)[-1]}: {t.stopped_reason}"
            for t in state.tasks
            if t.run_label == table_run.label
            and t.stopped_reason
            and t.stopped_reason != "Essential container in task exited"
        ]

    def used(self, state: RunState, origin: datetime, now: datetime) -> UsageRecord:
        """Each task from DescribeTasks' pull start to its stop (still running: now)."""
        out = UsageRecord()
        for t in state.tasks:
            if t.pull_started_at is None:
                # launched, but DescribeTasks never said it pulled (stopped before, or
                # forgotten by ECS): priced at the one-minute minimum rather than as free
                start = stop = 0.0
            else:
                start = seconds_between(origin, t.pull_started_at, now)
                stop = seconds_between(origin, _task_end(state, t), now)
            out.tasks.append(TaskUse(t.id, t.vcpu, t.memory_gb, start, stop, t.architecture))
        return out

    def as_if(self, state: RunState, origin: datetime, now: datetime) -> UsageRecord:
        """A local run's workers as Fargate tasks, each started FARGATE_START_S before its
        table run (the plan's rule), of the plan's default task shape."""
        out = UsageRecord()
        shape = FleetShape(state.workers)
        for run in state.table_runs:
            if run.started_at is None:
                continue
            start = seconds_between(origin, run.started_at, now) - FARGATE_START_S
            load = seconds_between(run.started_at, run.finished_at, now)
            out.add_workers(shape.table_run(run.label, start, load))
        return out


def _task_end(state: RunState, task: TaskRecord) -> datetime | None:
    """Where a task's bill ends: its recorded stop; else, once ECS has forgotten it or the
    run is down, the last time DescribeTasks saw it (never "now" for a task that is gone:
    ECS forgets a task about an hour after it stops, so "now" would bill hours that did
    not run); else None, still running, billed until now."""
    if task.stopped_at is not None:
        return task.stopped_at
    gone = task.last_status in ("STOPPED", "MISSING") or not state.billable_up
    return task.last_seen_at if gone and task.last_seen_at is not None else None


def _deadline(state: RunState) -> datetime:
    assert state.deadline is not None  # set by `up` before provisioning
    return state.deadline


class _Image:
    """The worker image of the run's task definition: built, pushed, pinned by digest
    (console/targets/worker_image.py), with the run's own clients and apply."""

    def __init__(self, account: AwsAccount) -> None:
        self.account = account
        self.settings = account.settings
        self.client = account.client

    def worker_image(
        self, store: StateStore, state: RunState, hooks: Hooks, rebuild: bool
    ) -> ImageState | None:
        """`hotbench image build`: build the worker's sources now (again, with
        `rebuild`) and pin the image in the task definition; a given image is resolved
        and pinned instead. Creates the in-account build project first when the run was
        applied without one and no engine is on PATH."""
        plan = image_plan(self.settings, hooks.say)
        tf_state = state.terraform
        if tf_state is None or tf_state.outputs is None:
            raise StateError(
                f"run {state.run_id} has no stack yet: `hotbench up --run {state.run_id}` "
                "finishes its up (and builds the image)"
            )
        if plan.kind == "given":
            assert self.settings.worker_image is not None
            state.image = resolve_given(self.settings.worker_image, self.ecr_in)
            store.save(state)
        else:
            if plan.kind == "codebuild" and self.with_build_project(store, state):
                hooks.say("image: creating the in-account build project (terraform apply)")
                self.account.apply(store, state, hooks)
            self.build(store, state, plan, hooks, rebuild)
        self.pin(store, state, hooks)
        return state.image

    def with_build_project(self, store: StateStore, state: RunState) -> bool:
        """Ask the kit for the in-account build (image_build); True when it had none."""
        tf_state = state.terraform
        assert tf_state is not None
        if tf_state.variables.get("image_build"):
            return False
        tf_state.variables = {**tf_state.variables, "image_build": True}
        store.save(state)
        return True

    def ecr_in(self, region: str) -> Any:
        if region == self.settings.region:
            return self.client("ecr")
        return self.account.session().client("ecr", region_name=region)

    def build(
        self, store: StateStore, state: RunState, plan: ImagePlan, hooks: Hooks, rebuild: bool
    ) -> None:
        outputs = kit.outputs_from_state(state)
        if outputs.ecr_repository_url is None:
            raise StateError(
                f"run {state.run_id}'s stack has no image repository (applied with "
                "create_fleet=false): there is nothing to build an image for"
            )
        assert state.terraform is not None
        ctx = BuildContext(
            repository_url=outputs.ecr_repository_url,
            architecture=str(state.terraform.variables.get("cpu_architecture", "X86_64")),
            region=state.region,
            client=self.client,
            say=hooks.say,
            codebuild_project=outputs.image_build_project,
            source_bucket=outputs.image_source_bucket,
        )
        hooks.say(f"image: {plan.label}; {self.image_price(state, plan, ctx.architecture)}")
        state.image = build_image(plan, ctx, rebuild)
        store.save(state)
        hooks.say(f"image: {state.image.reference}")

    def image_price(self, state: RunState, plan: ImagePlan, architecture: str) -> str:
        """The build's price before it starts, through the one cost record (the plan
        priced the same when `up` asked; `hotbench image build` says it here)."""
        from console.cost import PricesUnknown, price_table
        from console.cost.estimate import image_estimate

        stand_s = max(0.0, (_deadline(state) - utc_now()).total_seconds())
        try:
            bill = image_estimate(
                plan.kind, architecture, stand_s, price_table(self.settings.prices_region)
            )
        except PricesUnknown:
            return f"not priced (no recorded prices for {self.settings.prices_region})"
        parts = ", ".join(f"{x.what} ${x.usd:,.4f}" for x in bill.lines)
        unpriced = f"; {'; '.join(bill.notes)}" if bill.notes else ""
        return f"estimated at ${bill.total_usd:,.2f} until the run's deadline ({parts}){unpriced}"

    def pin(self, store: StateStore, state: RunState, hooks: Hooks) -> None:
        """The task definition names the image by digest: apply again when it does not."""
        tf_state = state.terraform
        assert tf_state is not None and state.image is not None
        if tf_state.variables.get("worker_image") == state.image.reference:
            return
        before = (tf_state.outputs or {}).get("task_definition_arn")
        tf_state.variables = {**tf_state.variables, "worker_image": state.image.reference}
        store.save(state)
        hooks.say("terraform apply: the task definition runs the image by digest")
        self.account.apply(store, state, hooks)
        if before and before != (tf_state.outputs or {}).get("task_definition_arn"):
            # the replaced revision is INACTIVE now: free, but listed for ever
            for note in self.delete_task_definition(before):
                hooks.say(note)

    def delete_task_definition(self, arn: str) -> list[str]:
        """Destroy (or a replacing apply) deregisters a task definition, which then stays
        INACTIVE (free, but listed for ever) unless deleted: DeleteTaskDefinitions, once
        it is INACTIVE
        (https://docs.aws.amazon.com/AmazonECS/latest/APIReference/API_DeleteTaskDefinitions.html)."""
        ecs = self.client("ecs")
        try:
            described = ecs.describe_task_definition(taskDefinition=arn)["taskDefinition"]
            if described.get("status") != "INACTIVE":
                return []  # still registered: the sweep lists it with its commands
            ecs.delete_task_definitions(taskDefinitions=[arn])
        except Exception as exc:
            if error_code(exc) in GONE_CODES | {"ClientException"}:
                return []  # already deleted, or never registered
            return [
                f"the deregistered task definition {arn} was not deleted ({describe_error(exc)}); "
                f"free, but listed: aws ecs delete-task-definitions --task-definitions {arn}"
            ]
        return []


def make_fleet(state: RunState, outputs: HotbenchOutputs, ecs: Any) -> EcsFleet:
    """The Fargate fleet of the run's stack; every task tagged with the run id, its
    owner and its expiry (the kit's tags), so the sweep finds a task nobody stopped."""
    if not outputs.has_fleet or outputs.container_name is None:
        raise StateError(
            f"run {state.run_id}'s stack has no worker fleet (applied with "
            "create_fleet=false): nothing can run the load"
        )
    assert outputs.cluster_arn is not None and outputs.task_definition_arn is not None
    tags = {kit.RUN_TAG: state.run_id}
    if state.terraform is not None:
        tags["hotbench:owner"] = str(state.terraform.variables.get("owner", ""))
        tags["hotbench:expires-at"] = str(state.terraform.variables.get("expires_at", ""))
    return EcsFleet(
        client=ecs,
        cluster=outputs.cluster_arn,
        task_definition=outputs.task_definition_arn,
        container=outputs.container_name,
        network=EcsNetwork(
            subnets=list(outputs.subnets),
            security_groups=list(outputs.security_group_ids)
            or ([outputs.security_group_id] if outputs.security_group_id else []),
            assign_public_ip=outputs.assign_public_ip,
        ),
        tags=tags,
    )


def describe_tasks(ecs: Any, state: RunState, tasks: list[TaskRecord]) -> None:
    """Refresh `tasks` in place from DescribeTasks: status, last seen, and for a stopped
    task its stop time and reasons. A task ECS no longer knows (a MISSING failure, or a
    cluster deleted) is recorded as stopped when it was last seen: it bills no more."""
    try:
        cluster = kit.outputs_from_state(state).cluster_arn
    except StateError:
        cluster = None
    now = utc_now()
    by_id = {t.id: t for t in tasks}
    for i in range(0, len(tasks), 100):
        batch = [t.id for t in tasks[i : i + 100]]
        try:
            if cluster is None:
                raise _Gone("the run has no cluster recorded")
            described = ecs.describe_tasks(cluster=cluster, tasks=batch)
        except Exception as exc:
            if not isinstance(exc, _Gone) and error_code(exc) not in GONE_CODES:
                raise
            for arn in batch:  # the cluster is gone, and its tasks with it
                _forgotten(by_id[arn], now, f"cluster gone ({error_code(exc) or exc})")
            continue
        for task in described.get("tasks", []):
            record = by_id.get(task["taskArn"])
            if record is None:
                continue
            record.last_status = task.get("lastStatus")
            record.last_seen_at = now
            record.pull_started_at = (
                task.get("pullStartedAt") or task.get("createdAt") or record.pull_started_at
            )
            if task.get("lastStatus") == "STOPPED":
                record.stopped_at = task.get("stoppedAt") or now
                record.stopped_reason = stop_reasons(task)
        for failure in described.get("failures", []):
            record = by_id.get(str(failure.get("arn", "")))
            if record is not None and failure.get("reason") == "MISSING":
                _forgotten(record, now, "forgotten by ECS (MISSING)")


class _Gone(Exception):
    pass


def _forgotten(record: TaskRecord, now: datetime, why: str) -> None:
    if record.stopped_at is None:
        record.stopped_at = record.last_seen_at or record.pull_started_at or now
        record.last_status = "MISSING"
        record.stopped_reason = record.stopped_reason or why


def stop_tasks(state: RunState, ecs: Any, label: str | None = None) -> tuple[list[str], list[str]]:
    """Stop the run's tasks that may still run: describe first, skip STOPPED and MISSING
    ones, StopTask the rest, one error per task collected, never raised. Returns (ARNs
    stopped, problems)."""
    problems: list[str] = []
    open_tasks = [
        t for t in state.tasks if t.stopped_at is None and (label is None or t.run_label == label)
    ]
    if not open_tasks:
        return [], problems
    try:
        describe_tasks(ecs, state, open_tasks)
    except Exception as exc:
        problems.append(f"DescribeTasks failed ({describe_error(exc)}): stopping each anyway")
    try:
        cluster = kit.outputs_from_state(state).cluster_arn
    except StateError:
        return [], problems
    stopped: list[str] = []
    for task in open_tasks:
        if task.stopped_at is not None:
            continue
        try:
            ecs.stop_task(cluster=cluster, task=task.id, reason="hotbench: run stopped")
        except Exception as exc:
            if error_code(exc) in GONE_CODES:
                _forgotten(task, utc_now(), f"gone ({error_code(exc)})")
                continue
            problems.append(f"StopTask {task.id}: {describe_error(exc)}")
            continue
        task.stopped_at = utc_now()
        stopped.append(task.id)
    return stopped, problems


class EcsFleetBinding:
    """Fargate tasks of the run's stack."""

    window_s: float | None = None  # a task measures the whole run

    def __init__(self, target: AwsAccount, store: StateStore, state: RunState) -> None:
        self.target, self.store, self.state = target, store, state
        self.ecs = target.client("ecs")
        self._seen_at = 0.0

    def new_fleet(self) -> Any:
        return make_fleet(self.state, kit.outputs_from_state(self.state), self.ecs)

    def record_started(self, fleet: Any, table_run: TableRun) -> None:
        known = {t.id for t in self.state.tasks}
        new = [
            task_record(self.state, arn, table_run.label)
            for arn in fleet.task_arns
            if arn not in known
        ]
        self.state.tasks += new
        self.store.save(self.state)  # first: `down` must know every task at once
        outputs = kit.outputs_from_state(self.state)
        for task in new:
            task.backstop = backstop_stop_task(self.target.client("scheduler"), outputs, task.id)
        if new:
            self.store.save(self.state)

    def seen(self, table_run: TableRun) -> None:
        """Called as the coordinator polls the fleet: every SEEN_EVERY_S, the tasks'
        lifecycle and last-seen time into the state (watch and the console show it)."""
        if time.monotonic() - self._seen_at < SEEN_EVERY_S and self._seen_at:
            return
        self._seen_at = time.monotonic()
        # a display and a bill bound: an AWS hiccup here must not fail the run (the next
        # describe, or the one when the table run ends, records it)
        with contextlib.suppress(BotoCoreError, ClientError, WorkflowError):
            self._describe(table_run)
            self.store.save(self.state)

    def record_finished(self, table_run: TableRun) -> None:
        # best effort: `down` describes the tasks again before it bills or stops them
        with contextlib.suppress(BotoCoreError, ClientError, WorkflowError):
            self._describe(table_run)

    def _describe(self, table_run: TableRun) -> None:
        """The table run's own tasks, described into the state."""
        tasks = [t for t in self.state.tasks if t.run_label == table_run.label]
        describe_tasks(self.ecs, self.state, tasks)

    def stop_orphans(self, table_run: TableRun) -> None:
        stop_tasks(self.state, self.ecs, label=table_run.label)

    def barrier_timeout_s(self, options: RunOptions) -> float:
        return options.barrier_timeout_s or FARGATE_BARRIER_TIMEOUT_S


STOP_TASK_TARGET = "arn:aws:scheduler:::aws-sdk:ecs:stopTask"
"""Scheduler's universal target for ECS StopTask; Input is the API's request, its members
named as the AWS SDKs' (PascalCase) request shapes name them
(https://docs.aws.amazon.com/scheduler/latest/UserGuide/managing-targets-universal.html)."""


def backstop_stop_task(scheduler: Any, outputs: Any, task_arn: str) -> str:
    """A one-time schedule in the run's backstop group that stops this task when the
    backstop acts (the kit's own schedules delete the tables then): a task the laptop
    can no longer stop still stops. Returns `scheduled`, `none` (the stack has no
    backstop), or why it could not be made (the run goes on: the worker's own watchdog
    and `down` stop it too)."""
    if not (outputs.backstop_group and outputs.backstop_role_arn and outputs.backstop_at):
        return "none"
    at = datetime.fromisoformat(str(outputs.backstop_at).replace("Z", "+00:00"))
    try:
        scheduler.create_schedule(
            Name=f"stop-{task_arn.rsplit('/', 1)[-1]}"[:64],
            GroupName=outputs.backstop_group,
            ScheduleExpression=f"at({at:%Y-%m-%dT%H:%M:%S})",
            ScheduleExpressionTimezone="UTC",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={
                "Arn": STOP_TASK_TARGET,
                "RoleArn": outputs.backstop_role_arn,
                "Input": json.dumps(
                    {
                        "Cluster": outputs.cluster_arn,
                        "Task": task_arn,
                        "Reason": "hotbench backstop: the run's deadline passed",
                    }
                ),
                "RetryPolicy": {"MaximumEventAgeInSeconds": 86400, "MaximumRetryAttempts": 185},
            },
        )
    except Exception as exc:  # AccessDenied, throttling: said in the state, not fatal
        return f"not scheduled ({describe_error(exc)})"
    return "scheduled"


def task_record(state: RunState, arn: str, label: str) -> TaskRecord:
    variables = state.terraform.variables if state.terraform else {}
    return TaskRecord(
        id=arn,
        run_label=label,
        pull_started_at=utc_now(),
        vcpu=float(variables.get("task_cpu", 1024)) / 1024,
        memory_gb=float(variables.get("task_memory", 2048)) / 1024,
        architecture=str(variables.get("cpu_architecture", "X86_64")),
    )
