"""Checks before money, one AWS question each: may the caller call these actions, may it
create a service-linked role, does a plan fit DynamoDB's quotas, is Fargate in the region,
is there a network. console/targets/preflight.py decides which a run needs (some are a
fleet's: console/targets/fleets/); each finding names the action, quota or setting and
the fix. Sources:
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

from typing import Any

from console.run.models import PlanReport
from console.run.settings import Settings
from console.targets.awserrors import error_code
from console.targets.interface import Finding

SERVICE_LINKED_ROLES: dict[str, str] = {
    "ecs.amazonaws.com": "AWSServiceRoleForECS",
    "contributorinsights.dynamodb.amazonaws.com": (
        "AWSServiceRoleForDynamoDBCloudWatchContributorInsights"
    ),
    "dynamodb.application-autoscaling.amazonaws.com": (
        "AWSServiceRoleForApplicationAutoScaling_DynamoDBTable"
    ),
}
"""Roles AWS creates in an account the first time it uses ECS (CreateCluster,
https://docs.aws.amazon.com/AmazonECS/latest/developerguide/using-service-linked-roles.html)
and Contributor Insights for DynamoDB
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Contributor_Insights_IAM.html)
and Application Auto Scaling of a DynamoDB table (RegisterScalableTarget,
https://docs.aws.amazon.com/autoscaling/application/userguide/application-auto-scaling-service-linked-roles.html),
as the caller: who may not call iam:CreateServiceLinkedRole then fails half way through
an apply. The operator policy allows exactly these three."""


def service_linked_role_arn(service: str, account: str = "*") -> str:
    return f"arn:aws:iam::{account}:role/aws-service-role/{service}/{SERVICE_LINKED_ROLES[service]}"


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
