"""EcsFleet against botocore's Stubber: the exact API calls a Fargate fleet makes."""

from __future__ import annotations

from typing import Any

import boto3
from botocore.stub import ANY, Stubber

from loadgen.live.ecs_tasks import EcsFleet, EcsNetwork

ENV = {"HOTBENCH_RUN_ID": "run-1", "HOTBENCH_RESULTS_TABLE": "hotbench-results"}
NET = EcsNetwork(subnets=["subnet-a", "subnet-b"], security_groups=["sg-1"], assign_public_ip=True)


def arn(i: int) -> str:
    return f"arn:aws:ecs:us-east-1:123456789012:task/hb/{i:032x}"


def fleet_and_stub() -> tuple[EcsFleet, Stubber]:
    client = boto3.client(
        "ecs", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b"
    )
    fleet = EcsFleet(
        client, "hb-cluster", "hb-worker:3", "worker", NET, tags={"project": "hotbench"}
    )
    return fleet, Stubber(client)


def run_task_params(base: int, count: int) -> dict[str, Any]:
    env = {**ENV, "HOTBENCH_WORKER_BASE": str(base), "HOTBENCH_WORKER_COUNT": str(count)}
    return {
        "cluster": "hb-cluster",
        "taskDefinition": "hb-worker:3",
        "count": count,
        "launchType": "FARGATE",
        "networkConfiguration": {
            "awsvpcConfiguration": {
                "subnets": ["subnet-a", "subnet-b"],
                "securityGroups": ["sg-1"],
                "assignPublicIp": "ENABLED",
            }
        },
        "tags": [
            {"key": "project", "value": "hotbench"},
            {"key": "hotbench:run", "value": "run-1"},
        ],
        "propagateTags": "TASK_DEFINITION",
        "startedBy": "hotbench-run-1",
        "overrides": {
            "containerOverrides": [
                {
                    "name": "worker",
                    "environment": [{"name": k, "value": v} for k, v in sorted(env.items())],
                }
            ]
        },
    }


def test_run_task_in_batches_of_ten_with_tags_network_and_environment() -> None:
    fleet, stub = fleet_and_stub()
    n = 0
    for base, count in ((0, 10), (10, 10), (20, 3)):
        tasks = [{"taskArn": arn(n + i), "lastStatus": "PROVISIONING"} for i in range(count)]
        n += count
        stub.add_response(
            "run_task", {"tasks": tasks, "failures": []}, run_task_params(base, count)
        )
    with stub:
        fleet.start("run-1", 23, ENV)
    stub.assert_no_pending_responses()
    assert fleet.task_arns == [arn(i) for i in range(23)]


def test_only_the_tasks_that_did_not_start_are_retried() -> None:
    fleet, stub = fleet_and_stub()
    waits: list[float] = []
    fleet.sleep = waits.append
    no_eni = {"arn": "x", "reason": "RESOURCE:ENI", "detail": "no ENI left"}
    stub.add_response(
        "run_task",
        {"tasks": [{"taskArn": arn(i)} for i in range(7)], "failures": [no_eni] * 3},
        run_task_params(0, 10),
    )
    # the retry asks for the 3 missing tasks, with the same worker range (0..9): they
    # claim the indices the 7 started ones left free
    retry = run_task_params(0, 10)
    retry["count"] = 3
    stub.add_response(
        "run_task", {"tasks": [{"taskArn": arn(i)} for i in range(7, 10)], "failures": []}, retry
    )
    with stub:
        fleet.start("run-1", 10, ENV)
    stub.assert_no_pending_responses()
    assert fleet.task_arns == [arn(i) for i in range(10)]
    assert waits == [fleet.retry_delay_s]
    assert fleet.notes() == [
        "RunTask batch at worker 0: 3 of 10 task(s) did not start "
        "(RESOURCE:ENI no ENI left; RESOURCE:ENI no ENI left; RESOURCE:ENI no ENI left); "
        "retrying those"
    ]


def test_starts_that_keep_failing_are_noted_after_the_last_attempt() -> None:
    fleet, stub = fleet_and_stub()
    fleet.sleep = lambda _s: None
    no_eni = {"arn": "x", "reason": "RESOURCE:ENI", "detail": "no ENI left"}
    stub.add_response(
        "run_task", {"tasks": [{"taskArn": arn(0)}], "failures": [no_eni]}, run_task_params(0, 2)
    )
    for _ in range(fleet.start_attempts - 1):
        again = run_task_params(0, 2)
        again["count"] = 1
        stub.add_response("run_task", {"tasks": [], "failures": [no_eni]}, again)
    with stub:
        fleet.start("run-1", 2, ENV)
    stub.assert_no_pending_responses()
    assert fleet.task_arns == [arn(0)]
    assert fleet.notes()[-1] == (
        "RunTask batch at worker 0: 1 of 2 task(s) did not start (RESOURCE:ENI no ENI left)"
    )


def test_stop_on_abort_stops_only_running_tasks_and_running_counts_them() -> None:
    fleet, stub = fleet_and_stub()
    fleet.task_arns = [arn(i) for i in range(3)]
    described = {
        "tasks": [
            {"taskArn": arn(0), "lastStatus": "RUNNING"},
            {
                "taskArn": arn(1),
                "lastStatus": "STOPPED",
                "stoppedReason": "Essential container in task exited",
                "containers": [{"exitCode": 137}],
            },
            {"taskArn": arn(2), "lastStatus": "PENDING"},
        ],
        "failures": [],
    }
    expect = {"cluster": "hb-cluster", "tasks": fleet.task_arns}
    stub.add_response("describe_tasks", described, expect)
    stub.add_response("describe_tasks", described, expect)
    for i in (0, 2):
        stub.add_response(
            "stop_task",
            {"task": {"taskArn": arn(i)}},
            {"cluster": "hb-cluster", "task": arn(i), "reason": ANY},
        )
    with stub:
        assert fleet.running() == 2
        fleet.stop("barrier timeout: only 1 of 3 workers ready")
    stub.assert_no_pending_responses()
    assert any("exit codes [137]" in note for note in fleet.notes())


def test_a_failed_stop_names_every_task_and_the_command_that_stops_it() -> None:
    from loadgen.live.coordinator import stop_fleet

    fleet, stub = fleet_and_stub()
    fleet.task_arns = [arn(1), arn(2)]
    said: list[str] = []
    with stub:
        stub.add_response(
            "describe_tasks",
            {"tasks": [{"taskArn": arn(1), "lastStatus": "RUNNING"}]},
            {"cluster": "hb-cluster", "tasks": [arn(1), arn(2)]},
        )
        stub.add_client_error("stop_task", "AccessDeniedException", "not allowed")
        message = stop_fleet(fleet, said.append)
    assert message is not None and said == [message]
    assert "could not stop the workers (AccessDeniedException" in message
    for i in (1, 2):
        assert f"aws ecs stop-task --cluster hb-cluster --task {arn(i)}" in message


def test_a_clean_stop_says_nothing() -> None:
    from loadgen.live.coordinator import stop_fleet

    fleet, stub = fleet_and_stub()
    fleet.task_arns = [arn(1)]
    said: list[str] = []
    with stub:
        stub.add_response(
            "describe_tasks",
            {"tasks": [{"taskArn": arn(1), "lastStatus": "RUNNING"}]},
            {"cluster": "hb-cluster", "tasks": [arn(1)]},
        )
        stub.add_response("stop_task", {}, {"cluster": "hb-cluster", "task": arn(1), "reason": ANY})
        assert stop_fleet(fleet, said.append) is None
    assert said == []


def test_missing_right_after_run_task_counts_as_starting() -> None:
    """DescribeTasks is eventually consistent: a task it answers MISSING for within a
    minute of its RunTask is starting (so the barrier goes on waiting); a minute later,
    MISSING means ECS does not know it, said in the notes."""
    fleet, stub = fleet_and_stub()
    now = [1000.0]
    fleet.clock = lambda: now[0]
    with stub:
        stub.add_response(
            "run_task", {"tasks": [{"taskArn": arn(0)}], "failures": []}, run_task_params(0, 1)
        )
        fleet.start("run-1", 1, ENV)
        missing = {"tasks": [], "failures": [{"arn": arn(0), "reason": "MISSING"}]}
        stub.add_response("describe_tasks", missing, {"cluster": "hb-cluster", "tasks": [arn(0)]})
        assert fleet.running() == 1
        now[0] += 61
        stub.add_response("describe_tasks", missing, {"cluster": "hb-cluster", "tasks": [arn(0)]})
        assert fleet.running() == 0
    assert any("MISSING" in note for note in fleet.notes())
