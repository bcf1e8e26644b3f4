"""The AWS rehearsal: the AWS target's steps end to end against moto in server mode (ECS,
EC2, IAM, STS, ECR, CloudWatch, Logs, Tagging, SSM) and the emulator for DynamoDB, with
Terraform replaced by tests/targets/fake_stack.py and Fargate's documented behaviours
added by tests/targets/faults.py. Both servers run in threads of the test process, so a
detached reaper or worker reaches them through the environment like a real one reaches
AWS. What this does not prove: docs/terraform.md ("The rehearsal").
"""

from __future__ import annotations

import logging
import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from console.run import processes
from console.run.settings import Settings
from console.run.state import StateStore
from tests.targets.faults import CodeBuild, Fargate, aws_quotas

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
    emulator = EmulatorServer(port=0, scale=1.0, create_delay_s=0)
    emulator.__enter__()
    dynamodb = str(emulator.endpoint_url)
    # The SDKs' service-specific endpoints: every AWS call to moto, DynamoDB's to the
    # emulator (https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html)
    monkeypatch.setenv("AWS_ENDPOINT_URL", aws_endpoint)
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", dynamodb)
    fargate = Fargate(worker_env={"AWS_ENDPOINT_URL_DYNAMODB": dynamodb})
    fargate.install(monkeypatch)
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
    monkeypatch.setenv("PATH", f"{engines}{os.pathsep}{os.environ.get('PATH', '')}")
    playbook = tmp_path / "tiny.yaml"
    playbook.write_text(TINY)
    settings = Settings(
        target="aws",
        region="us-east-1",
        runs_dir=tmp_path / "runs",
        terraform_binary=str(script),
        owner="dev@example.com",
        # the cases of test_rehearsal.py run a given image (one apply, no build): the
        # build paths are test_image_build.py's, which unset it
        worker_image=GIVEN_IMAGE,
    )
    store = StateStore(settings.runs_dir)
    try:
        yield Rehearsal(
            settings, fargate, playbook, store, dynamodb, aws_endpoint, codebuild, builder_log
        )
    finally:
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
