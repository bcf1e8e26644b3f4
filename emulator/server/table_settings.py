"""The per-table settings the Terraform AWS provider reads for every aws_dynamodb_table
(and a team's own tooling sets): tags, continuous backups (point-in-time recovery),
Contributor Insights and Kinesis streaming destinations.

None of them changes capacity, so they are kept as DynamoDB describes them and no more:
point-in-time recovery records no backups, Contributor Insights draws no graphs (the
emulator's own /_hotbench/metrics and partition map show the hot keys), and no Kinesis
stream can be attached (the list is always empty). What each call answers and refuses is
DynamoDB's (API Reference, https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/):
API_DescribeContinuousBackups.html, API_UpdateContinuousBackups.html,
API_DescribeContributorInsights.html, API_UpdateContributorInsights.html,
API_DescribeKinesisStreamingDestination.html, API_TagResource.html,
API_UntagResource.html, API_ListTagsOfResource.html.
"""

from __future__ import annotations

import re
from typing import Any, Final

from emulator.server.emulator_state import EmulatorState
from emulator.server.protocol import (
    CORAL_SERVICE,
    DynamoError,
    member,
    not_found,
    table_name,
    validation,
)
from emulator.server.table import Table

# --- tags ------------------------------------------------------------------------------------

_ARN_PARTS: Final = re.compile(r".+:.+:.+:.+:.+:.+/.+")
"""Six colon-separated fields and a slash: what DynamoDB's authorisation layer takes for
an ARN at all; anything else is refused before the operation runs, as AccessDenied."""
_TABLE_ARN: Final = re.compile(r"arn:aws:dynamodb:[^:]+:\d+:table/[^/]{2}[^/]+")
"""A DynamoDB table ARN (a name of at least 3 characters); a well-formed ARN of anything
else is "Invalid TableArn"."""


def _checked_arn(state: EmulatorState, req: dict[str, Any], action: str) -> str:
    """A tag operation's ResourceArn, refused as DynamoDB refuses it: missing, not an ARN
    (AccessDeniedException, as IAM answers for a resource that cannot exist), or not a
    table's ARN (answered by DynamoDB, in these words, to dynalite's tests run on AWS)."""
    arn = member(req, "ResourceArn", str)
    if arn is None:
        raise validation("Invalid TableArn")
    if _ARN_PARTS.fullmatch(arn) is None:
        raise DynamoError(
            "AccessDeniedException",
            f"User: arn:aws:iam::{state.account}:user/hotbench is not authorized to perform: "
            f"dynamodb:{action} on resource: {arn or '*'}",
            CORAL_SERVICE,
        )
    return arn


def _check_table_arn(arn: str) -> None:
    if _TABLE_ARN.fullmatch(arn) is None:
        raise validation(f"Invalid TableArn: Invalid ResourceArn provided as input {arn}")


def _by_arn(state: EmulatorState, arn: str, detail: bool = True) -> Table:
    name = arn.rsplit(":table/", 1)[-1]
    table = state.tables.get(name)
    if table is None or table.arn != arn:
        # DynamoDB's own spelling ("ResourcArn"); UntagResource says no more than this.
        raise not_found(f"ResourcArn: {arn} not found" if detail else None)
    return table


def tags_of(raw: Any) -> dict[str, str]:
    """A Tags member (CreateTable, TagResource) as {key: value}, checked."""
    if not isinstance(raw, list):
        raise validation("Tags must be a list of {Key, Value}")
    out: dict[str, str] = {}
    for tag in raw:
        if (
            not isinstance(tag, dict)
            or not isinstance(tag.get("Key"), str)
            or not isinstance(tag.get("Value"), str)
        ):
            raise validation("Tags entries need a Key and a Value (strings)")
        if not 1 <= len(tag["Key"]) <= 128 or len(tag["Value"]) > 256:
            raise validation(
                "One or more parameter values were invalid: tag key length must "
                "be 1-128 and value length at most 256"
            )
        out[tag["Key"]] = tag["Value"]
    return out


def tag_resource(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    arn = _checked_arn(state, req, "TagResource")
    raw = member(req, "Tags", list, required=True)  # null: refused by shapes.py first
    _check_table_arn(arn)
    if not raw:
        raise validation("Atleast one Tag needs to be provided as Input.")
    tags = tags_of(raw)
    _by_arn(state, arn).tags.update(tags)
    return {}


def untag_resource(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    arn = _checked_arn(state, req, "UntagResource")
    keys = member(req, "TagKeys", list, required=True)  # null: refused by shapes.py first
    _check_table_arn(arn)
    if not keys:
        raise validation("Atleast one Tag Key needs to be provided as Input.")
    if not all(isinstance(k, str) for k in keys):
        raise validation("TagKeys must be strings")
    table = _by_arn(state, arn, detail=False)
    for key in keys:
        table.tags.pop(key, None)
    return {}


def list_tags(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    arn = _checked_arn(state, req, "ListTagsOfResource")
    _check_table_arn(arn)
    member(req, "NextToken", str)
    table = _by_arn(state, arn)
    return {"Tags": [{"Key": k, "Value": v} for k, v in sorted(table.tags.items())]}


# --- continuous backups ------------------------------------------------------------------------

MAX_RECOVERY_DAYS: Final = 35
"""[AWS] point-in-time recovery keeps 1 to 35 days, 35 unless asked
(API_PointInTimeRecoverySpecification.html)."""


def _backup_table(state: EmulatorState, req: dict[str, Any]) -> Table:
    """The table of a continuous-backups call: these answer TableNotFoundException, not
    ResourceNotFoundException, for a table that does not exist."""
    name = table_name(req)
    table = state.tables.get(name)
    if table is None:
        raise DynamoError("TableNotFoundException", f"Table not found: {name}")
    return table


def _backups(state: EmulatorState, table: Table) -> dict[str, Any]:
    settings = table.settings
    pitr: dict[str, Any] = {"PointInTimeRecoveryStatus": "DISABLED"}
    if settings.pitr_since is not None:
        now = state.epoch(state.now())
        pitr = {
            "PointInTimeRecoveryStatus": "ENABLED",
            "RecoveryPeriodInDays": settings.pitr_days,
            "EarliestRestorableDateTime": settings.pitr_since,
            "LatestRestorableDateTime": now,
        }
    return {
        "ContinuousBackupsDescription": {
            "ContinuousBackupsStatus": "ENABLED",
            "PointInTimeRecoveryDescription": pitr,
        }
    }


def describe_continuous_backups(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    return _backups(state, _backup_table(state, req))


def update_continuous_backups(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    spec = member(req, "PointInTimeRecoverySpecification", dict, required=True)
    # Enabled present and the period within 1 to 35 days: checked with the request's shape.
    enabled = member(spec, "PointInTimeRecoveryEnabled", bool, required=True)
    days = member(spec, "RecoveryPeriodInDays", int)
    table = _backup_table(state, req)
    settings = table.settings
    if enabled:
        if settings.pitr_since is None:
            settings.pitr_since = state.epoch(state.now())
        settings.pitr_days = days or settings.pitr_days
    else:
        settings.pitr_since = None
        settings.pitr_days = MAX_RECOVERY_DAYS
    return _backups(state, table)


# --- Contributor Insights ---------------------------------------------------------------------

INSIGHTS_MODES: Final = ("ACCESSED_AND_THROTTLED_KEYS", "THROTTLED_KEYS")


def _insights_target(state: EmulatorState, req: dict[str, Any]) -> tuple[Table, str | None]:
    name = table_name(req)
    index = member(req, "IndexName", str)
    table = state.tables.get(name)
    if table is None:
        raise not_found(f"Table: {name} not found")
    if index is not None and index not in table.gsis:
        raise not_found(f"Index: {index} not found")
    return table, index


def _rules(table: Table, index: str | None, mode: str, since: float) -> list[str]:
    """The CloudWatch Contributor Insights rules DynamoDB makes: partition key accessed
    (PKC) and throttled (PKT), and for a sort key SKC / SKT; THROTTLED_KEYS only the
    throttled ones."""
    has_sort = (table.gsis[index].schema if index else table.schema).sk is not None
    kinds = ["PKC", "PKT", *(["SKC", "SKT"] if has_sort else [])]
    if mode == "THROTTLED_KEYS":
        kinds = [k for k in kinds if k.endswith("T")]
    target = table.name if index is None else f"{table.name}-{index}"
    return [f"DynamoDBContributorInsights-{k}-{target}-{int(since * 1000)}" for k in kinds]


def describe_contributor_insights(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    table, index = _insights_target(state, req)
    out: dict[str, Any] = {"TableName": table.name}
    if index is not None:
        out["IndexName"] = index
    rule = table.settings.insights.get(index)
    if rule is None:
        out.update(ContributorInsightsRuleList=[], ContributorInsightsStatus="DISABLED")
        return out
    mode, since = rule
    out.update(
        ContributorInsightsRuleList=_rules(table, index, mode, since),
        ContributorInsightsStatus="ENABLED",
        LastUpdateDateTime=since,
        ContributorInsightsMode=mode,
    )
    return out


def update_contributor_insights(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    # Both enums (and the action's presence) were checked with the request's shape.
    action = member(req, "ContributorInsightsAction", str, required=True)
    mode = member(req, "ContributorInsightsMode", str, default=INSIGHTS_MODES[0])
    table, index = _insights_target(state, req)
    out: dict[str, Any] = {"TableName": table.name}
    if index is not None:
        out["IndexName"] = index
    if action == "ENABLE":
        # Enabled at once (DynamoDB passes through ENABLING for a few seconds; the
        # answer to this call says ENABLING, as DynamoDB's does).
        table.settings.insights[index] = (mode, state.epoch(state.now()))
        out.update(ContributorInsightsStatus="ENABLING", ContributorInsightsMode=mode)
    else:
        table.settings.insights.pop(index, None)
        out["ContributorInsightsStatus"] = "DISABLING"
    return out


# --- Kinesis streaming destinations ----------------------------------------------------------


def describe_kinesis_streaming_destination(
    state: EmulatorState, req: dict[str, Any]
) -> dict[str, Any]:
    """Always none: the emulator cannot stream to Kinesis (Enable... is not supported)."""
    name = table_name(req)
    if name not in state.tables:
        raise not_found(f"Table: {name} not found")
    return {"TableName": name, "KinesisDataStreamDestinations": []}
