"""Before money: may the caller do what the run will do, does the plan fit the account's
quotas, and what does the run's fleet need (Fargate and a network, or Lambda's
concurrency: console/targets/fleets/)?

Each finding names the action, quota or setting and the fix, and `up` creates nothing
while one blocks (`plan --target aws` prints them). The checks themselves, with their
sources, are console/targets/aws_checks.py; this module decides which a run needs and
keeps the list of actions the shipped operator policy allows.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from console.run.errors import PreflightFailed
from console.run.models import PlanReport
from console.run.settings import Settings
from console.targets.aws_checks import (
    SERVICE_LINKED_ROLES,
    check_fargate,
    check_network,
    check_permissions,
    check_quotas,
    check_service_linked_roles,
    principal_arn,
    service_linked_role_arn,
)
from console.targets.fleets import AWS_FLEETS, FleetKind, fleet_named
from console.targets.interface import Finding

if TYPE_CHECKING:
    from console.targets.fleets import AwsAccount

__all__ = [
    "PreflightFailed",
    "check_fargate",
    "check_network",
    "check_permissions",
    "check_quotas",
    "check_service_linked_roles",
    "operator_policy",
    "preflight",
    "principal_arn",
]

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
    "terraform: the workers' roles and logs, the dashboard": [
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
        "cloudwatch:PutDashboard",
        "cloudwatch:GetDashboard",
        "cloudwatch:DeleteDashboards",
    ],
    "terraform: auto scaling of the variants that have it (Application Auto Scaling)": [
        "application-autoscaling:RegisterScalableTarget",
        "application-autoscaling:DeregisterScalableTarget",
        "application-autoscaling:DescribeScalableTargets",
        "application-autoscaling:PutScalingPolicy",
        "application-autoscaling:DeleteScalingPolicy",
        "application-autoscaling:DescribeScalingPolicies",
        "application-autoscaling:TagResource",
        "application-autoscaling:ListTagsForResource",
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
    "run: seeding, the barrier, pre-warming": [
        "dynamodb:BatchWriteItem",
        "dynamodb:PutItem",
        "dynamodb:GetItem",
        "dynamodb:Query",
        "dynamodb:UpdateTable",
        "dynamodb:ListTables",
    ],
    "watch, tally, down and the sweep": [
        "cloudwatch:GetMetricData",
        "cloudwatch:GetInsightRuleReport",
        "tag:GetResources",
        "iam:ListRoles",
        "iam:ListRoleTags",
        "pricing:GetProducts",
    ],
    "preflight itself": [
        "sts:GetCallerIdentity",
        "iam:SimulatePrincipalPolicy",
        "dynamodb:DescribeLimits",
    ],
}
"""Every action a run calls as the operator whatever its fleet, by when; each fleet adds
its own (`FleetKind.operator_actions`: the ECS fleet's cluster, image and network, the
Lambda fleet's function and invokes). docs/terraform.md's operator policy is
`operator_policy()` of them all (a test keeps them equal)."""


def all_actions() -> list[str]:
    """Every action of every fleet's runs: what the shipped operator policy allows."""
    found = {a for actions in OPERATOR_ACTIONS.values() for a in actions}
    for name in AWS_FLEETS:
        for actions in fleet_named(name).operator_actions(None).values():
            found.update(actions)
    return sorted(found)


def actions_for(settings: Settings, kind: FleetKind | None = None) -> list[str]:
    """The actions this run will call: every run's, and its fleet's on the path the
    settings take (the ECS fleet: an image given needs no push and no build, one built
    by a local engine no CodeBuild or S3)."""
    if kind is None:
        from console.targets.fleets import chosen_fleet

        kind = fleet_named(chosen_fleet(settings, None))
    found = {a for actions in OPERATOR_ACTIONS.values() for a in actions}
    for actions in kind.operator_actions(settings).values():
        found.update(actions)
    return sorted(found)


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


def preflight(account: AwsAccount, kind: FleetKind, report: PlanReport) -> list[Finding]:
    """Every check, in the order a fix is cheapest: the fleet's own (a network, Fargate,
    Lambda's concurrency), the tables' quotas, the permissions, the service-linked roles;
    credentials were checked before."""
    from console.targets.aws_kit import caller_identity

    settings = account.settings
    session = account.session()
    caller = caller_identity(settings, session)
    findings = kind.preflight(account, caller, report)
    findings += check_quotas(session.client("dynamodb"), report)
    findings += check_permissions(session.client("iam"), caller, actions_for(settings, kind))
    services = []
    if any(t.contributor_insights for t in report.tables):
        services.append("contributorinsights.dynamodb.amazonaws.com")
    if any(t.auto_scaling for t in report.tables):
        services.append("dynamodb.application-autoscaling.amazonaws.com")
    if services:
        findings += check_service_linked_roles(session.client("iam"), caller, services)
    return findings
