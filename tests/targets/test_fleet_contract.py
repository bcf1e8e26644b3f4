"""The Fleet contract: the same promises from every fleet (console/targets/fleets/), the
local processes, the ECS Fargate tasks and the Lambda invocations, as test_contract.py
asks them of every target. A fourth fleet joins by adding itself to `KINDS`.

Fast: a fleet's words, its cost model priced by the one price function, its Terraform
variables, its actions in the shipped operator policy, what its workers used read back
from a run's records, and its lifecycle and stop reasons; the end-to-end runs are the
rehearsal's (test_rehearsal.py for ECS, test_rehearsal_lambda.py for Lambda)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from console.cost import price, price_table
from console.cost.setup import WorkerCost
from console.run.options import UpOptions
from console.run.settings import Settings
from console.run.state import InvocationRecord, RunState, TableRun, TaskRecord
from console.targets import target_class
from console.targets.fleets import AWS_FLEETS, FleetKind, chosen_fleet, fleet_named
from console.targets.preflight import all_actions
from loadgen.format.playbook import load_playbook, parse_playbook

ROOT = Path(__file__).resolve().parents[2]
M1 = ROOT / "playbooks" / "hot-partition.yaml"
T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

KINDS = {
    "local": lambda: target_class("local").fleet_kind("lambda"),
    "ecs": lambda: fleet_named("ecs"),
    "lambda": lambda: fleet_named("lambda"),
}


@pytest.fixture(params=sorted(KINDS))
def kind(request: pytest.FixtureRequest) -> FleetKind:
    made: FleetKind = KINDS[request.param]()
    return made


def recorded_run(fleet: str) -> RunState:
    """A run that ran one table run of M1 for 2 minutes: its records as each fleet keeps
    them (a task from its pull to its stop, an invocation with its billed duration)."""
    state = RunState(
        run_id="hb-fleet",
        target="local" if fleet == "local" else "aws",
        region="us-east-1",
        playbook_path=str(M1),
        playbook_name="hot-partition",
        created_at=T0,
        fleet="lambda" if fleet == "local" else fleet,  # type: ignore[arg-type]
        workers=2,
        worker_memory_mb=1792,
    )
    run = TableRun(
        variant="bad",
        repeat=1,
        fleet_run_id="hb-fleet-bad-1-abcd",
        started_at=T0 + timedelta(minutes=10),
        finished_at=T0 + timedelta(minutes=12),
    )
    state.table_runs.append(run)
    for w in range(2):
        state.tasks.append(
            TaskRecord(
                id=f"arn:aws:ecs:us-east-1:1:task/c/{w}",
                run_label=run.label,
                pull_started_at=T0 + timedelta(minutes=7),
                stopped_at=T0 + timedelta(minutes=12),
                last_status="STOPPED",
                stopped_reason="Essential container in task exited" if w else "OutOfMemoryError",
            )
        )
        state.invocations.append(
            InvocationRecord(
                id=f"{run.fleet_run_id}/w{w}/j0",
                run_label=run.label,
                worker=w,
                memory_mb=1792,
                started_at=T0 + timedelta(minutes=9, seconds=50),
                ended_at=T0 + timedelta(minutes=12),
                state="returned" if w else "failed",
                status="complete" if w else None,
                reason=None if w else "Sandbox.Timedout: Task timed out after 900.00 seconds",
                billed_ms=130_000,
            )
        )
    return state


def test_a_fleet_names_its_workers_and_sizes_them(kind: FleetKind) -> None:
    playbook = load_playbook(M1)
    sizing = kind.sizing(UpOptions(workers=2), playbook)
    assert sizing.workers >= 2 and sizing.memory_gb > 0 and sizing.summary
    assert kind.worker_kind and kind.barrier_timeout_s > 0
    kind.check_options(UpOptions(workers=2), playbook)  # M1 runs on every fleet


def test_its_cost_model_is_priced_by_the_one_price_function(kind: FleetKind) -> None:
    """A table run's workers, and an hour of them, through console.cost's price(): the
    fleet says what its workers are billed for, never what they cost."""
    cost: WorkerCost = kind.cost(UpOptions(workers=2), load_playbook(M1))
    prices = price_table("us-east-1")
    run = cost.table_run("bad#1", 0.0, 120.0)
    assert len(run.tasks) + len(run.invocations) >= cost.workers
    billed = price(run, prices).total_usd
    hour = price(cost.running_hour(), prices).total_usd
    assert 0 < billed < hour  # two minutes of workers cost less than an hour of them
    assert cost.start_s > 0


def test_its_actions_are_in_the_shipped_operator_policy(kind: FleetKind) -> None:
    everything = set(all_actions())
    for actions in kind.operator_actions(None).values():
        assert set(actions) <= everything
    settings = Settings(target="aws", worker_image="r@sha256:" + "a" * 64)
    for actions in kind.operator_actions(settings).values():
        assert set(actions) <= everything


def test_what_its_workers_used_is_read_from_the_runs_records(kind: FleetKind) -> None:
    """The tally's question: a billed fleet reads its own records (tasks, invocations);
    the local one prices the same table run as the AWS fleet it stands for."""
    name = kind.name
    state = recorded_run(name)
    used = kind.used(state, T0, T0 + timedelta(hours=1))
    assert used.tasks or used.invocations
    bill = price(used, price_table("us-east-1"))
    assert bill.total_usd > 0
    if name == "lambda":  # Lambda's own Billed Duration, as its REPORT line said
        assert [i.billed_s for i in used.invocations] == [130.0, 130.0]


def test_it_says_each_workers_state_and_why_it_stopped(kind: FleetKind) -> None:
    state = recorded_run(kind.name)
    table_run = state.table_runs[0]
    states = kind.lifecycle(state, table_run)
    reasons = kind.stop_reasons(state, table_run)
    if kind.name == "local":  # a process's life is its table run's
        assert states == {} and reasons == []
        return
    assert sum(states.values()) == 2
    assert len(reasons) == 1 and ("OutOfMemory" in reasons[0] or "timed out" in reasons[0])


def test_its_terraform_variables_name_its_module(kind: FleetKind) -> None:
    state = recorded_run(kind.name)
    variables = kind.terraform_variables(
        Settings(target="aws"), state, UpOptions(workers=2), load_playbook(M1)
    )
    if kind.name == "local":
        assert variables == {}  # no stack
        return
    assert variables["fleet"] == kind.name and variables["task_count"] >= 2


def test_the_fleet_is_the_flag_then_the_playbook_then_lambda() -> None:
    book = load_playbook(M1)
    assert chosen_fleet(Settings(), book) == "lambda"
    on_ecs = parse_playbook({**book.model_dump(exclude_unset=True), "fleet": "ecs"}, "p")
    assert chosen_fleet(Settings(), on_ecs) == "ecs"
    assert chosen_fleet(Settings(fleet="lambda"), on_ecs) == "lambda"
    assert set(AWS_FLEETS) == {"lambda", "ecs"}


def test_no_branch_on_a_fleet_name_outside_the_fleets() -> None:
    """Steps, the console, the cost and the tally ask the fleet; only the fleets' own
    modules turn a name into an implementation (console/targets/fleets/, and the live
    fleets in loadgen/live/)."""
    fleets = {"fleet", "ecs_tasks", "lambda_invokes", "lambda_handler"}
    pattern = re.compile(
        r"""\bfleet(\.name)?\s*(==|!=)\s*["'](ecs|lambda|local)["']"""
        r"""|\bfleet(\.name)?\s+(not\s+)?in\s*[\(\[\{][^)\]}]*["'](ecs|lambda)["']"""
    )
    assert pattern.search('if state.fleet == "lambda":')
    assert pattern.search("if report.fleet.name in ('ecs', 'local'):")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for package in ("console", "loadgen")
        for path in (ROOT / package).rglob("*.py")
        if "fleets" not in path.relative_to(ROOT).parts and path.stem not in fleets
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == [], found
