"""The billing rules, each written once with its AWS source.

Every builder of a usage record (plan, check, tally, Terraform estimate) and the pricing
itself call these, so a rule cannot drift between them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Final

from emulator.params import DEFAULT_PARAMS

if TYPE_CHECKING:
    from loadgen.format.playbook import Distribution, TableSpec
    from loadgen.load.writes import TablePlan
    from loadgen.results.records import Counts

SECONDS_PER_HOUR: Final = 3600.0

FARGATE_MINIMUM_S: Final = 60.0
"""Fargate bills vCPU and memory per second from the start of the image pull to the
task's stop, with a one-minute minimum (https://aws.amazon.com/fargate/pricing/)."""


def fargate_billed_s(pull_start_s: float, stop_s: float) -> float:
    """Billed seconds of one task: pull start to stop, at least one minute."""
    return max(FARGATE_MINIMUM_S, stop_s - pull_start_s)


def lambda_billed_s(seconds: float) -> float:
    """Billed duration of one Lambda invocation: from the start of its code (INIT on a
    cold start, then the handler) to its end, "rounded up to the nearest 1 ms"
    (https://aws.amazon.com/lambda/pricing/); no minimum."""
    return math.ceil(max(0.0, seconds) * 1000 - 1e-6) / 1000


def codebuild_billed_minutes(seconds: float) -> float:
    """CodeBuild minutes one build is billed: its duration "rounded up to the nearest
    minute" (https://aws.amazon.com/codebuild/pricing/); none for a build that did not run."""
    return float(math.ceil(seconds / 60 - 1e-9)) if seconds > 0 else 0.0


def contributor_insights_rules(has_sort_key: bool) -> int:
    """Rules Contributor Insights creates for one table or one GSI: most accessed and most
    throttled partition keys (2), plus the same by partition and sort key when there is a
    sort key (4) (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/contributorinsights_HowItWorks.html).
    Each is billed per rule-month (https://aws.amazon.com/cloudwatch/pricing/)."""
    return 4 if has_sort_key else 2


def provisioned_hours(seconds: float) -> float:
    """Hours of provisioned capacity billed for `seconds` standing, by the second.

    AWS lists provisioned capacity at "a flat, hourly rate based on the capacity you
    provision" as WCU-hours and RCU-hours
    (https://aws.amazon.com/dynamodb/pricing/provisioned/); how a partial hour is metered
    is not stated there (unverified). hotbench prices by the second it stood, pro rata;
    `started_hours` gives the figure if each started hour were billed in full, and the
    plan states both when they differ (docs/workflow.md#cost)."""
    return seconds / SECONDS_PER_HOUR


def started_hours(seconds: float) -> float:
    """Every started hour counted in full: the upper bound of `provisioned_hours`."""
    return float(math.ceil(seconds / SECONDS_PER_HOUR - 1e-9)) if seconds > 0 else 0.0


def warm_excess(
    on_demand: bool,
    warm_read: int | None,
    warm_write: int | None,
    read_capacity: int | None,
    write_capacity: int | None,
) -> tuple[float, float]:
    """Warm throughput above what the table or GSI has anyway (units/s): only a raise
    above the defaults is billed (https://aws.amazon.com/dynamodb/pricing/on-demand/,
    "Warm throughput"). The on-demand defaults are the model's own (emulator/params.py:
    12,000 read, 4,000 write, with their source); a provisioned table's warm value
    follows its provisioned capacity."""
    if on_demand:
        base_read, base_write = (
            DEFAULT_PARAMS.ondemand_initial_rcu,
            DEFAULT_PARAMS.ondemand_initial_wcu,
        )
    else:
        base_read, base_write = float(read_capacity or 0), float(write_capacity or 0)
    return max(0.0, (warm_read or 0) - base_read), max(0.0, (warm_write or 0) - base_write)


def billed_write_units(counts: Counts) -> tuple[float, dict[str, float]]:
    """On-demand write units a run's counts are billed for: the table's own plus every
    GSI the writes touched, as DynamoDB's top-level ConsumedCapacity reports them (or as
    the model charged them in simulation): "a write to a table with GSIs also consumes
    write units on each index it changes"
    (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.ThroughputConsiderations.Writes).
    Key changes (two index writes) are already in the counts, by the charging rule."""
    return counts.consumed_wcu, dict(counts.consumed_wcu_by_index)


def write_plan(
    spec: TableSpec, attributes: dict[str, Distribution], consistent: bool, is_write: bool
) -> TablePlan:
    """What each request of a phase costs the table and each GSI, by the charging rule
    (loadgen.load.writes.table_plan over emulator.units: the simulation's own arithmetic)."""
    # Here, not at the top: loadgen.load.keys and loadgen.load.writes import numpy (0.3 s of CPU),
    # which every command that prices a state (`runs`, `tally`, `down`) would pay.
    from loadgen.load.keys import ItemGenerator
    from loadgen.load.writes import table_plan

    generator = ItemGenerator(
        attributes, [k.name for k in spec.key_attributes()], spec.primary_key_names()
    )
    return table_plan(spec, generator, attributes, consistent, is_write, DEFAULT_PARAMS)


def expected_put_units(plan: TablePlan, puts: float) -> tuple[float, dict[str, float]]:
    """Write units `puts` new items cost on the table and on each GSI: each put adds one
    entry to every index (class NEW). A rewrite that moves an index key costs that index
    two writes; a plan cannot know how often that happens, the simulation does
    (`hotbench check`)."""
    from loadgen.load.writes import NEW  # loaded already: `plan` came from write_plan

    table = puts * plan.write_units[0]
    per_index = {g.name: puts * float(sum(g.by_class(NEW))) for g in plan.indexes}
    return float(table), per_index


def expected_read_units(plan: TablePlan, reads: float) -> float:
    """Read units of `reads` reads of existing items."""
    return reads * plan.read_units[1]
