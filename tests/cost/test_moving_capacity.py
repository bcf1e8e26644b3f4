"""Cost follows capacity: a provisioned table whose capacity moved (auto scaling,
UpdateTable) is priced step by step at the capacity in force, in the plan, the check and
the tally alike; the note gives the figure if every started hour were billed at the most
provisioned during it. Prices: $0.00065 per WCU-hour, $0.00013 per RCU-hour (us-east-1,
https://aws.amazon.com/dynamodb/pricing/provisioned/)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from console.cost import IndexUse, Span, TableUse, UsageRecord, price
from console.cost.capacity_moves import moves_from_records, moves_from_series
from console.cost.expected_usage import predicted_moves
from console.cost.measured_usage import record_of_run, run_cost_at
from console.cost.prices import US_EAST_1
from console.cost.record import CapacityMove
from console.run.state import CapacityMoveState, RunState, TableState
from console.workflow.run_cost import tally_state
from emulator.model import CapacityModel
from loadgen.format.playbook import load_playbook
from loadgen.results.records import RunResult
from tests.conftest import PLAYBOOKS

WCU_H, RCU_H = 0.00065, 0.00013
TWO_HOURS = (Span("up", 7200.0),)


def _table(moves: tuple[CapacityMove, ...] = (), gsis: tuple[IndexUse, ...] = ()) -> TableUse:
    return TableUse(
        "t",
        "PROVISIONED",
        False,
        TWO_HOURS,
        read_capacity=10,
        write_capacity=100,
        gsis=gsis,
        moves=moves,
    )


def test_capacity_that_moved_is_priced_at_each_step_for_the_seconds_it_stood() -> None:
    # 100 WCU for 30 min, 1,000 WCU for 90 min; 10 RCU throughout.
    record = UsageRecord(tables=[_table((CapacityMove(1800.0, None, 10, 1000),))])
    bill = price(record, US_EAST_1)
    by_hand = (0.5 * 100 + 1.5 * 1000) * WCU_H + 2 * 10 * RCU_H
    assert bill.total_usd == pytest.approx(by_hand)
    [line] = bill.lines
    assert line.what == "capacity as it moved, t"
    # if every started hour were billed at its most: 1,000 WCU in both hours
    upper = 2 * 1000 * WCU_H + 2 * 10 * RCU_H
    assert bill.notes == [
        f"provisioned capacity is priced by the second it stands (${by_hand:,.2f}); if AWS "
        f"bills every started hour in full at the most provisioned during it it is "
        f"${upper:,.2f}"
    ]


def test_a_gsis_moves_are_its_own_and_a_scale_in_lowers_the_price() -> None:
    gsi = (IndexUse("byX", False, read_capacity=5, write_capacity=50),)
    moves = (
        CapacityMove(3600.0, "byX", 5, 500),  # the GSI scales out after an hour
        CapacityMove(5400.0, None, 10, 20),  # the table scales in at 1.5 h
    )
    bill = price(UsageRecord(tables=[_table(moves, gsi)]), US_EAST_1)
    wcu_hours = 1.5 * 100 + 0.5 * 20 + 1.0 * 50 + 1.0 * 500
    assert bill.total_usd == pytest.approx(wcu_hours * WCU_H + 2 * 15 * RCU_H)


def test_a_table_that_did_not_move_is_priced_exactly_as_before() -> None:
    fixed = price(UsageRecord(tables=[_table()]), US_EAST_1)
    assert fixed.total_usd == pytest.approx(2 * (100 * WCU_H + 10 * RCU_H))
    assert [line.what for line in fixed.lines] == ["capacity, up"]


def test_moves_are_read_from_the_models_capacity_record() -> None:
    model = CapacityModel()
    request = {
        "TableName": "t",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "ProvisionedThroughput": {"ReadCapacityUnits": 10, "WriteCapacityUnits": 100},
    }
    model.create_table(request, 0.0)
    config = model.table("t").config
    config.wcu = 400.0
    model.update_capacity("t", config, 60.0)
    model.advance(400.0)
    moves = moves_from_records(model.capacity_records("t"), offset_s=1000.0)
    assert len(moves) == 1 and moves[0].index is None and moves[0].write == 400.0
    assert moves[0].at_s > 1060.0  # in force once the change applied, on the table's clock
    view = model.capacity_view("t")["indexes"]
    assert moves_from_series(view, offset_s=1000.0) == moves


def test_the_plan_prices_the_capacity_the_policy_is_expected_to_move_through() -> None:
    playbook = load_playbook(PLAYBOOKS / "auto-scaling-launch.yaml")
    scaled = predicted_moves(playbook, playbook.table("scaled"), 100.0)
    assert scaled and all(m.at_s > 100.0 + 300 for m in scaled)  # after the ramp began
    assert max(m.write for m in scaled) >= 2100  # up to the peak's needs
    assert predicted_moves(playbook, playbook.table("floor"), 100.0) == ()


def test_the_check_prices_a_runs_moves_and_the_tally_a_tables_recorded_moves() -> None:
    playbook = load_playbook(PLAYBOOKS / "auto-scaling-launch.yaml")
    spec = playbook.table("scaled")
    run = RunResult("scaled", 1, 3600.0)
    moves = (CapacityMove(600.0, None, 5, 3000),)
    assert record_of_run(spec, run, moves).tables[0].moves == moves
    fixed = run_cost_at(US_EAST_1)(spec, run)
    moving = run_cost_at(US_EAST_1, lambda _run: moves)(spec, run)
    assert fixed == pytest.approx(300 * WCU_H + 5 * RCU_H)
    assert moving == pytest.approx((300 / 6 + 3000 * 5 / 6) * WCU_H + 5 * RCU_H)
    t0 = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    state = RunState(
        run_id="hb-test",
        target="aws",
        region="us-east-1",
        playbook_path="p.yaml",
        playbook_name="p",
        created_at=t0,
    )
    state.tables["scaled"] = TableState(
        variant="scaled",
        name="hotbench-hb-test-scaled",
        billing_mode="PROVISIONED",
        read_capacity=5,
        write_capacity=300,
        created_at=t0,
        deleted_at=t0 + timedelta(hours=1),
        moves=[CapacityMoveState(at_s=600.0, read=5, write=3000)],
    )
    tally = tally_state(state, now=t0 + timedelta(hours=2))
    assert tally.total_usd == pytest.approx(moving, abs=0.01)


def test_a_simulated_run_carries_the_capacity_its_policy_moved_and_its_cost_follows() -> None:
    """optimize-auto-scaling.yaml's ramp under a policy from 100 WCU: the simulation's run
    holds the steps (from 100, on the run's clock), and the run's cost (`check`'s
    cost_usd) prices them step by step: above 100 WCU standing still, below the highest
    step standing the whole run."""
    import yaml

    from loadgen.format.playbook import parse_playbook
    from loadgen.simulation.simulate import simulate

    data = yaml.safe_load((PLAYBOOKS / "optimize-auto-scaling.yaml").read_text())
    data["tables"][0]["write_capacity"] = 100
    data["tables"][0]["auto_scaling"] = {"write": {"target_pct": 70, "min": 100, "max": 1000}}
    data.pop("optimize")
    playbook = parse_playbook(data)
    spec = playbook.tables[0]
    (run,) = simulate(playbook).runs
    series = run.capacity["$table"]["series"]
    assert series[0] == {"t": 0.0, "kind": "provisioned", "read": 1.0, "write": 100.0}
    assert len(series) > 1 and all(0 < p["t"] < run.duration_s for p in series[1:])
    top = max(p["write"] for p in series)
    assert top > 100
    moved = run_cost_at(US_EAST_1)(spec, run)
    still = price(record_of_run(spec, run), US_EAST_1).total_usd
    at_top = price(
        record_of_run(spec, run, (CapacityMove(0.0, None, 1.0, top),)), US_EAST_1
    ).total_usd
    assert still < moved < at_top
    assert run.to_json()["capacity"] == run.capacity  # the result file keeps it
