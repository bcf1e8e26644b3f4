"""On AWS the partitions screen shows Contributor Insights: the rules DynamoDB lists for
the table and each GSI, and each rule's top contributors from CloudWatch. Botocore's
Stubber checks every request and reply against the services' shapes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import boto3
from botocore.stub import ANY, Stubber

from console.tui.backend import Backend
from console.workflow import load_settings
from tests.tui.fixed import fixed_state

TABLE = "hb-1130120000-beef-hot"
RULES = {
    None: [
        f"DynamoDBContributorInsights-PKC-{TABLE}-1764504000000",
        f"DynamoDBContributorInsights-PKT-{TABLE}-1764504000000",
    ],
    "byWarehouse": [f"DynamoDBContributorInsights-PKT-{TABLE}-byWarehouse-1764504000000"],
}


def clients() -> tuple[Any, Any]:
    kwargs: dict[str, Any] = {
        "region_name": "us-east-1",
        "aws_access_key_id": "testing",
        "aws_secret_access_key": "testing",
    }
    return boto3.client("dynamodb", **kwargs), boto3.client("cloudwatch", **kwargs)


def test_insights_lists_each_rule_with_its_top_keys(tmp_path: Path) -> None:
    state = fixed_state()
    state.target = "aws"
    state.tables["hot"].contributor_insights = True
    dynamodb, cloudwatch = clients()
    with Stubber(dynamodb) as ddb_stub, Stubber(cloudwatch) as cw_stub:
        for index, rules in RULES.items():
            where = {"TableName": TABLE} | ({"IndexName": index} if index else {})
            ddb_stub.add_response(
                "describe_contributor_insights",
                {
                    **where,
                    "ContributorInsightsRuleList": rules,
                    "ContributorInsightsStatus": "ENABLED",
                },
                where,
            )
            for rule in rules:
                cw_stub.add_response(
                    "get_insight_rule_report",
                    {
                        "KeyLabels": ["warehouseId"],
                        "AggregationStatistic": "Sum",
                        "Contributors": [
                            {
                                "Keys": ["WH-TOKYO"],
                                "ApproximateAggregateValue": 96000.0,
                                "Datapoints": [],
                            },
                            {
                                "Keys": ["WH-OSAKA"],
                                "ApproximateAggregateValue": 12000.0,
                                "Datapoints": [],
                            },
                        ],
                    },
                    {
                        "RuleName": rule,
                        "StartTime": ANY,
                        "EndTime": ANY,
                        "Period": 60,
                        "MaxContributorCount": 10,
                        "OrderBy": "Sum",
                    },
                )
        backend = Backend(load_settings(target="aws", runs_dir=tmp_path))
        found = backend.insights(state, "hot", (dynamodb, cloudwatch))
        ddb_stub.assert_no_pending_responses()
        cw_stub.assert_no_pending_responses()
    assert found is not None
    assert [(r["index"], r["rule"]) for r in found] == [
        (index, rule) for index, rules in RULES.items() for rule in rules
    ]
    assert found[0]["contributors"] == [("WH-TOKYO", 96000.0), ("WH-OSAKA", 12000.0)]


def test_no_rules_without_contributor_insights(tmp_path: Path) -> None:
    state = fixed_state()
    state.target = "aws"
    backend = Backend(load_settings(target="aws", runs_dir=tmp_path))
    assert backend.insights(state, "hot", clients()) is None
