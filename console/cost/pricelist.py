"""`--refresh-prices`: a region's prices from the AWS Price List API.

GetProducts(ServiceCode, Filters=[{Type: TERM_MATCH, Field, Value}]) answers with one
JSON document per product, whose on-demand terms hold the USD price per unit
(https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_pricing_GetProducts.html).
The API has endpoints only in us-east-1, eu-central-1 and ap-south-1; each serves every
region's prices.

Products are chosen by their exact usage type, which carries the region's prefix
(`USE1-Fargate-vCPU-Hours:perCPU`): a substring match would also take
`USE1-SpotUsage-Fargate-vCPU-Hours:perCPU`, Fargate Spot's much lower price, for a fleet
that runs on-demand. Dashboards are priced globally, so they are looked up without a
region. A price the API does not answer is kept from the dated table and listed as kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from typing import Any

from console.cost.prices import HOURS_PER_MONTH, RECORDED, PriceTable
from console.exitcodes import INFRA_FAILED, USAGE
from console.output import UserError

PRICING_REGION = "us-east-1"

USAGE_TYPE_PREFIX = {
    "us-east-1": "USE1",
    "us-east-2": "USE2",
    "us-west-1": "USW1",
    "us-west-2": "USW2",
    "eu-west-1": "EU",
    "eu-west-2": "EUW2",
    "eu-central-1": "EUC1",
    "ap-northeast-1": "APN1",
    "ap-southeast-1": "APS1",
    "ap-southeast-2": "APS2",
    "ca-central-1": "CAN1",
}
"""The region prefix of usage types, as AWS's bills and Price List write them (e.g.
`USW2-Fargate-GB-Hours`). us-east-1's DynamoDB usage types may also come unprefixed."""

DDB_PPR = "Amazon DynamoDB PayPerRequest Throughput"


def term_filters(**fields: str) -> list[dict[str, str]]:
    return [{"Type": "TERM_MATCH", "Field": k, "Value": v} for k, v in fields.items()]


def products(pricing: Any, service: str, **fields: str) -> Iterator[dict[str, Any]]:
    paginator = pricing.get_paginator("get_products")
    for page in paginator.paginate(ServiceCode=service, Filters=term_filters(**fields)):
        for raw in page.get("PriceList", []):
            yield json.loads(raw) if isinstance(raw, str) else raw


def usage_type(product: dict[str, Any]) -> str:
    return str(product.get("product", {}).get("attributes", {}).get("usagetype", ""))


def paid_prices(product: dict[str, Any]) -> list[tuple[float, str]]:
    """Every positive USD price per unit in the on-demand terms, with its unit (the
    provisioned capacity products list a $0 free tier first)."""
    out = []
    for term in (product.get("terms", {}).get("OnDemand") or {}).values():
        for dim in (term.get("priceDimensions") or {}).values():
            usd = float((dim.get("pricePerUnit") or {}).get("USD", 0) or 0)
            if usd > 0:
                out.append((usd, str(dim.get("unit", ""))))
    return out


def exact_price(found: list[dict[str, Any]], region: str, suffix: str) -> float | None:
    """The paid price of the product whose usage type is exactly the region's prefix +
    `suffix` (us-east-1: also `suffix` alone); Spot products never match."""
    prefix = USAGE_TYPE_PREFIX[region]
    wanted = {f"{prefix}-{suffix}"} | ({suffix} if region == "us-east-1" else set())
    for product in found:
        if usage_type(product) in wanted:
            paid = paid_prices(product)
            if paid:
                return max(p for p, _ in paid)
    return None


def dashboard_month(pricing: Any) -> float | None:
    """A dashboard's price per month, looked up without a region (AWS prices dashboards
    globally); stated per month or per hour (its unit says which; 730 h a month)."""
    for product in products(pricing, "AmazonCloudWatch", productFamily="Dashboard"):
        for usd, unit in paid_prices(product):
            low = unit.lower()
            return usd * HOURS_PER_MONTH if "hr" in low or "hour" in low else usd
    return None


class RefreshFailed(UserError):
    """The Price List API could not price the region."""


def fetch_prices(pricing: Any, region: str, today: date | None = None) -> PriceTable:
    """The region's table, fetched. Prices the API does not answer are kept from the
    region's dated table and listed as kept; a region without one must be fully answered
    for what the bill needs (request units, capacity, Fargate)."""
    if region not in USAGE_TYPE_PREFIX:
        known = ", ".join(sorted(USAGE_TYPE_PREFIX))
        raise RefreshFailed(
            f"no usage-type prefix known for {region}, so its Price List products cannot "
            f"be told apart exactly (known: {known}); is the region name right?",
            USAGE,
        )
    today = today or date.today()
    fetched: dict[str, Any] = {}

    def ddb(family: str, group: str, suffix: str, per_million: bool) -> float | None:
        found = list(
            products(
                pricing, "AmazonDynamoDB", regionCode=region, productFamily=family, group=group
            )
        )
        price = exact_price(found, region, suffix)
        return None if price is None else price * (1e6 if per_million else 1.0)

    for name, value in (
        (
            "on_demand_per_million_write_units",
            ddb(DDB_PPR, "DDB-WriteUnits", "WriteRequestUnits", True),
        ),
        (
            "on_demand_per_million_read_units",
            ddb(DDB_PPR, "DDB-ReadUnits", "ReadRequestUnits", True),
        ),
        (
            "provisioned_wcu_hour",
            ddb("Provisioned IOPS", "DDB-WriteUnits", "WriteCapacityUnit-Hrs", False),
        ),
        (
            "provisioned_rcu_hour",
            ddb("Provisioned IOPS", "DDB-ReadUnits", "ReadCapacityUnit-Hrs", False),
        ),
    ):
        if value is not None:
            fetched[name] = value
    compute = list(products(pricing, "AmazonECS", regionCode=region, productFamily="Compute"))
    vcpu: dict[str, float] = {}
    gb: dict[str, float] = {}
    for arch, part in (("X86_64", "Fargate"), ("ARM64", "Fargate-ARM")):
        for target, suffix in ((vcpu, f"{part}-vCPU-Hours:perCPU"), (gb, f"{part}-GB-Hours")):
            value = exact_price(compute, region, suffix)
            if value is not None:
                target[arch] = value
    dashboard = dashboard_month(pricing)
    if dashboard is not None:
        fetched["dashboard_month"] = dashboard
    if not fetched and not vcpu and not gb:
        raise RefreshFailed(
            f"the Price List API returned no DynamoDB or Fargate prices for {region}: "
            "is the region name right?",
            INFRA_FAILED,
        )
    base = RECORDED.get(region)
    required = [
        "on_demand_per_million_write_units",
        "on_demand_per_million_read_units",
        "provisioned_wcu_hour",
        "provisioned_rcu_hour",
    ]
    missing = [f for f in required if f not in fetched]
    missing += [
        f"fargate {a} {kind}"
        for a in ("X86_64", "ARM64")
        for kind, d in (("vCPU", vcpu), ("GB", gb))
        if a not in d
    ]
    if base is None:
        if missing:
            raise RefreshFailed(
                f"the Price List API did not answer {', '.join(missing)} for {region}, and "
                "hotbench has no dated prices of that region to keep: cannot price it",
                INFRA_FAILED,
            )
        table = PriceTable(
            region=region,
            as_of=today,
            source="",
            **fetched,
            fargate_vcpu_hour=vcpu,
            fargate_gb_hour=gb,
        )
        kept: list[str] = []
    else:
        table = PriceTable(
            **{
                **base.__dict__,
                **fetched,
                "fargate_vcpu_hour": {**base.fargate_vcpu_hour, **vcpu},
                "fargate_gb_hour": {**base.fargate_gb_hour, **gb},
            }
        )
        kept = missing + (["dashboard_month"] if dashboard is None else [])
    kept += [
        f
        for f in (
            "get_metric_data_per_1000_metrics",
            "contributor_insights_rule_month",
            "contributor_insights_per_million_events",
        )
        if getattr(table, f) is not None
    ]
    # the worker image's prices are not fetched (CodeBuild, ECR, S3 need filters not
    # verified here): kept from the dated table when it has them
    kept += [
        f
        for f in (
            "codebuild_minute",
            "ecr_gb_month",
            "s3_gb_month",
            "s3_per_1000_puts",
            "s3_per_1000_gets",
            "scheduler_per_million_invocations",  # the backstop's: not fetched either
            # Lambda's (AWSLambda: USE1-Lambda-GB-Second, USE1-Request and their -ARM
            # usage types) not yet either: their tiers need a filter not verified here
            "lambda_gb_second",
            "lambda_per_million_requests",
            # nor the Standard-IA class, storage and reserved capacity: their usage types
            # are not verified here
            "infrequent_access",
            "storage_gb_month",
            "reserved",
        )
        if getattr(table, f)
    ]
    source = f"AWS Price List API (GetProducts), fetched {today.isoformat()}"
    return table.refreshed(source, today, tuple(kept))


def pricing_client(session: Any) -> Any:
    return session.client("pricing", region_name=PRICING_REGION)
