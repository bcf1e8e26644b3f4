"""Which CloudWatch series an import asks for, and how GetMetricData's answers are
fetched (split to its limits, paged, merged) and laid on the window's periods.

Metric names and dimensions are DynamoDB's (namespace AWS/DynamoDB; dimension
TableName, plus GlobalSecondaryIndexName for an index, Operation for the request
metrics): https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/metrics-dimensions.html,
the per-reason throttle events:
https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TroubleshootingThrottling-cloudwatch.html.
Requests per operation: SuccessfulRequestLatency's SampleCount counts the successful
requests, ThrottledRequests' Sum the throttled ones (a batch counts as throttled only
when every item in it was).
GetMetricData takes at most 500 queries and returns at most 100,800 datapoints per call
(https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_GetMetricData.html);
a longer answer is paged with NextToken. The window is cut so that no call asks for more.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from console.importer.aws_calls import AwsCalls, CallFailed
from console.importer.import_result import MetricSeries, TimeWindow
from console.importer.time_window import chunks
from console.targets.cloudwatch import REASON_METRICS

NAMESPACE = "AWS/DynamoDB"
MAX_QUERIES = 500
MAX_POINTS = 100_800

CONSUMED = ("ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits")
THROTTLE_EVENTS = ("ReadThrottleEvents", "WriteThrottleEvents")
PROVISIONED = ("ProvisionedReadCapacityUnits", "ProvisionedWriteCapacityUnits")
SUCCEEDED = "SuccessfulRequestLatency"
THROTTLED_REQUESTS = "ThrottledRequests"

DATA_OPERATIONS = (
    "GetItem",
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "Query",
    "Scan",
    "BatchGetItem",
    "BatchWriteItem",
    "TransactGetItems",
    "TransactWriteItems",
    "ExecuteStatement",
    "BatchExecuteStatement",
    "ExecuteTransaction",
)
"""The Operation values asked for when ListMetrics may not say which the table served."""


@dataclass(frozen=True)
class SeriesKey:
    metric: str
    statistic: str
    index: str | None = None
    operation: str | None = None

    def label(self) -> str:
        return "|".join((self.metric, self.statistic, self.index or "", self.operation or ""))

    @classmethod
    def from_label(cls, label: str) -> SeriesKey:
        metric, statistic, index, operation = label.split("|")
        return cls(metric, statistic, index or None, operation or None)


def series_for(gsis: list[str], operations: list[str], provisioned: bool) -> list[SeriesKey]:
    """Every series of a table: per target (the table, each GSI) consumed capacity,
    throttle events and their reasons (and provisioned capacity, which auto scaling
    moves); per operation the table's succeeded and throttled requests."""
    out: list[SeriesKey] = []
    for index in [None, *gsis]:
        out += [SeriesKey(m, "Sum", index) for m in (*CONSUMED, *THROTTLE_EVENTS, *REASON_METRICS)]
        if provisioned:
            out += [SeriesKey(m, "Maximum", index) for m in PROVISIONED]
    for op in operations:
        out.append(SeriesKey(SUCCEEDED, "SampleCount", None, op))
        out.append(SeriesKey(THROTTLED_REQUESTS, "Sum", None, op))
    return out


def query(i: int, table: str, key: SeriesKey, period_s: int) -> dict[str, Any]:
    dims = [{"Name": "TableName", "Value": table}]
    if key.index is not None:
        dims.append({"Name": "GlobalSecondaryIndexName", "Value": key.index})
    if key.operation is not None:
        dims.append({"Name": "Operation", "Value": key.operation})
    return {
        "Id": f"q{i}",
        "Label": key.label(),
        "MetricStat": {
            "Metric": {"Namespace": NAMESPACE, "MetricName": key.metric, "Dimensions": dims},
            "Period": period_s,
            "Stat": key.statistic,
        },
        "ReturnData": True,
    }


@dataclass
class MetricAnswers:
    """Datapoints per series, and the series CloudWatch would not give."""

    points: dict[SeriesKey, dict[datetime, float]] = field(default_factory=dict)
    forbidden: list[SeriesKey] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)


def fetch(calls: AwsCalls, table: str, keys: list[SeriesKey], window: TimeWindow) -> MetricAnswers:
    """Every series of `keys` over the window. Raises CallFailed when GetMetricData
    itself fails (a denial stops the import: there is no traffic without it)."""
    answers = MetricAnswers(points={k: {} for k in keys})
    forbidden: set[SeriesKey] = set()
    for b in range(0, len(keys), MAX_QUERIES):
        batch = keys[b : b + MAX_QUERIES]
        queries = [query(b + i, table, k, window.period_s) for i, k in enumerate(batch)]
        by_id = {q["Id"]: k for q, k in zip(queries, batch, strict=True)}
        for start, end in chunks(window, len(batch), MAX_POINTS):
            params: dict[str, Any] = {
                "MetricDataQueries": queries,
                "StartTime": start,
                "EndTime": end,
                "ScanBy": "TimestampAscending",
            }
            while True:
                page = calls.call("cloudwatch", "GetMetricData", params)
                for result in page.get("MetricDataResults", []):
                    key = by_id.get(result.get("Id", ""))
                    if key is None:
                        continue
                    if result.get("StatusCode") == "Forbidden":
                        forbidden.add(key)
                    got = answers.points[key]
                    for ts, value in zip(
                        result.get("Timestamps", []), result.get("Values", []), strict=False
                    ):
                        got[ts] = float(value)
                answers.messages += [m.get("Value", "") for m in page.get("Messages", [])]
                token = page.get("NextToken")
                if not token:
                    break
                params = {**params, "NextToken": token}
    answers.forbidden = [k for k in keys if k in forbidden]
    return answers


def on_periods(points: dict[datetime, float], window: TimeWindow) -> tuple[tuple[float, ...], int]:
    """Datapoints laid on the window's periods (0.0 where none), and how many landed."""
    values = [0.0] * window.periods
    returned = 0
    for ts, value in points.items():
        i = int((ts - window.start).total_seconds()) // window.period_s
        if 0 <= i < len(values):
            values[i] += value
            returned += 1
    return tuple(values), returned


def to_series(answers: MetricAnswers, window: TimeWindow) -> list[MetricSeries]:
    out = []
    for key, points in answers.points.items():
        values, returned = on_periods(points, window)
        out.append(
            MetricSeries(key.metric, key.statistic, key.index, key.operation, values, returned)
        )
    return out


def list_operations(calls: AwsCalls, table: str) -> list[str] | None:
    """The Operation values of the table's SuccessfulRequestLatency and ThrottledRequests
    that CloudWatch has (ListMetrics: metrics with data in the last two weeks), or None
    when ListMetrics may not be called."""
    found: set[str] = set()
    for metric in (SUCCEEDED, THROTTLED_REQUESTS):
        params: dict[str, Any] = {
            "Namespace": NAMESPACE,
            "MetricName": metric,
            "Dimensions": [{"Name": "TableName", "Value": table}],
        }
        try:
            while True:
                page = calls.call("cloudwatch", "ListMetrics", params)
                for m in page.get("Metrics", []):
                    dims = {d["Name"]: d["Value"] for d in m.get("Dimensions", [])}
                    if dims.get("TableName") == table and "Operation" in dims:
                        found.add(dims["Operation"])
                token = page.get("NextToken")
                if not token:
                    break
                params = {**params, "NextToken": token}
        except CallFailed as exc:
            if exc.denied:
                return None
            raise
    return sorted(found)
