"""A playbook's capacity change on a real table: the AWS target's changer, against
botocore's shapes (Stubber). moto's UpdateTable applies a change at once and never
shows UPDATING, so DynamoDB's UPDATING is injected here as DescribeTable replies
(source: API_UpdateTable, "While it's UPDATING, you can't issue another UpdateTable
request": https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html)."""

from __future__ import annotations

from typing import Any

import boto3
from botocore.stub import Stubber

from console.targets.aws_capacity import aws_capacity
from loadgen.format.playbook import parse_playbook
from loadgen.live.segmented_run import ClientChanger


def _described(status: str, write: int) -> dict[str, Any]:
    return {
        "Table": {
            "TableName": "tbl",
            "TableStatus": status,
            "ProvisionedThroughput": {"ReadCapacityUnits": 10, "WriteCapacityUnits": write},
        }
    }


def _control(update: dict[str, Any], wait: str = "active") -> Any:
    playbook = parse_playbook(
        {
            "name": "p",
            "tables": [
                {
                    "name": "t",
                    "partition_key": {"name": "pk"},
                    "read_capacity": 10,
                    "write_capacity": 100,
                }
            ],
            "load": {
                "attributes": {"pk": {"dist": "uniform", "count": 10}},
                "phases": [{"name": "c", "update_table": update, "wait": wait}],
            },
        }
    )
    return playbook.load.phases[0].kind.capacity_change()


def _changer(client: Any, slept: list[float]) -> ClientChanger:
    clock = [0.0]

    def sleep(s: float) -> None:
        slept.append(s)
        clock[0] += s

    return ClientChanger(client, sleep, 5.0, lambda: clock[0])


def test_the_change_waits_while_updating_before_and_after() -> None:
    client = boto3.client("dynamodb", region_name="us-east-1")
    slept: list[float] = []
    with Stubber(client) as stub:
        stub.add_response("describe_table", _described("UPDATING", 100), {"TableName": "tbl"})
        stub.add_response("describe_table", _described("ACTIVE", 100), {"TableName": "tbl"})
        stub.add_response(
            "update_table",
            {"TableDescription": {"TableName": "tbl", "TableStatus": "UPDATING"}},
            {
                "TableName": "tbl",
                "ProvisionedThroughput": {"ReadCapacityUnits": 10, "WriteCapacityUnits": 800},
            },
        )
        stub.add_response("describe_table", _described("UPDATING", 100), {"TableName": "tbl"})
        stub.add_response("describe_table", _described("ACTIVE", 800), {"TableName": "tbl"})
        outcome = _changer(client, slept).change(_control({"write_capacity": 800}), "tbl")
        stub.assert_no_pending_responses()
    assert outcome.accepted and outcome.active_after_s == 5.0
    assert slept == [5.0, 5.0]  # once before the UpdateTable (no back-to-back), once after


def test_a_refusal_is_the_outcome_in_dynamodbs_words() -> None:
    client = boto3.client("dynamodb", region_name="us-east-1")
    message = "Subscriber limit exceeded: Provisioned throughput decreases are limited"
    with Stubber(client) as stub:
        stub.add_response("describe_table", _described("ACTIVE", 100), {"TableName": "tbl"})
        stub.add_client_error("update_table", "LimitExceededException", message)
        outcome = _changer(client, []).change(_control({"write_capacity": 50}), "tbl")
    assert outcome.error == "LimitExceededException"
    assert outcome.message == message
    assert "refused: LimitExceededException" in outcome.words()


def test_scaling_activities_of_the_table_in_the_window_are_its_events() -> None:
    from datetime import UTC, datetime

    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    scaling = boto3.client("application-autoscaling", region_name="us-east-1")
    at = datetime(2026, 12, 3, 12, 0, 30, tzinfo=UTC)
    start = datetime(2026, 12, 3, 12, 0, 0, tzinfo=UTC).timestamp()
    with Stubber(dynamodb) as d, Stubber(scaling) as s:
        d.add_response("describe_table", _described("ACTIVE", 400), {"TableName": "tbl"})
        s.add_response(
            "describe_scaling_activities",
            {
                "ScalingActivities": [
                    {
                        "ActivityId": "a",
                        "ServiceNamespace": "dynamodb",
                        "ResourceId": "table/tbl",
                        "ScalableDimension": "dynamodb:table:WriteCapacityUnits",
                        "Description": "Setting write capacity units to 400.",
                        "Cause": "monitor alarm AlarmHigh in state ALARM",
                        "StartTime": at,
                        "StatusCode": "Successful",
                    },
                    {
                        "ActivityId": "b",
                        "ServiceNamespace": "dynamodb",
                        "ResourceId": "table/other",
                        "ScalableDimension": "dynamodb:table:WriteCapacityUnits",
                        "Description": "x",
                        "Cause": "y",
                        "StartTime": at,
                        "StatusCode": "Successful",
                    },
                ]
            },
            {"ServiceNamespace": "dynamodb"},
        )
        capacity = aws_capacity(dynamodb, scaling, "tbl", start, start + 60)
    assert capacity is not None
    (event,) = capacity["$table"]["events"]
    assert event["t"] == 30.0 and event["what"] == "WriteCapacityUnits"
    assert "AlarmHigh" in event["cause"]
    assert capacity["$table"]["series"][0]["write"] == 400.0


def test_the_changes_made_on_aws_are_events_of_the_run() -> None:
    """DynamoDB keeps no record of UpdateTable calls: the changer adds its own."""
    client = boto3.client("dynamodb", region_name="us-east-1")
    slept: list[float] = []
    changer = _changer(client, slept)
    changer.records_own = True
    with Stubber(client) as stub:
        stub.add_response("describe_table", _described("ACTIVE", 100), {"TableName": "tbl"})
        stub.add_response(
            "update_table",
            {"TableDescription": {"TableName": "tbl"}},
            {
                "TableName": "tbl",
                "ProvisionedThroughput": {"ReadCapacityUnits": 10, "WriteCapacityUnits": 800},
            },
        )
        stub.add_response("describe_table", _described("UPDATING", 100), {"TableName": "tbl"})
        stub.add_response("describe_table", _described("ACTIVE", 800), {"TableName": "tbl"})
        changer.change(_control({"write_capacity": 800}), "tbl")
    capacity = changer.capacity("tbl", -10.0, 100.0)
    assert capacity is not None
    (event,) = capacity["$table"]["events"]
    assert (event["t"], event["effective_at"], event["cause"]) == (10.0, 15.0, "UpdateTable")
    assert event["request"]["ProvisionedThroughput"]["WriteCapacityUnits"] == 800


def test_watch_on_aws_shows_the_capacity_in_force_and_the_scaling_of_the_minute() -> None:
    from datetime import UTC, datetime

    from console.run.samples import IndexSample
    from console.targets.aws import CloudWatchMetrics

    dynamodb = boto3.client("dynamodb", region_name="us-east-1")
    scaling = boto3.client("application-autoscaling", region_name="us-east-1")
    minute = datetime(2026, 12, 3, 12, 1, tzinfo=UTC)

    class Target:
        def client(self, service: str) -> Any:
            return dynamodb if service == "dynamodb" else scaling

    class Table:
        variant, name, deleted_at = "orders", "hotbench-r-orders", None

    class State:
        def __init__(self) -> None:
            self.tables = {"orders": Table()}

    sample = IndexSample(source="cloudwatch", table="orders", start=minute, period_s=60)
    with Stubber(dynamodb) as d, Stubber(scaling) as s:
        described = _described("UPDATING", 400)
        described["Table"]["TableName"] = "hotbench-r-orders"
        d.add_response("describe_table", described, {"TableName": "hotbench-r-orders"})
        s.add_response(
            "describe_scaling_activities",
            {
                "ScalingActivities": [
                    {
                        "ActivityId": "a",
                        "ServiceNamespace": "dynamodb",
                        "ResourceId": "table/hotbench-r-orders",
                        "ScalableDimension": "dynamodb:table:WriteCapacityUnits",
                        "Description": "Setting write capacity units to 400.",
                        "Cause": "monitor alarm AlarmHigh in state ALARM",
                        "StartTime": minute.replace(second=20),
                        "StatusCode": "InProgress",
                    }
                ]
            },
            {"ServiceNamespace": "dynamodb"},
        )
        metrics = CloudWatchMetrics(Target())  # type: ignore[arg-type]
        (out,) = metrics._with_capacity(State(), [sample], minute, minute.replace(minute=6))  # type: ignore[arg-type]
    assert (out.capacity_wcu, out.capacity_rcu, out.capacity_status) == (400.0, 10.0, "UPDATING")
    assert out.scaling == ["WriteCapacityUnits -> 400: auto scaling (InProgress)"]
