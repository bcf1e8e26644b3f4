"""The import's calls through botocore's Stubber: every request is checked against the
parameters we expect and the operation's input shape, every answer against its output
shape (the real service models), so paging, retrying and the exact requests are those
AWS takes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber

from console.importer import account_reader
from console.importer.account_reader import TableAnswers, read_auto_scaling, read_insights
from console.importer.aws_calls import LiveCalls, ThrottleBackoff
from console.importer.import_result import TimeWindow
from console.importer.metric_queries import SeriesKey, fetch
from console.importer.permissions import check_permissions, import_actions

START = datetime(2026, 11, 29, 10, tzinfo=UTC)
WINDOW = TimeWindow(START, START + timedelta(hours=2))


class _Clients:
    """A session whose clients are the stubbed ones."""

    def __init__(self) -> None:
        self.clients: dict[str, Any] = {}
        self.stubbers: dict[str, Stubber] = {}

    def client(self, service: str, config: Any = None) -> Any:
        if service not in self.clients:
            self.clients[service] = boto3.client(
                service, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
            )
            self.stubbers[service] = Stubber(self.clients[service])
            self.stubbers[service].activate()
        return self.clients[service]

    def stub(self, service: str) -> Stubber:
        self.client(service)
        return self.stubbers[service]

    def done(self) -> None:
        for s in self.stubbers.values():
            s.assert_no_pending_responses()


@pytest.fixture
def aws() -> _Clients:
    return _Clients()


def _calls(aws: _Clients, waits: list[float] | None = None) -> LiveCalls:
    sleep = waits.append if waits is not None else (lambda _s: None)
    return LiveCalls(aws, backoff=ThrottleBackoff(attempts=4, sleep=sleep))


def _table(gsis: list[str]) -> dict[str, Any]:
    return {
        "TableName": "orders",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "GlobalSecondaryIndexes": [{"IndexName": g} for g in gsis],
    }


def _target(resource: str, dimension: str) -> dict[str, Any]:
    return {
        "ServiceNamespace": "dynamodb",
        "ResourceId": resource,
        "ScalableDimension": dimension,
        "MinCapacity": 5,
        "MaxCapacity": 500,
        "RoleARN": "arn:aws:iam::123456789012:role/scaling",
        "CreationTime": START,
    }


def test_scalable_targets_are_asked_for_the_table_and_each_gsi_and_paged(aws: _Clients) -> None:
    stub = aws.stub("application-autoscaling")
    ids = ["table/orders", "table/orders/index/byA", "table/orders/index/byB"]
    stub.add_response(
        "describe_scalable_targets",
        {
            "ScalableTargets": [_target(ids[0], "dynamodb:table:WriteCapacityUnits")],
            "NextToken": "t2",
        },
        {"ServiceNamespace": "dynamodb", "ResourceIds": ids},
    )
    stub.add_response(
        "describe_scalable_targets",
        {"ScalableTargets": [_target(ids[2], "dynamodb:index:WriteCapacityUnits")]},
        {"ServiceNamespace": "dynamodb", "ResourceIds": ids, "NextToken": "t2"},
    )
    for resource in (ids[0], ids[2]):
        stub.add_response(
            "describe_scaling_policies",
            {"ScalingPolicies": []},
            {"ServiceNamespace": "dynamodb", "ResourceId": resource},
        )
    answers = TableAnswers("orders", _table(["byA", "byB"]))
    read_auto_scaling(_calls(aws), answers)
    assert [t["ResourceId"] for t in answers.scalable_targets] == [ids[0], ids[2]]
    assert answers.failures == []
    aws.done()


def test_metric_data_pages_are_merged_per_series(aws: _Clients) -> None:
    stub = aws.stub("cloudwatch")
    keys = [
        SeriesKey("ConsumedWriteCapacityUnits", "Sum"),
        SeriesKey("SuccessfulRequestLatency", "SampleCount", None, "PutItem"),
    ]
    t = [START + timedelta(minutes=i) for i in range(4)]
    first = {
        "MetricDataResults": [
            {
                "Id": "q0",
                "Label": keys[0].label(),
                "Timestamps": t[:2],
                "Values": [60.0, 120.0],
                "StatusCode": "PartialData",
            },
            {
                "Id": "q1",
                "Label": keys[1].label(),
                "Timestamps": [],
                "Values": [],
                "StatusCode": "PartialData",
            },
        ],
        "NextToken": "page-2",
    }
    second = {
        "MetricDataResults": [
            {
                "Id": "q0",
                "Label": keys[0].label(),
                "Timestamps": t[2:],
                "Values": [180.0, 240.0],
                "StatusCode": "Complete",
            },
            {
                "Id": "q1",
                "Label": keys[1].label(),
                "Timestamps": [t[3]],
                "Values": [30.0],
                "StatusCode": "Complete",
            },
        ]
    }
    expected = {
        "MetricDataQueries": ANY,
        "StartTime": WINDOW.start,
        "EndTime": WINDOW.end,
        "ScanBy": "TimestampAscending",
    }
    stub.add_response("get_metric_data", first, expected)
    stub.add_response("get_metric_data", second, {**expected, "NextToken": "page-2"})
    answers = fetch(_calls(aws), "orders", keys, WINDOW)
    assert answers.points[keys[0]] == dict(zip(t, [60.0, 120.0, 180.0, 240.0], strict=True))
    assert answers.points[keys[1]] == {t[3]: 30.0}
    aws.done()


def test_a_throttled_call_is_retried_until_it_answers(aws: _Clients) -> None:
    stub = aws.stub("cloudwatch")
    keys = [SeriesKey("ReadThrottleEvents", "Sum")]
    for _ in range(2):
        stub.add_client_error("get_metric_data", "Throttling", "Rate exceeded", 400)
    stub.add_response(
        "get_metric_data",
        {"MetricDataResults": [{"Id": "q0", "Timestamps": [START], "Values": [7.0]}]},
    )
    waits: list[float] = []
    answers = fetch(_calls(aws, waits), "orders", keys, WINDOW)
    assert answers.points[keys[0]] == {START: 7.0}
    assert len(waits) == 2
    aws.done()


def test_contributor_insights_reports_are_asked_at_the_apis_maximum(aws: _Clients) -> None:
    ddb, cw = aws.stub("dynamodb"), aws.stub("cloudwatch")
    rule = "DynamoDBContributorInsights-PKC-orders-1764460800000"
    ddb.add_response(
        "describe_contributor_insights",
        {
            "TableName": "orders",
            "ContributorInsightsRuleList": [rule],
            "ContributorInsightsStatus": "ENABLED",
        },
        {"TableName": "orders"},
    )
    ddb.add_response(
        "describe_contributor_insights",
        {"TableName": "orders", "IndexName": "byA", "ContributorInsightsStatus": "DISABLED"},
        {"TableName": "orders", "IndexName": "byA"},
    )
    cw.add_response(
        "get_insight_rule_report",
        {
            "KeyLabels": ["PartitionKey"],
            "AggregationStatistic": "Sum",
            "AggregateValue": 1000.0,
            "ApproximateUniqueCount": 3,
            "Contributors": [
                {
                    "Keys": ["a"],
                    "ApproximateAggregateValue": 600.0,
                    "Datapoints": [{"Timestamp": START, "ApproximateValue": 600.0}],
                },
            ],
        },
        {
            "RuleName": rule,
            "StartTime": WINDOW.start,
            "EndTime": WINDOW.end,
            "Period": account_reader.report_period(WINDOW, rule),
            "MaxContributorCount": 100,
            "Metrics": ["UniqueContributors", "MaxContributorValue", "SampleCount", "Sum"],
            "OrderBy": "Sum",
        },
    )
    answers = TableAnswers("orders", _table(["byA"]))
    read_insights(_calls(aws), answers, WINDOW)
    assert [(index, r) for index, r, _ in answers.reports] == [(None, rule)]
    assert account_reader.report_period(WINDOW, rule) == 300
    assert account_reader.report_period(WINDOW, rule.replace("-PKC-", "-PKT-")) == 60
    aws.done()


def test_the_permission_check_follows_simulation_pages(aws: _Clients) -> None:
    sts, iam = aws.stub("sts"), aws.stub("iam")
    sts.add_response(
        "get_caller_identity",
        {
            "UserId": "AROA:s",
            "Account": "123456789012",
            "Arn": "arn:aws:sts::123456789012:assumed-role/Ops/s",
        },
    )
    actions = import_actions()
    page = lambda names, decision: [  # noqa: E731
        {"EvalActionName": a, "EvalDecision": decision} for a in names
    ]
    source = "arn:aws:iam::123456789012:role/Ops"
    iam.add_response(
        "simulate_principal_policy",
        {"EvaluationResults": page(actions[:4], "allowed"), "IsTruncated": True, "Marker": "m2"},
        {"PolicySourceArn": source, "ActionNames": actions},
    )
    iam.add_response(
        "simulate_principal_policy",
        {
            "EvaluationResults": page(actions[4:5], "explicitDeny") + page(actions[5:], "allowed"),
            "IsTruncated": False,
        },
        {"PolicySourceArn": source, "ActionNames": actions, "Marker": "m2"},
    )
    check = check_permissions(_calls(aws))
    assert check.checked and check.denied == (actions[4],)
    aws.done()
