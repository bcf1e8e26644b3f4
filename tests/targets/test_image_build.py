"""The worker image of an AWS run: built by a container engine on PATH (a fake one that
records its argv and pushes into moto's ECR), or inside the account by CodeBuild (moto
plus the fault layer's documented build phases), or given; pinned by digest in the state
and the task definition; priced; swept. Errors: exit codes of console/exitcodes.py."""

from __future__ import annotations

import io
import json
import os
import sys
import zipfile
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from console import exitcodes
from console.run.errors import StateError
from console.targets import target_for
from console.targets.image_builders import ImageBuildFailed, find_local_builder
from console.targets.worker_image import BuildContext, ImagePlan, build_image, resolve_given
from console.targets.worker_source import source_archive
from console.workflow import AwsDenied, ConfigError, CredentialsError, Hooks, UpOptions, down, up
from console.workflow.steps import build_image as build_image_step
from tests.targets.conftest import FAKE_BUILDER
from tests.targets.conftest import Rehearsal as GivenImageRehearsal
from tests.targets.faults import BUILD_PHASES, CodeBuild
from tests.targets.test_rehearsal import leftovers_in_moto

RUN_ID = "hb-image"
DIGEST = "sha256:" + "ab" * 32


@pytest.fixture
def rehearsal(rehearsal: GivenImageRehearsal) -> GivenImageRehearsal:
    """The rehearsal without its given image: `up` must build one."""
    rehearsal.settings = rehearsal.settings.model_copy(update={"worker_image": None})
    return rehearsal


Rehearsal = GivenImageRehearsal


def hooks(said: list[str]) -> Hooks:
    return Hooks(say=said.append, confirm=lambda _q: True)


def builder_calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def task_image(arn: str) -> str:
    described = boto3.client("ecs").describe_task_definition(taskDefinition=arn)
    return str(described["taskDefinition"]["containerDefinitions"][0]["image"])


# -- the sources -----------------------------------------------------------------------


def test_the_source_archive_is_the_dockerfiles_context_and_the_same_bytes_twice() -> None:
    first, second = source_archive(), source_archive()
    assert first.sha256 == second.sha256 and first.data == second.data
    names = set(zipfile.ZipFile(io.BytesIO(first.data)).namelist())
    for needed in (
        "loadgen/Dockerfile",
        "loadgen/requirements-worker.txt",
        "loadgen/live/worker.py",
        "emulator/__init__.py",
        "pyproject.toml",
    ):
        assert needed in names
    assert not any("__pycache__" in n or n.endswith((".pyc", ".so")) for n in names)
    assert first.tag == f"src-{first.sha256[:12]}"


# -- a local engine --------------------------------------------------------------------


@pytest.mark.e2e  # a whole up on the rehearsal: ~15 s
def test_up_builds_with_the_engine_on_path_and_pins_the_digest(rehearsal: Rehearsal) -> None:
    """No image given: `up` builds for the task's architecture with the engine on PATH,
    logs in with an ECR token on stdin, pushes, and the state and the task definition
    name the image by digest; the first revision (`:latest`) is deleted, not left."""
    said: list[str] = []
    state = up(
        str(rehearsal.playbook),
        rehearsal.settings,
        hooks(said),
        UpOptions(workers=1, cpu_architecture="ARM64"),
        RUN_ID,
    )
    calls = builder_calls(rehearsal.builder_log)
    assert [c["argv"][0] for c in calls] == ["build", "login", "push"]
    build, login, push = calls
    assert build["argv"][build["argv"].index("--platform") + 1] == "linux/arm64"
    assert build["argv"][build["argv"].index("-f") + 1].endswith("loadgen/Dockerfile")
    # the token arrives on stdin, never in argv (which other users of the machine see)
    assert login["stdin"] and login["argv"][:4] == [
        "login",
        "--username",
        "AWS",
        "--password-stdin",
    ]
    archive = source_archive()
    assert state.terraform is not None and state.terraform.outputs is not None
    repo = state.terraform.outputs["ecr_repository_url"]
    assert push["argv"][1] == f"{repo}:{archive.tag}"
    assert state.image is not None and state.image.builder == "docker"
    assert state.image.reference == f"{repo}@{state.image.digest}"
    assert state.image.digest.startswith("sha256:") and state.image.size_bytes
    assert state.terraform.variables["worker_image"] == state.image.reference
    assert task_image(state.terraform.outputs["task_definition_arn"]) == state.image.reference
    first = state.terraform.outputs["task_definition_arn"].rsplit(":", 1)[0] + ":1"
    assert boto3.client("ecs").list_task_definitions(status="INACTIVE")["taskDefinitionArns"] in (
        [],
        [first],  # moto keeps a deleted revision listed INACTIVE; AWS: DELETE_IN_PROGRESS
    )
    # `hotbench image build --reuse`: the sources' tag is there, the engine is not called
    pinned = build_image_step(RUN_ID, rehearsal.settings, hooks(said), rebuild=False)
    assert len(builder_calls(rehearsal.builder_log)) == 3
    assert pinned.image is not None and pinned.image.digest == state.image.digest
    # `hotbench image build`: built and pushed again, the same sources pin the same digest
    again = build_image_step(RUN_ID, rehearsal.settings, hooks(said), rebuild=True)
    assert [c["argv"][0] for c in builder_calls(rehearsal.builder_log)[3:]] == [
        "build",
        "login",
        "push",
    ]
    assert again.image is not None and again.image.digest == state.image.digest
    report = down(RUN_ID, rehearsal.settings, hooks(said))
    assert report.nothing_left, report.leftovers
    assert leftovers_in_moto(RUN_ID) == []


def test_a_failing_engine_is_exit_7_with_its_own_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = tmp_path / "docker"
    engine.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_BUILDER} "$@"\n')
    engine.chmod(0o755)
    monkeypatch.setenv("FAKE_BUILDER_LOG", str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv("FAKE_BUILDER_FAIL", "build")
    builder = find_local_builder("docker", lambda _line: None, lambda _n: str(engine))
    assert builder is not None
    ecr = client("ecr")
    with Stubber(ecr) as stub:
        stub.add_client_error("describe_images", "ImageNotFoundException")
        stub.add_response(
            "get_authorization_token",
            {
                "authorizationData": [
                    {
                        "authorizationToken": "QVdTOnNlY3JldA==",
                        "proxyEndpoint": "https://123456789012.dkr.ecr.us-east-1.amazonaws.com",
                    }
                ]
            },
        )
        with pytest.raises(ImageBuildFailed) as failed:
            build_image(ImagePlan("local", builder), stubbed_context({"ecr": ecr}), rebuild=False)
    assert failed.value.code == exitcodes.INFRA_FAILED
    message = str(failed.value)
    assert "docker build failed (exit 1)" in message
    assert "refused by the fake engine" in message and "--image-builder codebuild" in message
    calls = builder_calls(tmp_path / "calls.jsonl")
    assert [c["argv"][0] for c in calls] == ["build"]  # nothing pushed after a failed build


def test_an_engine_named_but_missing_is_a_setting_to_fix(tmp_path: Path) -> None:
    from console.run.settings import Settings
    from console.targets.worker_image import image_plan

    settings = Settings(target="aws", image_builder="podman", runs_dir=tmp_path)
    with pytest.raises(ConfigError) as refused:
        image_plan(settings, lambda _line: None)
    assert refused.value.code == exitcodes.USAGE
    assert "no `podman` is on PATH" in str(refused.value) or "podman info" in str(refused.value)


def test_a_cli_without_its_engine_is_passed_over(tmp_path: Path) -> None:
    """A docker CLI with no daemon (as on this machine) is not "a builder present"."""
    cli = tmp_path / "docker"
    cli.write_text("#!/bin/sh\necho 'Cannot connect to the Docker daemon' >&2\nexit 1\n")
    cli.chmod(0o755)
    said: list[str] = []
    found = find_local_builder(None, said.append, lambda n: str(cli) if n == "docker" else None)
    assert found is None
    assert "docker is on PATH but its engine does not answer" in said[0]
    assert "Cannot connect to the Docker daemon" in said[0]


# -- in the account --------------------------------------------------------------------


def without_engines(monkeypatch: pytest.MonkeyPatch) -> None:
    """PATH as the machine has it, without the fake engine (and no real one here)."""
    path = os.pathsep.join(
        p for p in os.environ["PATH"].split(os.pathsep) if not p.endswith("engines")
    )
    monkeypatch.setenv("PATH", path)
    if find_local_builder(say=lambda _line: None) is not None:
        pytest.skip("a working container engine is on this machine's PATH")


@pytest.mark.e2e  # a whole up on the rehearsal: ~12 s
def test_without_an_engine_codebuild_builds_it_from_the_s3_archive(
    rehearsal: Rehearsal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No docker, podman or finch: the kit creates the build project and bucket, `up`
    uploads the archive, builds with the sources' tag, pins the pushed digest (after a
    failed first build, on the resumed `up`); `down` removes project, bucket and images,
    and the sweep confirms it."""
    without_engines(monkeypatch)
    said: list[str] = []
    # the first build fails in its BUILD phase: `up` stops with the phase and the log
    rehearsal.codebuild.fail_phase = "BUILD"
    with pytest.raises(ImageBuildFailed, match="ended FAILED in phase BUILD"):
        up(str(rehearsal.playbook), rehearsal.settings, hooks(said), UpOptions(workers=1), RUN_ID)
    failed = rehearsal.store.load(RUN_ID)
    assert failed.image is None and failed.billable_up  # the stack stands, recorded
    # fixed: the same `up --run` resumes it, builds again and pins
    rehearsal.codebuild.fail_phase = None
    state = up(
        str(rehearsal.playbook), rehearsal.settings, hooks(said), UpOptions(workers=1), RUN_ID
    )
    assert len(rehearsal.codebuild.started) == 2
    assert builder_calls(rehearsal.builder_log) == []
    assert state.terraform is not None and state.terraform.outputs is not None
    assert state.terraform.variables["image_build"] is True
    outputs = state.terraform.outputs
    archive = source_archive()
    started = rehearsal.codebuild.started[-1]
    assert started["env"]["IMAGE_TAG"] == archive.tag
    assert started["source"] == f"{outputs['image_source_bucket']}/{archive.key}"
    stored = boto3.client("s3").get_object(Bucket=outputs["image_source_bucket"], Key=archive.key)
    assert stored["Body"].read() == archive.data
    assert state.image is not None and state.image.builder == "codebuild"
    assert state.image.build_id and state.image.source_bytes == len(archive.data)
    assert task_image(outputs["task_definition_arn"]) == state.image.reference
    assert any("CodeBuild build" in line for line in said)
    # priced before it started, through the cost record: 5 minutes at $0.005 and storage
    priced = [x for x in said if x.startswith("image: built in the account by CodeBuild;")][-1]
    assert "estimated at $0.03 until the run's deadline" in priced
    assert "image build (CodeBuild) $0.0250" in priced
    # before down: the sweep sees the project and the bucket
    kinds = {x.kind for x in target_for(state, rehearsal.settings).sweep(state)}
    assert {"codebuild:project", "s3:bucket"} <= kinds
    report = down(RUN_ID, rehearsal.settings, hooks(said))
    assert report.nothing_left, report.leftovers
    assert boto3.client("codebuild").list_projects()["projects"] == []
    assert not [b for b in boto3.client("s3").list_buckets()["Buckets"] if RUN_ID in b["Name"]]


def test_a_failed_codebuild_build_names_its_phase_and_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """moto in this process (no server), with the fault layer's build phases."""
    from moto import mock_aws

    from console.targets import codebuild as codebuild_polls

    for name, value in (("AWS_ACCESS_KEY_ID", "x"), ("AWS_SECRET_ACCESS_KEY", "x")):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    monkeypatch.setattr(codebuild_polls, "POLL_S", 0.0)
    fault = CodeBuild(fail_phase="BUILD")
    fault.install(monkeypatch)
    with mock_aws():
        clients = {s: client(s) for s in ("ecr", "s3", "codebuild")}
        repo = clients["ecr"].create_repository(repositoryName="hotbench-x-worker")["repository"]
        clients["s3"].create_bucket(Bucket="hotbench-x-src-123456789012")
        clients["codebuild"].create_project(
            name="hotbench-x-image",
            source={"type": "S3", "location": "hotbench-x-src-123456789012/worker-source/"},
            artifacts={"type": "NO_ARTIFACTS"},
            environment={
                "type": "LINUX_CONTAINER",
                "image": "aws/codebuild/amazonlinux2-x86_64-standard:5.0",
                "computeType": "BUILD_GENERAL1_SMALL",
                "environmentVariables": [
                    {"name": "REPOSITORY_URI", "value": repo["repositoryUri"]}
                ],
            },
            serviceRole="arn:aws:iam::123456789012:role/hotbench-x-build",
        )
        with pytest.raises(ImageBuildFailed) as failed:
            build_image(ImagePlan("codebuild"), stubbed_context(clients), rebuild=False)
    assert failed.value.code == exitcodes.INFRA_FAILED
    message = str(failed.value)
    assert "ended FAILED in phase BUILD (FAILED: COMMAND_EXECUTION_ERROR" in message
    assert "its log: https://" in message and "hotbench image build" in message
    # the phases went by one poll each, as a real build's do
    assert fault.started[0]["polls"] == BUILD_PHASES.index("BUILD")


# -- given, denied, no credentials (Stubber: no server) --------------------------------


def test_a_given_image_is_pinned_by_digest_or_refused() -> None:
    by_digest = f"public.ecr.aws/acme/worker@{DIGEST}"
    assert resolve_given(by_digest, lambda _r: None).reference == by_digest
    ecr = boto3.client(
        "ecr", region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    with Stubber(ecr) as stub:
        stub.add_response(
            "describe_images",
            {"imageDetails": [{"imageDigest": DIGEST, "imageSizeInBytes": 9}]},
            {
                "repositoryName": "team/worker",
                "imageIds": [{"imageTag": "v3"}],
                "registryId": "123456789012",
            },
        )
        given = resolve_given(
            "123456789012.dkr.ecr.eu-west-1.amazonaws.com/team/worker:v3", {"eu-west-1": ecr}.get
        )
    assert given.reference == f"123456789012.dkr.ecr.eu-west-1.amazonaws.com/team/worker@{DIGEST}"
    with pytest.raises(ConfigError) as refused:
        resolve_given("python:3.11-slim", lambda _r: None)
    assert refused.value.code == exitcodes.USAGE and "NAME@sha256:DIGEST" in str(refused.value)


def stubbed_context(clients: dict[str, Any]) -> BuildContext:
    return BuildContext(
        repository_url="123456789012.dkr.ecr.us-east-1.amazonaws.com/hotbench-x-worker",
        architecture="X86_64",
        region="us-east-1",
        client=clients.__getitem__,
        say=lambda _line: None,
        codebuild_project="hotbench-x-image",
        source_bucket="hotbench-x-src-123456789012",
    )


def client(service: str) -> Any:
    return boto3.client(
        service, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )


def test_no_engine_and_no_codebuild_permission_is_exit_4_naming_the_fixes() -> None:
    ecr, s3, codebuild = client("ecr"), client("s3"), client("codebuild")
    with Stubber(ecr) as e, Stubber(s3) as s, Stubber(codebuild) as c:
        e.add_client_error("describe_images", "ImageNotFoundException")
        s.add_response("put_object", {})
        c.add_client_error(
            "start_build",
            "AccessDeniedException",
            "User: arn:aws:iam::123456789012:user/dev is not authorized to perform: "
            "codebuild:StartBuild on resource: project/hotbench-x-image",
        )
        with pytest.raises(AwsDenied) as denied:
            build_image(
                ImagePlan("codebuild"),
                stubbed_context({"ecr": ecr, "s3": s3, "codebuild": codebuild}),
                rebuild=False,
            )
    assert denied.value.code == exitcodes.AWS_REFUSED
    message = str(denied.value)
    assert "codebuild:StartBuild" in message
    assert "install one of docker, podman, finch" in message and "HOTBENCH_WORKER_IMAGE" in message


@pytest.mark.usefixtures("no_aws_credentials")
def test_missing_credentials_are_exit_2() -> None:
    ecr = boto3.Session().client("ecr", region_name="us-east-1")
    with pytest.raises(CredentialsError) as missing:
        build_image(ImagePlan("codebuild"), stubbed_context({"ecr": ecr}), rebuild=False)
    assert missing.value.code == exitcodes.USAGE and "no AWS credentials" in str(missing.value)


def test_image_build_of_a_local_run_is_exit_5(tmp_path: Path) -> None:
    from console.run.settings import Settings
    from console.run.state import RunState, StateStore

    settings = Settings(target="local", runs_dir=tmp_path / "runs")
    StateStore(settings.runs_dir).save(
        RunState(
            run_id="hb-local",
            target="local",
            region="us-east-1",
            playbook_path="p.yaml",
            playbook_name="p",
        )
    )
    with pytest.raises(StateError) as refused:
        build_image_step("hb-local", settings, Hooks())
    assert refused.value.code == exitcodes.WRONG_STATE and "no image" in str(refused.value)


# -- what the preflight asks, what the sweep confirms -------------------------------------


def test_the_permission_check_asks_for_the_path_the_run_takes(tmp_path: Path) -> None:
    from console.run.settings import Settings
    from console.targets.preflight import actions_for, all_actions

    base = Settings(target="aws", runs_dir=tmp_path, fleet="ecs")
    in_account = actions_for(base.model_copy(update={"image_builder": "codebuild"}))
    assert {"codebuild:StartBuild", "s3:PutObject", "ecr:PutImage"} <= set(in_account)
    given = actions_for(base.model_copy(update={"worker_image": f"r@{DIGEST}"}))
    assert not {"codebuild:StartBuild", "s3:PutObject", "ecr:PutImage"} & set(given)
    assert set(in_account) <= set(all_actions())  # the documented policy covers both


def test_the_sweep_calls_a_gone_project_or_bucket_gone() -> None:
    from console.targets.sweep import Confirmer

    codebuild, s3 = client("codebuild"), client("s3")
    with Stubber(codebuild) as c, Stubber(s3) as s:
        c.add_response("batch_get_projects", {"projects": [], "projectsNotFound": ["p"]})
        s.add_client_error("head_bucket", "404", http_status_code=404)
        confirmer = Confirmer({"codebuild": codebuild, "s3": s3}.__getitem__, "us-east-1")
        assert confirmer.check("arn:aws:codebuild:us-east-1:123456789012:project/p") is None
        assert confirmer.check("arn:aws:s3:::hotbench-x-src-123456789012") is None
