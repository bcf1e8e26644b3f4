"""The AWS kit's parts (the target itself: console/targets/aws.py): credentials, the
Terraform kit per run, the Fargate fleet of its outputs.

Each run gets its own copy of the kit (`runs/<id>/terraform/`), so its Terraform state
lives beside the run's state and `down` can destroy it from the run folder alone, even
after the repository changed.
"""

from __future__ import annotations

import dataclasses
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

from console.infra import DEFAULT_WORKDIR, HotbenchOutputs, TableOutput, Terraform
from console.infra.tf_exec import runner_from_env
from console.run.errors import StateError
from console.run.options import UpOptions
from console.run.settings import Settings
from console.run.state import RunState, TerraformState
from console.targets.awserrors import aws_errors
from loadgen.live.fleet import EcsFleet, EcsNetwork

RUN_TAG = "hotbench:run-id"
"""The tag the kit puts on everything of a run (docs/terraform.md); tasks carry it too."""


def session(settings: Settings) -> Any:
    import boto3

    with aws_errors("session", settings.region):
        return boto3.Session(profile_name=settings.aws_profile, region_name=settings.region)


def caller_identity(settings: Settings, boto_session: Any | None = None) -> str:
    """The caller's ARN: proves credentials exist and are valid before anything is made."""
    s = boto_session or session(settings)
    with aws_errors("sts:GetCallerIdentity", settings.region):
        arn: str = s.client("sts").get_caller_identity()["Arn"]
    return arn


def copy_stack(run_dir: Path, source: Path = DEFAULT_WORKDIR) -> Path:
    """The kit's root stack and modules, without any `.terraform` or state of its own."""
    target = run_dir / "terraform"
    if not target.exists():
        shutil.copytree(
            source,
            target,
            ignore=shutil.ignore_patterns(".terraform*", "*.tfstate*", "*.tfplan"),
        )
    return target


def tf_variables(
    state: RunState,
    settings: Settings,
    options: UpOptions,
    owner: str,
    variants: list[str],
    deadline: datetime,
) -> dict[str, Any]:
    variables: dict[str, Any] = {
        "run_id": state.run_id,
        "owner": owner,
        "expires_at": deadline.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": settings.region,
        "spec_file": str(Path(state.playbook_path).resolve()),
        "variants": variants,
        "task_count": options.workers,
        "task_cpu": options.task_cpu,
        "task_memory": options.task_memory,
        "cpu_architecture": options.cpu_architecture,
    }
    if settings.worker_image:
        variables["worker_image"] = settings.worker_image
    if settings.subnet_ids:
        variables["subnet_ids"] = list(settings.subnet_ids)
    if settings.security_group_ids:
        variables["security_group_ids"] = list(settings.security_group_ids)
    if settings.assign_public_ip is not None:
        variables["assign_public_ip"] = settings.assign_public_ip
    return variables


def terraform(tf: TerraformState, settings: Settings) -> Terraform:
    return Terraform(
        Path(tf.workdir), tf.variables, runner=runner_from_env(settings.terraform_binary)
    )


def outputs_to_json(outputs: HotbenchOutputs) -> dict[str, Any]:
    return dataclasses.asdict(outputs)


def outputs_from_state(state: RunState) -> HotbenchOutputs:
    if state.terraform is None or state.terraform.outputs is None:
        raise StateError(
            f"run {state.run_id} has no Terraform outputs: its `up` did not finish; "
            f"`hotbench up --run {state.run_id}` resumes it, `hotbench down "
            f"{state.run_id}` removes what exists"
        )
    raw = dict(state.terraform.outputs)
    raw["tables"] = {
        variant: TableOutput(
            variant=t["variant"], name=t["name"], arn=t["arn"], gsis=tuple(t["gsis"])
        )
        for variant, t in raw["tables"].items()
    }
    raw["subnets"] = tuple(raw.get("subnets") or ())
    raw["security_group_ids"] = tuple(raw.get("security_group_ids") or ())
    return HotbenchOutputs(**raw)


def make_fleet(state: RunState, outputs: HotbenchOutputs, ecs: Any) -> EcsFleet:
    """The Fargate fleet of the run's stack; every task tagged with the run id, its
    owner and its expiry (the kit's tags), so the sweep finds a task nobody stopped."""
    if not outputs.has_fleet or outputs.container_name is None:
        raise StateError(
            f"run {state.run_id}'s stack has no worker fleet (applied with "
            "create_fleet=false): nothing can run the load"
        )
    assert outputs.cluster_arn is not None and outputs.task_definition_arn is not None
    tags = {RUN_TAG: state.run_id}
    if state.terraform is not None:
        tags["hotbench:owner"] = str(state.terraform.variables.get("owner", ""))
        tags["hotbench:expires-at"] = str(state.terraform.variables.get("expires_at", ""))
    return EcsFleet(
        client=ecs,
        cluster=outputs.cluster_arn,
        task_definition=outputs.task_definition_arn,
        container=outputs.container_name,
        network=EcsNetwork(
            subnets=list(outputs.subnets),
            security_groups=list(outputs.security_group_ids)
            or ([outputs.security_group_id] if outputs.security_group_id else []),
            assign_public_ip=outputs.assign_public_ip,
        ),
        tags=tags,
    )


def named_resources(state: RunState) -> dict[str, str]:
    """What of the run the sweep also looks up by name (kind -> name): the in-account
    image build's project and source bucket, as the outputs or the image record name them."""
    outputs = (state.terraform.outputs or {}) if state.terraform else {}
    named: dict[str, str] = {}
    project = outputs.get("image_build_project")
    bucket = outputs.get("image_source_bucket") or (
        state.image.source_bucket if state.image else None
    )
    if project:
        named["codebuild:project"] = str(project)
    if bucket:
        named["s3:bucket"] = str(bucket)
    return named
