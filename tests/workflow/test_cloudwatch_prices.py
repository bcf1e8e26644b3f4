"""CloudWatch's 1-minute series and the Price List refresh, against botocore's Stubber:
every request below is checked against botocore's model of GetMetricData and
GetProducts, with DynamoDB's real metric names and dimensions and the Price List's real
filters."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber

from console.workflow import cloudwatch
from console.workflow.pricelist import fetch_prices

START = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)


def client(service: str) -> Any:
    return boto3.client(
        service, region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b"
    )


def test_metric_queries_name_dynamodb_metrics_and_dimensions() -> None:
    queries = cloudwatch.queries([("goodGsi", "hotbench-r-goodGsi", "byWarehouse")])
    names = [q["MetricStat"]["Metric"]["MetricName"] for q in queries]
    assert names == [
        "ConsumedWriteCapacityUnits",
        "ConsumedReadCapacityUnits",
        "WriteThrottleEvents",
        "ReadThrottleEvents",
        "ReadKeyRangeThroughputThrottleEvents",
        "WriteKeyRangeThroughputThrottleEvents",
        "ReadProvisionedThroughputThrottleEvents",
        "WriteProvisionedThroughputThrottleEvents",
        "ReadAccountLimitThrottleEvents",
        "WriteAccountLimitThrottleEvents",
        "ReadMaxOnDemandThroughputThrottleEvents",
        "WriteMaxOnDemandThroughputThrottleEvents",
    ]
    for q in queries:
        stat = q["MetricStat"]
        assert stat["Metric"]["Namespace"] == "AWS/DynamoDB"
        assert stat["Metric"]["Dimensions"] == [
            {"Name": "TableName", "Value": "hotbench-r-goodGsi"},
            {"Name": "GlobalSecondaryIndexName", "Value": "byWarehouse"},
        ]
        assert (stat["Period"], stat["Stat"]) == (60, "Sum")


def test_one_minute_samples_are_sum_over_60_and_labelled_as_such() -> None:
    cw = client("cloudwatch")
    targets = [("bad", "hotbench-r-bad", None)]
    queries = cloudwatch.queries(targets)
    ids = {q["MetricStat"]["Metric"]["MetricName"]: q["Id"] for q in queries}
    minute = START + timedelta(minutes=1)
    stub = Stubber(cw)
    stub.add_response(
        "get_metric_data",
        {
            "MetricDataResults": [
                {
                    "Id": ids["ConsumedWriteCapacityUnits"],
                    "Label": "x",
                    "Timestamps": [minute],
                    "Values": [108_600.0],  # 1,810 WCU/s over the minute
                    "StatusCode": "Complete",
                },
                {
                    "Id": ids["WriteThrottleEvents"],
                    "Timestamps": [minute],
                    "Values": [133_200.0],
                    "StatusCode": "Complete",
                },
                {
                    "Id": ids["WriteKeyRangeThroughputThrottleEvents"],
                    "Timestamps": [minute],
                    "Values": [133_200.0],
                    "StatusCode": "Complete",
                },
            ]
        },
        {
            "MetricDataQueries": queries,
            "StartTime": START,
            "EndTime": START + timedelta(minutes=5),
            "ScanBy": "TimestampAscending",
        },
    )
    with stub:
        samples, requested = cloudwatch.fetch(cw, targets, START, START + timedelta(minutes=5))
    assert requested == 12
    [sample] = samples
    assert (sample.source, sample.period_s, sample.table, sample.index) == (
        "cloudwatch",
        60,
        "bad",
        None,
    )
    assert sample.consumed_wcu == pytest.approx(1810.0)
    assert sample.throttled == 133_200
    assert sample.throttled_by_reason == {"TableWriteKeyRangeThroughputExceeded": 133_200}


def product(usagetype: str, usd: str, unit: str = "Hrs", free_tier: bool = False) -> str:
    dims = {"D1": {"pricePerUnit": {"USD": usd}, "unit": unit, "beginRange": "0"}}
    if free_tier:
        dims = {
            "D0": {"pricePerUnit": {"USD": "0.0000000000"}, "unit": unit, "endRange": "25"},
            "D1": {"pricePerUnit": {"USD": usd}, "unit": unit, "beginRange": "25"},
        }
    return json.dumps(
        {
            "product": {"attributes": {"usagetype": usagetype, "regionCode": "eu-west-1"}},
            "terms": {"OnDemand": {"T1": {"priceDimensions": dims}}},
        }
    )


def test_refresh_prices_reads_get_products_with_the_real_filters() -> None:
    """The product documents are shaped as GetProducts returns them; the prices in them
    are made up for the test (none of them is claimed to be eu-west-1's)."""
    pricing = client("pricing")
    stub = Stubber(pricing)

    def expect(service: str, fields: dict[str, str], items: list[str]) -> None:
        stub.add_response(
            "get_products",
            {"PriceList": items, "FormatVersion": "aws_v1"},
            {
                "ServiceCode": service,
                "Filters": [
                    {"Type": "TERM_MATCH", "Field": k, "Value": v} for k, v in fields.items()
                ],
            },
        )

    ppr = "Amazon DynamoDB PayPerRequest Throughput"
    expect(
        "AmazonDynamoDB",
        {"regionCode": "eu-west-1", "productFamily": ppr, "group": "DDB-WriteUnits"},
        [product("EU-WriteRequestUnits", "0.0000007063", "WriteRequestUnits")],
    )
    expect(
        "AmazonDynamoDB",
        {"regionCode": "eu-west-1", "productFamily": ppr, "group": "DDB-ReadUnits"},
        [product("EU-ReadRequestUnits", "0.0000001413", "ReadRequestUnits")],
    )
    expect(
        "AmazonDynamoDB",
        {"regionCode": "eu-west-1", "productFamily": "Provisioned IOPS", "group": "DDB-WriteUnits"},
        [product("EU-WriteCapacityUnit-Hrs", "0.000735", free_tier=True)],
    )
    expect(
        "AmazonDynamoDB",
        {"regionCode": "eu-west-1", "productFamily": "Provisioned IOPS", "group": "DDB-ReadUnits"},
        [product("EU-ReadCapacityUnit-Hrs", "0.000147", free_tier=True)],
    )
    compute = {"regionCode": "eu-west-1", "productFamily": "Compute"}
    fargate = [
        product("EU-Fargate-vCPU-Hours:perCPU", "0.04456"),
        product("EU-Fargate-GB-Hours", "0.004865"),
        product("EU-Fargate-ARM-vCPU-Hours:perCPU", "0.03565"),
        product("EU-Fargate-ARM-GB-Hours", "0.00389"),
    ]
    expect("AmazonECS", compute, fargate)
    expect(
        "AmazonCloudWatch",
        {"regionCode": "eu-west-1", "productFamily": "Dashboard"},
        [product("EU-DashboardsUsageHour-Basic", "3.00", "Dashboards")],
    )
    with stub:
        table = fetch_prices(pricing, "eu-west-1")
    stub.assert_no_pending_responses()
    assert table.region == "eu-west-1"
    assert table.on_demand_per_million_write_units == pytest.approx(0.7063)
    assert table.on_demand_per_million_read_units == pytest.approx(0.1413)
    assert table.provisioned_wcu_hour == 0.000735  # the paid tier, not the free one
    assert table.provisioned_rcu_hour == 0.000147
    assert table.fargate_vcpu_hour == {"X86_64": 0.04456, "ARM64": 0.03565}
    assert table.fargate_gb_hour == {"X86_64": 0.004865, "ARM64": 0.00389}
    assert table.dashboard_month == 3.0
    assert "Price List API" in table.source and table.as_of == datetime.now(UTC).date()


def test_a_region_the_price_list_does_not_know_is_an_error() -> None:
    pricing = client("pricing")
    stub = Stubber(pricing)
    for _ in range(6):
        stub.add_response("get_products", {"PriceList": []}, {"ServiceCode": ANY, "Filters": ANY})
    from console.workflow.errors import InfraError

    with stub, pytest.raises(InfraError, match="is the region name right"):
        fetch_prices(pricing, "xx-nowhere-1")
