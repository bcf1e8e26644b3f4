"""What a run would cost before it exists: on its target, and for a local run on AWS.

Both are the same figure: a local run is free, and what the same run would cost on AWS
is the AWS run's estimate (console.cost.expected_usage prices the AWS setup either way). `up`
compares it with `--max-cost-usd`; the plan prints it as "estimated cost" (aws) or
"would cost on AWS" (local).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from console.cost.expected_usage import ExpectedUse, expected_image, expected_use
from console.cost.price import Bill, price, while_running_per_hour, while_up_per_hour
from console.cost.prices import PriceTable
from console.cost.record import UsageRecord
from console.cost.setup import AwsSetup, WorkerCost
from loadgen.format.playbook import Playbook, TableSpec


@dataclass(frozen=True)
class Estimate:
    """The expected record, its bill, and the per-hour figures of what stands."""

    expected: ExpectedUse
    bill: Bill
    per_hour_while_up: float
    per_hour_while_running: float

    @property
    def total_usd(self) -> float:
        return self.bill.total_usd


def estimate_run(
    playbook: Playbook,
    specs: list[TableSpec],
    names: Mapping[str, str],
    fleet: WorkerCost,
    setup: AwsSetup,
    prices: PriceTable,
) -> Estimate:
    """The run of `playbook` on AWS at `prices`: the one estimate of what a run costs on
    its target (aws) and of what a local run would cost on AWS."""
    expected = expected_use(playbook, specs, names, fleet, setup)
    bill = price(expected.record, prices)
    return Estimate(
        expected,
        bill,
        while_up_per_hour(expected.record, prices),
        while_running_per_hour(fleet.running_hour(), prices),
    )


def image_estimate(
    builder: Literal["given", "local", "codebuild"],
    architecture: str,
    stand_s: float,
    prices: PriceTable,
) -> Bill:
    """What building the worker image now costs, before it starts: the build (CodeBuild
    minutes, the archive in S3) and the image stored for `stand_s` (until the run's
    deadline): the plan's own image record (expected_usage.expected_image), priced."""
    setup = AwsSetup(apply_s=0.0, image_builder=builder, architecture=architecture)
    image = expected_image(setup, stand_s + setup.image_s)
    return price(UsageRecord(image=image), prices)
