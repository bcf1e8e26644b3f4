"""Fleets: what runs a run's workers, behind one interface (fleet_kind.FleetKind).

A target is where the tables live x which fleet runs the workers: the local target's
workers are processes (process_fleet), priced as the AWS fleet the run names; the AWS
target's are Lambda invocations (lambda_fleet) or ECS Fargate tasks (ecs_fleet).
`fleet_named(name)` is the one place an AWS fleet's name becomes its implementation, and
`chosen_fleet` the one rule for which fleet a run uses: `--fleet` or HOTBENCH_FLEET, else
the playbook's `fleet`, else DEFAULT_FLEET. Steps, the console, the cost and the tally ask
the fleet (`target.fleet_kind(...)`) and never compare its name
(tests/targets/test_fleet_contract.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from console.targets.fleets.fleet_kind import AwsAccount, FleetKind, Sizing, planned_fleet

if TYPE_CHECKING:
    from console.run.settings import FleetName, Settings
    from loadgen.format.playbook import Playbook

__all__ = [
    "AWS_FLEETS",
    "DEFAULT_FLEET",
    "AwsAccount",
    "FleetKind",
    "Sizing",
    "chosen_fleet",
    "fleet_named",
    "planned_fleet",
]

DEFAULT_FLEET: Final = "lambda"
"""Lambda unless a run says otherwise: no container image to build (a zip built on this
machine without Docker, where ECS needs an engine or five minutes of CodeBuild while the
tables stand), no cluster and no VPC, workers that start in seconds rather than minutes
and bill by the millisecond: for a pre-launch check, the cheapest and quickest way to a
first measurement (the plan compares both: docs/terraform.md#the-fleet). ECS runs a phase
of users longer than an invocation's window, and any run without a hand-over."""

AWS_FLEETS: Final[tuple[FleetName, ...]] = ("lambda", "ecs")
"""Every AWS fleet, the plan's comparison in this order."""


def fleet_named(name: str) -> FleetKind:
    """The AWS fleet `name` (`lambda`, `ecs`): the one place a name becomes a fleet."""
    if name == "lambda":
        from console.targets.fleets.lambda_fleet import LambdaFleetKind

        return LambdaFleetKind()
    if name == "ecs":
        from console.targets.fleets.ecs_fleet import EcsFleetKind

        return EcsFleetKind()
    raise ValueError(f"no fleet named {name!r} (fleets: {', '.join(AWS_FLEETS)})")


def chosen_fleet(settings: Settings, playbook: Playbook | None) -> FleetName:
    """`--fleet` or HOTBENCH_FLEET, else the playbook's `fleet`, else DEFAULT_FLEET."""
    if settings.fleet is not None:
        return settings.fleet
    if playbook is not None and playbook.fleet is not None:
        return playbook.fleet
    return DEFAULT_FLEET
