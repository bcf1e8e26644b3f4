"""The arithmetic of cost: quantities used times dated unit prices, nothing else.

Kept apart from the state and from AWS so the figures can be checked by hand: the plan
feeds it what a run *will* use, the tally what it *did* use.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from console.infra.prices import HOURS_PER_MONTH, PriceTable
from console.workflow.models import CostLine
from emulator.params import DEFAULT_PARAMS
from emulator.units import read_units, write_units

SECONDS_PER_HOUR = 3600.0
FARGATE_MINIMUM_S = 60.0
"""Fargate bills per second with a one-minute minimum (https://aws.amazon.com/fargate/pricing/)."""


@dataclass(frozen=True)
class ProvisionedUse:
    """Provisioned capacity of one table or GSI, held for `hours`."""

    name: str
    write_capacity: float
    read_capacity: float
    hours: float


@dataclass(frozen=True)
class TaskUse:
    """One Fargate task from its image pull start to its stop."""

    id: str
    vcpu: float
    memory_gb: float
    seconds: float
    architecture: str = "X86_64"


@dataclass(frozen=True)
class WarmRaise:
    """Warm throughput raised above the defaults on one table or GSI (units per second)."""

    name: str
    read_units: float
    write_units: float


@dataclass
class BilledUsage:
    """Everything a run used that AWS bills."""

    provisioned: list[ProvisionedUse] = field(default_factory=list)
    write_request_units: float = 0.0
    read_request_units: float = 0.0
    tasks: list[TaskUse] = field(default_factory=list)
    dashboard_hours: float = 0.0
    get_metric_data_metrics: int = 0
    contributor_insights_rule_hours: float = 0.0
    contributor_insights_events: int = 0
    warm_raises: list[WarmRaise] = field(default_factory=list)


ON_DEMAND_WARM_DEFAULT = (12_000, 4_000)
"""A new on-demand table or GSI starts warm at 12,000 read and 4,000 write units/s
(docs/reference.md#warm-throughput); a provisioned one at its provisioned level."""


def warm_excess(
    on_demand: bool,
    warm_read: int | None,
    warm_write: int | None,
    read_capacity: int | None,
    write_capacity: int | None,
) -> tuple[int, int]:
    """Warm throughput above what the table or GSI has anyway: only that is billed."""
    if on_demand:
        base_read, base_write = ON_DEMAND_WARM_DEFAULT
    else:
        base_read, base_write = read_capacity or 0, write_capacity or 0
    return max(0, (warm_read or 0) - base_read), max(0, (warm_write or 0) - base_write)


def read_request_units(reads: int, item_bytes: int = 1, strongly_consistent: bool = False) -> float:
    """On-demand read units of `reads` reads, billed as the model charges them
    (emulator.units: one unit per 4 KB strongly consistent, half that eventually)."""
    return reads * read_units(item_bytes, strongly_consistent, DEFAULT_PARAMS)


def write_request_units(writes: int, item_bytes: int = 1) -> float:
    """On-demand write units of `writes` standard writes (emulator.units: one per 1 KB)."""
    return float(writes * write_units(item_bytes, DEFAULT_PARAMS))


def _line(what: str, quantity: float, unit: str, price: float, note: str | None = None) -> CostLine:
    return CostLine(
        what=what,
        quantity=quantity,
        unit=unit,
        unit_price_usd=price,
        usd=quantity * price,
        note=note,
    )


def price_usage(usage: BilledUsage, prices: PriceTable) -> tuple[list[CostLine], list[str]]:
    """Cost lines (quantity x unit price) and notes for what could not be priced."""
    lines: list[CostLine] = []
    notes: list[str] = []
    for p in usage.provisioned:
        for units, unit, price in (
            (p.write_capacity, "WCU", prices.provisioned_wcu_hour),
            (p.read_capacity, "RCU", prices.provisioned_rcu_hour),
        ):
            if units:
                lines.append(
                    _line(
                        f"{p.name}: {units:,.0f} {unit} x {p.hours:,.4g} h",
                        units * p.hours,
                        f"{unit}-hour",
                        price,
                    )
                )
    if usage.write_request_units:
        lines.append(
            _line(
                "on-demand write request units",
                usage.write_request_units / 1e6,
                "million WRU",
                prices.on_demand_per_million_write_units,
            )
        )
    if usage.read_request_units:
        lines.append(
            _line(
                "on-demand read request units",
                usage.read_request_units / 1e6,
                "million RRU",
                prices.on_demand_per_million_read_units,
            )
        )
    for arch in sorted({t.architecture for t in usage.tasks}):
        tasks = [t for t in usage.tasks if t.architecture == arch]
        billed = [max(t.seconds, FARGATE_MINIMUM_S) for t in tasks]
        vcpu_h = sum(t.vcpu * s for t, s in zip(tasks, billed, strict=True)) / SECONDS_PER_HOUR
        gb_h = sum(t.memory_gb * s for t, s in zip(tasks, billed, strict=True)) / SECONDS_PER_HOUR
        vcpu_price = prices.fargate_vcpu_hour.get(arch)
        gb_price = prices.fargate_gb_hour.get(arch)
        if vcpu_price is None or gb_price is None:
            notes.append(f"Fargate {arch}: no price recorded; {vcpu_h:.4g} vCPU-h not priced")
            continue
        lines.append(
            _line(f"Fargate {arch}: {len(tasks)} task(s)", vcpu_h, "vCPU-hour", vcpu_price)
        )
        lines.append(_line(f"Fargate {arch}: {len(tasks)} task(s)", gb_h, "GB-hour", gb_price))
    if usage.dashboard_hours and prices.dashboard_month is not None:
        lines.append(
            _line(
                "CloudWatch dashboard",
                usage.dashboard_hours / HOURS_PER_MONTH,
                "dashboard-month",
                prices.dashboard_month,
                "free if among the account's first 3 dashboards",
            )
        )
    if usage.get_metric_data_metrics and prices.get_metric_data_per_1000_metrics is not None:
        lines.append(
            _line(
                "CloudWatch GetMetricData",
                usage.get_metric_data_metrics / 1000,
                "1,000 metrics",
                prices.get_metric_data_per_1000_metrics,
            )
        )
    if usage.contributor_insights_rule_hours:
        if prices.contributor_insights_rule_month is None:
            notes.append("Contributor Insights rules: no price recorded")
        else:
            lines.append(
                _line(
                    "Contributor Insights rules",
                    usage.contributor_insights_rule_hours / HOURS_PER_MONTH,
                    "rule-month",
                    prices.contributor_insights_rule_month,
                )
            )
    if usage.contributor_insights_events and prices.contributor_insights_per_million_events:
        lines.append(
            _line(
                "Contributor Insights events",
                usage.contributor_insights_events / 1e6,
                "million events",
                prices.contributor_insights_per_million_events,
            )
        )
    for raise_ in usage.warm_raises:
        units = raise_.read_units + raise_.write_units
        if prices.warm_throughput_per_unit is None:
            notes.append(
                f"{raise_.name}: warm throughput raised above the defaults "
                f"({raise_.read_units:,.0f} read, {raise_.write_units:,.0f} write units/s) "
                "is billed once; its price is not recorded (--refresh-prices looks it up)"
            )
        else:
            lines.append(
                _line(
                    f"{raise_.name}: warm throughput raise",
                    units,
                    "unit/s",
                    prices.warm_throughput_per_unit,
                )
            )
    return lines, notes
