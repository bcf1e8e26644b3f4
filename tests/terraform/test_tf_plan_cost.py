"""Plan summary and cost estimate from recorded `terraform show -json` output."""

from __future__ import annotations

import pytest
from tfkit import load_fixture

from console.infra import estimate, prices, summarize
from console.infra.cost import WHILE_RUNNING


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
    assert any(line.when == WHILE_RUNNING for line in cost.lines)
    assert cost.describe()[0].startswith("Estimated cost: $39.78/h while up, plus $0.20/h")


def test_cost_uses_after_state_and_arm_prices() -> None:
    cost = estimate(load_fixture("plan_changes.json"))
    # bad updated to 2,000 RCU; good replaced; badOnDemand deleted (not priced).
    bad = 10_000 * prices.PROVISIONED_WCU_HOUR + 2_000 * prices.PROVISIONED_RCU_HOUR
    good = 10_000 * prices.PROVISIONED_WCU_HOUR + 1_000 * prices.PROVISIONED_RCU_HOUR
    assert cost.per_hour_while_up == pytest.approx(bad + good)
    # task_count 2 from plan variables, 2 vCPU / 4 GB ARM64
    arm = 2 * prices.FARGATE_VCPU_HOUR["ARM64"] + 4 * prices.FARGATE_GB_HOUR["ARM64"]
    assert cost.per_hour_while_running == pytest.approx(2 * arm)


def test_task_count_argument_overrides_plan_variable() -> None:
    cost = estimate(load_fixture("plan_create.json"), task_count=10)
    assert cost.per_hour_while_running == pytest.approx(10 * (0.04048 + 2 * 0.004445))
