"""The one price function against figures worked out by hand in each test.

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

from console.cost import (
    IndexUse,
    PricesUnknown,
    RequestUnits,
    Span,
    TableUse,
    TaskUse,
    UsageRecord,
    price,
    price_table,
)
from console.cost.prices import US_EAST_1
from console.run.state import IndexState, RunState, TableState, TaskRecord, UnitsUsed
from console.workflow.run_cost import tally_state

T0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
DAY = (Span("up", 24 * 3600.0),)


def total(record: UsageRecord) -> float:
    return price(record, US_EAST_1).total_usd


def provisioned(name: str, spans: tuple[Span, ...] = DAY) -> TableUse:
    return TableUse(name, "PROVISIONED", False, spans, read_capacity=1_000, write_capacity=10_000)


def on_demand(name: str, gsis: tuple[IndexUse, ...] = (), sort_key: bool = False) -> TableUse:
    return TableUse(name, "PAY_PER_REQUEST", sort_key, DAY, gsis=gsis)


def test_three_provisioned_tables_of_10000_wcu_and_1000_rcu_for_24_hours() -> None:
    record = UsageRecord(tables=[provisioned(f"t{i}") for i in range(3)])
    # by hand: 3 x 10,000 x 24 x 0.00065 = 468.00; 3 x 1,000 x 24 x 0.00013 = 9.36
    assert total(record) == pytest.approx(468.00 + 9.36)


def test_provisioned_capacity_is_priced_by_the_second_and_the_started_hours_are_noted() -> None:
    record = UsageRecord(tables=[provisioned("t", (Span("load", 90.0),))])
    bill = price(record, US_EAST_1)
    # by hand: 90 s = 0.025 h x $6.63/h = $0.16575; a started hour in full: $6.63
    assert bill.total_usd == pytest.approx(0.16575)
    assert any("$6.63" in n and "started hour" in n for n in bill.notes)


def test_on_demand_writes_and_eventually_consistent_reads_after_the_price_cut() -> None:
    record = UsageRecord(
        tables=[on_demand("t")],
        requests=[RequestUnits("t", None, write_units=672_116, read_units=540_000)],
    )
    # by hand: 672,116 WRU x $0.625/M = $0.4200725; 540,000 RRU x $0.125/M = $0.0675
    assert total(record) == pytest.approx(0.4200725 + 0.0675)


def test_request_units_of_a_provisioned_table_are_covered_by_its_capacity() -> None:
    record = UsageRecord(
        tables=[provisioned("t", (Span("load", 3600.0),))],
        requests=[RequestUnits("t", None, write_units=1e6)],
    )
    assert total(record) == pytest.approx(6.63)


def test_on_demand_writes_are_billed_on_the_table_and_on_every_gsi_they_touched() -> None:
    gsis = (IndexUse("byA", False), IndexUse("byB", True))
    record = UsageRecord(
        tables=[on_demand("t", gsis)],
        requests=[
            RequestUnits("t", None, write_units=1e6),
            RequestUnits("t", "byA", write_units=1e6),
            RequestUnits("t", "byB", write_units=2e6),  # key changes: two writes each
        ],
    )
    bill = price(record, US_EAST_1)
    # by hand: (1 + 1 + 2) million WRU x $0.625 = $2.50; the GSIs' on a line of their own
    assert bill.total_usd == pytest.approx(2.50)
    gsi_line = next(x for x in bill.lines if x.what.endswith("GSIs"))
    assert gsi_line.quantity == pytest.approx(3.0)


def test_eight_fargate_tasks_of_1_vcpu_and_2_gb_for_30_minutes() -> None:
    record = UsageRecord(tasks=[TaskUse(f"task{i}", 1.0, 2.0, 0.0, 1800.0) for i in range(8)])
    # by hand: 8 x 0.5 h x $0.04048 = $0.16192; 8 x 2 GB x 0.5 h x $0.004445 = $0.03556
    assert total(record) == pytest.approx(0.16192 + 0.03556)


def test_fargate_bills_from_pull_start_to_stop_with_a_one_minute_minimum() -> None:
    record = UsageRecord(tasks=[TaskUse("short", 1.0, 2.0, 100.0, 105.0)])
    # by hand: 5 s billed as 60 s = 1/60 h x ($0.04048 + 2 x $0.004445)
    assert total(record) == pytest.approx((0.04048 + 0.00889) / 60)


def test_contributor_insights_rules_by_table_and_gsi_and_their_key_shape() -> None:
    gsis = (IndexUse("byA", False), IndexUse("byB", True))
    month = (Span("up", 730 * 3600.0),)
    table = TableUse("t", "PAY_PER_REQUEST", True, month, contributor_insights=True, gsis=gsis)
    record = UsageRecord(tables=[table])
    # by hand: table with a sort key 4 + byA (no sort key) 2 + byB (sort key) 4 = 10 rules
    # for one month (730 h) x $0.50 = $5.00
    assert total(record) == pytest.approx(5.00)


def test_warm_throughput_above_the_model_defaults_is_listed_not_guessed() -> None:
    from emulator.params import DEFAULT_PARAMS

    at_default = TableUse(
        "t", "PAY_PER_REQUEST", False, DAY, warm_write=int(DEFAULT_PARAMS.ondemand_initial_wcu)
    )
    raised = TableUse("u", "PAY_PER_REQUEST", False, DAY, warm_write=10_000)
    bill = price(UsageRecord(tables=[at_default, raised]), US_EAST_1)
    notes = [n for n in bill.notes if "warm throughput" in n]
    assert len(notes) == 1 and notes[0].startswith("u:") and "6,000 write" in notes[0]
    assert bill.total_usd == 0.0


def test_tally_of_a_recorded_aws_run_adds_the_figures_by_hand() -> None:
    """Through the run state: creation and deletion times, the units recorded by table
    and GSI, each task's pull start and stop."""
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
    state.tables["od"] = TableState(
        variant="od",
        name="hotbench-hb-test-od",
        billing_mode="PAY_PER_REQUEST",
        gsis=[IndexState(name="byX")],
        created_at=T0,
        deleted_at=T0 + timedelta(hours=24),
    )
    state.usage.units = [
        UnitsUsed(table="hotbench-hb-test-od", write_units=672_116, read_units=540_000),
        UnitsUsed(table="hotbench-hb-test-od", index="byX", write_units=672_116),
    ]
    state.tasks = [
        TaskRecord(
            id=f"arn:aws:ecs:us-east-1:123456789012:task/c/{i}",
            run_label="a#1",
            pull_started_at=T0 + timedelta(minutes=10),
            stopped_at=T0 + timedelta(minutes=40),
        )
        for i in range(8)
    ]
    result = tally_state(state, now=T0 + timedelta(hours=25))
    dashboard = 24 / 730 * 3.0  # the stack's dashboard, 24 h of $3 per month
    assert result.total_usd == pytest.approx(
        477.36 + 2 * 0.4200725 + 0.0675 + 0.16192 + 0.03556 + dashboard
    )
    assert result.prices_as_of.isoformat() == "2026-11-30"
    assert result.prices_region == "us-east-1"
    assert not result.hypothetical


@pytest.mark.parametrize(
    "region", ["us-west-2", "eu-west-1", "eu-central-1", "ap-northeast-1", "ap-southeast-2"]
)
def test_a_region_without_recorded_prices_is_refused_with_the_fix(region: str) -> None:
    with pytest.raises(PricesUnknown) as caught:
        price_table(region)
    message = str(caught.value)
    assert region in message and "--refresh-prices" in message and "--price-region" in message
    assert caught.value.code == 2
