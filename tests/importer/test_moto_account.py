"""The import against moto, where moto has the calls: a table with two GSIs made by
CreateTable, auto scaling registered with Application Auto Scaling, and CloudWatch
metrics put with PutMetricData are read back as the import result. moto does not
implement DescribeContributorInsights or SimulatePrincipalPolicy: those two answer from
the service model's shapes (tests/importer/fake_account.answer_operation)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from console.importer.aws_calls import LiveCalls
from console.importer.import_result import ImportResult
from console.importer.import_run import ImportOptions, run_import
from tests.importer.fake_account import answer_operation

START = datetime(2026, 11, 29, 10, tzinfo=UTC)
MINUTES = 30
PUTS = [600.0 + 10 * i for i in range(MINUTES)]
THROTTLED = [0.0] * 20 + [50.0] * 10


def _dims(**names: str) -> list[dict[str, str]]:
    return [{"Name": k, "Value": v} for k, v in names.items()]


def _metric(name: str, value: float, minute: int, **dims: str) -> dict[str, Any]:
    return {
        "MetricName": name,
        "Dimensions": _dims(**dims),
        "Timestamp": START + timedelta(minutes=minute),
        "Value": value,
        "Unit": "Count",
    }


def _account() -> boto3.Session:
    session = boto3.Session(region_name="us-east-1")
    ddb = session.client("dynamodb")
    ddb.create_table(
        TableName="orders",
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "status", "AttributeType": "S"},
            {"AttributeName": "sku", "AttributeType": "S"},
        ],
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 400, "WriteCapacityUnits": 900},
        GlobalSecondaryIndexes=[
            {
                "IndexName": name,
                "KeySchema": [{"AttributeName": key, "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 50, "WriteCapacityUnits": 900},
            }
            for name, key in (("byStatus", "status"), ("bySku", "sku"))
        ],
    )
    scaling = session.client("application-autoscaling")
    for resource, dimension in (
        ("table/orders", "dynamodb:table:WriteCapacityUnits"),
        ("table/orders/index/bySku", "dynamodb:index:WriteCapacityUnits"),
    ):
        scaling.register_scalable_target(
            ServiceNamespace="dynamodb",
            ResourceId=resource,
            ScalableDimension=dimension,
            MinCapacity=100,
            MaxCapacity=4000,
        )
        scaling.put_scaling_policy(
            PolicyName=f"{resource}-write",
            ServiceNamespace="dynamodb",
            ResourceId=resource,
            ScalableDimension=dimension,
            PolicyType="TargetTrackingScaling",
            TargetTrackingScalingPolicyConfiguration={
                "TargetValue": 65.0,
                "PredefinedMetricSpecification": {
                    "PredefinedMetricType": "DynamoDBWriteCapacityUtilization"
                },
                "ScaleInCooldown": 60,
                "ScaleOutCooldown": 30,
            },
        )
    cw = session.client("cloudwatch")
    data = []
    for m, (puts, refused) in enumerate(zip(PUTS, THROTTLED, strict=True)):
        data.append(
            {
                "MetricName": "SuccessfulRequestLatency",
                "Dimensions": _dims(TableName="orders", Operation="PutItem"),
                "Timestamp": START + timedelta(minutes=m),
                "StatisticValues": {
                    "SampleCount": puts,
                    "Sum": 4.0 * puts,
                    "Minimum": 2,
                    "Maximum": 9,
                },
                "Unit": "Milliseconds",
            }
        )
        data.append(_metric("ConsumedWriteCapacityUnits", puts, m, TableName="orders"))
        data.append(
            _metric(
                "ConsumedWriteCapacityUnits",
                puts,
                m,
                TableName="orders",
                GlobalSecondaryIndexName="bySku",
            )
        )
        if refused:
            data.append(
                _metric("ThrottledRequests", refused, m, TableName="orders", Operation="PutItem")
            )
            data.append(
                _metric(
                    "WriteThrottleEvents",
                    refused,
                    m,
                    TableName="orders",
                    GlobalSecondaryIndexName="byStatus",
                )
            )
            data.append(
                _metric(
                    "WriteKeyRangeThroughputThrottleEvents",
                    refused,
                    m,
                    TableName="orders",
                    GlobalSecondaryIndexName="byStatus",
                )
            )
    for i in range(0, len(data), 20):
        cw.put_metric_data(Namespace="AWS/DynamoDB", MetricData=data[i : i + 20])
    # Every DescribeContributorInsights (the table's and each GSI's) answers DISABLED.
    answer_operation(
        session,
        "dynamodb",
        "DescribeContributorInsights",
        {"TableName": "orders", "ContributorInsightsStatus": "DISABLED"},
    )
    answer_operation(
        session,
        "iam",
        "SimulatePrincipalPolicy",
        {"EvaluationResults": [], "IsTruncated": False},
    )
    return session


@pytest.fixture
def imported(aws: None) -> Iterator[ImportResult]:
    session = _account()
    yield run_import(
        ImportOptions(
            tables=("orders",),
            start=START.isoformat(),
            end=(START + timedelta(minutes=MINUTES)).isoformat(),
        ),
        now=START + timedelta(hours=1),
        live=LiveCalls(session),
    )


def test_the_table_moto_made_is_read(imported: ImportResult) -> None:
    d = imported.tables[0].definition
    assert (d.partition_key.name, d.sort_key and (d.sort_key.name, d.sort_key.type)) == (
        "pk",
        ("sk", "N"),
    )
    assert (d.billing_mode, d.provisioned.read, d.provisioned.write) == ("PROVISIONED", 400, 900)
    assert [(g.name, g.partition_key.name, g.projection, g.provisioned.write) for g in d.gsis] == [
        ("byStatus", "status", "KEYS_ONLY", 900),
        ("bySku", "sku", "KEYS_ONLY", 900),
    ]


def test_the_auto_scaling_moto_holds_is_read(imported: ImportResult) -> None:
    a = imported.tables[0].auto_scaling
    assert {(t.index, t.dimension) for t in a.targets} == {
        (None, "dynamodb:table:WriteCapacityUnits"),
        ("bySku", "dynamodb:index:WriteCapacityUnits"),
    }
    assert all((t.min_capacity, t.max_capacity) == (100, 4000) for t in a.targets)
    assert {
        (p.index, p.target_value, p.scale_in_cooldown_s, p.scale_out_cooldown_s) for p in a.policies
    } == {
        (None, 65.0, 60, 30),
        ("bySku", 65.0, 60, 30),
    }


def test_the_metrics_moto_holds_are_the_per_minute_series(imported: ImportResult) -> None:
    table = imported.tables[0]
    (puts,) = table.operations
    assert puts.operation == "PutItem"
    assert list(puts.requests) == [p + t for p, t in zip(PUTS, THROTTLED, strict=True)]
    assert list(puts.throttled) == THROTTLED
    assert [(t.index, t.reason, t.events) for t in table.throttles] == [
        ("byStatus", "IndexWriteKeyRangeThroughputExceeded", sum(THROTTLED))
    ]
    consumed = table.series_of("ConsumedWriteCapacityUnits", "bySku")
    assert consumed is not None and list(consumed.values) == PUTS
