"""How long an AWS run's setup keeps things standing before and after the load.

The plan prices these spans for `--target aws` and for a local plan's "would cost on AWS"
alike; the tally prices what really happened instead. Figures without a measurement are
named estimates here and in the plan's lines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

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


@dataclass(frozen=True)
class FleetShape:
    """The workers of each table run, as Fargate tasks."""

    workers: int
    vcpu: float = 1.0
    memory_gb: float = 2.0
    architecture: str = "X86_64"


@dataclass(frozen=True)
class AwsSetup:
    """The setup spans the plan prices (seconds), and what the watch asks of CloudWatch."""

    apply_s: float = APPLY_S
    image_s: float = IMAGE_S
    fleet_start_s: float = FARGATE_START_S
    destroy_s: float = DESTROY_S
    metrics_per_index_minute: int = 0
    """GetMetricData metrics the watch requests per table or GSI each minute (0: none)."""
    image_builder: Literal["given", "local", "codebuild"] = "codebuild"
    """How the worker image is got (console/targets/worker_image.py): given (stored
    elsewhere, nothing billed here), built locally (ECR storage), or by CodeBuild in the
    account (build minutes, the S3 archive, ECR storage)."""
    architecture: str = "X86_64"
