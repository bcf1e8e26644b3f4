"""The AWS rehearsal: the AWS target's steps end to end against moto in server mode (ECS,
EC2, IAM, STS, ECR, CloudWatch, Logs, Tagging, SSM, Scheduler) and the emulator for
DynamoDB, with Terraform replaced by tests/targets/fake_stack.py and AWS's documented
behaviours added by tests/targets/faults.py. Both servers run in threads of the test
process, so a detached reaper or worker reaches them through the environment like a
real one reaches AWS.

moto enforces IAM: the run (the console, its Terraform, its reaper) acts as a user that
holds exactly the shipped operator policy (console.targets.preflight.operator_policy), in
an account that never used ECS, so any action outside the policy fails the case as it
would fail a first run. The tests' own look-ups use an administrator (`admin`).
What this does not prove: docs/terraform.md ("The rehearsal").
"""

from __future__ import annotations

import json
import logging
import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest

from console.run import processes
from console.run.settings import Settings
from console.run.state import StateStore
from console.targets.preflight import operator_policy
from emulator.emulator_options import EmulatorOptions
from tests.fakes.fake_lambda import LambdaStandIn
from tests.targets.faults import (
    Backstop,
    CodeBuild,
    Fargate,
    LambdaFaults,
    aws_quotas,
    enforce_iam,
    service_linked_roles,
    updates_one_at_a_time,
)

ROOT = Path(__file__).resolve().parents[2]
FAKE_STACK = ROOT / "tests" / "targets" / "fake_stack.py"
FAKE_BUILDER = ROOT / "tests" / "targets" / "fake_builder.py"
GIVEN_IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/hotbench-worker@sha256:" + "e" * 64

TINY = """\
name: tiny
tables:
  - name: hot
    partition_key: {name: pk}
    billing_mode: PROVISIONED
    read_capacity: 100
    write_capacity: 1000
load:
  attributes:
    pk: {dist: uniform, count: 100, format: "k{:03d}"}
  phases:
    - {name: w, operation: put, rate: 60, duration_s: 2}
  runs:
    - {table: hot}
"""


@dataclass
class Rehearsal:
    settings: Settings
    fargate: Fargate
    playbook: Path
    store: StateStore
    dynamodb_endpoint: str
    aws_endpoint: str
    codebuild: CodeBuild
    builder_log: Path
    """Each call of the fake container engine (fake_builder.py), one JSON line."""
    stack_log: Path
    """Each command of the fake Terraform (fake_stack.py), one JSON line."""
    backstop: Backstop
    operator_arn: str
    """The identity the run acts as: a user holding exactly the operator policy."""
    admin_keys: dict[str, str]
    emulator: Any
    """The DynamoDB endpoint (emulator.server.EmulatorServer): `skip(s)` moves its clock."""
    operator_keys: dict[str, str]
    lambdas: LambdaFaults
    """Lambda's invocations, run by the stand-in (tests/fakes/fake_lambda.py)."""

    def lambda_settings(self) -> Settings:
        """The settings of a run on the Lambda fleet (the cases' default is ECS's)."""
        return self.settings.model_copy(update={"fleet": "lambda", "worker_image": None})

    def admin(self, service: str) -> Any:
        """A client as the account's administrator, for the tests' own look-ups."""
        return boto3.client(service, region_name="us-east-1", **self.admin_keys)

    def stack_calls(self) -> list[dict[str, Any]]:
        if not self.stack_log.exists():
            return []
        return [json.loads(line) for line in self.stack_log.read_text().splitlines()]


def iam_users(endpoint: str) -> tuple[dict[str, str], dict[str, str], str]:
    """(administrator keys, operator keys, operator ARN), made before IAM is enforced:
    the operator holds the shipped operator policy and nothing else."""
    iam = boto3.client(
        "iam",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    keys = {}
    for user, policy in (
        (
            "admin",
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}],
            },
        ),
        ("operator", operator_policy()),
    ):
        arn = iam.create_user(UserName=user)["User"]["Arn"]
        iam.put_user_policy(UserName=user, PolicyName=user, PolicyDocument=json.dumps(policy))
        key = iam.create_access_key(UserName=user)["AccessKey"]
        keys[user] = (
            {
                "aws_access_key_id": key["AccessKeyId"],
                "aws_secret_access_key": key["SecretAccessKey"],
            },
            arn,
        )
    return keys["admin"][0], keys["operator"][0], keys["operator"][1]


def fake_wheels(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Lambda package's dependencies without PyPI: the rehearsal's invocations run the
    handler from this checkout (tests/fakes/fake_lambda.py), so the zip only has to be one
    (its building, with a fake pip: tests/targets/test_lambda_fleet.py)."""
    from console.targets.fleets import lambda_package

    def dependencies(cache: Path, architecture: str, say: Any, *args: Any) -> Path:
        site = cache / f"fake-deps-{architecture}"
        site.mkdir(parents=True, exist_ok=True)
        (site / "fake_dependency.py").write_text("# stands for the pinned wheels\n")
        return site

    monkeypatch.setattr(lambda_package, "dependencies", dependencies)


@pytest.fixture
def rehearsal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Rehearsal]:
    from moto.server import ThreadedMotoServer

    from emulator.server import EmulatorServer

    for name in list(os.environ):
        if name.startswith("AWS_") or name.startswith("HOTBENCH_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOTBENCH_PURE", "1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    aws_quotas(monkeypatch)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's request log
    moto = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    moto.start()
    host, port = moto.get_host_and_port()
    aws_endpoint = f"http://{host}:{port}"
    admin_keys, operator_keys, operator_arn = iam_users(aws_endpoint)
    # the run's identity: the operator, in every process it starts
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", operator_keys["aws_access_key_id"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", operator_keys["aws_secret_access_key"])
    # the tests' own boto3.client(...) look-ups: the administrator
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    boto3.setup_default_session(region_name="us-east-1", **admin_keys)
    enforce_iam(monkeypatch)
    service_linked_roles(monkeypatch)
    updates_one_at_a_time(monkeypatch)
    emulator = EmulatorServer(EmulatorOptions(scale=1.0, create_delay_s=0), port=0)
    emulator.__enter__()
    dynamodb = str(emulator.endpoint_url)
    # The SDKs' service-specific endpoints: every AWS call to moto, DynamoDB's to the
    # emulator (https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html)
    monkeypatch.setenv("AWS_ENDPOINT_URL", aws_endpoint)
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", dynamodb)
    fargate = Fargate(worker_env={"AWS_ENDPOINT_URL_DYNAMODB": dynamodb})
    fargate.install(monkeypatch)
    lambdas = LambdaFaults(LambdaStandIn(worker_env={"AWS_ENDPOINT_URL_DYNAMODB": dynamodb}))
    lambdas.install(monkeypatch)
    fake_wheels(monkeypatch)
    codebuild = CodeBuild()
    codebuild.install(monkeypatch)
    from console.targets import codebuild as codebuild_polls

    monkeypatch.setattr(codebuild_polls, "POLL_S", 0.0)  # the fault layer counts polls
    script = tmp_path / "bin" / "terraform"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_STACK} "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    # a container engine on PATH (none is installed here): the fake records and pushes
    engines = tmp_path / "engines"
    engines.mkdir()
    docker = engines / "docker"
    docker.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_BUILDER} "$@"\n')
    docker.chmod(docker.stat().st_mode | stat.S_IXUSR)
    builder_log = tmp_path / "builder.jsonl"
    monkeypatch.setenv("FAKE_BUILDER_LOG", str(builder_log))
    stack_log = tmp_path / "stack.jsonl"
    monkeypatch.setenv("FAKE_STACK_LOG", str(stack_log))
    monkeypatch.setenv("PATH", f"{engines}{os.pathsep}{os.environ.get('PATH', '')}")
    playbook = tmp_path / "tiny.yaml"
    playbook.write_text(TINY)
    settings = Settings(
        target="aws",
        # the ECS fleet's cases; the Lambda fleet's set fleet="lambda"
        fleet="ecs",
        region="us-east-1",
        runs_dir=tmp_path / "runs",
        terraform_binary=str(script),
        owner="dev@example.com",
        terraform_plugin_cache=tmp_path / "terraform-cache",
        reaper_retry_s=0.5,
        # the cases of test_rehearsal.py run a given image (one apply, no build): the
        # build paths are test_image_build.py's, which unset it
        worker_image=GIVEN_IMAGE,
    )
    store = StateStore(settings.runs_dir)
    try:
        yield Rehearsal(
            settings,
            fargate,
            playbook,
            store,
            dynamodb,
            aws_endpoint,
            codebuild,
            builder_log,
            stack_log,
            Backstop(),
            operator_arn,
            admin_keys,
            emulator,
            operator_keys,
            lambdas,
        )
    finally:
        lambdas.standin.close()
        for state in store.all_runs():
            if state.reaper_pid is not None:
                processes.stop(state.reaper_pid, state.run_id)
        fargate.close()
        emulator.__exit__(None, None, None)
        import urllib.request

        # moto's backends live in this process: a failed case must not leave the next
        # one's names taken
        urllib.request.urlopen(
            urllib.request.Request(f"{aws_endpoint}/moto-api/reset", method="POST"), timeout=10
        )
        moto.stop()
