"""The AWS kit's parts (the target itself: console/targets/aws.py): credentials, the
Terraform kit per run, its outputs.

Each run gets its own copy of the kit (`runs/<id>/terraform/`) and of its playbook
(`runs/<id>/playbook.yaml`, the spec file the kit reads), so its Terraform state lives
beside the run's state and `down` can destroy it from the run folder alone, even after
the repository or the playbook changed.

Providers are not copied per run: every run's Terraform shares one plugin cache
(TF_PLUGIN_CACHE_DIR, `Settings.plugin_cache`), where the run folder's `.terraform` only
links to them, and one kept lock file, copied into each new run before `init`, so runs
after the first download nothing and all use the same provider build
(https://developer.hashicorp.com/terraform/cli/config/config-file#provider-plugin-cache).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

from console.infra import DEFAULT_WORKDIR, HotbenchOutputs, TableOutput, Terraform
from console.infra.tf_exec import runner_from_env
from console.run.errors import StateError
from console.run.settings import Settings
from console.run.state import RunState, TerraformState
from console.targets.awserrors import aws_errors

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


LOCK_FILE = ".terraform.lock.hcl"


def copy_stack(run_dir: Path, plugin_cache: Path, source: Path = DEFAULT_WORKDIR) -> Path:
    """The kit's root stack and modules, without any `.terraform` or state of its own,
    with the kept lock file (when an earlier run made one): the same provider build."""
    target = run_dir / "terraform"
    if not target.exists():
        shutil.copytree(
            source,
            target,
            ignore=shutil.ignore_patterns(".terraform*", "*.tfstate*", "*.tfplan"),
        )
    kept = plugin_cache / LOCK_FILE
    if kept.is_file() and not (target / LOCK_FILE).exists():
        shutil.copyfile(kept, target / LOCK_FILE)
    return target


def keep_lock_file(workdir: Path, plugin_cache: Path) -> None:
    """After the first `init` anywhere: its lock file becomes the one every later run
    starts from (the provider version and checksums it chose)."""
    made, kept = workdir / LOCK_FILE, plugin_cache / LOCK_FILE
    if made.is_file() and not kept.exists():
        plugin_cache.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(made, kept)


def forget_providers(workdir: Path) -> int:
    """Remove a destroyed run's `.terraform` (links into the cache, or, in run folders
    made before the cache, a copy of the provider of some 700 MB); its bytes."""
    folder = workdir / ".terraform"
    if not folder.is_dir():
        return 0
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink())
    shutil.rmtree(folder, ignore_errors=True)
    return size


def tf_variables(
    state: RunState,
    settings: Settings,
    owner: str,
    variants: list[str],
    deadline: datetime,
    workdir: Path,
) -> dict[str, Any]:
    """The run's Terraform variables every fleet shares (the fleet adds its own:
    console/targets/fleets/)."""
    return {
        "run_id": state.run_id,
        "owner": owner,
        "expires_at": deadline.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": settings.region,
        # the run's own copy, relative to the kit's copy beside it: Terraform reads it at
        # every plan, apply and destroy, so it must outlive the original
        "spec_file": os.path.relpath(state.playbook_path, workdir),
        "variants": variants,
    }


def terraform(tf: TerraformState, settings: Settings, boto_session: Any) -> Terraform:
    """The run's stack, run as the run's identity in its region (credentials.py), with
    the shared plugin cache."""
    from console.targets.credentials import terraform_environment

    (settings.plugin_cache / "plugins").mkdir(parents=True, exist_ok=True)
    env = terraform_environment(boto_session, settings.region, settings.plugin_cache)
    return Terraform(
        Path(tf.workdir), tf.variables, runner=runner_from_env(settings.terraform_binary, env)
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


def named_resources(state: RunState) -> dict[str, str]:
    """What of the run the sweep also looks up by name (kind -> name): the in-account
    image build's project and source bucket, as the outputs or the image record name them,
    and the backstop's schedule group."""
    outputs = (state.terraform.outputs or {}) if state.terraform else {}
    named: dict[str, str] = {}
    project = outputs.get("image_build_project")
    bucket = outputs.get("image_source_bucket") or (
        state.image.source_bucket if state.image else None
    )
    if project:
        named["codebuild:project"] = str(project)
    if outputs.get("backstop_group"):
        named["scheduler:schedule-group"] = str(outputs["backstop_group"])
    if bucket:
        named["s3:bucket"] = str(bucket)
    return named
