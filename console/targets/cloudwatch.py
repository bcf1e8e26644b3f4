"""CloudWatch's view of a run's tables: 1-minute series from GetMetricData.

Metric names and dimensions are DynamoDB's own (namespace AWS/DynamoDB, dimension
TableName, plus GlobalSecondaryIndexName for an index; the TableName-only series exclude
the GSIs): https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/metrics-dimensions.html
and, for the per-reason throttle events,
https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TroubleshootingThrottling-cloudwatch.html.
Consumed capacity is published per minute; units per second = Sum / 60.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from console.run.samples import IndexSample

NAMESPACE = "AWS/DynamoDB"
PERIOD_S = 60

#: CloudWatch metric -> the throttle reason it counts (without the Table/Index prefix).
REASON_METRICS = {
    "ReadKeyRangeThroughputThrottleEvents": "ReadKeyRangeThroughputExceeded",
    "WriteKeyRangeThroughputThrottleEvents": "WriteKeyRangeThroughputExceeded",
    "ReadProvisionedThroughputThrottleEvents": "ReadProvisionedThroughputExceeded",
    "WriteProvisionedThroughputThrottleEvents": "WriteProvisionedThroughputExceeded",
    "ReadAccountLimitThrottleEvents": "ReadAccountLimitExceeded",
    "WriteAccountLimitThrottleEvents": "WriteAccountLimitExceeded",
    "ReadMaxOnDemandThroughputThrottleEvents": "ReadMaxOnDemandThroughputExceeded",
    "WriteMaxOnDemandThroughputThrottleEvents": "WriteMaxOnDemandThroughputExceeded",
}
CONSUMED = ("ConsumedWriteCapacityUnits", "ConsumedReadCapacityUnits")
THROTTLE_EVENTS = ("WriteThrottleEvents", "ReadThrottleEvents")
METRICS = (*CONSUMED, *THROTTLE_EVENTS, *REASON_METRICS)


def dimensions(table: str, index: str | None) -> list[dict[str, str]]:
    dims = [{"Name": "TableName", "Value": table}]
    if index is not None:
        dims.append({"Name": "GlobalSecondaryIndexName", "Value": index})
    return dims


def queries(targets: Sequence[tuple[str, str, str | None]]) -> list[dict[str, Any]]:
    """One MetricDataQuery per (target, metric); `targets` are (variant, physical table
    name, index or None). Ids are `m<target>_<metric>` (GetMetricData wants
    ^[a-z][a-zA-Z0-9_]*$); labels carry what the id stands for."""
    out = []
    for i, (variant, table, index) in enumerate(targets):
        for j, metric in enumerate(METRICS):
            out.append(
                {
                    "Id": f"m{i}_{j}",
                    "Label": f"{variant}|{index or ''}|{metric}",
                    "MetricStat": {
                        "Metric": {
                            "Namespace": NAMESPACE,
                            "MetricName": metric,
                            "Dimensions": dimensions(table, index),
                        },
                        "Period": PERIOD_S,
                        "Stat": "Sum",
                    },
                    "ReturnData": True,
                }
            )
    return out


def fetch(
    cloudwatch: Any,
    targets: Sequence[tuple[str, str, str | None]],
    start: datetime,
    end: datetime,
) -> tuple[list[IndexSample], int]:
    """The 1-minute samples of every target between `start` and `end`, and how many
    metrics were requested (GetMetricData is billed per 1,000 metrics requested)."""
    all_queries = queries(targets)
    values: dict[tuple[str, str | None, datetime], dict[str, float]] = defaultdict(dict)
    # GetMetricData takes at most 500 queries per call.
    for i in range(0, len(all_queries), 500):
        batch = all_queries[i : i + 500]
        labels = {q["Id"]: q["Label"] for q in batch}
        kwargs: dict[str, Any] = {
            "MetricDataQueries": batch,
            "StartTime": start,
            "EndTime": end,
            "ScanBy": "TimestampAscending",
        }
        while True:
            out = cloudwatch.get_metric_data(**kwargs)
            for result in out.get("MetricDataResults", []):
                variant, index, metric = labels[result["Id"]].split("|")
                for ts, value in zip(
                    result.get("Timestamps", []), result.get("Values", []), strict=False
                ):
                    values[(variant, index or None, ts)][metric] = float(value)
            token = out.get("NextToken")
            if not token:
                break
            kwargs["NextToken"] = token
    samples = []
    for (variant, index, ts), metrics in sorted(
        values.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1] or "")
    ):
        scope = "Index" if index else "Table"
        reasons = {
            scope + reason: metrics[metric]
            for metric, reason in REASON_METRICS.items()
            if metrics.get(metric)
        }
        samples.append(
            IndexSample(
                source="cloudwatch",
                table=variant,
                index=index,
                start=ts,
                period_s=PERIOD_S,
                throttled=sum(metrics.get(m, 0.0) for m in THROTTLE_EVENTS),
                throttled_by_reason=reasons,
                consumed_wcu=metrics.get("ConsumedWriteCapacityUnits", 0.0) / PERIOD_S,
                consumed_rcu=metrics.get("ConsumedReadCapacityUnits", 0.0) / PERIOD_S,
            )
        )
    return samples, len(all_queries)


def window(now: datetime, minutes: int = 5) -> tuple[datetime, datetime]:
    """The last whole minutes: CloudWatch publishes a minute after it ends."""
    end = now.replace(second=0, microsecond=0)
    return end - timedelta(minutes=minutes), end
