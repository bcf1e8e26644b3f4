"""`--refresh-prices`: a region's prices from the AWS Price List API.

GetProducts(ServiceCode, Filters=[{Type: TERM_MATCH, Field, Value}]) answers with one
JSON document per product (as a string), whose on-demand terms hold the USD price per
unit (https://docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_pricing_GetProducts.html).
The API has endpoints only in us-east-1, eu-central-1 and ap-south-1; any of them
serves every region's prices. Filters as in docs/reference.md#prices.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from typing import Any

from console.infra.prices import HOURS_PER_MONTH, PriceTable, price_table
from console.workflow.errors import InfraError

PRICING_REGION = "us-east-1"


def term_filters(**fields: str) -> list[dict[str, str]]:
    return [{"Type": "TERM_MATCH", "Field": k, "Value": v} for k, v in fields.items()]


def products(pricing: Any, service: str, **fields: str) -> Iterator[dict[str, Any]]:
    paginator = pricing.get_paginator("get_products")
    for page in paginator.paginate(ServiceCode=service, Filters=term_filters(**fields)):
        for raw in page.get("PriceList", []):
            yield json.loads(raw) if isinstance(raw, str) else raw


def usd_prices(product: dict[str, Any]) -> list[float]:
    """Every USD price per unit in the product's on-demand terms."""
    out = []
    for term in (product.get("terms", {}).get("OnDemand") or {}).values():
        for dim in (term.get("priceDimensions") or {}).values():
            usd = (dim.get("pricePerUnit") or {}).get("USD")
            if usd is not None:
                out.append(float(usd))
    return out


def paid_price(product: dict[str, Any]) -> float | None:
    """The price past the free tier: provisioned capacity lists a $0 first tier."""
    paid = [p for p in usd_prices(product) if p > 0]
    return max(paid) if paid else None


def _pick(found: list[dict[str, Any]], usage_part: str, arm: bool = False) -> float | None:
    """The paid price of the first product whose usagetype contains `usage_part`
    (`EU-Fargate-GB-Hours` for `Fargate-GB-Hours`; the ARM ones say `ARM`)."""
    for product in found:
        usage = str(product.get("product", {}).get("attributes", {}).get("usagetype", ""))
        if usage_part in usage and (arm or "ARM" not in usage):
            price = paid_price(product)
            if price is not None:
                return price
    return None


def _first(pricing: Any, service: str, pick: str, **fields: str) -> float | None:
    return _pick(list(products(pricing, service, **fields)), pick)


def fetch_prices(pricing: Any, region: str) -> PriceTable:
    """The region's table, fetched; fields the API did not answer keep the recorded
    value (a note in the source says which)."""
    base, _note = price_table(region)
    fetched: dict[str, Any] = {}
    missing: list[str] = []

    def take(field: str, value: float | None) -> None:
        if value is None:
            missing.append(field)
        else:
            fetched[field] = value

    take(
        "on_demand_per_million_write_units",
        _scaled(
            _first(
                pricing,
                "AmazonDynamoDB",
                "WriteRequestUnits",
                regionCode=region,
                productFamily="Amazon DynamoDB PayPerRequest Throughput",
                group="DDB-WriteUnits",
            )
        ),
    )
    take(
        "on_demand_per_million_read_units",
        _scaled(
            _first(
                pricing,
                "AmazonDynamoDB",
                "ReadRequestUnits",
                regionCode=region,
                productFamily="Amazon DynamoDB PayPerRequest Throughput",
                group="DDB-ReadUnits",
            )
        ),
    )
    take(
        "provisioned_wcu_hour",
        _first(
            pricing,
            "AmazonDynamoDB",
            "WriteCapacityUnit-Hrs",
            regionCode=region,
            productFamily="Provisioned IOPS",
            group="DDB-WriteUnits",
        ),
    )
    take(
        "provisioned_rcu_hour",
        _first(
            pricing,
            "AmazonDynamoDB",
            "ReadCapacityUnit-Hrs",
            regionCode=region,
            productFamily="Provisioned IOPS",
            group="DDB-ReadUnits",
        ),
    )
    vcpu: dict[str, float] = dict(base.fargate_vcpu_hour)
    gb: dict[str, float] = dict(base.fargate_gb_hour)
    compute = list(products(pricing, "AmazonECS", regionCode=region, productFamily="Compute"))
    for arch, vcpu_usage, gb_usage in (
        ("X86_64", "Fargate-vCPU-Hours:perCPU", "Fargate-GB-Hours"),
        ("ARM64", "Fargate-ARM-vCPU-Hours:perCPU", "Fargate-ARM-GB-Hours"),
    ):
        for target, usage in ((vcpu, vcpu_usage), (gb, gb_usage)):
            value = _pick(compute, usage, arm=arch == "ARM64")
            if value is None:
                missing.append(f"fargate {usage}")
            else:
                target[arch] = value
    dashboard = _dashboard_month(pricing, region)
    if dashboard is not None:
        fetched["dashboard_month"] = dashboard
    if len(missing) >= 4 + 4:
        raise InfraError(
            f"the Price List API returned no DynamoDB or Fargate prices for {region}: "
            "is the region name right?"
        )
    source = f"AWS Price List API (GetProducts), fetched {date.today().isoformat()}"
    if missing:
        source += f"; recorded prices kept for: {', '.join(missing)}"
    return replace(
        base,
        region=region,
        as_of=date.today(),
        source=source,
        fargate_vcpu_hour=vcpu,
        fargate_gb_hour=gb,
        **fetched,
    )


def _dashboard_month(pricing: Any, region: str) -> float | None:
    """A dashboard's price per month; the API may state it per month or per hour (its
    `unit` says which), and hourly figures are turned monthly with 730 h."""
    for product in products(
        pricing, "AmazonCloudWatch", regionCode=region, productFamily="Dashboard"
    ):
        for term in (product.get("terms", {}).get("OnDemand") or {}).values():
            for dim in (term.get("priceDimensions") or {}).values():
                usd = float((dim.get("pricePerUnit") or {}).get("USD", 0) or 0)
                if usd <= 0:
                    continue
                unit = str(dim.get("unit", "")).lower()
                return usd * HOURS_PER_MONTH if "hr" in unit or "hour" in unit else usd
    return None


def _scaled(per_unit: float | None) -> float | None:
    """The API prices request units one by one; the table keeps them per million."""
    return None if per_unit is None else per_unit * 1e6


def pricing_client(session: Any) -> Any:
    return session.client("pricing", region_name=PRICING_REGION)
