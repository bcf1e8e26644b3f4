"""The usage record: what a run used that AWS bills, and for how long.

The plan builds the record it expects, `check` the record of its simulated or live run,
the tally the record of what ran, the Terraform estimate one hour of what a plan leaves
standing; `console.cost.price.price` turns any of them into cost lines with one region's
prices. Nothing here knows a price, so the four can only differ in what they record.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Span:
    """A stretch of time something stood, named for what it was spent on."""

    label: str
    """e.g. `apply`, `seeding`, `load`, `pauses`, `destroy`, or `bad` (a tally's table)."""
    seconds: float


@dataclass(frozen=True)
class IndexUse:
    """One GSI as created."""

    name: str
    has_sort_key: bool
    read_capacity: int | None = None
    write_capacity: int | None = None
    warm_read: int | None = None
    warm_write: int | None = None


@dataclass(frozen=True)
class CapacityMove:
    """Provisioned capacity of a table (`index` None) or one GSI in force from `at_s`
    seconds after the table began to stand (full-scale units): a change by auto scaling
    or UpdateTable. The capacity before the first move is the TableUse's own."""

    at_s: float
    index: str | None
    read: float
    write: float


@dataclass(frozen=True)
class TableUse:
    """One table as created, and the spans it stood through (created to deleted)."""

    name: str
    billing_mode: str
    """PROVISIONED or PAY_PER_REQUEST."""
    has_sort_key: bool
    spans: tuple[Span, ...]
    read_capacity: int | None = None
    write_capacity: int | None = None
    warm_read: int | None = None
    warm_write: int | None = None
    contributor_insights: bool = False
    gsis: tuple[IndexUse, ...] = ()
    table_class: str = "STANDARD"
    """STANDARD or STANDARD_INFREQUENT_ACCESS: which prices its capacity, requests and
    storage take."""
    stored_gb: float = 0.0
    """Data stored (table and indexes) while it stood; 0 where a run's record leaves
    storage out (docs/cost.md)."""
    reserved_write: int = 0
    """Provisioned write units (table and GSIs) covered by reserved capacity."""
    reserved_read: int = 0
    reserved_term_years: int = 1
    moves: tuple[CapacityMove, ...] = ()
    """How the provisioned capacity moved while the table stood, in order (empty: it
    stood at its capacity throughout, as a fixed-capacity variant does)."""

    @property
    def on_demand(self) -> bool:
        return self.billing_mode == "PAY_PER_REQUEST"

    @property
    def stood_s(self) -> float:
        return sum(s.seconds for s in self.spans)


@dataclass(frozen=True)
class RequestUnits:
    """Request units consumed on one table (index None) or one of its GSIs."""

    table: str
    index: str | None
    write_units: float = 0.0
    read_units: float = 0.0
    label: str = "load"
    """`load` or `seeding`: which part of the run spent them (shown as separate lines)."""


@dataclass(frozen=True)
class TaskUse:
    """One Fargate task (or, priced as one, a local worker), by its billed times."""

    id: str
    vcpu: float
    memory_gb: float
    pull_start_s: float
    """Seconds from the record's origin to the start of the image pull (billing starts)."""
    stop_s: float
    """Seconds from the record's origin to the task's stop (billing ends)."""
    architecture: str = "X86_64"


@dataclass(frozen=True)
class InvocationUse:
    """One Lambda invocation (or, priced as one, a local worker's window), by its billed
    duration: one request, and memory x duration in GB-seconds."""

    id: str
    memory_gb: float
    billed_s: float
    """Lambda's Billed Duration: INIT (on a cold start) and the handler, rounded up to
    the millisecond (rules.lambda_billed_s)."""
    architecture: str = "X86_64"


@dataclass(frozen=True)
class ImageUse:
    """The worker image of an AWS run: its build inside the account and its storage.
    A given image (HOTBENCH_WORKER_IMAGE) is stored elsewhere: no record."""

    build_minutes: float = 0.0
    """CodeBuild minutes billed (each build rounded up: rules.codebuild_billed_minutes);
    0 for a build on the operator's machine."""
    architecture: str = "X86_64"
    image_gb: float = 0.0
    """Compressed size ECR stores (what its storage bills)."""
    stored_s: float = 0.0
    """Seconds the run's repository stored the image (push to destroy)."""
    source_gb: float = 0.0
    """The source archive in the run's S3 bucket (in-account builds only)."""
    source_stored_s: float = 0.0
    source_puts: int = 0
    source_gets: int = 0
    """The upload (PUT) and CodeBuild's download (GET) of the archive."""


@dataclass
class UsageRecord:
    """Everything one run used that AWS bills. Its workers are Fargate tasks or Lambda
    invocations, as the fleet that ran (or would run) them is billed."""

    tables: list[TableUse] = field(default_factory=list)
    requests: list[RequestUnits] = field(default_factory=list)
    tasks: list[TaskUse] = field(default_factory=list)
    invocations: list[InvocationUse] = field(default_factory=list)
    dashboard_s: float = 0.0
    """Seconds the run's CloudWatch dashboard existed."""
    get_metric_data_metrics: int = 0
    contributor_insights_events: int = 0
    image: ImageUse | None = None
    backstop_invocations: int = 0
    """EventBridge Scheduler invocations of the run's backstop (modules/backstop): one per
    table, the dashboard and each task, if it acts; a backstop removed by `down` before
    its time is never invoked."""

    def table(self, name: str) -> TableUse | None:
        return next((t for t in self.tables if t.name == name), None)

    def add_workers(self, other: UsageRecord) -> None:
        """Add the workers of `other` (a fleet's share of a run: tasks or invocations)."""
        self.tasks += other.tasks
        self.invocations += other.invocations
