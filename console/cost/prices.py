"""Dated unit prices per region, with their source, and the refusal for a region without.

A `PriceTable` is one region's prices in USD as recorded on `as_of`. Only figures with a
source are recorded: us-east-1's, from AWS's pricing pages (cited per field below and in
docs/reference.md#prices). Other regions are refused with a message naming the fix
(`--refresh-prices` fetches a region's own from the AWS Price List API, see
console/cost/pricelist.py), never priced with another region's figures, because regions
differ and a silently borrowed price is a wrong bill.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from typing import Final

from console.exitcodes import USAGE
from console.output import UserError

HOURS_PER_MONTH: Final = 730.0
"""AWS's convention for turning a monthly price hourly (https://aws.amazon.com/calculator/)."""


@dataclass(frozen=True)
class ClassPrices:
    """Capacity and request prices of a table class other than Standard."""

    provisioned_wcu_hour: float
    provisioned_rcu_hour: float
    on_demand_per_million_write_units: float
    on_demand_per_million_read_units: float


@dataclass(frozen=True)
class ReservedPrice:
    """Reserved capacity of one term, per block of 100 units: a partial upfront payment
    and an hourly rate for every hour of the term, used or not."""

    upfront_per_100_wcu: float
    hour_per_100_wcu: float
    upfront_per_100_rcu: float
    hour_per_100_rcu: float


@dataclass(frozen=True)
class PriceTable:
    """Prices of one region in USD, as of `as_of`. None: not known (listed, not priced)."""

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
    """By CPU architecture (X86_64, ARM64), Linux, on-demand (never Spot)."""
    fargate_gb_hour: dict[str, float] = field(default_factory=dict)
    lambda_gb_second: dict[str, float] = field(default_factory=dict)
    """AWS Lambda duration per GB-second, by architecture (X86_64, ARM64), the first
    6 billion GB-seconds a month; the free tier (400,000 GB-s a month) not counted."""
    lambda_per_million_requests: float | None = None
    """AWS Lambda requests (invocations), per million; the free million a month not
    counted."""
    dashboard_month: float | None = None
    """Per dashboard-month past the account's first three (priced globally by AWS)."""
    get_metric_data_per_1000_metrics: float | None = None
    contributor_insights_rule_month: float | None = None
    contributor_insights_per_million_events: float | None = None
    warm_throughput_per_unit: float | None = None
    """Raising warm throughput above the defaults is billed; no sourced price per unit,
    so a raise is listed without a price."""
    codebuild_minute: dict[str, float] = field(default_factory=dict)
    """The in-account image build, per build-minute of BUILD_GENERAL1_SMALL, by CPU
    architecture (Linux, on-demand; the free tier's 100 minutes a month not counted)."""
    ecr_gb_month: float | None = None
    """ECR private repository storage per GB-month (compressed layers)."""
    s3_gb_month: float | None = None
    """S3 Standard storage per GB-month (the source archive)."""
    s3_per_1000_puts: float | None = None
    s3_per_1000_gets: float | None = None
    infrequent_access: ClassPrices | None = None
    """The Standard-Infrequent Access table class's capacity and requests (the fields
    above are the Standard class's); None: such a table is not priced."""
    storage_gb_month: dict[str, float] = field(default_factory=dict)
    """Table storage per GB-month, by table class (STANDARD, STANDARD_INFREQUENT_ACCESS)."""
    reserved: dict[int, ReservedPrice] = field(default_factory=dict)
    """Reserved capacity by term in years (Standard table class only)."""
    scheduler_per_million_invocations: float | None = None
    """EventBridge Scheduler, per million scheduled invocations past the free 14 million
    a month (the backstop's one-time schedules)."""
    kept: tuple[str, ...] = ()
    """After a refresh: the prices the Price List API did not answer, kept from the dated
    table (listed in every cost report that uses them)."""
    kept_as_of: date | None = None
    """The date of the table the kept prices come from."""

    def refreshed(self, source: str, as_of: date, kept: tuple[str, ...]) -> PriceTable:
        return replace(self, source=source, as_of=as_of, kept=kept, kept_as_of=self.as_of)


US_EAST_1: Final = PriceTable(
    region="us-east-1",
    as_of=date(2026, 11, 30),
    source="AWS pricing pages (docs/reference.md#prices)",
    # https://aws.amazon.com/dynamodb/pricing/provisioned/
    provisioned_wcu_hour=0.00065,
    provisioned_rcu_hour=0.00013,
    # since the 50 % cut of 2024-11-01: https://aws.amazon.com/dynamodb/pricing/on-demand/
    on_demand_per_million_write_units=0.625,
    on_demand_per_million_read_units=0.125,
    # https://aws.amazon.com/fargate/pricing/ (Linux, x86 and ARM)
    fargate_vcpu_hour={"X86_64": 0.04048, "ARM64": 0.03238},
    fargate_gb_hour={"X86_64": 0.004445, "ARM64": 0.00356},
    # https://aws.amazon.com/lambda/pricing/ (US East (N. Virginia), duration's first
    # tier: 6 billion GB-s a month x86, 7.5 billion Arm; requests the same for both),
    # read 2026-12-03; `tally --refresh-prices` takes them from the Price List
    # (AWSLambda: USE1-Lambda-GB-Second, USE1-Request, and their -ARM usage types)
    lambda_gb_second={"X86_64": 0.0000166667, "ARM64": 0.0000133334},
    lambda_per_million_requests=0.20,
    # https://aws.amazon.com/cloudwatch/pricing/
    dashboard_month=3.0,
    get_metric_data_per_1000_metrics=0.01,
    contributor_insights_rule_month=0.50,  # unverified: refresh to confirm
    contributor_insights_per_million_events=0.03,  # unverified
    # https://aws.amazon.com/codebuild/pricing/ (general1.small, Linux x86); the ARM
    # small rate had no source at hand: an ARM64 build is listed, not priced
    codebuild_minute={"X86_64": 0.005},
    # https://aws.amazon.com/ecr/pricing/ (private repositories)
    ecr_gb_month=0.10,
    # https://aws.amazon.com/s3/pricing/ (S3 Standard, first 50 TB; PUT and GET requests)
    s3_gb_month=0.023,
    s3_per_1000_puts=0.005,
    s3_per_1000_gets=0.0004,
    # https://aws.amazon.com/dynamodb/pricing/provisioned/ (Standard-IA capacity) and
    # .../on-demand/ (Standard-IA requests: 25 % above Standard before and after the cut of
    # 2024-11-01; unverified after the cut: refresh to confirm)
    infrequent_access=ClassPrices(
        provisioned_wcu_hour=0.00081,
        provisioned_rcu_hour=0.00016,
        on_demand_per_million_write_units=0.78125,
        on_demand_per_million_read_units=0.15625,
    ),
    # same pages, "Data storage": the first 25 GB-month of Standard are free per account
    storage_gb_month={"STANDARD": 0.25, "STANDARD_INFREQUENT_ACCESS": 0.10},
    # https://aws.amazon.com/dynamodb/pricing/provisioned/, "Reserved capacity" (per 100
    # units; 54 % below provisioned over one year, 77 % over three, as the page says)
    reserved={
        1: ReservedPrice(150.0, 0.0128, 30.0, 0.0025),
        3: ReservedPrice(180.0, 0.0081, 36.0, 0.0016),
    },
    # https://aws.amazon.com/eventbridge/pricing/ (Scheduler: first 14 million scheduled
    # invocations a month free, then $1.00 per million)
    scheduler_per_million_invocations=1.00,
)

RECORDED: Final[dict[str, PriceTable]] = {US_EAST_1.region: US_EAST_1}
"""Regions with sourced prices. us-west-2, eu-west-1, eu-central-1, ap-northeast-1 and
ap-southeast-2 are not here: no sourced figures were at hand when this table was
recorded, so they are refused (with the fix) rather than guessed."""


class PricesUnknown(UserError):
    """A region without recorded prices, and no refresh asked for."""

    def __init__(self, region: str) -> None:
        recorded = ", ".join(sorted(RECORDED))
        super().__init__(
            f"no recorded prices for {region} (recorded: {recorded}): price with a recorded "
            f"region's figures by --price-region {US_EAST_1.region} (or HOTBENCH_PRICE_REGION), "
            f"or, for a run's tally, fetch {region}'s own with --refresh-prices (AWS Price "
            "List API, needs pricing:GetProducts)",
            USAGE,
        )


def price_table(region: str) -> PriceTable:
    """The recorded table of `region`; PricesUnknown for any other."""
    try:
        return RECORDED[region]
    except KeyError:
        raise PricesUnknown(region) from None
