"""How long an AWS run's setup keeps things standing before and after the load.

The plan prices these spans for `--target aws` and for a local plan's "would cost on AWS"
alike; the tally prices what really happened instead. Figures without a measurement are
named estimates here and in the plan's lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, Protocol

from console.cost import rules
from console.cost.record import InvocationUse, TaskUse, UsageRecord

APPLY_S: Final = 450.0
"""Estimate, not measured: `terraform apply` of the kit (tables, IAM, ECS cluster, log
group, dashboard); the tables stand from its first minutes."""
DESTROY_S: Final = 450.0
"""Estimate, not measured: `terraform destroy` of the kit."""
IMAGE_S: Final = 300.0
"""Estimate, not measured: building and pushing the worker image when no
`--worker-image` is given."""
IMAGE_GB: Final = 0.15
"""Estimate, not measured here (no engine to build it): the worker image's compressed
size in ECR, python:3.11-slim plus the pinned wheels (numpy, botocore, pydantic-core
are the bulk). The tally uses ECR's own imageSizeInBytes."""
SOURCE_GB: Final = 0.002
"""The worker's source archive (console/targets/worker_source.py: about 1-2 MB zipped)."""
FARGATE_START_S: Final = 180.0
"""A task's start, RunTask to RUNNING (ENI attach, image pull, start): AWS publishes no
figure; reports commonly put it at 1-3 minutes
(https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-lifecycle-explanation.html
for the states it passes). The upper end is used, and a task is billed through it
(Fargate bills from the image pull's start). A local worker is priced as a task started
this long before its table run."""


LAMBDA_START_S: Final = 15.0
"""A Lambda worker's start, Invoke to the start barrier's GO: AWS publishes no cold-start
figure (a function's REPORT line measures its Init Duration); a Python function with a
40 MB package imports in a few seconds, and the barrier's GO comes 2 s after the last
worker is ready. An estimate, billed: Lambda bills INIT and the handler's wait alike
(https://aws.amazon.com/lambda/pricing/)."""
LAMBDA_TAIL_S: Final = 2.0
"""After its window an invocation waits for its requests in flight (well under the 8 s
timeout: DynamoDB answers in milliseconds) and writes its final counts: an estimate."""


class WorkerCost(Protocol):
    """How a fleet's workers are billed, per table run: what the cost record asks of a
    fleet, so the plan, the check and the tally price any fleet without naming it."""

    @property
    def workers(self) -> int:
        """Workers of each table run."""

    @property
    def start_s(self) -> float:
        """Launch to the start barrier's GO, per table run: the tables stand through it,
        and the workers are billed for it."""

    def table_run(self, label: str, start_s: float, load_s: float) -> UsageRecord:
        """The workers of one table run launched at `start_s` (seconds on the record's
        time line) whose load lasts `load_s` after their start."""

    def running_hour(self) -> UsageRecord:
        """The workers as if they all ran for an hour (the plan's "per hour while workers
        run")."""


@dataclass(frozen=True)
class FleetShape:
    """The workers of each table run as Fargate tasks, billed from the image pull's start
    to the task's stop."""

    workers: int
    vcpu: float = 1.0
    memory_gb: float = 2.0
    architecture: str = "X86_64"
    start_s: float = FARGATE_START_S

    def table_run(self, label: str, start_s: float, load_s: float) -> UsageRecord:
        stop = start_s + self.start_s + load_s
        return UsageRecord(
            tasks=[
                TaskUse(
                    f"{label} worker {w}",
                    self.vcpu,
                    self.memory_gb,
                    start_s,
                    stop,
                    self.architecture,
                )
                for w in range(self.workers)
            ]
        )

    def running_hour(self) -> UsageRecord:
        return self.table_run("hour", 0.0, 3600.0 - self.start_s)


@dataclass(frozen=True)
class LambdaShape:
    """The workers of each table run as Lambda invocations: each worker one invocation per
    window of the run (loadgen.live.windows: a run longer than one invocation may last is
    split), each billed from its invoke to its answer."""

    workers: int
    memory_mb: int
    windows: tuple[float, ...]
    """Each window's length in seconds, in order (one window: the whole run)."""
    handover_lead_s: float
    """A later window's invocation starts this long before its window."""
    architecture: str = "X86_64"
    start_s: float = LAMBDA_START_S

    def table_run(self, label: str, start_s: float, load_s: float) -> UsageRecord:
        out = UsageRecord()
        for w in range(self.workers):
            for j, length in enumerate(self.windows):
                wait = self.start_s if j == 0 else self.handover_lead_s
                out.invocations.append(
                    InvocationUse(
                        f"{label} worker {w} window {j}",
                        self.memory_mb / 1024,
                        rules.lambda_billed_s(wait + length + LAMBDA_TAIL_S),
                        self.architecture,
                    )
                )
        return out

    def running_hour(self) -> UsageRecord:
        return UsageRecord(
            invocations=[
                InvocationUse(f"hour {w}", self.memory_mb / 1024, 3600.0, self.architecture)
                for w in range(self.workers)
            ]
        )


@dataclass(frozen=True)
class AwsSetup:
    """The setup spans the plan prices (seconds), and what the watch asks of CloudWatch."""

    apply_s: float = APPLY_S
    image_s: float = IMAGE_S
    destroy_s: float = DESTROY_S
    metrics_per_index_minute: int = 0
    """GetMetricData metrics the watch requests per table or GSI each minute (0: none)."""
    image_builder: Literal["given", "local", "codebuild"] = "codebuild"
    """How the worker image is got (console/targets/worker_image.py): given (stored
    elsewhere, nothing billed here), built locally (ECR storage), or by CodeBuild in the
    account (build minutes, the S3 archive, ECR storage). A fleet without an image (Lambda:
    a zip built on this machine, stored by Lambda for free) is `given` with no image span."""
    architecture: str = "X86_64"
