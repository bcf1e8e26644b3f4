"""An account that answers an import's read-only calls from a scenario, plugged into
real boto3 clients.

botocore validates every request against the service model before the `before-call`
event, where this account answers (as botocore's Stubber does), and every answer is
validated against the operation's output shape here (as the Stubber does), so the
import's live code path (console/importer/aws_calls.LiveCalls) runs unchanged, with
the real request and answer shapes, and no credentials or network.

Answers follow the API's documented behaviour: GetMetricData returns a period only
where the series has a datapoint, pages with NextToken past `page_points` datapoints
(100,800 by default, the API's own), and rejects a call over 500 queries or 100,800
points; DescribeScalableTargets pages at `page_items`; GetInsightRuleReport rejects a
MaxContributorCount over 100.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import boto3
from botocore.awsrequest import AWSResponse
from botocore.validate import validate_parameters

SeriesId = tuple[str, str, str | None, str | None]
"""(metric, statistic, GSI or None, Operation or None)."""


@dataclass
class Scenario:
    """What the account holds for one table over a window of minutes."""

    name: str
    start: datetime
    minutes: int
    table: dict[str, Any]
    """DescribeTable's Table."""
    insights: dict[str | None, dict[str, Any]] = field(default_factory=dict)
    """DescribeContributorInsights answers by index (None: the table)."""
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)
    """GetInsightRuleReport answers by rule name, for the whole window."""
    targets: list[dict[str, Any]] = field(default_factory=list)
    policies: list[dict[str, Any]] = field(default_factory=list)
    series: dict[SeriesId, list[float | None]] = field(default_factory=dict)
    """Per-minute datapoints (None: no datapoint that minute)."""
    denied: set[str] = field(default_factory=set)
    """IAM actions the caller may not call (SimulatePrincipalPolicy says so too)."""
    truth: dict[str, Any] = field(default_factory=dict)
    """What the scenario was made from, for tests to compare against."""

    @property
    def end(self) -> datetime:
        return self.start + timedelta(minutes=self.minutes)

    @property
    def operations(self) -> list[str]:
        return sorted({op for (_, _, _, op) in self.series if op is not None})


class FakeError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(code)
        self.code = code
        self.message = message


ACTION_PREFIX = {
    "dynamodb": "dynamodb",
    "application-autoscaling": "application-autoscaling",
    "cloudwatch": "cloudwatch",
    "iam": "iam",
    "sts": "sts",
}


@dataclass
class FakeAccount:
    scenarios: list[Scenario]
    page_points: int = 100_800
    page_items: int = 50
    throttle_first: dict[str, int] = field(default_factory=dict)
    """Operation -> how many of its first calls answer ThrottlingException."""
    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    caller_arn: str = "arn:aws:sts::123456789012:assumed-role/Operator/import-session"

    def session(self, region: str = "us-east-1") -> boto3.Session:
        made = boto3.Session(
            region_name=region, aws_access_key_id="fake", aws_secret_access_key="fake"
        )
        made.events.register("before-parameter-build", self._keep_params)
        made.events.register("before-call", self._answer)
        return made

    @staticmethod
    def _keep_params(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        context["fake_params"] = copy.deepcopy(params)

    def _answer(self, model: Any, context: dict[str, Any], **_: Any) -> tuple[Any, dict[str, Any]]:
        service = model.service_model.service_name
        operation = model.name
        params = context.get("fake_params", {})
        self.calls.append((service, operation, params))
        try:
            if self.throttle_first.get(operation, 0) > 0:
                self.throttle_first[operation] -= 1
                raise FakeError("ThrottlingException", "Rate exceeded")
            action = f"{ACTION_PREFIX[service]}:{operation}"
            if action in self._denied():
                raise FakeError(
                    "AccessDeniedException",
                    f"User: {self.caller_arn} is not authorized to perform: {action}",
                )
            answer = getattr(self, f"_{service.replace('-', '_')}_{operation}")(params)
        except FakeError as exc:
            return AWSResponse(None, 400, {}, None), {
                "Error": {"Code": exc.code, "Message": exc.message},
                "ResponseMetadata": {"HTTPStatusCode": 400},
            }
        validate_parameters(answer, model.output_shape)
        return AWSResponse(None, 200, {}, None), copy.deepcopy(answer)  # no shared objects

    def _denied(self) -> set[str]:
        return set().union(*(s.denied for s in self.scenarios))

    def _scenario(self, table: str) -> Scenario:
        for s in self.scenarios:
            if s.table["TableName"] == table:
                return s
        raise FakeError(
            "ResourceNotFoundException", f"Requested resource not found: Table: {table} not found"
        )

    # sts, iam
    def _sts_GetCallerIdentity(self, params: dict[str, Any]) -> dict[str, Any]:
        return {
            "UserId": "AROAEXAMPLE:import-session",
            "Account": "123456789012",
            "Arn": self.caller_arn,
        }

    def _iam_SimulatePrincipalPolicy(self, params: dict[str, Any]) -> dict[str, Any]:
        denied = self._denied()
        return {
            "EvaluationResults": [
                {
                    "EvalActionName": a,
                    "EvalResourceName": "*",
                    "EvalDecision": "implicitDeny" if a in denied else "allowed",
                }
                for a in params["ActionNames"]
            ],
            "IsTruncated": False,
        }

    # dynamodb
    def _dynamodb_DescribeTable(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"Table": self._scenario(params["TableName"]).table}

    def _dynamodb_DescribeContributorInsights(self, params: dict[str, Any]) -> dict[str, Any]:
        s = self._scenario(params["TableName"])
        index = params.get("IndexName")
        found = s.insights.get(index)
        if found is None:
            out: dict[str, Any] = {
                "TableName": params["TableName"],
                "ContributorInsightsStatus": "DISABLED",
            }
            if index:
                out["IndexName"] = index
            return out
        return found

    # application-autoscaling
    def _paged(
        self, items: list[dict[str, Any]], params: dict[str, Any], key: str
    ) -> dict[str, Any]:
        start = int(params.get("NextToken") or 0)
        page = items[start : start + self.page_items]
        out: dict[str, Any] = {key: page}
        if start + self.page_items < len(items):
            out["NextToken"] = str(start + self.page_items)
        return out

    def _application_autoscaling_DescribeScalableTargets(
        self, params: dict[str, Any]
    ) -> dict[str, Any]:
        ids = set(params.get("ResourceIds", []))
        items = [t for s in self.scenarios for t in s.targets if not ids or t["ResourceId"] in ids]
        return self._paged(items, params, "ScalableTargets")

    def _application_autoscaling_DescribeScalingPolicies(
        self, params: dict[str, Any]
    ) -> dict[str, Any]:
        items = [
            p
            for s in self.scenarios
            for p in s.policies
            if p["ResourceId"] == params.get("ResourceId")
        ]
        return self._paged(items, params, "ScalingPolicies")

    # cloudwatch
    def _cloudwatch_ListMetrics(self, params: dict[str, Any]) -> dict[str, Any]:
        dims = {d["Name"]: d["Value"] for d in params.get("Dimensions", [])}
        s = self._scenario(dims["TableName"])
        metrics = []
        for metric, _stat, index, op in s.series:
            if metric != params.get("MetricName") or op is None or index is not None:
                continue
            metrics.append(
                {
                    "Namespace": "AWS/DynamoDB",
                    "MetricName": metric,
                    "Dimensions": [
                        {"Name": "Operation", "Value": op},
                        {"Name": "TableName", "Value": s.table["TableName"]},
                    ],
                }
            )
        return self._paged(metrics, params, "Metrics")

    def _cloudwatch_GetMetricData(self, params: dict[str, Any]) -> dict[str, Any]:
        queries = params["MetricDataQueries"]
        if len(queries) > 500:
            raise FakeError(
                "ValidationError",
                "The collection MetricDataQueries must not have a size greater than 500.",
            )
        start, end = params["StartTime"], params["EndTime"]
        results = []
        for q in queries:
            stat = q["MetricStat"]
            dims = {d["Name"]: d["Value"] for d in stat["Metric"]["Dimensions"]}
            s = self._scenario(dims["TableName"])
            key = (
                stat["Metric"]["MetricName"],
                stat["Stat"],
                dims.get("GlobalSecondaryIndexName"),
                dims.get("Operation"),
            )
            results.append((q, self._points(s, key, start, end, int(stat["Period"]))))
        periods = int((end - start).total_seconds()) // 60
        if len(queries) * periods > 100_800:
            raise FakeError(
                "InvalidParameterCombination",
                f"You have requested up to {len(queries) * periods} datapoints, which exceeds "
                "the limit of 100800.",
            )
        offset = int(params.get("NextToken") or 0)
        flat = [(q, p) for q, points in results for p in points]
        page = flat[offset : offset + self.page_points]
        more = offset + self.page_points < len(flat)
        out_results = []
        for q, _points in results:
            mine = [p for qq, p in page if qq is q]
            out_results.append(
                {
                    "Id": q["Id"],
                    "Label": q.get("Label", q["Id"]),
                    "Timestamps": [t for t, _ in mine],
                    "Values": [v for _, v in mine],
                    "StatusCode": "PartialData" if more else "Complete",
                }
            )
        out: dict[str, Any] = {"MetricDataResults": out_results, "Messages": []}
        if more:
            out["NextToken"] = str(offset + self.page_points)
        return out

    def _points(
        self, s: Scenario, key: SeriesId, start: datetime, end: datetime, period: int
    ) -> list[tuple[datetime, float]]:
        values = s.series.get(key)
        if values is None:
            return []
        out = []
        per = period // 60
        t = start
        while t < end:
            first = int((t - s.start).total_seconds()) // 60
            got = [values[m] for m in range(first, first + per) if 0 <= m < len(values)]
            got = [v for v in got if v is not None]
            if got:
                agg = max(got) if key[1] == "Maximum" else sum(got)
                out.append((t, float(agg)))
            t += timedelta(seconds=period)
        return out

    def _cloudwatch_GetInsightRuleReport(self, params: dict[str, Any]) -> dict[str, Any]:
        if not 1 <= params.get("MaxContributorCount", 10) <= 100:
            raise FakeError("InvalidParameterInput", "MaxContributorCount must be from 1 to 100")
        for s in self.scenarios:
            if params["RuleName"] in s.reports:
                if params["StartTime"] != s.start or params["EndTime"] != s.end:
                    raise AssertionError("the fake holds reports for its scenario's window only")
                report = copy.deepcopy(s.reports[params["RuleName"]])
                report["Contributors"] = report["Contributors"][
                    : params.get("MaxContributorCount", 10)
                ]
                return report
        raise FakeError("ResourceNotFoundException", f"Rule {params['RuleName']} does not exist")


def answer_operation(
    session: boto3.Session, event_service: str, operation: str, answer: dict[str, Any]
) -> None:
    """Answer one operation of every client of `session` with `answer` (validated
    against the output shape), leaving the others to whatever serves them (moto):
    for the calls moto does not implement (DescribeContributorInsights,
    GetInsightRuleReport, SimulatePrincipalPolicy). `event_service` is botocore's
    event name of the service (dynamodb, cloudwatch, iam)."""

    def handler(model: Any, **_: Any) -> tuple[Any, dict[str, Any]]:
        validate_parameters(answer, model.output_shape)
        return AWSResponse(None, 200, {}, None), copy.deepcopy(answer)

    session.events.register(f"before-call.{event_service}.{operation}", handler)
