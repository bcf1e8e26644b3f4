"""What `hotbench import` may call, as data: every action, what it reads, and what the
import assumes without it. docs/import.md's policy is `import_policy()` (a test keeps
them equal), and the check before reading asks IAM SimulatePrincipalPolicy about every
action (https://docs.aws.amazon.com/IAM/latest/APIReference/API_SimulatePrincipalPolicy.html),
as the workflow's preflight does for a run. Every action is read-only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from console.importer.aws_calls import AwsCalls, CallFailed
from console.targets.preflight import principal_arn


@dataclass(frozen=True)
class Permission:
    action: str
    reads: str
    without: str
    """What the import does without it (the `assumes` of its missing-data line)."""


IMPORT_PERMISSIONS: tuple[Permission, ...] = (
    Permission(
        "dynamodb:DescribeTable",
        "the table: keys, attribute types, indexes, billing mode, capacity, warm "
        "throughput, on-demand maximums, table class, item count and size",
        "nothing: without the table there is nothing to import (exit 4)",
    ),
    Permission(
        "application-autoscaling:DescribeScalableTargets",
        "the auto scaling range of the table and each GSI",
        "the capacity stays at what DescribeTable shows now",
    ),
    Permission(
        "application-autoscaling:DescribeScalingPolicies",
        "the target tracking policies (target utilization, cooldowns)",
        "no scaling policy: the capacity stays at what DescribeTable shows now",
    ),
    Permission(
        "cloudwatch:GetMetricData",
        "per minute: consumed capacity, throttle events by reason, requests per operation, "
        "provisioned capacity",
        "nothing: without the traffic there is no load to replay (exit 4)",
    ),
    Permission(
        "cloudwatch:ListMetrics",
        "which operations the table served (the Operation dimension)",
        "every data-plane operation is asked for",
    ),
    Permission(
        "dynamodb:DescribeContributorInsights",
        "whether Contributor Insights is on, and its rules",
        "no hot keys: each key attribute uniform",
    ),
    Permission(
        "cloudwatch:GetInsightRuleReport",
        "the top keys (up to 100), the unique keys and the total of each rule",
        "no hot keys: each key attribute uniform",
    ),
    Permission(
        "iam:SimulatePrincipalPolicy",
        "this check, before anything is read",
        "the permissions are not checked first; each denied call is reported as it happens",
    ),
)
"""Every action an import calls as the operator (sts:GetCallerIdentity needs none)."""

REQUIRED = frozenset({"dynamodb:DescribeTable", "cloudwatch:GetMetricData"})
"""Without these an import stops: no table, or no traffic."""


def import_actions() -> list[str]:
    return sorted(p.action for p in IMPORT_PERMISSIONS)


def permission(action: str) -> Permission | None:
    return next((p for p in IMPORT_PERMISSIONS if p.action == action), None)


def import_policy() -> dict[str, Any]:
    """The least-privilege policy an import needs (all read-only). Resource `*`: the
    Application Auto Scaling and CloudWatch reads take no resource ARNs; DynamoDB's
    may be narrowed to the tables' ARNs."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "HotbenchImport",
                "Effect": "Allow",
                "Action": import_actions(),
                "Resource": "*",
            }
        ],
    }


def import_policy_json() -> str:
    return json.dumps(import_policy(), indent=2)


@dataclass(frozen=True)
class PermissionCheck:
    """The check's outcome: the actions IAM says are denied, or why it could not ask."""

    checked: bool
    denied: tuple[str, ...] = ()
    not_checked: str | None = None

    def document(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "denied": list(self.denied),
            "not_checked": self.not_checked,
        }

    @classmethod
    def from_document(cls, doc: dict[str, Any] | None) -> PermissionCheck:
        if not doc:
            return cls(False, not_checked="the snapshot records no permission check")
        return cls(bool(doc.get("checked")), tuple(doc.get("denied", ())), doc.get("not_checked"))


def check_permissions(calls: AwsCalls) -> PermissionCheck:
    """Ask IAM whether the caller may call every action of the import. The caller may
    not be allowed to ask; then the import says so and reports denials as they come."""
    try:
        caller = calls.call("sts", "GetCallerIdentity", {})["Arn"]
    except CallFailed as exc:
        return PermissionCheck(False, not_checked=f"sts:GetCallerIdentity answered {exc.code}")
    source = principal_arn(str(caller))
    denied: list[str] = []
    params: dict[str, Any] = {"PolicySourceArn": source, "ActionNames": import_actions()}
    try:
        while True:
            page = calls.call("iam", "SimulatePrincipalPolicy", params)
            denied += [
                r["EvalActionName"]
                for r in page.get("EvaluationResults", [])
                if r.get("EvalDecision") != "allowed"
            ]
            if not page.get("IsTruncated"):
                break
            params = {**params, "Marker": page["Marker"]}
    except CallFailed as exc:
        return PermissionCheck(
            False,
            not_checked=f"iam:SimulatePrincipalPolicy on {source} answered {exc.code}",
        )
    return PermissionCheck(True, tuple(sorted(set(denied))))
