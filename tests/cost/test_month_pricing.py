"""Table class, storage, reserved capacity and the month of `hotbench optimize`, against
figures worked out by hand.

Prices (us-east-1, console/cost/prices.py with their sources): Standard $0.00065 per
WCU-hour and $0.00013 per RCU-hour, $0.625 / $0.125 per million write / read request
units; Standard-IA $0.00081 and $0.00016 per hour, $0.78125 / $0.15625 per million;
storage $0.25 (Standard) and $0.10 (Standard-IA) per GB-month; reserved capacity per 100
units, one year: $150 upfront + $0.0128 an hour (WCU), $30 + $0.0025 (RCU); three years:
$180 + $0.0081, $36 + $0.0016. A month is 730 hours.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
import yaml

from console.cost import RequestUnits, Span, TableUse, UsageRecord, price
from console.cost.configuration_cost import configuration_pricing
from console.cost.month_usage import month_record, stored_gb
from console.cost.price import upfront_usd
from console.cost.prices import US_EAST_1
from loadgen.format.playbook import parse_playbook
from loadgen.simulation.simulate import simulate
from tests.loadgen.optimize_playbooks import LAUNCH

MONTH = (Span("month", 730 * 3600.0),)


def total(record: UsageRecord) -> float:
    return price(record, US_EAST_1).total_usd


def test_standard_ia_capacity_and_requests_take_their_own_prices() -> None:
    ia = TableUse(
        "t",
        "PROVISIONED",
        False,
        MONTH,
        read_capacity=100,
        write_capacity=1000,
        table_class="STANDARD_INFREQUENT_ACCESS",
    )
    assert total(UsageRecord(tables=[ia])) == pytest.approx((1000 * 0.00081 + 100 * 0.00016) * 730)
    od = TableUse("u", "PAY_PER_REQUEST", False, MONTH, table_class="STANDARD_INFREQUENT_ACCESS")
    bill = price(UsageRecord(tables=[od], requests=[RequestUnits("u", None, 2e6, 4e6)]), US_EAST_1)
    assert bill.total_usd == pytest.approx(2 * 0.78125 + 4 * 0.15625)
    assert all("(Standard-IA)" in line.what for line in bill.lines)


def test_storage_is_priced_per_gb_month_of_its_class() -> None:
    standard = TableUse("t", "PAY_PER_REQUEST", False, MONTH, stored_gb=100.0)
    ia = replace(standard, name="u", table_class="STANDARD_INFREQUENT_ACCESS")
    assert total(UsageRecord(tables=[standard])) == pytest.approx(25.0)
    assert total(UsageRecord(tables=[ia])) == pytest.approx(10.0)
    half = replace(standard, spans=(Span("half", 365 * 3600.0),))
    assert total(UsageRecord(tables=[half])) == pytest.approx(12.5)


def test_reserved_units_take_the_terms_rates_and_a_share_of_the_upfront() -> None:
    table = TableUse(
        "t",
        "PROVISIONED",
        False,
        MONTH,
        read_capacity=250,
        write_capacity=6050,
        reserved_write=6000,
        reserved_read=200,
        reserved_term_years=1,
    )
    bill = price(UsageRecord(tables=[table]), US_EAST_1)
    by_what = {line.what: line.usd for line in bill.lines}
    assert by_what["capacity, month"] == pytest.approx((50 * 0.00065 + 50 * 0.00013) * 730)
    assert by_what["reserved WCU, 1-year, hourly"] == pytest.approx(60 * 0.0128 * 730)
    assert by_what["reserved WCU, 1-year, upfront share"] == pytest.approx(60 * 150 / 12)
    assert by_what["reserved RCU, 1-year, hourly"] == pytest.approx(2 * 0.0025 * 730)
    assert by_what["reserved RCU, 1-year, upfront share"] == pytest.approx(2 * 30 / 12)
    assert upfront_usd(UsageRecord(tables=[table]), US_EAST_1) == pytest.approx(60 * 150 + 2 * 30)
    # 54 % below provisioned over a year, as the pricing page says
    plain = replace(table, reserved_write=0, reserved_read=0)
    reserved_wcu = (
        by_what["reserved WCU, 1-year, hourly"] + by_what["reserved WCU, 1-year, upfront share"]
    )
    assert 1 - reserved_wcu / (6000 * 0.00065 * 730) == pytest.approx(0.54, abs=0.01)
    three = replace(table, reserved_term_years=3)
    assert total(UsageRecord(tables=[three])) < total(UsageRecord(tables=[table]))
    assert total(UsageRecord(tables=[plain])) > total(UsageRecord(tables=[table]))


def test_a_month_prices_the_runs_units_for_the_busy_seconds() -> None:
    data = yaml.safe_load(LAUNCH)
    data["optimize"]["month"] = {"peak_hours_per_day": 2, "off_peak_fraction": 0.5, "days": 30}
    playbook = parse_playbook(data)
    result = simulate(playbook)
    record = month_record(playbook, result, ["t"], playbook.optimize.month)  # type: ignore[union-attr]
    run = result.runs[0]
    busy = (2 + 0.5 * 22) * 3600 * 30
    assert record.tables[0].stood_s == 24 * 3600 * 30
    units = sum(u.write_units for u in record.requests)
    assert units == pytest.approx(run.totals().consumed_wcu / run.duration_s * busy)
    # what the run left: every admitted put a new item (uuid keys), 1,000 bytes + 100
    assert record.tables[0].stored_gb == pytest.approx(run.totals().succeeded * 1100 / 1e9)
    assert stored_gb(playbook.tables[0], [run], 10) == pytest.approx(10 * 1100 / 1e9)


def test_the_warm_tables_recommendation_worked_by_hand() -> None:
    """warm-throughput.yaml's `warm` as `hotbench optimize` recommends it (docs/optimize.md):
    provisioned 6,000 WCU and 1 RCU, the 6,000 reserved for a year, its launch all month."""
    text = LAUNCH.replace(
        "billing_mode: PAY_PER_REQUEST",
        "billing_mode: PROVISIONED\n    write_capacity: 6000\n    read_capacity: 1\n"
        "    reserved_capacity: {write: 6000, term_years: 1}",
    )
    playbook = parse_playbook(yaml.safe_load(text))
    result = simulate(playbook)
    costs = configuration_pricing(US_EAST_1)(playbook, result, ["t"])
    assert costs is not None
    reserved = 60 * (0.0128 * 730 + 150 / 12)  # $1,310.64
    rcu = 1 * 0.00013 * 730
    storage = result.runs[0].totals().succeeded * 1100 / 1e9 * 0.25
    assert costs.month_usd == pytest.approx(reserved + rcu + storage)
    assert costs.upfront_usd == pytest.approx(9000.0)
    # the run: 5 s standing (the reserved hours' share and the upfront's, 1 RCU)
    hours = 5 / 3600
    assert costs.run_usd == pytest.approx(
        60 * (0.0128 * hours + 150 * hours / 8760) + 0.00013 * hours
    )


def test_a_class_without_prices_is_not_priced() -> None:
    text = LAUNCH.replace(
        "item_size_bytes: 1000",
        "item_size_bytes: 1000\n    table_class: STANDARD_INFREQUENT_ACCESS",
    )
    playbook = parse_playbook(yaml.safe_load(text))
    result = simulate(playbook)
    refreshed = replace(US_EAST_1, infrequent_access=None)
    assert configuration_pricing(refreshed)(playbook, result, ["t"]) is None
    assert configuration_pricing(US_EAST_1)(playbook, result, ["t"]) is not None


def test_a_month_of_auto_scaling_repeats_the_runs_steps_and_settles_off_peak() -> None:
    """A 600 s run that scaled 100 -> 500 WCU at 300 s, repeated through 1 peak hour a day
    (6 runs: 300 WCU on average), the other 23 h at what the policy settles at for a tenth
    of the run's mean 400 WCU/s at 50 %: 80, so the minimum of 100. 2 days: 2 x (300 +
    23 x 100) WCU-hours = 5,200 x $0.00065 = $3.38, and 48 RCU-hours x $0.00013."""
    from console.cost.month_usage import month_moves
    from loadgen.format.optimize_spec import MonthSpec
    from loadgen.results.records import Counts, RunResult

    spec = parse_playbook(
        yaml.safe_load(
            LAUNCH.replace(
                "billing_mode: PAY_PER_REQUEST",
                "billing_mode: PROVISIONED\n    read_capacity: 1\n    write_capacity: 100\n"
                "    auto_scaling: {write: {target_pct: 50, min: 100, max: 1000}}",
            )
        )
    ).tables[0]
    point = {"kind": "provisioned", "read": 1.0}
    run = RunResult("t", 1, 600.0)
    run.seconds = {s: Counts(consumed_wcu=400.0) for s in range(600)}
    run.capacity = {
        "$table": {
            "series": [{**point, "t": 0.0, "write": 100.0}, {**point, "t": 300.0, "write": 500.0}]
        }
    }
    month = MonthSpec(peak_hours_per_day=1, off_peak_fraction=0.1, days=2)
    moves = month_moves(spec, [run], month)
    assert len(moves) == 2 * (6 * 2 + 1)
    assert [(m.at_s, m.write) for m in moves[:3]] == [(0.0, 100.0), (300.0, 500.0), (600.0, 100.0)]
    assert (moves[12].at_s, moves[12].write) == (3600.0, 100.0)  # settled off peak
    table = replace(
        TableUse("t", "PROVISIONED", False, (Span("month", month.seconds),), 1, 100),
        moves=moves,
    )
    assert total(UsageRecord(tables=[table])) == pytest.approx(5200 * 0.00065 + 48 * 0.00013)
    fixed = replace(table, moves=())
    assert total(UsageRecord(tables=[fixed])) == pytest.approx(4800 * 0.00065 + 48 * 0.00013)
