"""After `terraform destroy`: find anything of the run still in the account, by its tag.

The Resource Groups Tagging API lists what carries (or recently carried) the run-id tag,
but it keeps listing deleted resources for a while, so each hit is confirmed by its own
service's Describe call before it is called a leftover
(https://docs.aws.amazon.com/resourcegroupstagging/latest/APIReference/API_GetResources.html).
IAM roles are not in the Tagging API: they are found with ListRoles + ListRoleTags.
CloudWatch dashboards carry no tags: the run's is looked up by name. A resource that is
gone by the time it is described (a cluster already deleted, a role deleted between two
calls, a task ECS forgot) is gone, never an error that hides what else is left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from console.run.models import Leftover
from console.targets.awserrors import error_code

RESOURCE_TYPES = [
    "dynamodb:table",
    "ecs:cluster",
    "ecs:task-definition",
    "ecs:task",
    "logs:log-group",
    "ecr:repository",
    "ec2:security-group",
    "ec2:vpc-endpoint",
    "codebuild:project",
    "s3",
    "lambda:function",
]
"""Every taggable type the kit creates (terraform/): tables, the ECS fleet's cluster, task
definition and tasks, its log group and image repository, the workers' security group,
the optional DynamoDB VPC endpoint, the in-account image build's CodeBuild project and S3
source bucket (`s3` is the Tagging API's filter for buckets), and the Lambda fleet's
function (its versions go with it; its log group and role are found as the others')."""
ROLE_PREFIX = "hotbench-"
"""The kit names every role `hotbench-<run_id>-...`: only those roles' tags are read
(ListRoleTags is one call per role; an account may have thousands)."""
GONE = {
    "ResourceNotFoundException",
    "ResourceNotFound",
    "ClusterNotFoundException",
    "RepositoryNotFoundException",
    "NoSuchEntity",
    "InvalidGroup.NotFound",
    "InvalidVpcEndpointId.NotFound",
    "InvalidParameterException",
    "ClientException",
    "NoSuchBucket",
    "404",
}
"""What each service answers for a resource that no longer exists (a task definition or
task ECS forgot answers ClientException / InvalidParameterException): gone, not an error."""


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
    """Each kind's own Describe: does this ARN still exist (and cost)? A service that
    answers "not found" (GONE) means gone; any other error propagates to the caller,
    which reports the sweep as failed rather than "nothing left"."""

    def __init__(self, client: Callable[[str], Any], region: str) -> None:
        self.client = client
        self.region = region

    def check(self, arn: str) -> Leftover | None:
        try:
            return self._check(arn)
        except Exception as exc:
            if error_code(exc) in GONE:
                return None
            raise

    def _check(self, arn: str) -> Leftover | None:
        service = arn.split(":")[2] if arn.count(":") >= 5 else ""
        resource = arn.split(":", 5)[5] if arn.count(":") >= 5 else ""
        name = _name(arn)
        r = f"--region {self.region}"
        if service == "dynamodb" and resource.startswith("table/"):
            table = self.client("dynamodb").describe_table(TableName=name)["Table"]
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
            td = self.client("ecs").describe_task_definition(taskDefinition=arn)
            if td["taskDefinition"].get("status") in ("INACTIVE", "DELETE_IN_PROGRESS"):
                # deregistered: free (`down` deletes it: AwsTarget._delete_task_definition)
                return None
            return Leftover(
                kind="ecs:task-definition",
                id=arn,
                delete_command=(
                    f"aws ecs deregister-task-definition --task-definition {arn} {r} && "
                    f"aws ecs delete-task-definitions --task-definitions {arn} {r}"
                ),
            )
        if service == "ecs" and resource.startswith("task/"):
            cluster = resource.split("/")[1] if resource.count("/") >= 2 else None
            if cluster is None:
                return None
            tasks = self.client("ecs").describe_tasks(cluster=cluster, tasks=[arn]).get("tasks", [])
            if not tasks or tasks[0].get("lastStatus") == "STOPPED":
                return None  # a MISSING failure: forgotten an hour after it stopped
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
            self.client("ecr").describe_repositories(repositoryNames=[name])
            images = self.client("ecr").list_images(repositoryName=name).get("imageIds", [])
            return Leftover(
                kind="ecr:repository",
                id=arn + (f" ({len(images)} image(s), billed for storage)" if images else ""),
                # --force: its images too (an image alone is billed for its storage)
                delete_command=f"aws ecr delete-repository --repository-name {name} --force {r}",
            )
        if service == "lambda" and resource.startswith("function:"):
            function = resource.split(":")[1]
            self.client("lambda").get_function(FunctionName=function)
            return Leftover(
                kind="lambda:function",
                id=arn,
                # every version of it goes with it
                delete_command=f"aws lambda delete-function --function-name {function} {r}",
            )
        if service == "codebuild":
            return self.codebuild_project(name)
        if service == "s3":
            return self.bucket(name)
        if service == "ec2" and resource.startswith("security-group/"):
            found = self.client("ec2").describe_security_groups(GroupIds=[name])
            if not found.get("SecurityGroups"):
                return None
            return Leftover(
                kind="ec2:security-group",
                id=arn,
                delete_command=f"aws ec2 delete-security-group --group-id {name} {r}",
            )
        if service == "ec2" and resource.startswith("vpc-endpoint/"):
            found = self.client("ec2").describe_vpc_endpoints(VpcEndpointIds=[name])
            live = [
                e
                for e in found.get("VpcEndpoints", [])
                if str(e.get("State", "")).lower() not in ("deleted", "deleting")
            ]
            if not live:
                return None
            return Leftover(
                kind="ec2:vpc-endpoint",
                id=arn,
                delete_command=f"aws ec2 delete-vpc-endpoints --vpc-endpoint-ids {name} {r}",
            )
        # A kind we cannot confirm: listed, never silently dropped.
        return Leftover(
            kind=f"{service}:unconfirmed",
            id=arn,
            delete_command=(
                f"aws resourcegroupstaggingapi get-resources --resource-arn-list {arn} {r}"
            ),
        )

    def codebuild_project(self, name: str) -> Leftover | None:
        found = self.client("codebuild").batch_get_projects(names=[name]).get("projects", [])
        if not found:
            return None  # listed in projectsNotFound
        return Leftover(
            kind="codebuild:project",
            id=str(found[0].get("arn") or name),
            delete_command=f"aws codebuild delete-project --name {name} --region {self.region}",
        )

    def schedule_group(self, name: str) -> Leftover | None:
        """The backstop's EventBridge Scheduler group (free, but it holds the schedules
        that would delete tables of this name at the deadline): looked up by name."""
        found = self.client("scheduler").get_schedule_group(Name=name)
        return Leftover(
            kind="scheduler:schedule-group",
            id=str(found.get("Arn") or name),
            # deleting a group deletes every schedule in it
            delete_command=(
                f"aws scheduler delete-schedule-group --name {name} --region {self.region}"
            ),
        )

    def bucket(self, name: str) -> Leftover | None:
        try:
            self.client("s3").head_bucket(Bucket=name)
        except Exception as exc:
            if error_code(exc) in GONE:
                return None
            raise
        return Leftover(
            kind="s3:bucket",
            id=f"arn:aws:s3:::{name}",
            # --force: the source archive in it too
            delete_command=f"aws s3 rb s3://{name} --force --region {self.region}",
        )


def role_leftovers(iam: Any, tag_key: str, run_id: str) -> list[Leftover]:
    out = []
    for page in iam.get_paginator("list_roles").paginate():
        for role in page.get("Roles", []):
            name = role["RoleName"]
            if not name.startswith(ROLE_PREFIX):
                continue
            try:
                tags = iam.list_role_tags(RoleName=name).get("Tags", [])
            except Exception as exc:
                if error_code(exc) in GONE:
                    continue  # deleted between ListRoles and ListRoleTags
                raise
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
        if error_code(exc) in GONE:
            return None
        raise
    return Leftover(
        kind="cloudwatch:dashboard",
        id=name,
        delete_command=(
            f"aws cloudwatch delete-dashboards --dashboard-names {name} --region {region}"
        ),
    )


def sweep(
    client: Callable[[str], Any],
    tag_key: str,
    run_id: str,
    region: str,
    named: dict[str, str] | None = None,
) -> list[Leftover]:
    """Everything of the run still there, each confirmed; empty means nothing left.
    `named`: kind -> name of resources the state knows by name (`codebuild:project`,
    `s3:bucket`, `scheduler:schedule-group`), looked up by name too: the Tagging API
    lists a bucket only once its tags have propagated, and a project whose tagging failed
    not at all; the backstop's schedule group is looked up by name only."""
    confirmer = Confirmer(client, region)
    arns = tagged_arns(client("resourcegroupstaggingapi"), tag_key, run_id)
    leftovers = [found for arn in arns if (found := confirmer.check(arn)) is not None]
    looks = {
        "codebuild:project": confirmer.codebuild_project,
        "s3:bucket": confirmer.bucket,
        "scheduler:schedule-group": confirmer.schedule_group,
    }
    for kind, name in (named or {}).items():
        look = looks[kind]
        try:
            found = look(name)
        except Exception as exc:
            if error_code(exc) in GONE:
                continue
            raise
        if found is not None and found.id not in {x.id for x in leftovers}:
            leftovers.append(found)
    leftovers += role_leftovers(client("iam"), tag_key, run_id)
    dash = dashboard_leftover(client("cloudwatch"), run_id, region)
    if dash is not None:
        leftovers.append(dash)
    return leftovers
