"""CloudWatch's 1-minute series, against botocore's Stubber:
every request below is checked against botocore's model of GetMetricData and
GetProducts, with DynamoDB's real metric names and dimensions and the Price List's real
filters."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from console.targets import cloudwatch

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
