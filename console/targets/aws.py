"""The AWS target: the Terraform kit in the run's account and region, Fargate workers,
CloudWatch's series, Contributor Insights, and a teardown nothing can block.

What a first run on a real account meets and moto does not (docs/terraform.md):
- a Fargate task takes minutes from RunTask to RUNNING (ENI, image pull without cache,
  interpreter start), and may stop before it runs (CannotPullContainerError): the
  barrier waits `AWS_BARRIER_TIMEOUT_S` from RunTask and fails at once when every task
  has stopped, with each task's reasons;
- about an hour after a task stopped, ECS forgets it: DescribeTasks answers a MISSING
  failure and StopTask InvalidParameterException. `down` describes first, skips what is
  STOPPED or MISSING, collects StopTask errors per task, and always runs the destroy;
- the operator's clock may be seconds off the NTP-synced tasks: T0 is taken on the
  DynamoDB endpoint's clock (its `Date` header), which every worker's clock follows.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from console.infra.tf_errors import TerraformApplyError, TerraformError
from console.render.cost_table import plan_review
from console.run.errors import CredentialsError, StateError, WorkflowError
from console.run.hooks import Hooks
from console.run.models import DownReport, Leftover, PlanReport
from console.run.options import RunOptions, UpOptions
from console.run.samples import IndexSample
from console.run.settings import Settings, TargetName
from console.run.state import (
    ImageState,
    RunState,
    StateStore,
    TableRun,
    TaskRecord,
    TerraformState,
    utc_now,
)
from console.run.tables import find_spec, table_state, variants_in_runs
from console.targets import aws_kit as kit
from console.targets import cloudwatch
from console.targets.awserrors import aws_errors, error_code
from console.targets.interface import Finding, HotKeyView
from console.targets.worker_image import (
    BuildContext,
    ImagePlan,
    build_image,
    image_plan,
    resolve_given,
)
from loadgen.format.playbook import load_playbook
from loadgen.live.fleet import stop_reasons

AWS_BARRIER_TIMEOUT_S = 300.0
"""From RunTask: ENI attach, an uncached image pull and the interpreter's start commonly
take 1-3 minutes on Fargate (AWS blog "Speeding up task launch"; no official figure)."""
SEEN_EVERY_S = 30.0
"""How often a running fleet's tasks are described into the state (last seen, status),
so a killed command leaves a bill that ends near when the tasks were last seen."""
CREDENTIALS_MARGIN_S = 900.0
"""The reaper's `down` must be over before the run's credentials expire: a destroy of the
kit takes minutes (the deadline moves this long before the expiry)."""
GONE_CODES = {
    "ClusterNotFoundException",
    "InvalidParameterException",
    "ResourceNotFoundException",
    "NoSuchEntity",
}
"""Errors ECS gives for a task or cluster it no longer knows (forgotten or deleted)."""


class AwsTarget:
    name: TargetName = "aws"
    billed = True
    skips_pauses = False
    hot_key_view: HotKeyView = "insights"
    runs_through_workflow = True
    tables_are_modelled = False
    setup_s = 900.0
    """Apply and destroy of the kit take minutes each (an estimate, not measured here)."""
    worker_kind = "Fargate tasks"

    def __init__(self, settings: Settings, clients: Mapping[str, Any] | None = None) -> None:
        self.settings = settings
        self._session: Any = None
        self._clients = dict(clients or {})
        self._initialized: set[str] = set()
        """Workdirs `terraform init` ran in, by this target: the image's second apply
        needs no second init (providers and modules are already in place)."""

    def session(self) -> Any:
        if self._session is None:
            self._session = kit.session(self.settings)
        return self._session

    def client(self, service: str) -> Any:
        """One client per service, made once from the run's session (region, profile)."""
        if service not in self._clients:
            self._clients[service] = self.session().client(service)
        return self._clients[service]

    # -- before anything exists ----------------------------------------------------------
    def table_name(self, run_id: str, variant: str) -> str:
        return f"hotbench-{run_id}-{variant}"  # the Terraform kit's names

    def check_up_options(self, options: UpOptions) -> None:
        return None  # AWS runs at full scale: --scale is the local emulator's

    def run_scale(self, options: UpOptions) -> float:
        return 1.0

    def identity(self) -> str | None:
        return kit.caller_identity(self.settings, self.session())

    def worker_image_plan(self, say: Callable[[str], None]) -> ImagePlan:
        return image_plan(self.settings, say)

    def preflight(self, report: PlanReport) -> list[Finding]:
        from console.targets.preflight import preflight

        return preflight(self.session(), self.settings, report)

    # -- up and down ---------------------------------------------------------------------
    def provision(
        self, store: StateStore, state: RunState, options: UpOptions, hooks: Hooks
    ) -> None:
        """Apply the kit, then get the workers an image pinned by digest: the one given,
        or one built from the worker's sources (locally or in the account) into the
        run's repository, and apply again so the task definition names that digest."""
        plan = self.worker_image_plan(hooks.say)
        if plan.kind == "given" and state.image is None:  # also on a resumed up
            assert self.settings.worker_image is not None
            state.image = resolve_given(self.settings.worker_image, self._ecr_in)
            hooks.say(f"image: {state.image.reference} (given)")
        if state.terraform is None:
            playbook = load_playbook(state.playbook_path)
            variants = [s.name for s in variants_in_runs(playbook)]
            caller = kit.caller_identity(self.settings, self.session())
            state.account = _account_of(caller)
            self._within_credentials(state, hooks)
            owner = self.settings.owner or caller
            workdir = kit.copy_stack(store.run_dir(state.run_id), self.settings.plugin_cache)
            variables = kit.tf_variables(
                state, self.settings, options, owner, variants, _deadline(state), workdir
            )
            if state.image is not None:  # given: the first apply already pins it
                variables["worker_image"] = state.image.reference
            variables["image_build"] = plan.kind == "codebuild"
            state.terraform = TerraformState(workdir=str(workdir), variables=variables)
            store.save(state)  # from here on, `down` knows where to destroy from
        if state.image is None and plan.kind == "codebuild":
            self._with_build_project(store, state)  # a resumed up that lost its engine
        self._apply(store, state, hooks)
        if state.image is None:
            self._build(store, state, plan, hooks, rebuild=False)
        self._pin(store, state, hooks)

    def worker_image(
        self, store: StateStore, state: RunState, hooks: Hooks, rebuild: bool
    ) -> ImageState | None:
        """`hotbench image build`: build the worker's sources now (again, with
        `rebuild`) and pin the image in the task definition; a given image is resolved
        and pinned instead. Creates the in-account build project first when the run was
        applied without one and no engine is on PATH."""
        plan = self.worker_image_plan(hooks.say)
        tf_state = state.terraform
        if tf_state is None or tf_state.outputs is None:
            raise StateError(
                f"run {state.run_id} has no stack yet: `hotbench up --run {state.run_id}` "
                "finishes its up (and builds the image)"
            )
        if plan.kind == "given":
            assert self.settings.worker_image is not None
            state.image = resolve_given(self.settings.worker_image, self._ecr_in)
            store.save(state)
        else:
            if plan.kind == "codebuild" and self._with_build_project(store, state):
                hooks.say("image: creating the in-account build project (terraform apply)")
                self._apply(store, state, hooks)
            self._build(store, state, plan, hooks, rebuild)
        self._pin(store, state, hooks)
        return state.image

    def _with_build_project(self, store: StateStore, state: RunState) -> bool:
        """Ask the kit for the in-account build (image_build); True when it had none."""
        tf_state = state.terraform
        assert tf_state is not None
        if tf_state.variables.get("image_build"):
            return False
        tf_state.variables = {**tf_state.variables, "image_build": True}
        store.save(state)
        return True

    def _ecr_in(self, region: str) -> Any:
        if region == self.settings.region:
            return self.client("ecr")
        return self.session().client("ecr", region_name=region)

    def _build(
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
        hooks.say(f"image: {plan.label}; {self._image_price(state, plan, ctx.architecture)}")
        state.image = build_image(plan, ctx, rebuild)
        store.save(state)
        hooks.say(f"image: {state.image.reference}")

    def _image_price(self, state: RunState, plan: ImagePlan, architecture: str) -> str:
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

    def _pin(self, store: StateStore, state: RunState, hooks: Hooks) -> None:
        """The task definition names the image by digest: apply again when it does not."""
        tf_state = state.terraform
        assert tf_state is not None and state.image is not None
        if tf_state.variables.get("worker_image") == state.image.reference:
            return
        before = (tf_state.outputs or {}).get("task_definition_arn")
        tf_state.variables = {**tf_state.variables, "worker_image": state.image.reference}
        store.save(state)
        hooks.say("terraform apply: the task definition runs the image by digest")
        self._apply(store, state, hooks)
        if before and before != (tf_state.outputs or {}).get("task_definition_arn"):
            # the replaced revision is INACTIVE now: free, but listed for ever
            for note in self._delete_task_definition(before):
                hooks.say(note)

    def _apply(self, store: StateStore, state: RunState, hooks: Hooks) -> None:
        """Init, plan (printed), apply; the outputs and the tables into the state."""
        tf_state = state.terraform
        assert tf_state is not None
        playbook = load_playbook(state.playbook_path)
        with aws_errors("terraform", state.region):
            tf = kit.terraform(tf_state, self.settings, self.session())
            if tf_state.workdir not in self._initialized:
                hooks.say("terraform init")
                tf.init()
                kit.keep_lock_file(Path(tf_state.workdir), self.settings.plugin_cache)
                self._initialized.add(tf_state.workdir)
            planned = tf.plan()
            for line in plan_review(planned):
                hooks.say(line)
            hooks.check_cancel()
            try:
                outputs = tf.apply(planned, on_progress=hooks.say)
            except TerraformApplyError as exc:
                if exc.destroyed:
                    tf_state.destroyed_at = utc_now()
                    store.save(state)
                raise
        tf_state.outputs = kit.outputs_to_json(outputs)
        tf_state.applied_at = tf_state.applied_at or utc_now()
        for variant, table in outputs.tables.items():
            if variant not in state.tables:
                spec = find_spec(playbook, variant)
                state.tables[variant] = table_state(spec, table.name, table.arn)
        state.results_table = outputs.results_table
        store.save(state)

    def teardown(self, store: StateStore, state: RunState, hooks: Hooks) -> DownReport:
        """Tasks first (described, then stopped; every error a note), then the destroy,
        which nothing before it can prevent, then the sweep (its own errors a note)."""
        removed: list[str] = []
        notes: list[str] = []
        self._same_account(state)
        try:
            if any(t.stopped_at is None for t in state.tasks):
                stopped, problems = stop_tasks(state, self.client("ecs"))
                removed += [f"task {arn}" for arn in stopped]
                notes += problems
        except Exception as exc:  # credentials, throttling: the destroy still runs
            notes.append(f"could not stop the run's tasks ({_describe_error(exc)})")
        store.save(state)
        tf_state = state.terraform
        if tf_state is not None and tf_state.destroyed_at is None:
            hooks.say("terraform destroy")
            try:
                with aws_errors("terraform destroy", state.region):
                    tf = kit.terraform(tf_state, self.settings, self.session())
                    if not (Path(tf_state.workdir) / ".terraform").is_dir():
                        tf.init()  # removed by hand, or a destroy after a failed one
                    tf.destroy(on_progress=hooks.say)
                tf_state.destroyed_at = utc_now()
                removed.append("terraform stack")
                for table in state.tables.values():
                    table.deleted_at = table.deleted_at or tf_state.destroyed_at
                # the stack's cluster is gone: no task of it can still run or bill
                for task in state.tasks:
                    if task.stopped_at is None:
                        task.stopped_at = task.last_seen_at or tf_state.destroyed_at
            except (WorkflowError, TerraformError) as exc:
                notes.append(f"terraform destroy failed: {exc}")
            store.save(state)
        if tf_state is not None and tf_state.destroyed_at is not None:
            arn = (tf_state.outputs or {}).get("task_definition_arn")
            notes += self._delete_task_definition(arn) if arn else []
            freed = sum(kit.forget_providers(Path(w)) for w in self._destroyed_workdirs(store))
            if freed:
                hooks.say(f"removed the provider copies of destroyed runs ({freed / 1e6:,.0f} MB)")
        hooks.say("sweeping by tag hotbench:run-id=" + state.run_id)
        try:
            leftovers = self.sweep(state)
        except Exception as exc:
            notes.append(
                f"the sweep by tag failed ({_describe_error(exc)}): what is left is unknown"
            )
            leftovers = [
                Leftover(
                    kind="unknown",
                    id=f"tag hotbench:run-id={state.run_id}",
                    delete_command=(
                        "aws resourcegroupstaggingapi get-resources --tag-filters "
                        f"Key=hotbench:run-id,Values={state.run_id} --region {state.region}"
                    ),
                )
            ]
        return DownReport(
            run_id=state.run_id, target=self.name, removed=removed, leftovers=leftovers, notes=notes
        )

    @staticmethod
    def _destroyed_workdirs(store: StateStore) -> list[str]:
        """The Terraform folders of this runs folder's destroyed runs (this one's too):
        their `.terraform` is needed no more (runs made before the plugin cache kept a
        whole provider there)."""
        return [
            s.terraform.workdir
            for s in store.all_runs()
            if s.terraform is not None and s.terraform.destroyed_at is not None
        ]

    def _same_account(self, state: RunState) -> None:
        """A destroy and a sweep in another account would find nothing and report
        "nothing left" while the run bills on: refuse, naming both accounts."""
        if state.account is None:
            return
        caller = kit.caller_identity(self.settings, self.session())
        if _account_of(caller) != state.account:
            raise CredentialsError(
                f"run {state.run_id} was created in AWS account {state.account}, and these "
                f"credentials are for {_account_of(caller)} ({caller}): use the run's "
                f"profile ({state.aws_profile or 'the one it was created with'}) or "
                "credentials of its account; nothing was changed"
            )

    def _within_credentials(self, state: RunState, hooks: Hooks) -> None:
        """Credentials that expire before the deadline would leave the reaper unable to
        clean up: the deadline moves to before they expire (said in one line), or, when
        that leaves too little time for the run, `up` is refused before anything exists."""
        from console.targets.credentials import lifetime

        life = lifetime(self.session())
        if life.expires_at is None:
            if "expiry unknown" in life.what:
                hooks.say(
                    f"credentials: {life.what}: if they expire before the deadline "
                    f"{_deadline(state):%H:%M} UTC, only the backstop in the account cleans up"
                )
            return
        latest = life.expires_at - timedelta(seconds=CREDENTIALS_MARGIN_S)
        if latest >= _deadline(state):
            return
        if (latest - utc_now()).total_seconds() < self.setup_s:
            raise CredentialsError(
                f"the AWS credentials ({life.what}) expire at {life.expires_at:%H:%M} UTC, "
                "too soon for this run to be created, run and removed: refresh them "
                "(`aws sso login`, or new credentials) and run `hotbench up` again; "
                "nothing was created"
            )
        hooks.say(
            f"credentials: {life.what} expire at {life.expires_at:%H:%M} UTC, before the "
            f"run's deadline {_deadline(state):%H:%M} UTC: the deadline is now "
            f"{latest:%H:%M} UTC (refresh them first for a longer run)"
        )
        state.deadline = latest

    def _delete_task_definition(self, arn: str) -> list[str]:
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
                f"the deregistered task definition {arn} was not deleted ({_describe_error(exc)}); "
                f"free, but listed: aws ecs delete-task-definitions --task-definitions {arn}"
            ]
        return []

    def sweep(self, state: RunState) -> list[Leftover]:
        from console.targets.sweep import sweep

        with aws_errors("tag:GetResources", state.region):
            return sweep(
                self.client, kit.RUN_TAG, state.run_id, state.region, kit.named_resources(state)
            )

    # -- while up ------------------------------------------------------------------------
    def dynamodb_client(self, state: RunState) -> Any:
        return self.client("dynamodb")

    def require_alive(self, state: RunState) -> None:
        return None  # the stack is checked by the calls themselves (clear AWS errors)

    def gone(self, state: RunState) -> str | None:
        return None  # an AWS table does not vanish by itself

    def refresh(self, state: RunState) -> None:
        return None

    def after_prewarm(self, state: RunState, hooks: Hooks) -> None:
        return None  # DynamoDB shows no partition counts

    def fleet(self, store: StateStore, state: RunState) -> EcsFleetBinding:
        return EcsFleetBinding(self, store, state)

    def metrics_source(self) -> CloudWatchMetrics:
        return CloudWatchMetrics(self)

    def partition_map(self, state: RunState, variant: str) -> dict[str, Any] | None:
        return None  # DynamoDB does not publish its partitions

    def insights(self, state: RunState, variant: str) -> list[dict[str, Any]] | None:
        """Each Contributor Insights rule of the table and its GSIs (named as DynamoDB
        DescribeContributorInsights lists them) with its top contributors over the last
        five minutes (CloudWatch GetInsightRuleReport, 1-minute periods). None when the
        playbook did not enable Contributor Insights on the table."""
        table = state.tables.get(variant)
        if table is None or not table.contributor_insights:
            return None
        dynamodb, watch = self.client("dynamodb"), self.client("cloudwatch")
        end = datetime.now(UTC)
        out: list[dict[str, Any]] = []
        for index in [None, *(g.name for g in table.gsis)]:
            where = {"TableName": table.name} | ({"IndexName": index} if index else {})
            with aws_errors("dynamodb:DescribeContributorInsights", state.region):
                rules = dynamodb.describe_contributor_insights(**where).get(
                    "ContributorInsightsRuleList", []
                )
            for rule in rules:
                with aws_errors("cloudwatch:GetInsightRuleReport", state.region):
                    report = watch.get_insight_rule_report(
                        RuleName=rule,
                        StartTime=end - timedelta(minutes=5),
                        EndTime=end,
                        Period=60,
                        MaxContributorCount=10,
                        OrderBy="Sum",
                    )
                out.append(
                    {
                        "index": index,
                        "rule": rule,
                        "contributors": [
                            (" / ".join(c.get("Keys", [])), c.get("ApproximateAggregateValue", 0.0))
                            for c in report.get("Contributors", [])
                        ],
                    }
                )
        return out


def _account_of(arn: str) -> str:
    """The account of an STS caller ARN (`arn:aws:iam::123456789012:user/dev`)."""
    parts = arn.split(":")
    return parts[4] if len(parts) > 4 else arn


def _deadline(state: RunState) -> datetime:
    assert state.deadline is not None  # set by `up` before provisioning
    return state.deadline


def _describe_error(exc: BaseException) -> str:
    code = error_code(exc)
    return f"{code}: {exc}" if code else f"{type(exc).__name__}: {exc}"


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
        problems.append(f"DescribeTasks failed ({_describe_error(exc)}): stopping each anyway")
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
            problems.append(f"StopTask {task.id}: {_describe_error(exc)}")
            continue
        task.stopped_at = utc_now()
        stopped.append(task.id)
    return stopped, problems


class EcsFleetBinding:
    """Fargate tasks of the run's stack, pointed at the region's DynamoDB."""

    endpoint: str | None = None

    def __init__(self, target: AwsTarget, store: StateStore, state: RunState) -> None:
        self.target, self.store, self.state = target, store, state
        self.ecs = target.client("ecs")
        self._seen_at = 0.0

    def new_fleet(self) -> Any:
        return kit.make_fleet(self.state, kit.outputs_from_state(self.state), self.ecs)

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

    def skipper(self) -> Callable[[float], None] | None:
        return None  # AWS's clock cannot be skipped

    def clock(self) -> Callable[[], float]:
        client = self.target.client("dynamodb")
        return ServerClock(lambda: _dynamodb_date(client)).now

    def barrier_timeout_s(self, options: RunOptions) -> float:
        return options.barrier_timeout_s or AWS_BARRIER_TIMEOUT_S


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
        return f"not scheduled ({_describe_error(exc)})"
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


def _dynamodb_date(client: Any) -> datetime:
    """The `Date` header of one cheap DynamoDB call: the endpoint's own clock."""
    reply = client.list_tables(Limit=1)
    return parsedate_to_datetime(reply["ResponseMetadata"]["HTTPHeaders"]["date"])


class ServerClock:
    """Wall-clock time as a server tells it, from its HTTP `Date` headers.

    A `Date` has whole seconds, taken between our send and our receive, so each sample
    bounds the offset (server - local) to [date - received, date + 1 - sent]; samples
    spread over a second intersect to a window of about the round trip. T0 from this
    clock lines up NTP-synced workers even when the operator's clock is seconds off.
    Our own arithmetic, because no library measures an offset from `Date` headers.
    """

    SAMPLES = 8
    SPACING_S = 0.13
    """8 samples 0.13 s apart span a second: one crosses the server's second boundary."""

    def __init__(
        self,
        date: Callable[[], datetime],
        local: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.date, self.local, self.sleep = date, local, sleep
        self.offset_s: float | None = None

    def measure(self) -> float:
        low, high = -float("inf"), float("inf")
        for i in range(self.SAMPLES):
            if i:
                self.sleep(self.SPACING_S)
            sent = self.local()
            server = self.date().timestamp()
            received = self.local()
            low = max(low, server - received)
            high = min(high, server + 1.0 - sent)
        if low > high:  # the server's clock jumped between samples: take the last bound
            low = high
        self.offset_s = (low + high) / 2
        return self.offset_s

    def now(self) -> float:
        if self.offset_s is None:
            self.measure()
        assert self.offset_s is not None
        return self.local() + self.offset_s


class CloudWatchMetrics:
    """CloudWatch's 1-minute series of the run's tables and GSIs: every minute, the last
    5 minutes, new periods only. GetMetricData is billed per metric: counted."""

    label = "cloudwatch"

    def __init__(self, target: AwsTarget) -> None:
        self.target = target
        self.done: dict[tuple[str, str | None], datetime] = {}
        self.next_at = 0.0
        self.requested = 0

    def samples(self, state: RunState, flush: bool) -> list[IndexSample]:
        if time.monotonic() < self.next_at:
            return []
        self.next_at = time.monotonic() + cloudwatch.PERIOD_S
        targets = [
            (t.variant, t.name, index)
            for t in state.tables.values()
            if t.deleted_at is None
            for index in [None, *(g.name for g in t.gsis)]
        ]
        if not targets:
            return []
        client = self.target.client("cloudwatch")  # made once by the target, then kept
        start, end = cloudwatch.window(utc_now())
        with aws_errors("cloudwatch:GetMetricData", state.region):
            samples, requested = cloudwatch.fetch(client, targets, start, end)
        self.requested += requested
        out = []
        for s in samples:
            key = (s.table, s.index)
            if key in self.done and s.start <= self.done[key]:
                continue
            self.done[key] = s.start
            out.append(s)
        return out
