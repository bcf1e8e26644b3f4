"""Prices used by the plan, the cost estimate and the tally, dated, with their source.

One `PriceTable` per region, as recorded on the date it carries; `price_table(region)`
gives the recorded table (or, for a region without one, us-east-1's, saying so), and
console.workflow.pricelist refreshes a table from the AWS Price List API (GetProducts,
ServiceCode AmazonDynamoDB / AmazonECS / AmazonCloudWatch) for `--refresh-prices`.
Sources: docs/reference.md#prices, which cites the AWS pricing pages:
https://aws.amazon.com/dynamodb/pricing/on-demand/,
https://aws.amazon.com/dynamodb/pricing/provisioned/, https://aws.amazon.com/fargate/pricing/,
https://aws.amazon.com/cloudwatch/pricing/.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from typing import Final

REGION: Final = "us-east-1"
SOURCE: Final = (
    "docs/reference.md#prices (AWS pricing pages; provisioned and Fargate "
    "figures third-party), us-east-1"
)
HOURS_PER_MONTH: Final = 730.0
"""AWS's convention for monthly prices turned hourly (https://aws.amazon.com/calculator/)."""
DASHBOARD_MONTH: Final = 3.0
"""A CloudWatch dashboard past the account's first three, per month, us-east-1 (a name of
its own because the Terraform cost estimate reads it and PriceTable's field may be None)."""


@dataclass(frozen=True)
class PriceTable:
    """Prices of one region in USD, as of `as_of`. None: not known (not priced, noted)."""

    region: str
    as_of: date
    source: str
    provisioned_wcu_hour: float
    provisioned_rcu_hour: float
    on_demand_per_million_write_units: float
    on_demand_per_million_read_units: float
    """Per million read request units; an eventually consistent read of up to 4 KB is
    half a unit, a strongly consistent one a whole unit."""
    fargate_vcpu_hour: dict[str, float] = field(default_factory=dict)
    """By CPU architecture (X86_64, ARM64); billed per second, 1-minute minimum."""
    fargate_gb_hour: dict[str, float] = field(default_factory=dict)
    dashboard_month: float | None = None
    """Per dashboard-month past the account's first three."""
    get_metric_data_per_1000_metrics: float | None = None
    contributor_insights_rule_month: float | None = None
    contributor_insights_per_million_events: float | None = None
    warm_throughput_per_unit: float | None = None
    """Raising warm throughput above the defaults is billed; the price per unit is not
    recorded (unverified), so the tally lists the raise without a price."""

    def with_source(self, source: str, as_of: date) -> PriceTable:
        return replace(self, source=source, as_of=as_of)


US_EAST_1: Final = PriceTable(
    region="us-east-1",
    as_of=date(2026, 11, 30),
    source=SOURCE,
    provisioned_wcu_hour=0.00065,
    provisioned_rcu_hour=0.00013,
    # since the 50 % cut of 2024-11-01 (https://aws.amazon.com/dynamodb/pricing/on-demand/)
    on_demand_per_million_write_units=0.625,
    on_demand_per_million_read_units=0.125,
    fargate_vcpu_hour={"X86_64": 0.04048, "ARM64": 0.03238},
    fargate_gb_hour={"X86_64": 0.004445, "ARM64": 0.00356},
    dashboard_month=DASHBOARD_MONTH,
    get_metric_data_per_1000_metrics=0.01,
    contributor_insights_rule_month=0.50,  # unverified (docs/reference.md#prices)
    contributor_insights_per_million_events=0.03,  # unverified
)

TABLES: Final[dict[str, PriceTable]] = {US_EAST_1.region: US_EAST_1}


def price_table(region: str) -> tuple[PriceTable, str | None]:
    """The recorded table for `region`, and a note when it had to fall back to us-east-1."""
    if region in TABLES:
        return TABLES[region], None
    return US_EAST_1, (
        f"no recorded prices for {region}: us-east-1's are used (other regions differ); "
        "--refresh-prices fetches the region's own from the AWS Price List API"
    )


# The names the Terraform cost estimate (console/infra/cost.py) reads: us-east-1's.
PROVISIONED_WCU_HOUR: Final = US_EAST_1.provisioned_wcu_hour
PROVISIONED_RCU_HOUR: Final = US_EAST_1.provisioned_rcu_hour
ON_DEMAND_PER_MILLION_WRITE_UNITS: Final = US_EAST_1.on_demand_per_million_write_units
ON_DEMAND_PER_MILLION_READ_UNITS: Final = US_EAST_1.on_demand_per_million_read_units
FARGATE_VCPU_HOUR: Final = US_EAST_1.fargate_vcpu_hour
FARGATE_GB_HOUR: Final = US_EAST_1.fargate_gb_hour
