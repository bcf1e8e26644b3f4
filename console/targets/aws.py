"""The AWS target: the Terraform kit in the run's account and region, the run's fleet
(Lambda invocations or ECS Fargate tasks: console/targets/fleets/), CloudWatch's series,
Contributor Insights, and a teardown nothing can block.

What a first run on a real account meets and moto does not (docs/terraform.md): each
fleet's own (a task's minutes to RUNNING, an invocation's 15 minutes) in its module; here,
credentials that expire before the run's deadline, a step in another account, and the
operator's clock, which may be seconds off the NTP-synced workers: T0 is taken on the
DynamoDB endpoint's clock (its `Date` header), which every worker's clock follows.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from console.infra.tf_errors import TerraformApplyError, TerraformError
from console.render.cost_table import plan_review
from console.run.errors import CredentialsError, WorkflowError
from console.run.hooks import Hooks
from console.run.models import DownReport, Leftover, PlanReport
from console.run.options import UpOptions
from console.run.samples import IndexSample
from console.run.settings import FleetName, Settings, TargetName
from console.run.state import (
    ImageState,
    RunState,
    StateStore,
    TerraformState,
    utc_now,
)
from console.run.tables import find_spec, table_state, variants_in_runs
from console.targets import aws_kit as kit
from console.targets import cloudwatch
from console.targets.awserrors import aws_errors, describe_error
from console.targets.fleets import FleetKind, fleet_named
from console.targets.interface import Finding, FleetBinding, HotKeyView
from console.targets.worker_image import (
    ImagePlan,
)
from loadgen.format.playbook import load_playbook

CREDENTIALS_MARGIN_S = 900.0
"""The reaper's `down` must be over before the run's credentials expire: a destroy of the
kit takes minutes (the deadline moves this long before the expiry)."""


class AwsTarget:
    name: TargetName = "aws"
    billed = True
    skips_pauses = False
    hot_key_view: HotKeyView = "insights"
    runs_through_workflow = True
    tables_are_modelled = False
    setup_s = 900.0
    """Apply and destroy of the kit take minutes each (an estimate, not measured here)."""

    @classmethod
    def fleet_kind(cls, fleet: FleetName) -> FleetKind:
        return fleet_named(fleet)

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

    def worker_image_plan(self, fleet: FleetName, say: Callable[[str], None]) -> ImagePlan | None:
        return self.fleet_kind(fleet).image_plan(self.settings, say)

    def preflight(self, report: PlanReport) -> list[Finding]:
        from console.targets.preflight import preflight

        chosen = next(f.name for f in report.fleets if f.chosen)
        return preflight(self, self.fleet_kind(chosen), report)

    # -- up and down ---------------------------------------------------------------------
    def provision(
        self, store: StateStore, state: RunState, options: UpOptions, hooks: Hooks
    ) -> None:
        """Apply the kit with the run's fleet: what the fleet needs first (the Lambda
        function's package), the apply, then what the applied stack still needs (the ECS
        workers' image, pinned by digest)."""
        kind = self.fleet_kind(state.fleet)
        playbook = load_playbook(state.playbook_path)
        if state.terraform is None:
            variants = [s.name for s in variants_in_runs(playbook)]
            caller = kit.caller_identity(self.settings, self.session())
            state.account = _account_of(caller)
            self._within_credentials(state, hooks)
            owner = self.settings.owner or caller
            workdir = kit.copy_stack(store.run_dir(state.run_id), self.settings.plugin_cache)
            variables = kit.tf_variables(
                state, self.settings, owner, variants, _deadline(state), workdir
            )
            variables.update(kind.terraform_variables(self.settings, state, options, playbook))
            state.terraform = TerraformState(workdir=str(workdir), variables=variables)
            store.save(state)  # from here on, `down` knows where to destroy from
        kind.before_apply(self, store, state, hooks)
        self.apply(store, state, hooks)
        kind.after_apply(self, store, state, hooks)

    def worker_image(
        self, store: StateStore, state: RunState, hooks: Hooks, rebuild: bool
    ) -> ImageState | None:
        return self.fleet_kind(state.fleet).worker_image(self, store, state, hooks, rebuild)

    def apply(self, store: StateStore, state: RunState, hooks: Hooks) -> None:
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
        kind = self.fleet_kind(state.fleet)
        stopped, problems = kind.stop_all(self, state)  # never raises: the destroy runs
        removed += stopped
        notes += problems
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
                for invocation in state.invocations:  # recorded as ended by stop_all
                    invocation.ended_at = invocation.ended_at or tf_state.destroyed_at
            except (WorkflowError, TerraformError) as exc:
                notes.append(f"terraform destroy failed: {exc}")
            store.save(state)
        if tf_state is not None and tf_state.destroyed_at is not None:
            notes += kind.after_destroy(self, state)
            freed = sum(kit.forget_providers(Path(w)) for w in self._destroyed_workdirs(store))
            if freed:
                hooks.say(f"removed the provider copies of destroyed runs ({freed / 1e6:,.0f} MB)")
        hooks.say("sweeping by tag hotbench:run-id=" + state.run_id)
        try:
            leftovers = self.sweep(state)
        except Exception as exc:
            notes.append(
                f"the sweep by tag failed ({describe_error(exc)}): what is left is unknown"
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

    def fleet(self, store: StateStore, state: RunState) -> FleetBinding:
        return self.fleet_kind(state.fleet).binding(self, store, state)

    def endpoint(self, state: RunState) -> str | None:
        return None  # the region's DynamoDB

    def skipper(self, state: RunState) -> Callable[[float], None] | None:
        return None  # AWS's clock cannot be skipped

    def clock(self) -> Callable[[], float]:
        client = self.client("dynamodb")
        return ServerClock(lambda: _dynamodb_date(client)).now

    def metrics_source(self) -> CloudWatchMetrics:
        return CloudWatchMetrics(self)

    def partition_map(self, state: RunState, variant: str) -> dict[str, Any] | None:
        return None  # DynamoDB does not publish its partitions

    def table_changer(self, state: RunState, table_name: str) -> Any:
        """The real UpdateTable (after the table is ACTIVE, as DynamoDB requires) and the
        capacity from DescribeTable and DescribeScalingActivities."""
        from console.targets.aws_capacity import aws_changer

        return aws_changer(
            self.client("dynamodb"), self.client("application-autoscaling"), table_name
        )

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
        return self._with_capacity(state, out, start, end)

    def _with_capacity(
        self, state: RunState, samples: list[IndexSample], start: datetime, end: datetime
    ) -> list[IndexSample]:
        """The samples with the capacity in force (DescribeTable, as polled: its units
        and status) and the scaling activities that started in each minute (Application
        Auto Scaling). Control-plane reads, not billed; where one fails (a role without
        application-autoscaling:DescribeScalingActivities), the samples go out without
        the capacity rather than stop the watch."""
        from console.targets.aws_capacity import in_force, scaling_activities, scaling_words

        names = {t.variant: t.name for t in state.tables.values() if t.deleted_at is None}
        capacity: dict[str, Any] = {}
        activities: dict[str, list[dict[str, Any]]] = {}
        try:
            for variant in {s.table for s in samples}:
                name = names[variant]
                table = self.target.client("dynamodb").describe_table(TableName=name)["Table"]
                capacity[variant] = in_force(table)
                activities[variant] = scaling_activities(
                    self.target.client("application-autoscaling"),
                    name,
                    start.timestamp(),
                    end.timestamp(),
                )
        except Exception:  # the capacity is extra: the consumed series still go out
            return samples
        out = []
        for s in samples:
            read, write, status = capacity[s.table].get(s.index, (None, None, None))
            t0 = s.start.timestamp()
            changes = [
                scaling_words(a)
                for a in activities[s.table]
                if a["index"] == s.index and t0 <= a["at"] < t0 + s.period_s
            ]
            update = {"capacity_rcu": read, "capacity_wcu": write, "capacity_status": status}
            out.append(s.model_copy(update={**update, "scaling": changes}))
        return out
