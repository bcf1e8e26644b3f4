"""The control-plane reads the Terraform AWS provider makes for every table (issue 25):
continuous backups, Contributor Insights, Kinesis streaming destinations and tags with
DynamoDB's answers and refusals; and an operation the emulator lacks answered
UnknownOperationException, as DynamoDB answers one it does not have."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.emulator.server.conftest import key_table


def _error(exc: pytest.ExceptionInfo[ClientError]) -> tuple[str, str]:
    error = exc.value.response["Error"]
    return error["Code"], error["Message"]


def test_continuous_backups_are_described_and_point_in_time_recovery_toggles(ddb: Any) -> None:
    key_table(ddb)
    described = ddb.describe_continuous_backups(TableName="tbl")["ContinuousBackupsDescription"]
    assert described == {
        "ContinuousBackupsStatus": "ENABLED",
        "PointInTimeRecoveryDescription": {"PointInTimeRecoveryStatus": "DISABLED"},
    }
    updated = ddb.update_continuous_backups(
        TableName="tbl",
        PointInTimeRecoverySpecification={
            "PointInTimeRecoveryEnabled": True,
            "RecoveryPeriodInDays": 7,
        },
    )["ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
    assert updated["PointInTimeRecoveryStatus"] == "ENABLED"
    assert updated["RecoveryPeriodInDays"] == 7
    assert updated["EarliestRestorableDateTime"] <= updated["LatestRestorableDateTime"]
    again = ddb.describe_continuous_backups(TableName="tbl")["ContinuousBackupsDescription"]
    assert again["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "ENABLED"
    ddb.update_continuous_backups(
        TableName="tbl",
        PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": False},
    )
    off = ddb.describe_continuous_backups(TableName="tbl")["ContinuousBackupsDescription"]
    assert off["PointInTimeRecoveryDescription"] == {"PointInTimeRecoveryStatus": "DISABLED"}
    with pytest.raises(ClientError) as exc:
        ddb.describe_continuous_backups(TableName="missing")
    assert _error(exc) == ("TableNotFoundException", "Table not found: missing")
    with pytest.raises(ClientError) as exc:
        ddb.update_continuous_backups(
            TableName="missing",
            PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True},
        )
    assert _error(exc)[0] == "TableNotFoundException"


def test_contributor_insights_enable_describe_disable(ddb: Any) -> None:
    key_table(
        ddb,
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by_g",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    off = ddb.describe_contributor_insights(TableName="tbl")
    assert off["ContributorInsightsStatus"] == "DISABLED"
    assert off["ContributorInsightsRuleList"] == []
    enabling = ddb.update_contributor_insights(
        TableName="tbl",
        ContributorInsightsAction="ENABLE",
        ContributorInsightsMode="THROTTLED_KEYS",
    )
    assert enabling["ContributorInsightsStatus"] == "ENABLING"
    on = ddb.describe_contributor_insights(TableName="tbl")
    assert on["ContributorInsightsStatus"] == "ENABLED"
    assert on["ContributorInsightsMode"] == "THROTTLED_KEYS"
    # The throttled-keys rules of a partition and a sort key.
    kinds = sorted(rule.split("-")[1] for rule in on["ContributorInsightsRuleList"])
    assert kinds == ["PKT", "SKT"]
    index = ddb.update_contributor_insights(
        TableName="tbl", IndexName="by_g", ContributorInsightsAction="ENABLE"
    )
    assert index["IndexName"] == "by_g"
    rules = ddb.describe_contributor_insights(TableName="tbl", IndexName="by_g")
    assert sorted(r.split("-")[1] for r in rules["ContributorInsightsRuleList"]) == ["PKC", "PKT"]
    disabling = ddb.update_contributor_insights(
        TableName="tbl", ContributorInsightsAction="DISABLE"
    )
    assert disabling["ContributorInsightsStatus"] == "DISABLING"
    assert ddb.describe_contributor_insights(TableName="tbl")["ContributorInsightsStatus"] == (
        "DISABLED"
    )
    with pytest.raises(ClientError) as exc:
        ddb.describe_contributor_insights(TableName="missing")
    assert _error(exc)[0] == "ResourceNotFoundException"


def test_kinesis_streaming_destinations_are_an_empty_list(ddb: Any) -> None:
    key_table(ddb)
    answer = ddb.describe_kinesis_streaming_destination(TableName="tbl")
    assert answer["TableName"] == "tbl"
    assert answer["KinesisDataStreamDestinations"] == []
    with pytest.raises(ClientError) as exc:
        ddb.describe_kinesis_streaming_destination(TableName="missing")
    assert _error(exc)[0] == "ResourceNotFoundException"


def test_tag_operations_refuse_bad_arns_as_dynamodb_does(ddb: Any) -> None:
    arn = key_table(ddb)["TableArn"]
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "team", "Value": "a"}])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "team", "Value": "a"}]
    with pytest.raises(ClientError) as exc:
        ddb.tag_resource(ResourceArn="abcd", Tags=[{"Key": "k", "Value": "v"}])
    code, message = _error(exc)
    assert code == "AccessDeniedException"
    assert "is not authorized to perform: dynamodb:TagResource on resource: abcd" in message
    with pytest.raises(ClientError) as exc:
        ddb.tag_resource(ResourceArn="a:b:c:d:e:f/g", Tags=[{"Key": "k", "Value": "v"}])
    assert _error(exc) == (
        "ValidationException",
        "Invalid TableArn: Invalid ResourceArn provided as input a:b:c:d:e:f/g",
    )
    with pytest.raises(ClientError) as exc:
        ddb.tag_resource(ResourceArn=arn, Tags=[])
    assert _error(exc) == ("ValidationException", "Atleast one Tag needs to be provided as Input.")
    with pytest.raises(ClientError) as exc:
        ddb.untag_resource(ResourceArn=arn, TagKeys=[])
    assert _error(exc)[1] == "Atleast one Tag Key needs to be provided as Input."
    missing = arn.replace(":table/tbl", ":table/missing")
    with pytest.raises(ClientError) as exc:
        ddb.tag_resource(ResourceArn=missing, Tags=[{"Key": "k", "Value": "v"}])
    assert _error(exc) == (
        "ResourceNotFoundException",
        f"Requested resource not found: ResourcArn: {missing} not found",
    )
    with pytest.raises(ClientError) as exc:
        ddb.list_tags_of_resource(ResourceArn=missing)
    assert _error(exc)[0] == "ResourceNotFoundException"
    with pytest.raises(ClientError) as exc:
        ddb.untag_resource(ResourceArn=missing, TagKeys=["k"])
    assert _error(exc) == ("ResourceNotFoundException", "Requested resource not found")
    ddb.untag_resource(ResourceArn=arn, TagKeys=["team"])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == []


@pytest.mark.parametrize(
    "call",
    [
        lambda ddb: ddb.describe_global_table(GlobalTableName="glob"),
        lambda ddb: ddb.list_backups(),
        lambda ddb: ddb.describe_endpoints(),
    ],
)
def test_an_operation_the_emulator_lacks_is_unknown(ddb: Any, call: Any) -> None:
    with pytest.raises(ClientError) as exc:
        call(ddb)
    assert exc.value.response["Error"]["Code"] == "UnknownOperationException"
    assert exc.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
