"""The stack's ``hotbench`` output as typed objects.

The console reads one JSON object (``terraform output -json``) rather than a dozen loose
outputs, so a missing or renamed field fails here, with a clear message, instead of deep
inside a RunTask call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from console.infra.tf_errors import TerraformError


@dataclass(frozen=True)
class TableOutput:
    """One variant table as created."""

    variant: str
    name: str
    arn: str
    gsis: tuple[str, ...]


@dataclass(frozen=True)
class HotbenchOutputs:
    """Everything the console needs to start workers and watch the tables."""

    run_id: str
    region: str
    tables: dict[str, TableOutput]
    results_table: str
    results_table_arn: str
    cluster_arn: str | None
    task_definition_arn: str | None
    container_name: str | None
    subnets: tuple[str, ...]
    security_group_id: str | None
    assign_public_ip: bool
    task_count: int
    dashboard_url: str | None
    ecr_repository_url: str | None
    security_group_ids: tuple[str, ...] = ()
    """The groups RunTask attaches: the given ones, or the kit's own (older stacks: none
    listed, `security_group_id` is used)."""
    image_build_project: str | None = None
    """The in-account image build's CodeBuild project (None: the kit made none)."""
    image_source_bucket: str | None = None
    """Its S3 bucket for the worker's source archive."""
    backstop_group: str | None = None
    """The backstop's EventBridge Scheduler group (modules/backstop; None: none made)."""
    backstop_role_arn: str | None = None
    """The role its schedules act as: the per-task StopTask schedules pass it too."""
    backstop_at: str | None = None
    """When the backstop acts (RFC 3339, UTC)."""
    lambda_function_name: str | None = None
    """The Lambda fleet's function (modules/lambda-fleet; None: the stack runs ECS)."""
    lambda_function_arn: str | None = None
    lambda_role_name: str | None = None
    lambda_log_group: str | None = None

    @property
    def has_fleet(self) -> bool:
        """Whether workers can be started (the stack was applied with create_fleet)."""
        return self.cluster_arn is not None and self.task_definition_arn is not None


def _require(obj: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in obj:
        raise TerraformError(f"terraform output: `{where}.{key}` is missing")
    return obj[key]


def parse_outputs(raw: Mapping[str, Any]) -> HotbenchOutputs:
    """Parse ``terraform output -json`` (all outputs) into :class:`HotbenchOutputs`."""
    if "hotbench" not in raw:
        raise TerraformError(
            "terraform output has no `hotbench` output: was `apply` run in this directory?"
        )
    value = raw["hotbench"].get("value") if isinstance(raw["hotbench"], Mapping) else None
    if not isinstance(value, Mapping):
        raise TerraformError("terraform output `hotbench` is not an object")
    tables_raw = _require(value, "tables", "hotbench")
    tables = {
        variant: TableOutput(
            variant=variant,
            name=str(_require(t, "name", f"hotbench.tables.{variant}")),
            arn=str(_require(t, "arn", f"hotbench.tables.{variant}")),
            gsis=tuple(str(g) for g in t.get("gsis") or ()),
        )
        for variant, t in tables_raw.items()
    }
    results = _require(value, "results_table", "hotbench")
    return HotbenchOutputs(
        run_id=str(_require(value, "run_id", "hotbench")),
        region=str(_require(value, "region", "hotbench")),
        tables=tables,
        results_table=str(_require(results, "name", "hotbench.results_table")),
        results_table_arn=str(_require(results, "arn", "hotbench.results_table")),
        cluster_arn=value.get("cluster_arn"),
        task_definition_arn=value.get("task_definition_arn"),
        container_name=value.get("container_name"),
        subnets=tuple(value.get("subnets") or ()),
        security_group_id=value.get("security_group_id"),
        security_group_ids=tuple(value.get("security_group_ids") or ()),
        assign_public_ip=bool(value.get("assign_public_ip", False)),
        task_count=int(value.get("task_count") or 1),
        dashboard_url=value.get("dashboard_url"),
        ecr_repository_url=value.get("ecr_repository_url"),
        image_build_project=value.get("image_build_project"),
        image_source_bucket=value.get("image_source_bucket"),
        backstop_group=value.get("backstop_group"),
        backstop_role_arn=value.get("backstop_role_arn"),
        backstop_at=value.get("backstop_at"),
        lambda_function_name=value.get("lambda_function_name"),
        lambda_function_arn=value.get("lambda_function_arn"),
        lambda_role_name=value.get("lambda_role_name"),
        lambda_log_group=value.get("lambda_log_group"),
    )
