"""Cost arithmetic against figures worked out by hand in each test.

Prices (us-east-1, docs/reference.md#prices): $0.00065 per WCU-hour, $0.00013 per
RCU-hour (https://aws.amazon.com/dynamodb/pricing/provisioned/); $0.625 per million write
request units and $0.125 per million read request units since the 2024-11-01 cut, an
eventually consistent read of up to 4 KB being half a unit
(https://aws.amazon.com/dynamodb/pricing/on-demand/); Fargate Linux/x86 $0.04048 per
vCPU-hour and $0.004445 per GB-hour, per second with a one-minute minimum
(https://aws.amazon.com/fargate/pricing/).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from console.infra.prices import US_EAST_1, price_table
from console.workflow.costing import (
    BilledUsage,
    ProvisionedUse,
    TaskUse,
    price_usage,
    read_request_units,
    write_request_units,
)
from console.workflow.options import UpOptions
from console.workflow.planning import make_plan
from console.workflow.run_state import RunState, TableState, TaskRecord
from console.workflow.settings import Settings
from console.workflow.tallying import tally_state

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def total(usage: BilledUsage) -> float:
    lines, _notes = price_usage(usage, US_EAST_1)
    return sum(line.usd for line in lines)


def test_three_provisioned_tables_of_10000_wcu_and_1000_rcu_for_24_hours() -> None:
    usage = BilledUsage(
        provisioned=[ProvisionedUse(f"t{i}", 10_000, 1_000, 24.0) for i in range(3)]
    )
    # by hand: 3 x 10,000 x 24 x 0.00065 = 468.00; 3 x 1,000 x 24 x 0.00013 = 9.36
    assert total(usage) == pytest.approx(468.00 + 9.36)


def test_on_demand_writes_and_eventually_consistent_reads_after_the_price_cut() -> None:
    usage = BilledUsage(
        write_request_units=write_request_units(672_116, item_bytes=1000),
        read_request_units=read_request_units(1_080_000, item_bytes=1000),
    )
    # by hand: 672,116 writes of <= 1 KB = 672,116 WRU x $0.625/M = $0.4200725;
    # 1,080,000 eventually consistent reads of <= 4 KB = 540,000 RRU x $0.125/M = $0.0675
    assert usage.read_request_units == 540_000
    assert total(usage) == pytest.approx(0.4200725 + 0.0675)


def test_eight_fargate_tasks_of_1_vcpu_and_2_gb_for_30_minutes() -> None:
    usage = BilledUsage(tasks=[TaskUse(f"task{i}", 1.0, 2.0, 1800.0) for i in range(8)])
    # by hand: 8 x 1 vCPU x 0.5 h x $0.04048 = $0.16192; 8 x 2 GB x 0.5 h x $0.004445 =
    # $0.03556
    assert total(usage) == pytest.approx(0.16192 + 0.03556)


def test_fargate_bills_at_least_one_minute_per_task() -> None:
    usage = BilledUsage(tasks=[TaskUse("short", 1.0, 2.0, 5.0)])
    # by hand: 60 s = 1/60 h x ($0.04048 + 2 x $0.004445)
    assert total(usage) == pytest.approx((0.04048 + 0.00889) / 60)


def test_larger_items_take_more_units() -> None:
    assert write_request_units(10, item_bytes=2500) == 30  # 3 KB each
    assert read_request_units(10, item_bytes=9000, strongly_consistent=True) == 30
    assert read_request_units(10, item_bytes=9000) == 15


def test_tally_of_a_recorded_aws_run_adds_the_three_by_hand() -> None:
    """The same figures, through the run state: the tally reads creation and deletion
    times, the on-demand units recorded by the run step, and each task's span."""
    state = RunState(
        run_id="hb-test",
        target="aws",
        region="us-east-1",
        playbook_path="p.yaml",
        playbook_name="p",
        created_at=T0,
    )
    for name in ("a", "b", "c"):
        state.tables[name] = TableState(
            variant=name,
            name=f"hotbench-hb-test-{name}",
            billing_mode="PROVISIONED",
            read_capacity=1_000,
            write_capacity=10_000,
            created_at=T0,
            deleted_at=T0 + timedelta(hours=24),
        )
    state.usage.write_request_units = 672_116
    state.usage.read_request_units = read_request_units(1_080_000)
    state.tasks = [
        TaskRecord(
            id=f"arn:aws:ecs:us-east-1:123456789012:task/c/{i}",
            run_label="a#1",
            pull_started_at=T0,
            stopped_at=T0 + timedelta(minutes=30),
        )
        for i in range(8)
    ]
    result = tally_state(state, Settings(), now=T0 + timedelta(hours=25))
    dashboard = 24 / 730 * 3.0  # the stack's dashboard, 24 h of $3 per month
    assert result.total_usd == pytest.approx(
        477.36 + 0.4200725 + 0.0675 + 0.16192 + 0.03556 + dashboard
    )
    assert result.prices_as_of.isoformat() == "2026-11-30"
    assert result.prices_region == "us-east-1"
    assert not result.hypothetical


def test_plan_of_the_m1_playbook_prices_what_docs_terraform_md_states() -> None:
    report = make_plan("playbooks/hot-partition.yaml", Settings(target="aws"), UpOptions(workers=4))
    # docs/terraform.md: $39.78/h while up (3 tables + 3 GSIs of 10,000 WCU and 1,000
    # RCU) plus the dashboard ($3/730 h); 4 tasks x (0.04048 + 2 x 0.004445) = $0.19748/h
    assert report.per_hour_while_up == pytest.approx(6 * 6.63 + 3 / 730)
    assert report.per_hour_while_running == pytest.approx(0.19748)
    # badOnDemand: 3 runs of 4,000 writes/s x 120 s = 1.44 million WRU = $0.90
    on_demand = [line for line in report.lines if line.unit == "million WRU"]
    assert on_demand[0].usd == pytest.approx(0.90)
    assert not report.hypothetical


def test_a_region_without_recorded_prices_says_so() -> None:
    table, note = price_table("eu-west-1")
    assert table.region == "us-east-1"
    assert note is not None and "eu-west-1" in note and "--refresh-prices" in note
