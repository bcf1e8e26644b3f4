"""The M1 plan on `--target aws`, against figures worked out by hand.

M1 (docs/reference.md#m1-hot-partition-by-key-design, playbooks/hot-partition.yaml):
bad, good, goodGsi (with 3 GSIs) provisioned at 10,000 WCU / 1,000 RCU each, badOnDemand
on demand and run three times with 10-minute pauses; 4,000 writes/s for 120 s per run;
15,000 seed items per table. us-east-1 prices as in tests/cost/test_price.py.
"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from console.render.workflow_output import print_plan
from console.run.models import PlanReport
from console.run.options import UpOptions
from console.run.settings import Settings
from console.workflow.planning import make_plan

CAPACITY_PER_H = 6 * (10_000 * 0.00065 + 1_000 * 0.00013)
"""bad, good, goodGsi and its 3 GSIs: 6 x $6.63 = $39.78 per hour, used or not."""
SPANS = {
    "apply (est.)": 450.0,
    "image (est.)": 300.0,
    # seeding at the seeder's pace (half of what the hottest key and the table take):
    # bad 15,000 / 1,500 per s (3 warehouses x 1,000 WCU / 2) = 10 s; good 15,000 / 5,000
    # (half its 10,000 WCU) = 3 s; goodGsi 10 s (its GSIs' 3 warehouse keys); badOnDemand
    # 10 s
    "seeding": 33.0,
    "fleet starts": 6 * 180.0,  # 6 table runs, each fleet billed from its image pull
    "load": 6 * 120.0,
    "pauses": 2 * 600.0,
    "destroy (est.)": 450.0,
}
STOOD_S = sum(SPANS.values())  # 4,233 s


@pytest.fixture(scope="module")
def report() -> PlanReport:
    # CodeBuild named: the plan must not depend on whether this machine has a docker engine
    settings = Settings(target="aws", image_builder="codebuild", fleet="ecs")
    return make_plan("playbooks/hot-partition.yaml", settings, UpOptions(workers=4))


def test_m1_costs_39_78_per_hour_while_up(report: PlanReport) -> None:
    assert pytest.approx(39.78) == CAPACITY_PER_H
    assert report.per_hour_while_up == pytest.approx(39.78 + 3.0 / 730)  # + the dashboard
    # 4 tasks x (1 vCPU x $0.04048 + 2 GB x $0.004445) = $0.19748 per hour while they run
    assert report.per_hour_while_running == pytest.approx(0.19748)


def test_m1_estimate_prices_each_setup_span_the_tables_stand_through(report: PlanReport) -> None:
    assert {s.label: s.seconds for s in report.setup} == pytest.approx(SPANS, abs=0.5)
    lines = {x.what: x for x in report.lines}
    for label, seconds in SPANS.items():
        line = lines[f"capacity, {label}"]
        assert line.unit_price_usd == pytest.approx(39.78)
        assert line.usd == pytest.approx(seconds / 3600 * 39.78, rel=0.02)
    assert report.setup_s == pytest.approx(450 + 300 + 33 + 1080 + 450, abs=1)


def test_m1_estimate_adds_up_by_hand(report: PlanReport) -> None:
    capacity = STOOD_S / 3600 * 39.78  # $46.77
    on_demand = (3 * 480_000 + 15_000) / 1e6 * 0.625  # badOnDemand's runs and seeding
    # 24 tasks (6 runs x 4 workers), each 180 s start + 120 s load = 2 h in all
    fargate = 2.0 * 0.04048 + 2.0 * 2 * 0.004445
    dashboard = STOOD_S / (730 * 3600) * 3.0
    # the watch: 12 metrics x 7 tables and GSIs x 50 minutes (fleet starts, load, pauses)
    get_metric_data = 12 * 7 * 50 / 1000 * 0.01
    # the worker image built in the account: 5 CodeBuild minutes (300 s, rounded up) at
    # $0.005; 0.15 GB in ECR from its push (after apply and build) to the end of destroy at
    # $0.10 per GB-month; the 2 MB archive in S3 from apply's end, one PUT and one GET
    month = 730 * 3600
    image = (
        5 * 0.005
        + 0.15 * (STOOD_S - 450 - 300) / month * 0.10
        + 0.002 * (STOOD_S - 450) / month * 0.023
        + 0.005 / 1000
        + 0.0004 / 1000
    )
    # the backstop, priced as if it acted: a schedule per table (4), the results table,
    # the dashboard and each of the 24 tasks, $1.00 per million invocations
    backstop = (4 + 1 + 1 + 24) / 1e6 * 1.00
    expected = capacity + on_demand + fargate + dashboard + get_metric_data + image + backstop
    assert expected == pytest.approx(47.85, abs=0.005)
    assert report.estimated_cost_usd == pytest.approx(expected, abs=0.001)


def test_m1_estimate_prints_its_setup_lines_at_80_columns(report: PlanReport) -> None:
    out = io.StringIO()
    print_plan(report, Console(file=out, width=80, color_system=None))
    text = out.getvalue().splitlines()
    rows = [r for r in text if " x $" in r]
    assert len(rows) == len(report.lines) and all(len(r) <= 80 for r in rows)
    assert any(r.strip().startswith("capacity, fleet starts") and "$11.93" in r for r in rows)
    assert any("estimated cost =" in r and "$47.85" in r for r in text)
    assert "$39.78/h while up" in "\n".join(text)


# -- the same M1 on the Lambda fleet ------------------------------------------------------

LAMBDA_SPANS = {
    "apply (est.)": 450.0,
    "seeding": 33.0,  # as above
    "fleet starts": 6 * 15.0,  # a cold start and the barrier per table run, no image
    "load": 6 * 120.0,
    "pauses": 2 * 600.0,
    "destroy (est.)": 450.0,
}


@pytest.fixture(scope="module")
def on_lambda() -> PlanReport:
    return make_plan(
        "playbooks/hot-partition.yaml", Settings(target="aws", fleet="lambda"), UpOptions(workers=2)
    )


def test_m1_on_lambda_is_sized_to_its_rate(on_lambda: PlanReport) -> None:
    """4,000 writes/s: --workers 2 would ask 2,000/s of one worker, which offers 1,000: four
    workers of 1,792 MB (1,769 MB is one vCPU, rounded up to 64 MB)."""
    fleet = on_lambda.fleet
    assert (fleet.name, fleet.workers, fleet.memory_gb * 1024) == ("lambda", 4, 1792)
    assert fleet.in_flight == 4  # one window: no hand-over
    assert "one offers at most 1,000/s" in fleet.summary


def test_m1_on_lambda_adds_up_by_hand(on_lambda: PlanReport) -> None:
    assert {s.label: s.seconds for s in on_lambda.setup} == pytest.approx(LAMBDA_SPANS, abs=0.5)
    stood = sum(LAMBDA_SPANS.values())  # 2,943 s: no image, 15 s starts
    capacity = stood / 3600 * 39.78
    on_demand = (3 * 480_000 + 15_000) / 1e6 * 0.625
    # 24 invocations (6 runs x 4 workers), each billed 15 s start + 120 s load + 2 s tail
    gb_s = 24 * 1.75 * (15 + 120 + 2)
    lambda_cost = gb_s * 0.0000166667 + 24 / 1e6 * 0.20
    dashboard = stood / (730 * 3600) * 3.0
    get_metric_data = 12 * 7 * 34 / 1000 * 0.01  # 34 minutes of starts, load and pauses
    backstop = (4 + 1 + 1) / 1e6 * 1.00  # tables, results table, dashboard: no tasks
    expected = capacity + on_demand + lambda_cost + dashboard + get_metric_data + backstop
    assert expected == pytest.approx(33.56, abs=0.005)
    assert on_lambda.estimated_cost_usd == pytest.approx(expected, abs=0.001)
    lines = {x.what: x for x in on_lambda.lines}
    assert lines["Lambda duration, 24 invocations"].quantity == pytest.approx(gb_s / 1000)
    assert not any("Fargate" in x.what or "image" in x.what for x in on_lambda.lines)


def test_the_plan_compares_the_fleets_and_says_why(on_lambda: PlanReport) -> None:
    """Each AWS fleet's estimate of the same run, the chosen first; the other's line says
    how much longer its tables stand and why (its image build, its slower start)."""
    assert [(f.name, f.chosen) for f in on_lambda.fleets] == [("lambda", True), ("ecs", False)]
    ecs = on_lambda.fleets[1]
    assert ecs.total_usd > on_lambda.estimated_cost_usd
    assert ecs.stand_s - on_lambda.fleets[0].stand_s == pytest.approx(300 + 6 * (180 - 15))
    out = io.StringIO()
    print_plan(on_lambda, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert "fleets: lambda $33.56 (this plan), ecs $" in text
    assert "ecs: the tables stand 22 min longer at $39.78/h (a 300 s image build first; " in text
    assert "fleet: 4 Lambda workers" in text
