"""Plan summary and cost estimate from recorded `terraform show -json` output."""

from __future__ import annotations

import pytest
from tfkit import load_fixture

from console.cost.prices import US_EAST_1
from console.infra import estimate, summarize
from console.render.cost_table import estimate_review


def test_create_plan_counts_managed_resources_per_type() -> None:
    summary = summarize(load_fixture("plan_create.json"))
    assert summary.by_type["aws_dynamodb_table"].create == 5  # 4 variants + results
    assert summary.by_type["aws_iam_role"].create == 2
    assert "aws_vpc" not in summary.by_type  # data sources are not changes
    assert summary.totals.create == 15
    assert summary.totals.destroy == 0
    assert summary.lines()[0] == "Plan: 15 to create, 0 to update, 0 to replace, 0 to destroy"


def test_changes_plan_separates_update_replace_destroy_and_skips_noop() -> None:
    summary = summarize(load_fixture("plan_changes.json"))
    table = summary.by_type["aws_dynamodb_table"]
    assert (table.create, table.update, table.replace, table.destroy) == (0, 1, 1, 1)
    assert summary.by_type["aws_ecs_task_definition"].replace == 1  # create-before-destroy
    assert summary.by_type["aws_iam_role_policy"].update == 1
    assert "aws_subnets" not in summary.by_type
    text = str(summary)
    assert "aws_dynamodb_table" in text and "1 update, 1 replace, 1 destroy" in text


def test_no_changes_is_said_plainly() -> None:
    summary = summarize({"resource_changes": [{"type": "x", "change": {"actions": ["no-op"]}}]})
    assert not summary.has_changes
    assert summary.lines() == [
        "Plan: 0 to create, 0 to update, 0 to replace, 0 to destroy (no changes)"
    ]


def test_m1_cost_matches_hand_arithmetic() -> None:
    cost = estimate(load_fixture("plan_create.json"))
    # 6 provisioned capacity holders (bad, good, goodGsi + its 3 GSIs) x (10,000 WCU, 1,000 RCU)
    capacity = 6 * (10_000 * 0.00065 + 1_000 * 0.00013)
    dashboard = 3.0 / 730
    assert cost.per_hour_while_up == pytest.approx(capacity + dashboard)
    assert capacity == pytest.approx(39.78)
    # 4 tasks x (1 vCPU x 0.04048 + 2 GB x 0.004445), x86
    assert cost.per_hour_while_running == pytest.approx(4 * (0.04048 + 2 * 0.004445))
    assert any("on-demand" in n and "badOnDemand" in n for n in cost.notes)
    assert [x.unit for x in cost.running.lines] == ["vCPU-h", "GB-h"]
    text = estimate_review(cost)
    assert text[0].startswith("Estimated cost: $39.78/h while up, plus $0.20/h")
    assert all(len(row) <= 80 for row in text[1:] if " x $" in row)


def test_cost_uses_after_state_and_arm_prices() -> None:
    cost = estimate(load_fixture("plan_changes.json"))
    # bad updated to 2,000 RCU; good replaced; badOnDemand deleted (not priced).
    wcu, rcu = US_EAST_1.provisioned_wcu_hour, US_EAST_1.provisioned_rcu_hour
    bad = 10_000 * wcu + 2_000 * rcu
    good = 10_000 * wcu + 1_000 * rcu
    assert cost.per_hour_while_up == pytest.approx(bad + good)
    # task_count 2 from plan variables, 2 vCPU / 4 GB ARM64
    arm = 2 * US_EAST_1.fargate_vcpu_hour["ARM64"] + 4 * US_EAST_1.fargate_gb_hour["ARM64"]
    assert cost.per_hour_while_running == pytest.approx(2 * arm)


def test_task_count_argument_overrides_plan_variable() -> None:
    cost = estimate(load_fixture("plan_create.json"), task_count=10)
    assert cost.per_hour_while_running == pytest.approx(10 * (0.04048 + 2 * 0.004445))


def test_cost_reads_the_plan_region_and_refuses_one_without_prices() -> None:
    from console.cost import PricesUnknown

    plan = load_fixture("plan_create.json")
    plan["variables"]["region"] = {"value": "eu-west-1"}
    with pytest.raises(PricesUnknown, match="eu-west-1"):
        estimate(plan)


def test_contributor_insights_of_a_planned_table_is_priced_by_its_key_shape() -> None:
    plan = load_fixture("plan_create.json")
    plan["resource_changes"].append(
        {
            "address": 'module.table["bad"].aws_dynamodb_contributor_insights.this[0]',
            "mode": "managed",
            "type": "aws_dynamodb_contributor_insights",
            "change": {"actions": ["create"], "after": {"table_name": "hotbench-m1-demo-bad"}},
        }
    )
    with_insights = estimate(plan).per_hour_while_up
    # bad has a sort key: 4 rules x $0.50 per rule-month / 730 h
    assert with_insights - estimate(load_fixture("plan_create.json")).per_hour_while_up == (
        pytest.approx(4 * 0.50 / 730)
    )
