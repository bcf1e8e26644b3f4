"""The AWS target without AWS: moto for DynamoDB, ECS, STS, IAM, CloudWatch and the
Tagging API; botocore's Stubber (which checks every request and response against
botocore's model) where moto has no support; the repository's fake Terraform
(tests/terraform/fixtures/fake_terraform.py) for the stack."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from console.run.errors import (
    EXIT_AWS_DENIED,
    EXIT_USAGE,
    AwsDenied,
    CredentialsError,
    InfraError,
)
from console.run.state import StateStore, Status, Step
from console.targets.awserrors import aws_errors
from console.workflow import Hooks, RunOptions, Settings, UpOptions, down, run, tally, up
from tests.targets.faults import aws_quotas
from tests.workflow.conftest import Cli

ROOT = Path(__file__).resolve().parents[2]
M1 = ROOT / "playbooks" / "hot-partition.yaml"
RUN_ID = "m1-demo"  # the run id in the fake Terraform's recorded outputs
TAG = [{"Key": "hotbench:run-id", "Value": RUN_ID}]


def no_credentials_env(cli: Cli, tmp_path: Path) -> None:
    for name in list(cli.env):
        if name.startswith("AWS_"):
            cli.env.pop(name)
    cli.env.update(
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
        AWS_CONFIG_FILE=str(tmp_path / "none"),
        AWS_EC2_METADATA_DISABLED="true",
    )


def test_plan_on_aws_without_credentials_prints_the_plan_then_says_why(
    cli: Cli, tmp_path: Path
) -> None:
    no_credentials_env(cli, tmp_path)
    out = cli("plan", str(M1), "--target", "aws")
    assert out.returncode == EXIT_USAGE == 2
    assert "estimated cost = $" in out.stdout
    assert "$39.78/h while up" in out.stdout
    assert "no AWS credentials found" in out.stdout and "AWS_PROFILE" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr
    assert not cli.runs_dir.exists()


@pytest.mark.parametrize(
    ("fleet", "words", "comparison"),
    [
        (
            "lambda",
            ["fleet: 4 Lambda workers", "Lambda duration, 24 invocations"],
            [
                "fleets: lambda $33.56 (this plan), ecs $47.81",
                "ecs: the tables stand 22 min longer",
            ],
        ),
        (
            "ecs",
            ["fleet: 2 Fargate tasks", "Fargate vCPU, 12 tasks"],
            [
                "fleets: ecs $47.81 (this plan), lambda $33.56",
                "lambda: the tables stand 22 min less",
            ],
        ),
    ],
)
def test_plan_on_each_fleet_without_credentials_prices_and_compares_then_exits_2(
    cli: Cli, tmp_path: Path, fleet: str, words: list[str], comparison: list[str]
) -> None:
    """`hotbench plan playbooks/hot-partition.yaml --target aws --fleet lambda|ecs` with no
    credentials: the chosen fleet's workers and cost, the other fleet's estimate of the
    same run and why it differs, then the credentials message and exit 2
    (docs/terraform.md#the-fleet prints this output)."""
    no_credentials_env(cli, tmp_path)
    out = cli("plan", str(M1), "--target", "aws", "--fleet", fleet)
    assert out.returncode == EXIT_USAGE == 2, out.stdout + out.stderr
    for line in words + comparison:
        assert line in out.stdout, line
    assert "no AWS credentials found" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr
    assert not cli.runs_dir.exists()


def test_up_on_aws_without_credentials_creates_nothing(cli: Cli, tmp_path: Path) -> None:
    no_credentials_env(cli, tmp_path)
    out = cli("up", str(M1), "--target", "aws", "--yes")
    assert out.returncode == 2, out.stdout + out.stderr
    assert "no AWS credentials found" in out.stdout and "nothing was created" in out.stdout
    assert not cli.runs_dir.exists() or not any(cli.runs_dir.iterdir())


def test_up_over_the_cost_limit_is_refused_before_anything(cli: Cli, tmp_path: Path) -> None:
    no_credentials_env(cli, tmp_path)  # refused before credentials are even looked at
    out = cli("up", str(M1), "--target", "aws", "--yes", "--max-cost-usd", "1")
    assert out.returncode == 3, out.stdout + out.stderr
    assert "over --max-cost-usd $1.00" in out.stdout and "nothing was created" in out.stdout


def test_up_without_yes_and_without_a_terminal_asks_and_creates_nothing(
    cli: Cli, short_playbook: Path
) -> None:
    out = cli("up", str(short_playbook))
    assert out.returncode == 3
    assert "pass --yes" in out.stdout
    assert not cli.runs_dir.exists() or not any(cli.runs_dir.iterdir())


# -- errors a user meets ----------------------------------------------------------------


def client_error(service: str, method: str, code: str, message: str, **params: Any) -> Exception:
    client = boto3.client(
        service, region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b"
    )
    with Stubber(client) as stub:
        stub.add_client_error(method, service_error_code=code, service_message=message)
        try:
            getattr(client, method)(**params)
        except Exception as exc:
            return exc
    raise AssertionError("no error raised")


CREATE = {
    "TableName": "t",
    "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    "BillingMode": "PAY_PER_REQUEST",
}
RUN_TASK = {"taskDefinition": "td", "cluster": "c"}


@pytest.mark.parametrize(
    ("error", "kind", "code", "words"),
    [
        (
            (
                "ecs",
                "run_task",
                "AccessDeniedException",
                "User: arn:aws:iam::123456789012:user/dev is not authorized to perform: "
                "ecs:RunTask on resource: arn:aws:ecs:us-east-1:123456789012:task-definition/td",
                RUN_TASK,
            ),
            AwsDenied,
            EXIT_AWS_DENIED,
            ["access denied", "ecs:RunTask"],
        ),
        (
            ("dynamodb", "update_table", "AccessDeniedException", "no", {"TableName": "t"}),
            AwsDenied,
            EXIT_AWS_DENIED,
            ["access denied", "dynamodb:UpdateTable"],
        ),
        (
            (
                "sts",
                "get_caller_identity",
                "ExpiredToken",
                "The security token included in the request is expired",
                {},
            ),
            CredentialsError,
            EXIT_USAGE,
            ["expired", "aws sso login"],
        ),
        (
            (
                "dynamodb",
                "create_table",
                "LimitExceededException",
                "Subscriber limit exceeded: too many tables being created",
                CREATE,
            ),
            AwsDenied,
            EXIT_AWS_DENIED,
            ["quota", "Service Quotas"],
        ),
        (
            (
                "dynamodb",
                "create_table",
                "ResourceInUseException",
                "Table already exists: t",
                CREATE,
            ),
            AwsDenied,
            EXIT_AWS_DENIED,
            ["already exists", "hotbench down"],
        ),
        (
            (
                "ecs",
                "run_task",
                "UnsupportedFeatureException",
                "FARGATE is not supported in this region",
                RUN_TASK,
            ),
            AwsDenied,
            EXIT_AWS_DENIED,
            ["cannot run Fargate", "--region"],
        ),
        (
            ("ecs", "run_task", "ServerException", "boom", RUN_TASK),
            InfraError,
            7,
            ["RunTask failed", "boom"],
        ),
    ],
)
def test_aws_errors_become_messages_with_exit_codes(
    error: tuple[Any, ...], kind: type[Exception], code: int, words: list[str]
) -> None:
    service, method, err_code, message, params = error
    exc = client_error(service, method, err_code, message, **params)
    fallback = f"{service}:{''.join(p.title() for p in method.split('_'))}"
    with pytest.raises(kind) as caught, aws_errors(fallback, "us-east-1"):
        raise exc
    assert caught.value.code == code  # type: ignore[attr-defined]
    for word in words:
        assert word in str(caught.value)


@pytest.mark.usefixtures("no_aws_credentials")
def test_no_credentials_is_the_credentials_message() -> None:
    from console.workflow.steps import check_credentials

    with pytest.raises(CredentialsError, match="no AWS credentials found"):
        check_credentials(Settings(target="aws"))


# -- up, run, tally, down with moto and the fake Terraform ---------------------------------


@pytest.fixture(autouse=True)
def _aws_default_quotas(monkeypatch: pytest.MonkeyPatch) -> None:
    """moto's DescribeLimits is below AWS's defaults and below M1: the preflight would
    refuse the run (tests/targets/faults.py)."""
    aws_quotas(monkeypatch)


def stack_as_terraform_would_make_it() -> dict[str, str]:
    """What apply would have created (the fake Terraform creates nothing): the tables,
    results table, cluster, task definition, log group, ECR repository and roles of the
    recorded outputs, tagged with the run id as the kit tags them."""
    from loadgen.format.playbook import load_playbook
    from loadgen.live.resultstore import ResultStore

    ddb = boto3.client("dynamodb")
    for spec in load_playbook(M1).tables:
        ddb.create_table(
            **spec.create_table_request(
                f"hotbench-{RUN_ID}-{spec.name}", tags={"hotbench:run-id": RUN_ID}
            )
        )
    ResultStore(ddb, f"hotbench-{RUN_ID}-results", RUN_ID).create_table()
    ddb.tag_resource(
        ResourceArn=f"arn:aws:dynamodb:us-east-1:123456789012:table/hotbench-{RUN_ID}-results",
        Tags=TAG,
    )
    ecs = boto3.client("ecs")
    ecs_tag = [{"key": "hotbench:run-id", "value": RUN_ID}]
    ecs.create_cluster(clusterName=f"hotbench-{RUN_ID}-fleet", tags=ecs_tag)
    ecs.register_task_definition(
        family=f"hotbench-{RUN_ID}-worker",
        containerDefinitions=[{"name": "worker", "image": "worker:latest", "memory": 2048}],
        requiresCompatibilities=["FARGATE"],
        networkMode="awsvpc",
        cpu="1024",
        memory="2048",
        tags=ecs_tag,
    )
    boto3.client("iam").create_role(
        RoleName=f"hotbench-{RUN_ID}-task", AssumeRolePolicyDocument="{}", Tags=TAG
    )
    boto3.client("iam").create_role(RoleName="someone-elses", AssumeRolePolicyDocument="{}")
    return {"cluster": f"hotbench-{RUN_ID}-fleet"}


GIVEN_IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/team/worker@sha256:" + "c" * 64


@pytest.mark.e2e  # the AWS workflow from up to down on moto: ~12 s
def test_up_run_tally_down_on_aws(
    aws: None, fake_terraform: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stack_as_terraform_would_make_it()
    settings = Settings(
        target="aws",
        fleet="ecs",
        region="us-east-1",
        runs_dir=tmp_path / "runs",
        terraform_binary=fake_terraform["binary"],
        owner="dev@example.com",
        # an image given by digest: one apply, no build (the build paths:
        # tests/targets/test_image_build.py)
        worker_image=GIVEN_IMAGE,
    )
    said: list[str] = []
    hooks = Hooks(say=said.append, confirm=lambda _q: True)
    state = up(str(M1), settings, hooks, UpOptions(workers=12), run_id=RUN_ID)
    try:
        calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
        assert [c["argv"][0] for c in calls] == ["init", "plan", "show", "apply", "output"]
        variables = calls[1]["variables"]
        assert variables["run_id"] == RUN_ID and variables["task_count"] == 12
        assert variables["variants"] == ["bad", "good", "goodGsi", "badOnDemand"]
        assert variables["owner"] == "dev@example.com"
        assert variables["worker_image"] == GIVEN_IMAGE and variables["image_build"] is False
        assert state.image is not None and state.image.digest == GIVEN_IMAGE.split("@")[1]
        assert Path(calls[1]["cwd"]) == tmp_path / "runs" / RUN_ID / "terraform"
        assert state.tables["goodGsi"].name == f"hotbench-{RUN_ID}-goodGsi"
        assert state.results_table == f"hotbench-{RUN_ID}-results"
        assert state.terraform is not None and state.terraform.applied_at is not None

        # moto checks the network: point the recorded outputs at moto's default subnets
        # and security group, as a real apply would have given them
        store = StateStore(settings.runs_dir)
        recorded = store.load(RUN_ID)
        ec2 = boto3.client("ec2")
        assert recorded.terraform is not None and recorded.terraform.outputs is not None
        recorded.terraform.outputs["subnets"] = [
            s["SubnetId"] for s in ec2.describe_subnets()["Subnets"][:2]
        ]
        recorded.terraform.outputs["security_group_id"] = ec2.describe_security_groups()[
            "SecurityGroups"
        ][0]["GroupId"]
        store.save(recorded)

        # no worker ever starts on moto: the fleet is launched, tagged and stopped, and
        # the run fails at the barrier with a message
        with pytest.raises(InfraError, match="bad#1 failed: only 0 of 12 workers ready"):
            run(RUN_ID, settings, hooks, RunOptions(barrier_timeout_s=0.5, seed_items=50))
        after = StateStore(settings.runs_dir).load(RUN_ID)
        assert after.record(Step.RUN).status == Status.FAILED
        assert len(after.tasks) == 12  # RunTask in two batches, 10 then 2
        ecs = boto3.client("ecs")
        described = ecs.describe_tasks(
            cluster=f"hotbench-{RUN_ID}-fleet",
            tasks=[t.id for t in after.tasks],
            include=["TAGS"],
        )["tasks"]
        for task in described:
            tags = {t["key"]: t["value"] for t in task.get("tags", [])}
            assert tags["hotbench:run-id"] == RUN_ID
            assert tags["hotbench:owner"] == "dev@example.com"
            assert "hotbench:expires-at" in tags
            assert task["lastStatus"] == "STOPPED"

        cost = tally(RUN_ID, settings)
        assert not cost.hypothetical
        assert any(line.unit == "vCPU-h" and "12 tasks" in line.what for line in cost.lines)

        # terraform destroy "succeeds" but the fake deleted nothing: the sweep finds each
        # resource, confirms it by its own Describe, and says how to delete it
        report = down(RUN_ID, settings, hooks)
        assert not report.nothing_left
        kinds = sorted({x.kind for x in report.leftovers})
        assert kinds == ["dynamodb:table", "ecs:cluster", "ecs:task-definition", "iam:role"]
        commands = {x.delete_command for x in report.leftovers}
        assert (
            f"aws dynamodb delete-table --table-name hotbench-{RUN_ID}-bad --region us-east-1"
            in (commands)
        )
        assert not any("someone-elses" in x.id for x in report.leftovers)
        state_after = StateStore(settings.runs_dir).load(RUN_ID)
        assert state_after.billable_up and state_after.leftovers

        # delete them as the printed commands would, and down again: nothing left
        for left in report.leftovers:
            if left.kind == "dynamodb:table":
                boto3.client("dynamodb").delete_table(TableName=left.id.rsplit("/", 1)[1])
            elif left.kind == "ecs:cluster":
                ecs.delete_cluster(cluster=left.id)
            elif left.kind == "ecs:task-definition":
                ecs.deregister_task_definition(taskDefinition=left.id)
            elif left.kind == "iam:role":
                boto3.client("iam").delete_role(RoleName=left.id.rsplit("/", 1)[1])
        again = down(RUN_ID, settings, hooks)
        assert again.nothing_left, again.leftovers
        assert not StateStore(settings.runs_dir).load(RUN_ID).billable_up
    finally:
        from console.run import processes

        final = StateStore(settings.runs_dir).load(RUN_ID)
        if final.reaper_pid:
            processes.stop(final.reaper_pid, RUN_ID)


def test_the_sweep_trusts_describe_not_the_tagging_api(aws: None) -> None:
    """The Tagging API lists deleted resources for a while: a hit whose Describe says it is
    gone (or being deleted) is not a leftover; logs and ECR confirmed by their own calls."""
    from console.targets.sweep import RESOURCE_TYPES, sweep

    boto3.client("logs").create_log_group(logGroupName=f"/hotbench/{RUN_ID}")
    boto3.client("ecr").create_repository(repositoryName=f"hotbench-{RUN_ID}-worker")
    arn = "arn:aws:{}:us-east-1:123456789012:{}"
    listed = [
        arn.format("dynamodb", f"table/hotbench-{RUN_ID}-gone"),  # deleted an hour ago
        arn.format("logs", f"log-group:/hotbench/{RUN_ID}"),
        arn.format("logs", f"log-group:/hotbench/{RUN_ID}-gone"),
        arn.format("ecr", f"repository/hotbench-{RUN_ID}-worker"),
        arn.format("ecr", f"repository/hotbench-{RUN_ID}-gone"),
    ]
    tagging = boto3.client("resourcegroupstaggingapi")
    stub = Stubber(tagging)
    stub.add_response(
        "get_resources",
        {"ResourceTagMappingList": [{"ResourceARN": a, "Tags": TAG} for a in listed]},
        {
            "TagFilters": [{"Key": "hotbench:run-id", "Values": [RUN_ID]}],
            "ResourceTypeFilters": RESOURCE_TYPES,
            "ResourcesPerPage": 100,
        },
    )
    clients: dict[str, Any] = {"resourcegroupstaggingapi": tagging}

    def client(name: str) -> Any:
        return clients.get(name) or boto3.client(name)

    with stub:
        leftovers = sweep(client, "hotbench:run-id", RUN_ID, "us-east-1")
    assert [(x.kind, x.delete_command) for x in leftovers] == [
        (
            "logs:log-group",
            f"aws logs delete-log-group --log-group-name /hotbench/{RUN_ID} --region us-east-1",
        ),
        (
            "ecr:repository",
            f"aws ecr delete-repository --repository-name hotbench-{RUN_ID}-worker --force "
            "--region us-east-1",
        ),
    ]


def test_a_dashboard_left_behind_is_found_by_name(aws: None) -> None:
    from console.targets.sweep import dashboard_leftover

    cloudwatch = boto3.client("cloudwatch")
    assert dashboard_leftover(cloudwatch, RUN_ID, "us-east-1") is None
    cloudwatch.put_dashboard(DashboardName=f"hotbench-{RUN_ID}", DashboardBody='{"widgets": []}')
    found = dashboard_leftover(cloudwatch, RUN_ID, "us-east-1")
    assert found is not None and found.delete_command.startswith(
        f"aws cloudwatch delete-dashboards --dashboard-names hotbench-{RUN_ID}"
    )
