"""The accounts the import's tests read, made from known numbers, and the saved
snapshots of them under tests/importer/snapshots/.

`orders_day`: a provisioned table `orders` with two GSIs (bySku, byCourier), auto
scaling on the table and both GSIs (target tracking at 70 %), a day of traffic that
follows a daily curve (writes 500/s at midnight to 4,000/s at noon, reads 1.5x, a
constant 20 queries/s on bySku), one hot customer holding 30 % of the table's accesses
(so at the noon peak its partition refuses what passes 1,000 writes/s:
TableWriteKeyRangeThroughputExceeded), Contributor Insights on the table and both GSIs.

`sessions_quiet`: an on-demand table `sessions` with an LSI and a GSI, warm throughput
and on-demand maximums, an item count not yet counted, six hours of writes in two
constant stretches (500/s, then 1,500/s), Contributor Insights off everywhere, and a
caller who may not read Application Auto Scaling.

    python -m tests.importer.scenarios      # rewrites the saved snapshots

(tests/importer/test_snapshots.py fails when the saved snapshots differ from what this
makes, so they cannot drift from the code that reads them.)
"""

from __future__ import annotations

import gzip
import math
import shutil
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from tests.importer.fake_account import FakeAccount, Scenario, SeriesId

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
ORDERS_SNAPSHOT = SNAPSHOTS / "orders-day"
SESSIONS_SNAPSHOT = SNAPSHOTS / "sessions-no-insights"
DAY_START = datetime(2026, 11, 29, tzinfo=UTC)
DAY_NOW = DAY_START + timedelta(days=1, minutes=5)
QUIET_START = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)
QUIET_NOW = QUIET_START + timedelta(hours=6, minutes=3)
HOT_CUSTOMER = "C0000042"
HOT_SHARE = 0.30
PARTITION_WCU = 1000


def _ci(table: str, index: str | None, rules: list[str], enabled_at: datetime) -> dict[str, Any]:
    out: dict[str, Any] = {
        "TableName": table,
        "ContributorInsightsRuleList": rules,
        "ContributorInsightsStatus": "ENABLED",
        "LastUpdateDateTime": enabled_at,
        "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS",
    }
    if index:
        out["IndexName"] = index
    return out


def _report(
    keys: list[str],
    values: list[float],
    total: float,
    unique: int,
    hourly: np.ndarray,
    start: datetime,
    step: timedelta = timedelta(hours=1),
) -> dict[str, Any]:
    """A GetInsightRuleReport answer: each contributor's value spread over the report's
    periods (`step`: hours for an accessed-keys rule, minutes for a throttled-keys one,
    as account_reader.report_period asks) as the traffic was (`hourly` sums to 1)."""
    hours = [start + step * h for h in range(len(hourly))]
    return {
        "KeyLabels": ["PartitionKey"],
        "AggregationStatistic": "Sum",
        "AggregateValue": float(total),
        "ApproximateUniqueCount": int(unique),
        "Contributors": [
            {
                "Keys": [k],
                "ApproximateAggregateValue": float(v),
                "Datapoints": [
                    {"Timestamp": t, "ApproximateValue": round(float(v * f), 3)}
                    for t, f in zip(hours, hourly, strict=True)
                    if v * f > 0
                ],
            }
            for k, v in zip(keys, values, strict=True)
        ],
        "MetricDatapoints": [
            {"Timestamp": t, "Sum": round(float(total * f), 3)}
            for t, f in zip(hours, hourly, strict=True)
        ],
    }


def _scaling(
    resource: str, dimension: str, low: int, high: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    kind = "Read" if "Read" in dimension else "Write"
    target = {
        "ServiceNamespace": "dynamodb",
        "ResourceId": resource,
        "ScalableDimension": dimension,
        "MinCapacity": low,
        "MaxCapacity": high,
        "RoleARN": "arn:aws:iam::123456789012:role/aws-service-role/dynamodb.application-"
        "autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_DynamoDBTable",
        "CreationTime": datetime(2026, 6, 1, tzinfo=UTC),
        "SuspendedState": {
            "DynamicScalingInSuspended": False,
            "DynamicScalingOutSuspended": False,
            "ScheduledScalingSuspended": False,
        },
    }
    name = f"$${resource.replace('/', '-')}-scaling-policy-{kind}"
    policy = {
        "PolicyARN": "arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:0000:resource/"
        f"dynamodb/{resource}:policyName/{name}",
        "PolicyName": name,
        "ServiceNamespace": "dynamodb",
        "ResourceId": resource,
        "ScalableDimension": dimension,
        "PolicyType": "TargetTrackingScaling",
        "TargetTrackingScalingPolicyConfiguration": {
            "TargetValue": 70.0,
            "PredefinedMetricSpecification": {
                "PredefinedMetricType": f"DynamoDB{kind}CapacityUtilization"
            },
            "ScaleOutCooldown": 0,
            "ScaleInCooldown": 0,
            "DisableScaleIn": False,
        },
        "Alarms": [],
        "CreationTime": datetime(2026, 6, 1, tzinfo=UTC),
    }
    return target, policy


def _scaled(units_per_s: np.ndarray, low: int, high: int) -> list[float | None]:
    """Provisioned capacity under target tracking at 70 %, as its 5-minute metric shows."""
    out: list[float | None] = []
    for m, u in enumerate(units_per_s):
        level = min(high, max(low, math.ceil(u / 0.7 / 50) * 50))
        out.append(float(level) if m % 5 == 0 else None)
    return out


def orders_day(minutes: int = 1440, offset: int = 0) -> Scenario:
    """The day, or `minutes` of it from minute `offset` (whole hours: the tests' shorter
    windows)."""
    start = DAY_START + timedelta(minutes=offset)
    hours = minutes // 60
    rng = np.random.default_rng(20261129)
    m = np.arange(offset, offset + minutes)
    noise = lambda: 1 + rng.uniform(-0.03, 0.03, minutes)  # noqa: E731
    writes = np.round(60 * (2250 - 1750 * np.cos(2 * np.pi * m / 1440)) * noise())
    reads = np.round(1.5 * writes * noise())
    queries = np.full(minutes, 1200.0)
    hot_writes = HOT_SHARE * writes
    throttled = np.round(np.maximum(0.0, hot_writes / 60 - PARTITION_WCU) * 60)
    ok_writes = writes - throttled
    table, sku, courier = "orders", "bySku", "byCourier"

    def none_if_zero(a: np.ndarray) -> list[float | None]:
        return [float(v) if v > 0 else None for v in a]

    series: dict[Any, list[float | None]] = {
        ("SuccessfulRequestLatency", "SampleCount", None, "PutItem"): none_if_zero(ok_writes),
        ("ThrottledRequests", "Sum", None, "PutItem"): none_if_zero(throttled),
        ("SuccessfulRequestLatency", "SampleCount", None, "GetItem"): none_if_zero(reads),
        ("SuccessfulRequestLatency", "SampleCount", None, "Query"): none_if_zero(queries),
        ("ConsumedWriteCapacityUnits", "Sum", None, None): none_if_zero(ok_writes),
        ("ConsumedReadCapacityUnits", "Sum", None, None): none_if_zero(0.5 * reads),
        ("WriteThrottleEvents", "Sum", None, None): none_if_zero(throttled),
        ("WriteKeyRangeThroughputThrottleEvents", "Sum", None, None): none_if_zero(throttled),
        ("ProvisionedWriteCapacityUnits", "Maximum", None, None): _scaled(writes / 60, 1000, 10000),
        ("ProvisionedReadCapacityUnits", "Maximum", None, None): _scaled(
            0.5 * reads / 60, 1000, 20000
        ),
    }
    for index in (sku, courier):
        series[("ConsumedWriteCapacityUnits", "Sum", index, None)] = none_if_zero(ok_writes)
        series[("ProvisionedWriteCapacityUnits", "Maximum", index, None)] = _scaled(
            ok_writes / 60, 1000, 10000
        )
        series[("ProvisionedReadCapacityUnits", "Maximum", index, None)] = _scaled(
            queries / 60 if index == sku else np.zeros(minutes), 100, 1000
        )
    series[("ConsumedReadCapacityUnits", "Sum", sku, None)] = none_if_zero(queries)

    enabled = start - timedelta(days=3)
    stamp = "1764460800000"
    rules = {
        None: [
            f"DynamoDBContributorInsights-PKC-{table}-{stamp}",
            f"DynamoDBContributorInsights-PKT-{table}-{stamp}",
        ],
        sku: [
            f"DynamoDBContributorInsights-PKC-{table}-{sku}-{stamp}",
            f"DynamoDBContributorInsights-PKT-{table}-{sku}-{stamp}",
        ],
        courier: [
            f"DynamoDBContributorInsights-PKC-{table}-{courier}-{stamp}",
            f"DynamoDBContributorInsights-PKT-{table}-{courier}-{stamp}",
        ],
    }
    hourly_access = (writes + reads).reshape(hours, 60).sum(axis=1)
    hourly_access = hourly_access / hourly_access.sum()
    accesses = float((writes + reads).sum())
    # The table's keys: the hot customer, then 99,999 others Zipf(1.0)-distributed.
    others = 99_999
    zipf = np.arange(1, others + 1, dtype=np.float64) ** -1.0
    zipf /= zipf.sum()
    table_keys = [HOT_CUSTOMER] + [f"C{7_000_000 + r:07d}" for r in range(1, 100)]
    table_values = [HOT_SHARE * accesses, *list((1 - HOT_SHARE) * accesses * zipf[:99])]
    # bySku: Zipf(0.9) over 5,000 SKUs, from its writes and queries.
    sku_weights = np.arange(1, 5001, dtype=np.float64) ** -0.9
    sku_weights /= sku_weights.sum()
    sku_total = float((ok_writes + queries).sum())
    hourly_sku = (ok_writes + queries).reshape(hours, 60).sum(axis=1)
    hourly_sku = hourly_sku / hourly_sku.sum()
    # byCourier: 400 couriers, evenly (each within 1 %).
    courier_total = float(ok_writes.sum())
    courier_shares = np.sort(1 + rng.uniform(-0.01, 0.01, 400))[::-1]
    courier_shares /= courier_shares.sum()
    hourly_courier = ok_writes.reshape(hours, 60).sum(axis=1)
    hourly_courier = hourly_courier / hourly_courier.sum()
    per_minute_throttled = throttled / max(1.0, float(throttled.sum()))
    reports = {
        rules[None][0]: _report(
            table_keys, table_values, accesses, others + 1, hourly_access, start
        ),
        rules[None][1]: _report(
            [HOT_CUSTOMER],
            [float(throttled.sum())],
            float(throttled.sum()),
            1,
            per_minute_throttled,
            start,
            timedelta(minutes=1),
        ),
        rules[sku][0]: _report(
            [f"SKU-{r:05d}" for r in range(1, 101)],
            list(sku_total * sku_weights[:100]),
            sku_total,
            5000,
            hourly_sku,
            start,
        ),
        rules[sku][1]: _report([], [], 0.0, 0, hourly_sku, start),
        rules[courier][0]: _report(
            [f"K{r:03d}" for r in range(1, 101)],
            list(courier_total * courier_shares[:100]),
            courier_total,
            400,
            hourly_courier,
            start,
        ),
        rules[courier][1]: _report([], [], 0.0, 0, hourly_courier, start),
    }
    targets, policies = [], []
    for resource, dims, high in (
        (f"table/{table}", ("table", "table"), 10000),
        (f"table/{table}/index/{sku}", ("index", "index"), 10000),
        (f"table/{table}/index/{courier}", ("index", "index"), 10000),
    ):
        for kind, low, top in (
            (
                "Read",
                1000 if "index" not in resource else 100,
                20000 if "index" not in resource else 1000,
            ),
            ("Write", 1000, high),
        ):
            t, p = _scaling(resource, f"dynamodb:{dims[0]}:{kind}CapacityUnits", low, top)
            targets.append(t)
            policies.append(p)
    gsi = lambda name, key: {  # noqa: E731
        "IndexName": name,
        "KeySchema": [{"AttributeName": key, "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["total"]}
        if name == sku
        else {"ProjectionType": "KEYS_ONLY"},
        "IndexStatus": "ACTIVE",
        "ProvisionedThroughput": {
            "NumberOfDecreasesToday": 3,
            "ReadCapacityUnits": 100,
            "WriteCapacityUnits": 1000,
        },
        "IndexSizeBytes": 310_000_000,
        "ItemCount": 2_000_000,
        "IndexArn": f"arn:aws:dynamodb:us-east-1:123456789012:table/{table}/index/{name}",
        "WarmThroughput": {
            "ReadUnitsPerSecond": 12000,
            "WriteUnitsPerSecond": 4000,
            "Status": "ACTIVE",
        },
    }
    description = {
        "TableName": table,
        "TableArn": f"arn:aws:dynamodb:us-east-1:123456789012:table/{table}",
        "TableId": "0f0f0f0f-1111-2222-3333-444444444444",
        "TableStatus": "ACTIVE",
        "CreationDateTime": datetime(2025, 3, 2, 9, 30, tzinfo=UTC),
        "AttributeDefinitions": [
            {"AttributeName": "customerId", "AttributeType": "S"},
            {"AttributeName": "sku", "AttributeType": "S"},
            {"AttributeName": "courierId", "AttributeType": "S"},
        ],
        "KeySchema": [{"AttributeName": "customerId", "KeyType": "HASH"}],
        "BillingModeSummary": {"BillingMode": "PROVISIONED"},
        "ProvisionedThroughput": {
            "LastIncreaseDateTime": DAY_START + timedelta(hours=11, minutes=40),
            "LastDecreaseDateTime": DAY_START + timedelta(hours=20, minutes=5),
            "NumberOfDecreasesToday": 3,
            "ReadCapacityUnits": 1000,
            "WriteCapacityUnits": 1000,
        },
        "TableSizeBytes": 1_800_000_000,
        "ItemCount": 2_000_000,
        "TableClassSummary": {"TableClass": "STANDARD"},
        "WarmThroughput": {
            "ReadUnitsPerSecond": 30000,
            "WriteUnitsPerSecond": 10000,
            "Status": "ACTIVE",
        },
        "GlobalSecondaryIndexes": [gsi(sku, "sku"), gsi(courier, "courierId")],
        "DeletionProtectionEnabled": True,
    }
    return Scenario(
        name="orders-day",
        start=start,
        minutes=minutes,
        table=description,
        insights={
            None: _ci(table, None, rules[None], enabled),
            sku: _ci(table, sku, rules[sku], enabled),
            courier: _ci(table, courier, rules[courier], enabled),
        },
        reports=reports,
        targets=targets,
        policies=policies,
        series=series,
        truth={
            "requests": {"PutItem": writes, "GetItem": reads, "Query": queries},
            "throttled": throttled,
            "hot_share": table_values[0] / accesses,
            "tail_exponent": 1.0,
            "sku_exponent": 0.9,
            "unique": others + 1,
        },
    )


def sessions_quiet() -> Scenario:
    minutes = 360
    table = "sessions"
    writes = np.where(np.arange(minutes) < 180, 500.0 * 60, 1500.0 * 60)
    series: dict[Any, list[float | None]] = {
        ("SuccessfulRequestLatency", "SampleCount", None, "PutItem"): [float(v) for v in writes],
        ("ConsumedWriteCapacityUnits", "Sum", None, None): [float(2 * v) for v in writes],
        ("ConsumedWriteCapacityUnits", "Sum", "byUser", None): [float(v) for v in writes],
    }
    description = {
        "TableName": table,
        "TableArn": f"arn:aws:dynamodb:us-east-1:123456789012:table/{table}",
        "TableStatus": "ACTIVE",
        "CreationDateTime": QUIET_START - timedelta(hours=2),
        "AttributeDefinitions": [
            {"AttributeName": "sessionId", "AttributeType": "S"},
            {"AttributeName": "seq", "AttributeType": "N"},
            {"AttributeName": "expiresAt", "AttributeType": "N"},
            {"AttributeName": "userId", "AttributeType": "S"},
        ],
        "KeySchema": [
            {"AttributeName": "sessionId", "KeyType": "HASH"},
            {"AttributeName": "seq", "KeyType": "RANGE"},
        ],
        "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"},
        "ProvisionedThroughput": {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0},
        "OnDemandThroughput": {"MaxReadRequestUnits": 20000, "MaxWriteRequestUnits": 8000},
        "WarmThroughput": {
            "ReadUnitsPerSecond": 15000,
            "WriteUnitsPerSecond": 6000,
            "Status": "ACTIVE",
        },
        "TableSizeBytes": 0,
        "ItemCount": 0,
        "TableClassSummary": {"TableClass": "STANDARD_INFREQUENT_ACCESS"},
        "LocalSecondaryIndexes": [
            {
                "IndexName": "byExpiry",
                "KeySchema": [
                    {"AttributeName": "sessionId", "KeyType": "HASH"},
                    {"AttributeName": "expiresAt", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
                "IndexSizeBytes": 0,
                "ItemCount": 0,
            }
        ],
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "byUser",
                "KeySchema": [{"AttributeName": "userId", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["device"]},
                "IndexStatus": "ACTIVE",
                "ProvisionedThroughput": {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0},
                "OnDemandThroughput": {"MaxReadRequestUnits": -1, "MaxWriteRequestUnits": -1},
                "WarmThroughput": {
                    "ReadUnitsPerSecond": 12000,
                    "WriteUnitsPerSecond": 4000,
                    "Status": "ACTIVE",
                },
                "IndexSizeBytes": 0,
                "ItemCount": 0,
            }
        ],
    }
    return Scenario(
        name="sessions-no-insights",
        start=QUIET_START,
        minutes=minutes,
        table=description,
        insights={
            None: {"TableName": table, "ContributorInsightsStatus": "DISABLED"},
            "byUser": {
                "TableName": table,
                "IndexName": "byUser",
                "ContributorInsightsStatus": "DISABLED",
            },
        },
        series=series,
        denied={
            "application-autoscaling:DescribeScalableTargets",
            "application-autoscaling:DescribeScalingPolicies",
        },
        truth={"requests": {"PutItem": writes}},
    )


def hot_key_writes(
    start: datetime,
    minutes: int,
    hot_share: float,
    total_writes: float,
    series: dict[SeriesId, list[float | None]],
) -> Scenario:
    """A table "hot" of one string key, on demand and warmed to 10,000 writes, whose
    Contributor Insights report puts `hot_share` of `total_writes` on k00 and the rest
    evenly on 49 more keys; `series`: its CloudWatch minutes."""
    rule = "DynamoDBContributorInsights-PKC-hot-1764460800000"
    shares = [hot_share] + [(1 - hot_share) / 49] * 49
    return Scenario(
        name="hot",
        start=start,
        minutes=minutes,
        table={
            "TableName": "hot",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"},
            "WarmThroughput": {
                "ReadUnitsPerSecond": 30000,
                "WriteUnitsPerSecond": 10000,
                "Status": "ACTIVE",
            },
            "ItemCount": 1000,
            "TableSizeBytes": 500_000,
        },
        insights={
            None: {
                "TableName": "hot",
                "ContributorInsightsStatus": "ENABLED",
                "ContributorInsightsRuleList": [rule],
                "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS",
            }
        },
        reports={
            rule: {
                "AggregationStatistic": "Sum",
                "AggregateValue": total_writes,
                "ApproximateUniqueCount": 50,
                "Contributors": [
                    {
                        "Keys": [f"k{i:02d}"],
                        "ApproximateAggregateValue": share * total_writes,
                        "Datapoints": [],
                    }
                    for i, share in enumerate(shares)
                ],
            }
        },
        series=series,
    )


SAVED = {"orders-day": (orders_day, DAY_NOW), "sessions-no-insights": (sessions_quiet, QUIET_NOW)}
"""Snapshot folder -> (its scenario, the clock the import ran at)."""


def save(name: str, folder: Path) -> Path:
    """Import the scenario through the live path and keep its answers in `folder`."""
    from console.importer.aws_calls import LiveCalls
    from console.importer.import_run import ImportOptions, run_import

    make, now = SAVED[name]
    scenario = make()
    account = FakeAccount([scenario])
    run_import(
        ImportOptions(
            tables=(scenario.table["TableName"],),
            start=scenario.start.isoformat(),
            end=scenario.end.isoformat(),
            save=folder,
        ),
        now=now,
        live=LiveCalls(account.session()),
    )
    return folder


def gzip_folder(folder: Path) -> None:
    """Every file gzipped in place, as `gzip -r` would (a replay reads either), with no
    time stamp in the header so the same snapshot is the same bytes."""
    for path in sorted(folder.rglob("*.json")):
        with (
            path.open("rb") as raw,
            gzip.GzipFile(path.with_name(path.name + ".gz"), "wb", mtime=0) as packed,
        ):
            shutil.copyfileobj(raw, packed)
        path.unlink()


def main() -> int:
    for name in SAVED:
        folder = SNAPSHOTS / name
        if folder.exists():
            shutil.rmtree(folder)
        save(name, folder)
        plain = sum(p.stat().st_size for p in folder.rglob("*.json"))
        gzip_folder(folder)
        packed = sum(p.stat().st_size for p in folder.rglob("*.gz"))
        print(
            f"{folder}: {len(list(folder.rglob('*.gz')))} files, {plain:,} bytes, "
            f"{packed:,} gzipped"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
