"""Reading one table from an account: every read-only call an import makes, in order,
with the answers kept as AWS gave them (`TableAnswers`); console/importer/build.py turns
them into numbers.

The calls, per table: DynamoDB DescribeTable; Application Auto Scaling
DescribeScalableTargets for the table's and its GSIs' resource ids (table/NAME,
table/NAME/index/INDEX) and DescribeScalingPolicies for each that has a target;
DescribeContributorInsights for the table and each GSI and, where it is on, CloudWatch
GetInsightRuleReport on each of its rules over the window; CloudWatch ListMetrics (which
operations the table served) and GetMetricData (metric_queries.py). A call that fails
for want of a permission, or because the thing is not there, is kept as a failure and
the import goes on without that piece; DescribeTable and GetMetricData failing stop it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal

from console.importer.aws_calls import AwsCalls, CallFailed
from console.importer.import_result import TimeWindow
from console.importer.metric_queries import (
    DATA_OPERATIONS,
    MetricAnswers,
    fetch,
    list_operations,
    series_for,
)

MAX_CONTRIBUTORS = 100
"""GetInsightRuleReport's maximum MaxContributorCount ("The range is 1 to 100"),
https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_GetInsightRuleReport.html."""
REPORT_METRICS = ["UniqueContributors", "MaxContributorValue", "SampleCount", "Sum"]
"""Per period of a report: unique keys, the top key's value, events, their sum."""
AUTO_SCALING = "application-autoscaling"


@dataclass
class Failure:
    """A call that failed and was not needed to go on."""

    call: CallFailed
    part: Literal["auto scaling", "hot keys", "operations"]
    about: str
    """What it would have read, after "so no": "auto scaling", "report of rule ..."."""
    index: str | None = None


@dataclass
class TableAnswers:
    table: str
    description: dict[str, Any]
    scalable_targets: list[dict[str, Any]] = field(default_factory=list)
    scaling_policies: list[dict[str, Any]] = field(default_factory=list)
    insights: list[dict[str, Any]] = field(default_factory=list)
    """DescribeContributorInsights answers: the table's, then each GSI's."""
    reports: list[tuple[str | None, str, dict[str, Any]]] = field(default_factory=list)
    """(index, rule name, GetInsightRuleReport answer)."""
    operations: list[str] = field(default_factory=list)
    operations_listed: bool = True
    """False: ListMetrics was denied and every data-plane operation was asked for."""
    metrics: MetricAnswers = field(default_factory=MetricAnswers)
    failures: list[Failure] = field(default_factory=list)


def gsi_names(description: dict[str, Any]) -> list[str]:
    return [g["IndexName"] for g in description.get("GlobalSecondaryIndexes", []) or []]


def report_period(window: TimeWindow, rule: str) -> int:
    """The period of a report's time series. A throttled-keys rule (PKT, SKT) is read
    per period of the window up to a day (1,440 points: when each hot key was refused,
    to set beside a replay's); an accessed-keys rule, whose shares are what an import
    uses, hourly over six hours (a day's report then holds 24 points per key, not
    1,440), five-minutely over an hour. The top keys and totals cover the whole window
    whatever the period."""
    length = window.end - window.start
    throttled = "-PKT-" in rule or "-SKT-" in rule
    if throttled and length <= timedelta(days=1):
        return window.period_s
    if length > timedelta(hours=6):
        return 3600
    if length > timedelta(hours=1):
        return 300
    return window.period_s


def _pages(
    calls: AwsCalls, service: str, operation: str, params: dict[str, Any], key: str
) -> list[Any]:
    out: list[Any] = []
    while True:
        page = calls.call(service, operation, params)
        out += page.get(key, [])
        token = page.get("NextToken")
        if not token:
            return out
        params = {**params, "NextToken": token}


def read_auto_scaling(calls: AwsCalls, answers: TableAnswers) -> None:
    table = answers.table
    ids = [f"table/{table}", *(f"table/{table}/index/{g}" for g in gsi_names(answers.description))]
    try:
        answers.scalable_targets = _pages(
            calls,
            AUTO_SCALING,
            "DescribeScalableTargets",
            {"ServiceNamespace": "dynamodb", "ResourceIds": ids},
            "ScalableTargets",
        )
    except CallFailed as exc:
        answers.failures.append(Failure(exc, "auto scaling", "auto scaling"))
        return
    for resource in dict.fromkeys(t["ResourceId"] for t in answers.scalable_targets):
        try:
            answers.scaling_policies += _pages(
                calls,
                AUTO_SCALING,
                "DescribeScalingPolicies",
                {"ServiceNamespace": "dynamodb", "ResourceId": resource},
                "ScalingPolicies",
            )
        except CallFailed as exc:
            answers.failures.append(Failure(exc, "auto scaling", f"scaling policies of {resource}"))


def read_insights(calls: AwsCalls, answers: TableAnswers, window: TimeWindow) -> None:
    for index in [None, *gsi_names(answers.description)]:
        where = {"TableName": answers.table} | ({"IndexName": index} if index else {})
        about = f"Contributor Insights of {index or answers.table}"
        try:
            state = calls.call("dynamodb", "DescribeContributorInsights", where)
        except CallFailed as exc:
            answers.failures.append(Failure(exc, "hot keys", about, index))
            continue
        answers.insights.append(state)
        if state.get("ContributorInsightsStatus") not in ("ENABLED", "DISABLING"):
            continue
        for rule in state.get("ContributorInsightsRuleList", []) or []:
            try:
                report = calls.call(
                    "cloudwatch",
                    "GetInsightRuleReport",
                    {
                        "RuleName": rule,
                        "StartTime": window.start,
                        "EndTime": window.end,
                        "Period": report_period(window, rule),
                        "MaxContributorCount": MAX_CONTRIBUTORS,
                        "Metrics": REPORT_METRICS,
                        "OrderBy": "Sum",
                    },
                )
            except CallFailed as exc:
                answers.failures.append(Failure(exc, "hot keys", f"report of rule {rule}", index))
                continue
            answers.reports.append((index, rule, report))


def read_metrics(calls: AwsCalls, answers: TableAnswers, window: TimeWindow) -> None:
    try:
        listed = list_operations(calls, answers.table)
    except CallFailed as exc:
        answers.failures.append(
            Failure(exc, "operations", "list of the operations the table served")
        )
        listed = None
    answers.operations_listed = listed is not None
    answers.operations = listed if listed is not None else list(DATA_OPERATIONS)
    provisioned = (answers.description.get("BillingModeSummary") or {}).get(
        "BillingMode", "PROVISIONED"
    ) == "PROVISIONED"
    keys = series_for(gsi_names(answers.description), answers.operations, provisioned)
    answers.metrics = fetch(calls, answers.table, keys, window)


def read_table(
    calls: AwsCalls,
    table: str,
    window: TimeWindow,
    progress: Callable[[str], None] = lambda _line: None,
) -> TableAnswers:
    """Every answer about one table. Raises CallFailed when DescribeTable or
    GetMetricData fails (the caller says what that means)."""
    progress(f"{table}: DescribeTable")
    description = calls.call("dynamodb", "DescribeTable", {"TableName": table})["Table"]
    answers = TableAnswers(table, description)
    progress(f"{table}: auto scaling")
    read_auto_scaling(calls, answers)
    progress(f"{table}: Contributor Insights")
    read_insights(calls, answers, window)
    progress(f"{table}: CloudWatch metrics, {window.periods:,} periods of {window.period_s} s")
    read_metrics(calls, answers, window)
    return answers
