"""After `terraform destroy`: find anything of the run still in the account, by its tag.

The Resource Groups Tagging API lists what carries (or recently carried) the run-id tag,
but it keeps listing deleted resources for a while, so each hit is confirmed by its own
service's Describe call before it is called a leftover
(https://docs.aws.amazon.com/resourcegroupstagging/latest/APIReference/API_GetResources.html).
IAM roles are not in the Tagging API: they are found with ListRoles + ListRoleTags.
CloudWatch dashboards carry no tags: the run's is looked up by name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from console.workflow.models import Leftover

RESOURCE_TYPES = [
    "dynamodb:table",
    "ecs:cluster",
    "ecs:task-definition",
    "ecs:task",
    "logs:log-group",
    "ecr:repository",
]
ROLE_PREFIX = "hotbench-"
"""The kit names every role `hotbench-<run_id>-...`: only those roles' tags are read
(ListRoleTags is one call per role; an account may have thousands)."""


def _error_code(exc: Exception) -> str:
    return str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))


def tagged_arns(tagging: Any, tag_key: str, run_id: str) -> list[str]:
    arns: list[str] = []
    paginator = tagging.get_paginator("get_resources")
    for page in paginator.paginate(
        TagFilters=[{"Key": tag_key, "Values": [run_id]}],
        ResourceTypeFilters=RESOURCE_TYPES,
        ResourcesPerPage=100,
    ):
        arns += [m["ResourceARN"] for m in page.get("ResourceTagMappingList", [])]
    return arns


def _name(arn: str) -> str:
    """Last part of an ARN's resource: table/NAME, cluster/NAME, log-group:NAME[:*]."""
    resource = arn.split(":", 5)[5] if arn.count(":") >= 5 else arn
    if resource.startswith("log-group:"):
        return resource.removeprefix("log-group:").removesuffix(":*")
    return resource.split("/", 1)[1] if "/" in resource else resource


class Confirmer:
    """Each kind's own Describe: does this ARN still exist (and cost)?"""

    def __init__(self, client: Callable[[str], Any], region: str) -> None:
        self.client = client
        self.region = region

    def check(self, arn: str) -> Leftover | None:
        service = arn.split(":")[2] if arn.count(":") >= 5 else ""
        resource = arn.split(":", 5)[5] if arn.count(":") >= 5 else ""
        name = _name(arn)
        r = f"--region {self.region}"
        if service == "dynamodb" and resource.startswith("table/"):
            try:
                table = self.client("dynamodb").describe_table(TableName=name)["Table"]
            except Exception as exc:
                if _error_code(exc) == "ResourceNotFoundException":
                    return None
                raise
            if table.get("TableStatus") == "DELETING":
                return None
            return Leftover(
                kind="dynamodb:table",
                id=arn,
                delete_command=f"aws dynamodb delete-table --table-name {name} {r}",
            )
        if service == "ecs" and resource.startswith("cluster/"):
            found = self.client("ecs").describe_clusters(clusters=[arn]).get("clusters", [])
            if not found or found[0].get("status") == "INACTIVE":
                return None
            return Leftover(
                kind="ecs:cluster",
                id=arn,
                delete_command=f"aws ecs delete-cluster --cluster {arn} {r}",
            )
        if service == "ecs" and resource.startswith("task-definition/"):
            try:
                td = self.client("ecs").describe_task_definition(taskDefinition=arn)
            except Exception as exc:
                if _error_code(exc) in ("ClientException", "InvalidParameterException"):
                    return None
                raise
            if td["taskDefinition"].get("status") in ("INACTIVE", "DELETE_IN_PROGRESS"):
                return None
            return Leftover(
                kind="ecs:task-definition",
                id=arn,
                delete_command=f"aws ecs deregister-task-definition --task-definition {arn} {r}",
            )
        if service == "ecs" and resource.startswith("task/"):
            cluster = resource.split("/")[1] if resource.count("/") >= 2 else None
            if cluster is None:
                return None
            tasks = self.client("ecs").describe_tasks(cluster=cluster, tasks=[arn]).get("tasks", [])
            if not tasks or tasks[0].get("lastStatus") == "STOPPED":
                return None
            return Leftover(
                kind="ecs:task",
                id=arn,
                delete_command=f"aws ecs stop-task --cluster {cluster} --task {arn} {r}",
            )
        if service == "logs":
            groups = self.client("logs").describe_log_groups(logGroupNamePrefix=name)
            if not any(g.get("logGroupName") == name for g in groups.get("logGroups", [])):
                return None
            return Leftover(
                kind="logs:log-group",
                id=arn,
                delete_command=f"aws logs delete-log-group --log-group-name {name} {r}",
            )
        if service == "ecr":
            try:
                self.client("ecr").describe_repositories(repositoryNames=[name])
            except Exception as exc:
                if _error_code(exc) == "RepositoryNotFoundException":
                    return None
                raise
            return Leftover(
                kind="ecr:repository",
                id=arn,
                delete_command=f"aws ecr delete-repository --repository-name {name} --force {r}",
            )
        # A kind we cannot confirm: listed, never silently dropped.
        return Leftover(
            kind=f"{service}:unconfirmed",
            id=arn,
            delete_command=(
                f"aws resourcegroupstaggingapi get-resources --resource-arn-list {arn} {r}"
            ),
        )


def role_leftovers(iam: Any, tag_key: str, run_id: str) -> list[Leftover]:
    out = []
    for page in iam.get_paginator("list_roles").paginate():
        for role in page.get("Roles", []):
            name = role["RoleName"]
            if not name.startswith(ROLE_PREFIX):
                continue
            tags = iam.list_role_tags(RoleName=name).get("Tags", [])
            if any(t["Key"] == tag_key and t["Value"] == run_id for t in tags):
                out.append(
                    Leftover(
                        kind="iam:role",
                        id=role["Arn"],
                        delete_command=(
                            f"for p in $(aws iam list-role-policies --role-name {name} "
                            "--query PolicyNames --output text); do aws iam delete-role-policy "
                            f"--role-name {name} --policy-name $p; done; for a in $(aws iam "
                            f"list-attached-role-policies --role-name {name} --query "
                            "AttachedPolicies[].PolicyArn --output text); do aws iam "
                            f"detach-role-policy --role-name {name} --policy-arn $a; done; "
                            f"aws iam delete-role --role-name {name}"
                        ),
                    )
                )
    return out


def dashboard_leftover(cloudwatch: Any, run_id: str, region: str) -> Leftover | None:
    name = f"hotbench-{run_id}"
    try:
        cloudwatch.get_dashboard(DashboardName=name)
    except Exception as exc:
        if _error_code(exc) in ("ResourceNotFound", "ResourceNotFoundException"):
            return None
        raise
    return Leftover(
        kind="cloudwatch:dashboard",
        id=name,
        delete_command=(
            f"aws cloudwatch delete-dashboards --dashboard-names {name} --region {region}"
        ),
    )


def sweep(client: Callable[[str], Any], tag_key: str, run_id: str, region: str) -> list[Leftover]:
    """Everything of the run still there, each confirmed; empty means nothing left."""
    confirmer = Confirmer(client, region)
    leftovers = [
        found
        for arn in tagged_arns(client("resourcegroupstaggingapi"), tag_key, run_id)
        if (found := confirmer.check(arn)) is not None
    ]
    leftovers += role_leftovers(client("iam"), tag_key, run_id)
    dash = dashboard_leftover(client("cloudwatch"), run_id, region)
    if dash is not None:
        leftovers.append(dash)
    return leftovers
