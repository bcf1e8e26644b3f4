"""Before money: may the caller do what the run will do, does the plan fit the account's
quotas, can the region run Fargate, and can the workers get a network?

Each finding names the action, quota or setting and the fix, and `up` creates nothing
while one blocks (`plan --target aws` prints them). Sources:
- IAM SimulatePrincipalPolicy answers, for a list of actions, whether the caller's
  policies allow each, before anything is created
  (https://docs.aws.amazon.com/IAM/latest/APIReference/API_SimulatePrincipalPolicy.html);
  the caller may not be allowed to call it, and then we say what we could not check.
- DynamoDB DescribeLimits gives the account's and a table's maximum provisioned capacity
  (defaults 80,000 / 40,000; a plan above them fails half way through an apply with
  LimitExceededException:
  https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeLimits.html).
- The public Systems Manager parameter
  `/aws/service/global-infrastructure/regions/<region>/services/fargate` exists where
  Fargate does (https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-public-parameters-global-infrastructure.html).
- Accounts made by landing zones often have no default VPC: without `subnet_ids` the kit
  would stop at its precondition after the tables exist.
"""

from __future__ import annotations

import json
from typing import Any

from console.run.errors import PreflightFailed
from console.run.models import PlanReport
from console.run.settings import Settings
from console.targets.awserrors import error_code
from console.targets.interface import Finding

__all__ = ["PreflightFailed", "operator_policy", "preflight"]

IN_ACCOUNT_BUILD = "the worker image built in the account (CodeBuild, its S3 source bucket)"
"""Only a run without a container engine and without HOTBENCH_WORKER_IMAGE calls these
(terraform/modules/image-build reads every bucket attribute the AWS provider refreshes)."""
PUSH = "the worker image (a push to the run's repository)"

OPERATOR_ACTIONS: dict[str, list[str]] = {
    "terraform: the tables and the results table": [
        "dynamodb:CreateTable",
        "dynamodb:DeleteTable",
        "dynamodb:DescribeTable",
        "dynamodb:DescribeContinuousBackups",
        "dynamodb:DescribeTimeToLive",
        "dynamodb:UpdateTimeToLive",
        "dynamodb:ListTagsOfResource",
        "dynamodb:TagResource",
        "dynamodb:UntagResource",
        "dynamodb:UpdateContributorInsights",
        "dynamodb:DescribeContributorInsights",
    ],
    "terraform: the fleet (cluster, task definition, roles, logs, image repository)": [
        "ecs:CreateCluster",
        "ecs:DeleteCluster",
        "ecs:DescribeClusters",
        "ecs:RegisterTaskDefinition",
        "ecs:DeregisterTaskDefinition",
        "ecs:DeleteTaskDefinitions",
        "ecs:DescribeTaskDefinition",
        "ecs:TagResource",
        "iam:CreateRole",
        "iam:DeleteRole",
        "iam:GetRole",
        "iam:TagRole",
        "iam:PutRolePolicy",
        "iam:GetRolePolicy",
        "iam:DeleteRolePolicy",
        "iam:ListRolePolicies",
        "iam:ListAttachedRolePolicies",
        "iam:ListInstanceProfilesForRole",
        "iam:PassRole",
        "logs:CreateLogGroup",
        "logs:DeleteLogGroup",
        "logs:DescribeLogGroups",
        "logs:PutRetentionPolicy",
        "logs:TagResource",
        "logs:ListTagsForResource",
        "ecr:CreateRepository",
        "ecr:DeleteRepository",
        "ecr:DescribeRepositories",
        "ecr:TagResource",
        "ecr:ListTagsForResource",
        "ecr:PutLifecyclePolicy",
        "ecr:GetLifecyclePolicy",
        "ecr:DeleteLifecyclePolicy",
        "ec2:DescribeVpcs",
        "ec2:DescribeSubnets",
        "ec2:DescribeRouteTables",
        "ec2:DescribeSecurityGroups",
        "ec2:CreateSecurityGroup",
        "ec2:DeleteSecurityGroup",
        "ec2:AuthorizeSecurityGroupEgress",
        "ec2:RevokeSecurityGroupEgress",
        "ec2:CreateTags",
        "ec2:DescribeVpcEndpoints",
        "ec2:DescribeNetworkInterfaces",
        "ec2:CreateVpcEndpoint",
        "ec2:DeleteVpcEndpoints",
        "cloudwatch:PutDashboard",
        "cloudwatch:GetDashboard",
        "cloudwatch:DeleteDashboards",
    ],
    "terraform and run: the backstop (EventBridge Scheduler, created first, removed last)": [
        "scheduler:CreateScheduleGroup",
        "scheduler:DeleteScheduleGroup",
        "scheduler:GetScheduleGroup",
        "scheduler:CreateSchedule",
        "scheduler:UpdateSchedule",
        "scheduler:DeleteSchedule",
        "scheduler:GetSchedule",
        "scheduler:TagResource",
        "scheduler:UntagResource",
        "scheduler:ListTagsForResource",
    ],
    PUSH: [
        "ecr:GetAuthorizationToken",
        "ecr:BatchCheckLayerAvailability",
        "ecr:InitiateLayerUpload",
        "ecr:UploadLayerPart",
        "ecr:CompleteLayerUpload",
        "ecr:PutImage",
        "ecr:DescribeImages",
        "ecr:BatchDeleteImage",
    ],
    IN_ACCOUNT_BUILD: [
        "codebuild:CreateProject",
        "codebuild:UpdateProject",
        "codebuild:DeleteProject",
        "codebuild:BatchGetProjects",
        "codebuild:StartBuild",
        "codebuild:BatchGetBuilds",
        "s3:CreateBucket",
        "s3:DeleteBucket",
        "s3:ListBucket",
        "s3:ListBucketVersions",
        "s3:GetBucketTagging",
        "s3:PutBucketTagging",
        "s3:GetBucketPolicy",
        "s3:GetBucketAcl",
        "s3:GetBucketCORS",
        "s3:GetBucketWebsite",
        "s3:GetBucketVersioning",
        "s3:GetAccelerateConfiguration",
        "s3:GetBucketRequestPayment",
        "s3:GetBucketLogging",
        "s3:GetLifecycleConfiguration",
        "s3:GetReplicationConfiguration",
        "s3:GetEncryptionConfiguration",
        "s3:GetBucketObjectLockConfiguration",
        "s3:GetBucketOwnershipControls",
        "s3:GetBucketPublicAccessBlock",
        "s3:PutBucketPublicAccessBlock",
        "s3:PutObject",
        "s3:DeleteObject",
        "s3:DeleteObjectVersion",
    ],
    "run: seeding, the barrier, pre-warming and the fleet": [
        "dynamodb:BatchWriteItem",
        "dynamodb:PutItem",
        "dynamodb:GetItem",
        "dynamodb:Query",
        "dynamodb:UpdateTable",
        "dynamodb:ListTables",
        "ecs:RunTask",
        "ecs:StopTask",
        "ecs:DescribeTasks",
    ],
    "watch, tally, down and the sweep": [
        "cloudwatch:GetMetricData",
        "cloudwatch:GetInsightRuleReport",
        "tag:GetResources",
        "iam:ListRoles",
        "iam:ListRoleTags",
        "ecr:ListImages",
        "pricing:GetProducts",
    ],
    "preflight itself": [
        "sts:GetCallerIdentity",
        "iam:SimulatePrincipalPolicy",
        "dynamodb:DescribeLimits",
        "ssm:GetParameter",
    ],
}
"""Every action a run calls as the operator, by when. docs/terraform.md's operator
policy is `operator_policy()` of this list (a test keeps them equal). Two that are easy to
miss: the AWS provider lists a security group's network interfaces before it deletes
the group (ec2:DescribeNetworkInterfaces: without it `destroy` stops there), and the
sweep counts a leftover repository's images (ecr:ListImages)."""

SERVICE_LINKED_ROLES: dict[str, str] = {
    "ecs.amazonaws.com": "AWSServiceRoleForECS",
    "contributorinsights.dynamodb.amazonaws.com": (
        "AWSServiceRoleForDynamoDBCloudWatchContributorInsights"
    ),
}
"""Roles AWS creates in an account the first time it uses ECS (CreateCluster,
https://docs.aws.amazon.com/AmazonECS/latest/developerguide/using-service-linked-roles.html)
and Contributor Insights for DynamoDB
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Contributor_Insights_IAM.html),
as the caller: who may not call iam:CreateServiceLinkedRole then fails half way through
an apply. The operator policy allows exactly these two."""


def service_linked_role_arn(service: str, account: str = "*") -> str:
    return f"arn:aws:iam::{account}:role/aws-service-role/{service}/{SERVICE_LINKED_ROLES[service]}"


def all_actions() -> list[str]:
    return sorted({a for actions in OPERATOR_ACTIONS.values() for a in actions})


def actions_for(settings: Settings) -> list[str]:
    """The actions this run will call: an image given by HOTBENCH_WORKER_IMAGE needs no
    push and no build; one built by a local engine no CodeBuild or S3."""
    from console.targets.worker_image import image_plan

    kind = image_plan(settings, lambda _line: None).kind
    skipped = {IN_ACCOUNT_BUILD} if kind != "codebuild" else set()
    if kind == "given":
        skipped.add(PUSH)
    return sorted(
        {a for group, actions in OPERATOR_ACTIONS.items() if group not in skipped for a in actions}
    )


def operator_policy() -> dict[str, Any]:
    """The least-privilege operator policy that passes the permission check. Resources
    are `*`: the kit's names carry the run id, unknown before `up`; the tag condition
    a reviewer may add is in docs/terraform.md."""
    services = sorted(SERVICE_LINKED_ROLES)
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "HotbenchOperator",
                "Effect": "Allow",
                "Action": all_actions(),
                "Resource": "*",
            },
            {
                "Sid": "HotbenchServiceLinkedRoles",
                "Effect": "Allow",
                "Action": "iam:CreateServiceLinkedRole",
                "Resource": [service_linked_role_arn(s) for s in services],
                "Condition": {"StringEquals": {"iam:AWSServiceName": services}},
            },
        ],
    }


def operator_policy_json() -> str:
    return json.dumps(operator_policy(), indent=2)


def principal_arn(caller_arn: str) -> str:
    """SimulatePrincipalPolicy wants a user or role ARN; STS gives an assumed role's
    session (`arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION`): the role's ARN is
    `arn:aws:iam::ACCOUNT:role/ROLE` (a role with a path needs its path: then the
    simulation answers NoSuchEntity and we say it was not checked)."""
    parts = caller_arn.split(":", 5)
    if len(parts) == 6 and parts[2] == "sts" and parts[5].startswith("assumed-role/"):
        role = parts[5].split("/")[1]
        return f"arn:aws:iam::{parts[4]}:role/{role}"
    return caller_arn


def _missing_context(result: dict[str, Any]) -> list[str]:
    """The context keys a decision needed and the simulation did not have: at the top
    for a simulation without resources, per resource otherwise
    (https://docs.aws.amazon.com/IAM/latest/APIReference/API_EvaluationResult.html)."""
    keys = list(result.get("MissingContextValues") or [])
    for specific in result.get("ResourceSpecificResults") or []:
        keys += specific.get("MissingContextValues") or []
    return sorted(set(keys))


def check_permissions(iam: Any, caller_arn: str, actions: list[str]) -> list[Finding]:
    """SimulatePrincipalPolicy over `actions`, without resources or context: a denial
    that depends on a context value the simulation lacked (a tag condition, a source
    account) is not a denial the run will meet, so it reads "not checked"."""
    source = principal_arn(caller_arn)
    denied: list[str] = []
    unknown: dict[str, list[str]] = {}
    try:
        for i in range(0, len(actions), 50):  # one call answers for a batch of actions
            paginator = iam.get_paginator("simulate_principal_policy")
            for page in paginator.paginate(PolicySourceArn=source, ActionNames=actions[i : i + 50]):
                for r in page.get("EvaluationResults", []):
                    if r.get("EvalDecision") == "allowed":
                        continue
                    missing = _missing_context(r)
                    if missing and r.get("EvalDecision") != "explicitDeny":
                        unknown[r["EvalActionName"]] = missing
                    else:
                        denied.append(r["EvalActionName"])
    except Exception as exc:
        why = error_code(exc) or type(exc).__name__
        return [
            Finding(
                "not-checked",
                f"permissions not checked: iam:SimulatePrincipalPolicy on {source} answered "
                f"{why}; the run calls {len(actions)} actions (docs/terraform.md lists them "
                "with the operator policy)",
            )
        ]
    out = []
    if unknown:
        keys = sorted({k for ks in unknown.values() for k in ks})
        out.append(
            Finding(
                "not-checked",
                f"permissions not checked: {', '.join(sorted(unknown))} depend on "
                f"{', '.join(keys)}, which a check before the run cannot know (a condition "
                "in your policies); the run calls them as the operator policy of "
                "docs/terraform.md allows",
            )
        )
    if denied:
        out.append(
            Finding(
                "permission",
                f"{source} may not call {', '.join(sorted(denied))}: attach the operator "
                "policy of docs/terraform.md (its JSON lists every action the run calls)",
            )
        )
    return out


def check_service_linked_roles(iam: Any, caller_arn: str, services: list[str]) -> list[Finding]:
    """Each service-linked role the run makes AWS create exists, or the caller may
    create it (iam:CreateServiceLinkedRole for that service, simulated with the
    `iam:AWSServiceName` context the real call carries)."""
    out: list[Finding] = []
    account = caller_arn.split(":")[4] if caller_arn.count(":") >= 5 else "*"
    for service in services:
        role = SERVICE_LINKED_ROLES[service]
        try:
            iam.get_role(RoleName=role)
            continue  # exists: nothing will be created
        except Exception as exc:
            if error_code(exc) != "NoSuchEntity":
                out.append(
                    Finding(
                        "not-checked",
                        f"service-linked role {role} not checked: iam:GetRole answered "
                        f"{error_code(exc) or type(exc).__name__}",
                    )
                )
                continue
        try:
            result = iam.simulate_principal_policy(
                PolicySourceArn=principal_arn(caller_arn),
                ActionNames=["iam:CreateServiceLinkedRole"],
                ResourceArns=[service_linked_role_arn(service, account)],
                ContextEntries=[
                    {
                        "ContextKeyName": "iam:AWSServiceName",
                        "ContextKeyValues": [service],
                        "ContextKeyType": "string",
                    }
                ],
            )["EvaluationResults"]
        except Exception as exc:
            out.append(
                Finding(
                    "not-checked",
                    f"service-linked role {role} does not exist yet and whether you may "
                    f"create it was not checked (iam:SimulatePrincipalPolicy answered "
                    f"{error_code(exc) or type(exc).__name__}); the first use of {service} "
                    "creates it as you",
                )
            )
            continue
        if all(r.get("EvalDecision") == "allowed" for r in result):
            continue
        out.append(
            Finding(
                "permission",
                f"{principal_arn(caller_arn)} may not create the service-linked role {role} "
                f"(iam:CreateServiceLinkedRole), which {service} needs in an account that "
                "never used it: attach the operator policy of docs/terraform.md, or have an "
                f"administrator run `aws iam create-service-linked-role --aws-service-name "
                f"{service}` once",
            )
        )
    return out


def check_quotas(dynamodb: Any, report: PlanReport) -> list[Finding]:
    try:
        limits = dynamodb.describe_limits()
    except Exception as exc:
        return [
            Finding(
                "not-checked",
                f"capacity quotas not checked: dynamodb:DescribeLimits answered "
                f"{error_code(exc) or type(exc).__name__}",
            )
        ]
    out: list[Finding] = []
    total_read = total_write = 0
    for table in report.tables:
        read = (table.read_capacity or 0) + sum(g.read_capacity or 0 for g in table.gsis)
        write = (table.write_capacity or 0) + sum(g.write_capacity or 0 for g in table.gsis)
        total_read += read
        total_write += write
        for what, units, limit in (
            ("read", read, limits.get("TableMaxReadCapacityUnits")),
            ("write", write, limits.get("TableMaxWriteCapacityUnits")),
        ):
            if limit is not None and units > limit:
                out.append(
                    Finding(
                        "quota",
                        f"table {table.variant}: {units:,} provisioned {what} units (GSIs "
                        f"included) over the table quota of {limit:,}: lower the playbook's "
                        "capacity or raise the quota in Service Quotas (DynamoDB, "
                        f"'Table-level {what} throughput limit')",
                    )
                )
    for what, units, limit in (
        ("read", total_read, limits.get("AccountMaxReadCapacityUnits")),
        ("write", total_write, limits.get("AccountMaxWriteCapacityUnits")),
    ):
        if limit is not None and units > limit:
            out.append(
                Finding(
                    "quota",
                    f"the run's tables provision {units:,} {what} units in all, over the "
                    f"account quota of {limit:,} in this region (other tables count too): "
                    f"fewer tables per run, or raise 'Account-level {what} throughput limit "
                    "(Provisioned mode)' in Service Quotas",
                )
            )
    return out


def check_fargate(ssm: Any, region: str) -> list[Finding]:
    name = f"/aws/service/global-infrastructure/regions/{region}/services/fargate"
    try:
        ssm.get_parameter(Name=name)
    except Exception as exc:
        if error_code(exc) == "ParameterNotFound":
            return [
                Finding(
                    "setting",
                    f"region {region} has no AWS Fargate: choose another with --region "
                    "(HOTBENCH_REGION)",
                )
            ]
        return [
            Finding(
                "not-checked",
                f"Fargate in {region} not checked: ssm:GetParameter answered "
                f"{error_code(exc) or type(exc).__name__}",
            )
        ]
    return []


def check_network(ec2: Any, settings: Settings) -> list[Finding]:
    if settings.subnet_ids:
        return []
    try:
        vpcs = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"]
    except Exception as exc:
        return [
            Finding(
                "not-checked",
                f"the default VPC not checked: ec2:DescribeVpcs answered "
                f"{error_code(exc) or type(exc).__name__}",
            )
        ]
    if vpcs:
        return []
    return [
        Finding(
            "setting",
            f"region {settings.region} has no default VPC and no subnets were given: pass "
            "--subnet-ids subnet-a,subnet-b (HOTBENCH_SUBNET_IDS; subnets without a NAT "
            "gateway need --assign-public-ip or VPC endpoints for ECR, S3, Logs and "
            "DynamoDB), or create one with `aws ec2 create-default-vpc`",
        )
    ]


def preflight(session: Any, settings: Settings, report: PlanReport) -> list[Finding]:
    """Every check, in the order a fix is cheapest; credentials were checked before."""
    from console.targets.aws_kit import caller_identity

    caller = caller_identity(settings, session)
    findings = check_network(session.client("ec2"), settings)
    findings += check_fargate(session.client("ssm"), settings.region)
    findings += check_quotas(session.client("dynamodb"), report)
    findings += check_permissions(session.client("iam"), caller, actions_for(settings))
    services = ["ecs.amazonaws.com"]
    if any(t.contributor_insights for t in report.tables):
        services.append("contributorinsights.dynamodb.amazonaws.com")
    findings += check_service_linked_roles(session.client("iam"), caller, services)
    return findings
