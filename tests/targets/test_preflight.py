"""Preflight before money: each check against botocore's Stubber (which checks every
request and reply against the service's model), the operator policy in the docs, and
`hotbench plan --target aws` against moto's server as a new user would run it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import ANY, Stubber

from console.run.errors import PreflightFailed
from console.run.options import UpOptions
from console.run.settings import Settings
from console.targets.aws import ServerClock
from console.targets.interface import Finding
from console.targets.preflight import (
    all_actions,
    check_fargate,
    check_network,
    check_permissions,
    check_quotas,
    check_service_linked_roles,
    operator_policy,
    principal_arn,
)
from console.workflow.planning import make_plan

ROOT = Path(__file__).resolve().parents[2]
M1 = ROOT / "playbooks" / "hot-partition.yaml"
KEYS = {"region_name": "us-east-1", "aws_access_key_id": "a", "aws_secret_access_key": "b"}
CALLER = "arn:aws:sts::123456789012:assumed-role/Dev/alice"


def test_the_docs_operator_policy_is_the_one_the_check_uses() -> None:
    text = (ROOT / "docs" / "terraform.md").read_text()
    block = re.search(r"#### The operator policy.*?```json\n(.*?)```", text, re.S)
    assert block is not None, "docs/terraform.md has no operator policy"
    assert json.loads(block.group(1)) == operator_policy()
    actions = operator_policy()["Statement"][0]["Action"]
    for needed in ("iam:PassRole", "ecs:TagResource", "ecs:RunTask", "tag:GetResources"):
        assert needed in actions


def test_an_assumed_role_is_simulated_as_its_role() -> None:
    assert principal_arn(CALLER) == "arn:aws:iam::123456789012:role/Dev"
    user = "arn:aws:iam::123456789012:user/dev"
    assert principal_arn(user) == user


def test_denied_actions_are_named_with_the_fix() -> None:
    iam = boto3.client("iam", **KEYS)
    actions = all_actions()
    with Stubber(iam) as stub:
        for i in range(0, len(actions), 50):
            batch = actions[i : i + 50]
            stub.add_response(
                "simulate_principal_policy",
                {
                    "EvaluationResults": [
                        {
                            "EvalActionName": a,
                            "EvalDecision": "implicitDeny"
                            if a in ("iam:PassRole", "ecs:TagResource")
                            else "allowed",
                        }
                        for a in batch
                    ],
                    "IsTruncated": False,
                },
                {"PolicySourceArn": "arn:aws:iam::123456789012:role/Dev", "ActionNames": batch},
            )
        (finding,) = check_permissions(iam, CALLER, actions)
    assert finding.kind == "permission" and finding.blocks
    assert "ecs:TagResource, iam:PassRole" in finding.message
    assert "operator policy of docs/terraform.md" in finding.message


def test_a_caller_who_may_not_simulate_is_told_what_was_not_checked() -> None:
    iam = boto3.client("iam", **KEYS)
    with Stubber(iam) as stub:
        stub.add_client_error("simulate_principal_policy", "AccessDenied", "no", 403)
        (finding,) = check_permissions(iam, CALLER, ["ecs:RunTask"])
    assert finding.kind == "not-checked" and not finding.blocks
    assert "AccessDenied" in finding.message and "not checked" in finding.message


def test_a_plan_over_the_quotas_names_the_table_and_the_quota() -> None:
    report = make_plan(M1, Settings(target="aws"), UpOptions())
    dynamodb = boto3.client("dynamodb", **KEYS)
    limits = {
        "AccountMaxReadCapacityUnits": 80000,
        "AccountMaxWriteCapacityUnits": 20000,
        "TableMaxReadCapacityUnits": 40000,
        "TableMaxWriteCapacityUnits": 10000,
    }
    with Stubber(dynamodb) as stub:
        stub.add_response("describe_limits", limits, {})
        findings = check_quotas(dynamodb, report)
    messages = [f.message for f in findings]
    assert all(f.kind == "quota" for f in findings)
    assert any(m.startswith("table goodGsi:") and "table quota of 10,000" in m for m in messages)
    assert any("account quota of 20,000" in m for m in messages)
    with Stubber(dynamodb) as stub:  # AWS's defaults: M1 fits
        stub.add_response(
            "describe_limits",
            {**limits, "AccountMaxWriteCapacityUnits": 80000, "TableMaxWriteCapacityUnits": 40000},
            {},
        )
        assert check_quotas(dynamodb, report) == []


def test_a_region_without_fargate_or_default_vpc_is_a_setting_to_change() -> None:
    ssm = boto3.client("ssm", **KEYS)
    with Stubber(ssm) as stub:
        stub.add_client_error("get_parameter", "ParameterNotFound", "none", 400)
        (fargate,) = check_fargate(ssm, "xx-east-9")
    assert fargate.kind == "setting" and "--region" in fargate.message
    ec2 = boto3.client("ec2", **KEYS)
    with Stubber(ec2) as stub:
        stub.add_response("describe_vpcs", {"Vpcs": []}, {"Filters": ANY})
        (network,) = check_network(ec2, Settings(target="aws"))
    assert network.kind == "setting"
    assert "--subnet-ids" in network.message and "create-default-vpc" in network.message
    assert check_network(ec2, Settings(target="aws", subnet_ids=["subnet-a"])) == []
    error = PreflightFailed([fargate, network])
    assert error.code == 2 and "nothing was created" in str(error)
    assert PreflightFailed([Finding("quota", "q"), network]).code == 4


def test_t0_comes_from_the_servers_date_not_this_clock() -> None:
    """This machine's clock is 2.6 s behind the server's: the measured offset is within
    the round trip, whatever second boundary the samples fall on."""
    true_offset = 2.6
    local = [1000.0]

    def local_clock() -> float:
        return local[0]

    def sleep(seconds: float) -> None:
        local[0] += seconds

    def date() -> datetime:
        local[0] += 0.01  # half of a 20 ms round trip before the server reads its clock
        server = local[0] + true_offset
        local[0] += 0.01
        return datetime.fromtimestamp(int(server), UTC)  # whole seconds, as `Date`

    clock = ServerClock(date, local_clock, sleep)
    offset = clock.measure()
    assert abs(offset - true_offset) < 0.05
    assert abs(clock.now() - (local[0] + true_offset)) < 0.05


@pytest.fixture
def moto_endpoint() -> Any:
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


def test_plan_on_aws_with_credentials_prints_the_preflight(
    moto_endpoint: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "HOTBENCH_"))}
    env.update(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_ENDPOINT_URL=moto_endpoint,
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
        AWS_CONFIG_FILE=str(tmp_path / "none"),
        HOTBENCH_RUNS_DIR=str(tmp_path / "runs"),
        PYTHONPATH=str(ROOT),
    )
    out = subprocess.run(
        [sys.executable, "-m", "console.cli", "plan", "playbooks/smoke.yaml", "--target", "aws"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert "Traceback" not in out.stdout + out.stderr
    assert re.search(r"estimated cost = \$[\d,.]+", out.stdout), out.stdout  # the total
    assert "AWS identity: arn:aws:" in out.stdout
    # moto has no SimulatePrincipalPolicy: said, not guessed; the rest passes
    assert "preflight not checked permissions not checked" in out.stdout
    assert out.returncode == 0, out.stdout + out.stderr
    assert not (tmp_path / "runs").exists()


def test_a_decision_that_needs_missing_context_is_not_checked_not_denied() -> None:
    """A condition on a tag (or any context key) cannot be evaluated before the run: the
    simulator says implicitDeny with MissingContextValues, which must read "not checked"
    and block nothing; a plain implicitDeny still blocks."""
    iam = boto3.client("iam", **KEYS)
    with Stubber(iam) as stub:
        stub.add_response(
            "simulate_principal_policy",
            {
                "EvaluationResults": [
                    {
                        "EvalActionName": "dynamodb:DeleteTable",
                        "EvalDecision": "implicitDeny",
                        "MissingContextValues": ["aws:ResourceTag/hotbench:run-id"],
                    },
                    {"EvalActionName": "ecs:RunTask", "EvalDecision": "implicitDeny"},
                    {"EvalActionName": "ecs:StopTask", "EvalDecision": "allowed"},
                ],
                "IsTruncated": False,
            },
        )
        findings = check_permissions(
            iam, CALLER, ["dynamodb:DeleteTable", "ecs:RunTask", "ecs:StopTask"]
        )
    unchecked = [f for f in findings if f.kind == "not-checked"]
    denied = [f for f in findings if f.kind == "permission"]
    assert len(unchecked) == 1 and not unchecked[0].blocks
    assert "dynamodb:DeleteTable" in unchecked[0].message
    assert "aws:ResourceTag/hotbench:run-id" in unchecked[0].message
    assert len(denied) == 1 and "ecs:RunTask" in denied[0].message
    assert "dynamodb:DeleteTable" not in denied[0].message


def test_service_linked_roles_exist_or_may_be_created() -> None:
    """ECS creates AWSServiceRoleForECS at the first CreateCluster of an account, as the
    caller: a role that exists passes, one the caller may create passes (simulated with
    the iam:AWSServiceName context the real call carries), one it may not blocks with
    the command an administrator runs."""
    iam = boto3.client("iam", **KEYS)
    ecs, insights = "ecs.amazonaws.com", "contributorinsights.dynamodb.amazonaws.com"
    with Stubber(iam) as stub:
        stub.add_client_error(
            "get_role", "NoSuchEntity", "no", 404, {"RoleName": "AWSServiceRoleForECS"}
        )
        stub.add_response(
            "simulate_principal_policy",
            {
                "EvaluationResults": [
                    {
                        "EvalActionName": "iam:CreateServiceLinkedRole",
                        "EvalDecision": "implicitDeny",
                    }
                ]
            },
            {
                "PolicySourceArn": "arn:aws:iam::123456789012:role/Dev",
                "ActionNames": ["iam:CreateServiceLinkedRole"],
                "ResourceArns": [
                    "arn:aws:iam::123456789012:role/aws-service-role/ecs.amazonaws.com/AWSServiceRoleForECS"
                ],
                "ContextEntries": [
                    {
                        "ContextKeyName": "iam:AWSServiceName",
                        "ContextKeyValues": [ecs],
                        "ContextKeyType": "string",
                    }
                ],
            },
        )
        stub.add_response(
            "get_role",
            {
                "Role": {
                    "Path": "/aws-service-role/",
                    "RoleName": "AWSServiceRoleForDynamoDBCloudWatchContributorInsights",
                    "RoleId": "AROAEXAMPLEEXAMPLE01",
                    "Arn": "arn:aws:iam::123456789012:role/x",
                    "CreateDate": datetime(2026, 1, 1, tzinfo=UTC),
                }
            },
        )
        (finding,) = check_service_linked_roles(iam, CALLER, [ecs, insights])
    assert finding.kind == "permission" and finding.blocks
    assert "AWSServiceRoleForECS" in finding.message
    assert (
        "aws iam create-service-linked-role --aws-service-name ecs.amazonaws.com" in finding.message
    )


def test_the_operator_policy_scopes_service_linked_roles_to_three_services() -> None:
    statements = operator_policy()["Statement"]
    scoped = next(s for s in statements if s["Action"] == "iam:CreateServiceLinkedRole")
    assert scoped["Condition"] == {
        "StringEquals": {
            "iam:AWSServiceName": [
                "contributorinsights.dynamodb.amazonaws.com",
                "dynamodb.application-autoscaling.amazonaws.com",
                "ecs.amazonaws.com",
            ]
        }
    }
    assert "iam:CreateServiceLinkedRole" not in statements[0]["Action"]  # never on *
    for needed in (
        "ec2:DescribeNetworkInterfaces",
        "ecr:ListImages",
        "scheduler:CreateSchedule",
        "application-autoscaling:RegisterScalableTarget",
        "application-autoscaling:PutScalingPolicy",
    ):
        assert needed in statements[0]["Action"]
