"""The same run priced three ways: the plan (before), the simulated check (the model's
counts) and the tally of a finished local run of the same playbook (the endpoint's
ConsumedCapacity, GSIs included). Nothing throttles, so every request unit agrees; the
totals differ only by what the tables and tasks stood through apart from the load: the
plan's AWS setup, the local run's few seconds of start and tear-down.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from console.cost.measured_usage import record_of_result
from console.cost.price import price
from console.cost.prices import US_EAST_1
from console.cost.rules import fargate_billed_s
from console.cost.setup import FleetShape
from console.run.models import CostLine
from console.run.options import UpOptions
from console.run.settings import Settings
from console.run.state import StateStore
from console.workflow.planning import make_plan
from console.workflow.run_cost import record_of_state
from loadgen.format.playbook import load_playbook
from loadgen.runners import SimulatedRunner
from tests.workflow.conftest import Cli, cli  # noqa: F401 (the fixture)

WORKERS = 2

TWO_GSIS = """\
name: two-gsis
tables:
  - name: orders
    partition_key: {name: orderId}
    billing_mode: PAY_PER_REQUEST
    item_size_bytes: 900
    gsis:
      - {name: byCustomer, partition_key: {name: customerId}, projection: ALL}
      - {name: byStatus, partition_key: {name: status}, sort_key: {name: customerId},
         projection: KEYS_ONLY}
load:
  attributes:
    orderId: {dist: uuid}
    customerId: {dist: uniform, count: 2000, format: "c{:05d}"}
    status: {dist: uniform, count: 50, format: "s{:02d}"}
  phases:
    - {name: w, operation: put, rate: 300, duration_s: 4}
"""

INSIGHTS = """\
name: insights
tables:
  - name: events
    partition_key: {name: deviceId}
    sort_key: {name: eventId}
    billing_mode: PAY_PER_REQUEST
    item_size_bytes: 1500
    contributor_insights: ACCESSED_AND_THROTTLED_KEYS
load:
  attributes:
    deviceId: {dist: uniform, count: 500, format: "d{:04d}"}
    eventId: {dist: uuid}
  phases:
    - {name: w, operation: put, rate: 300, duration_s: 4}
"""


def units(lines: list[CostLine]) -> dict[str, float]:
    """The request-unit lines (million units by what they are)."""
    return {x.what: x.quantity for x in lines if x.unit in ("M WRU", "M RRU")}


def task_s(record_tasks: list) -> float:  # type: ignore[type-arg]
    return sum(fargate_billed_s(t.pull_start_s, t.stop_s) for t in record_tasks)


@pytest.mark.e2e  # plan, up, run, tally and down per case: ~18 s each
@pytest.mark.parametrize("text", [TWO_GSIS, INSIGHTS], ids=["on-demand+2-GSIs", "insights"])
def test_plan_check_and_tally_agree_within_the_setup_time(
    text: str,
    cli: Cli,  # noqa: F811
    tmp_path: Path,
) -> None:
    path = tmp_path / "playbook.yaml"
    path.write_text(text)
    playbook = load_playbook(path)

    # priced as Fargate tasks, whose seconds this case adds up by hand
    settings = Settings(target="local", fleet="ecs")
    plan = make_plan(path, settings, UpOptions(workers=WORKERS), prices=US_EAST_1)
    plan_stood = sum(s.seconds for s in plan.setup)
    plan_task_s = WORKERS * (180.0 + 4.0)
    # the watch's GetMetricData is made only by a watched run on AWS: neither a check
    # nor a local run has it
    plan_total = plan.estimated_cost_usd - sum(
        x.usd for x in plan.lines if x.what == "CloudWatch GetMetricData"
    )
    up_per_h = plan.per_hour_while_up
    task_per_h = plan.per_hour_while_running / WORKERS

    simulated = SimulatedRunner().run(playbook)
    check_record = record_of_result(playbook, simulated, FleetShape(WORKERS))
    check = price(check_record, US_EAST_1)

    state = cli.json("up", str(path), "--yes", "--workers", str(WORKERS), "--fleet", "ecs")
    run_id = state["run_id"]
    ran = cli("run", "--run", run_id)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    down = cli("down", run_id)
    assert down.returncode == 0, down.stdout + down.stderr
    tally = cli.json("tally", run_id)
    finished = StateStore(cli.runs_dir).load(run_id)
    assert sum(r.totals().throttled for r in simulated.runs) == 0
    tally_record = record_of_state(finished)

    # every request unit agrees: the table's and each GSI's (puts of new items: one entry
    # per index), planned, simulated, and reported by the endpoint
    planned = units(plan.lines)
    assert planned, plan.lines
    assert units(check.lines) == pytest.approx(planned, rel=0.01)
    assert units([CostLine(**x) for x in tally["lines"]]) == pytest.approx(planned, rel=0.01)
    if playbook.tables[0].gsis:
        assert any(w.endswith("GSIs") for w in planned)

    # the totals differ by what stood apart from the load: the plan's AWS setup
    # (apply, image, fleet starts, destroy) against the check's bare runs, and the local
    # run's seconds of start and tear-down
    check_stood = check_record.tables[0].stood_s
    assert plan_stood - check_stood == pytest.approx(plan.setup_s, abs=1.0)
    for other_total, stood, other_task_s in (
        (check.total_usd, check_stood, task_s(check_record.tasks)),
        (tally["total_usd"], tally_record.tables[0].stood_s, task_s(tally_record.tasks)),
    ):
        allowed = (
            abs(plan_stood - stood) / 3600 * up_per_h
            + abs(plan_task_s - other_task_s) / 3600 * task_per_h
            + 0.0005
        )
        assert abs(plan_total - other_total) <= allowed, (plan_total, other_total, allowed)
    if playbook.tables[0].contributor_insights:
        rules = [x for x in tally["lines"] if x["what"] == "Contributor Insights rules"]
        # one sort-keyed table: 4 rules for as long as it stood
        assert rules[0]["quantity"] == pytest.approx(
            4 * tally_record.tables[0].stood_s / (730 * 3600), rel=1e-6
        )
