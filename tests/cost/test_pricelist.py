"""The Price List refresh against botocore's Stubber: every request is checked against
botocore's model of GetProducts, with the Price List's real filters."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from console.cost.pricelist import RefreshFailed, fetch_prices
from console.cost.prices import US_EAST_1

DATA = Path(__file__).parent / "data"
TODAY = date(2026, 12, 1)
PPR = "Amazon DynamoDB PayPerRequest Throughput"


def client() -> Any:
    return boto3.client(
        "pricing", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b"
    )


def product(usagetype: str, usd: str, unit: str = "Hrs", free_tier: bool = False) -> str:
    dims = {"D1": {"pricePerUnit": {"USD": usd}, "unit": unit, "beginRange": "0"}}
    if free_tier:
        dims = {
            "D0": {"pricePerUnit": {"USD": "0.0000000000"}, "unit": unit, "endRange": "25"},
            "D1": {"pricePerUnit": {"USD": usd}, "unit": unit, "beginRange": "25"},
        }
    return json.dumps(
        {
            "product": {"attributes": {"usagetype": usagetype}},
            "terms": {"OnDemand": {"T1": {"priceDimensions": dims}}},
        }
    )


def expect(stub: Stubber, service: str, fields: dict[str, str], items: list[str]) -> None:
    stub.add_response(
        "get_products",
        {"PriceList": items, "FormatVersion": "aws_v1"},
        {
            "ServiceCode": service,
            "Filters": [{"Type": "TERM_MATCH", "Field": k, "Value": v} for k, v in fields.items()],
        },
    )


def expect_dynamodb(stub: Stubber, region: str, prefix: str, answer: bool = True) -> None:
    for family, group, usage, usd, free in (
        (PPR, "DDB-WriteUnits", "WriteRequestUnits", "0.0000007063", False),
        (PPR, "DDB-ReadUnits", "ReadRequestUnits", "0.0000001413", False),
        ("Provisioned IOPS", "DDB-WriteUnits", "WriteCapacityUnit-Hrs", "0.000735", True),
        ("Provisioned IOPS", "DDB-ReadUnits", "ReadCapacityUnit-Hrs", "0.000147", True),
    ):
        items = [product(f"{prefix}-{usage}", usd, free_tier=free)] if answer else []
        expect(
            stub,
            "AmazonDynamoDB",
            {"regionCode": region, "productFamily": family, "group": group},
            items,
        )


def test_fargate_takes_the_on_demand_product_not_the_spot_one() -> None:
    """A recorded-shape reply (tests/cost/data) that lists the Spot products first: a
    substring match on `Fargate-vCPU-Hours:perCPU` would take Spot's price."""
    recorded = json.loads((DATA / "pricelist-ecs-compute-us-east-1.json").read_text())
    pricing = client()
    stub = Stubber(pricing)
    expect_dynamodb(stub, "us-east-1", "USE1")
    expect(
        stub,
        "AmazonECS",
        {"regionCode": "us-east-1", "productFamily": "Compute"},
        recorded["PriceList"],
    )
    expect(stub, "AmazonCloudWatch", {"productFamily": "Dashboard"}, [])
    with stub:
        table = fetch_prices(pricing, "us-east-1", TODAY)
    stub.assert_no_pending_responses()
    assert table.fargate_vcpu_hour == {"X86_64": 0.04048, "ARM64": 0.03238}
    assert table.fargate_gb_hour == {"X86_64": 0.004445, "ARM64": 0.00356}


def test_refresh_reads_the_region_by_exact_usage_type_and_lists_what_it_kept() -> None:
    """Prices made up for the test (none is claimed to be a region's real price)."""
    pricing = client()
    stub = Stubber(pricing)
    expect_dynamodb(stub, "us-east-1", "USE1")
    expect(
        stub,
        "AmazonECS",
        {"regionCode": "us-east-1", "productFamily": "Compute"},
        [
            product("USE1-Fargate-vCPU-Hours:perCPU", "0.05"),
            product("USE1-Fargate-GB-Hours", "0.005"),
            # another region's product in the answer is not ours
            product("EU-Fargate-ARM-vCPU-Hours:perCPU", "0.9"),
        ],
    )
    # dashboards are priced globally: looked up without a regionCode
    expect(
        stub,
        "AmazonCloudWatch",
        {"productFamily": "Dashboard"},
        [product("DashboardsUsageHour-Basic", "3.00", "Dashboards")],
    )
    with stub:
        table = fetch_prices(pricing, "us-east-1", TODAY)
    stub.assert_no_pending_responses()
    assert table.on_demand_per_million_write_units == pytest.approx(0.7063)
    assert table.on_demand_per_million_read_units == pytest.approx(0.1413)
    assert table.provisioned_wcu_hour == 0.000735  # the paid tier, not the free one
    assert table.fargate_vcpu_hour == {
        "X86_64": 0.05,
        "ARM64": US_EAST_1.fargate_vcpu_hour["ARM64"],
    }
    assert table.dashboard_month == 3.0
    assert table.as_of == TODAY and table.kept_as_of == US_EAST_1.as_of
    assert "fargate ARM64 vCPU" in table.kept and "fargate ARM64 GB" in table.kept
    assert "contributor_insights_rule_month" in table.kept
    image = {"codebuild_minute", "ecr_gb_month", "s3_gb_month", "s3_per_1000_puts"}
    assert image | {"s3_per_1000_gets"} <= set(table.kept)  # no image price is fetched
    assert "Price List API" in table.source


def test_a_region_without_dated_prices_must_be_answered_in_full() -> None:
    pricing = client()
    stub = Stubber(pricing)
    expect_dynamodb(stub, "eu-west-1", "EU")
    expect(stub, "AmazonECS", {"regionCode": "eu-west-1", "productFamily": "Compute"}, [])
    expect(stub, "AmazonCloudWatch", {"productFamily": "Dashboard"}, [])
    with stub, pytest.raises(RefreshFailed, match="no dated prices of that region to keep"):
        fetch_prices(pricing, "eu-west-1", TODAY)


def test_a_region_answered_in_full_is_priced_without_recorded_prices() -> None:
    pricing = client()
    stub = Stubber(pricing)
    expect_dynamodb(stub, "eu-west-1", "EU")
    compute = [
        product("EU-Fargate-vCPU-Hours:perCPU", "0.04456"),
        product("EU-Fargate-GB-Hours", "0.004865"),
        product("EU-Fargate-ARM-vCPU-Hours:perCPU", "0.03565"),
        product("EU-Fargate-ARM-GB-Hours", "0.00389"),
    ]
    expect(stub, "AmazonECS", {"regionCode": "eu-west-1", "productFamily": "Compute"}, compute)
    expect(stub, "AmazonCloudWatch", {"productFamily": "Dashboard"}, [])
    with stub:
        table = fetch_prices(pricing, "eu-west-1", TODAY)
    assert table.region == "eu-west-1" and table.provisioned_rcu_hour == 0.000147
    assert table.dashboard_month is None and table.kept == ()


def test_a_region_without_a_usage_type_prefix_is_refused_before_any_call() -> None:
    with pytest.raises(RefreshFailed, match="is the region name right"):
        fetch_prices(client(), "xx-nowhere-1", TODAY)
