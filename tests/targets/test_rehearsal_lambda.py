"""The AWS rehearsal on the Lambda fleet (fixtures in conftest.py, faults in faults.py):
the function's package, its preflight, each worker a chain of invocations run by the
stand-in for Lambda (tests/fakes/fake_lambda.py), the tally of its requests and
GB-seconds, and a `down` that leaves nothing."""

from __future__ import annotations

from pathlib import Path

import boto3
import pytest
import yaml

from console.run.state import StateStore
from console.targets.fleets import lambda_fleet
from console.workflow import Hooks, RunOptions, UpOptions, down, run, tally, up
from loadgen.live.resultstore import ResultStore
from tests.targets.conftest import ROOT, TINY, Rehearsal

RUN_ID = "hb-lambda"


def hooks(said: list[str]) -> Hooks:
    return Hooks(say=said.append, confirm=lambda _q: True)


def split_every(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Windows of `seconds` instead of 720 s: each table run is measured by successive
    invocations of each worker (loadgen.live.windows), as a run longer than 12 minutes
    is on AWS."""
    monkeypatch.setattr(lambda_fleet, "MAX_WINDOW_S", seconds)
    monkeypatch.setattr(lambda_fleet.LambdaFleetBinding, "window_s", seconds)


def warm(rehearsal: Rehearsal, state_run_id: str, count: int, memory_mb: int) -> None:
    """Execution environments of the run's function, started before the run (a loaded
    machine's process start must not decide whether a window starts in time)."""
    config = boto3.client("lambda").get_function_configuration(
        FunctionName=f"hotbench-{state_run_id}-worker"
    )
    rehearsal.lambdas.standin.prewarm(config["Environment"]["Variables"], memory_mb, count)


def lambda_leftovers(run_id: str) -> list[str]:
    """What of the run's Lambda fleet moto still holds: its function, role, log group."""
    left = [
        f["FunctionName"]
        for f in boto3.client("lambda").list_functions()["Functions"]
        if run_id in f["FunctionName"]
    ]
    left += [
        r["RoleName"] for r in boto3.client("iam").list_roles()["Roles"] if run_id in r["RoleName"]
    ]
    left += [
        g["logGroupName"]
        for g in boto3.client("logs").describe_log_groups()["logGroups"]
        if run_id in g["logGroupName"]
    ]
    left += [t for t in boto3.client("dynamodb").list_tables()["TableNames"] if run_id in t]
    return left


def m1_cut_short(tmp_path: Path) -> Path:
    """M1's four table variants (playbooks/hot-partition.yaml: the keys, the GSIs, the
    80/10/10 rush) with its load cut to 4 s of 150 writes/s, each table once: the
    rehearsal runs at full scale on this machine."""
    m1 = yaml.safe_load((ROOT / "playbooks" / "hot-partition.yaml").read_text())
    m1["load"]["phases"] = [
        {"name": "morning-rush", "operation": "put", "rate": 150, "duration_s": 4}
    ]
    m1["load"]["runs"] = [{"table": t["name"]} for t in m1["tables"]]
    m1.pop("criteria", None)
    path = tmp_path / "m1-cut-short.yaml"
    path.write_text(yaml.safe_dump(m1, sort_keys=False))
    return path


@pytest.mark.e2e  # up, four table runs of invocations, tally and down: ~60 s
def test_m1_on_the_lambda_fleet_reconciles_every_count(
    rehearsal: Rehearsal, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """M1's variants on the Lambda fleet, each table run split in two windows (a run
    longer than an invocation may last, at the rehearsal's scale) and the first invoke
    throttled (invoked again): every count reconciles, each window's requests once;
    each invocation is recorded with its billed duration, the tally bills requests and
    GB-seconds, and `down` removes the function, its role and log group."""
    split_every(monkeypatch, 2.0)
    settings = rehearsal.lambda_settings()
    said: list[str] = []
    state = up(str(m1_cut_short(tmp_path)), settings, hooks(said), UpOptions(workers=2), RUN_ID)
    assert state.fleet == "lambda" and state.workers == 2
    assert state.terraform is not None and state.terraform.outputs is not None
    assert state.terraform.variables["fleet"] == "lambda"
    assert Path(state.terraform.variables["lambda_package"]).is_file()
    assert any(line.startswith("lambda: package worker.zip") for line in said), said
    warm(rehearsal, RUN_ID, 4, state.worker_memory_mb or 1024)
    rehearsal.lambdas.standin.throttle_first = 1
    result = run(RUN_ID, settings, hooks(said), RunOptions(seed_items=20))
    try:
        assert [r.table for r in result.runs] == ["bad", "good", "goodGsi", "badOnDemand"]
        for table_run in result.runs:
            totals = table_run.totals()
            assert not table_run.partial, (table_run.table, table_run.notes)
            assert table_run.offered == 600, table_run.table  # 150/s x 4 s, every window
            assert totals.sent == 600 and totals.unaccounted == 0
            assert totals.sent == totals.succeeded + totals.throttled + totals.errors + (
                totals.timeouts
            )
            assert table_run.reconciled, table_run.notes
        assert rehearsal.lambdas.standin.throttled == 1
        after = StateStore(settings.runs_dir).load(RUN_ID)
        # 4 table runs x 2 workers x 2 windows, each returned complete, billed
        assert len(after.invocations) == 16
        assert {(i.state, i.status) for i in after.invocations} == {("returned", "complete")}
        assert all(i.billed_ms and i.ended_at for i in after.invocations)
        # each window's counts under its own key, and the results table has no abort
        fleet_run = after.table_runs[0].fleet_run_id
        assert after.results_table is not None and fleet_run is not None
        store = ResultStore(boto3.client("dynamodb"), after.results_table, fleet_run)
        assert set(store.slot_reports("final")) == {(0, 0), (0, 1), (1, 0), (1, 1)}
        cost = tally(RUN_ID, settings)
        what = {x.what: x for x in cost.lines}
        assert what["Lambda requests, 16 invocations"].quantity == pytest.approx(16 / 1e6)
        billed_s = sum((i.billed_ms or 0) / 1000 for i in after.invocations)
        gb_s = billed_s * (after.worker_memory_mb or 0) / 1024
        duration = what["Lambda duration, 16 invocations"]
        assert duration.quantity == pytest.approx(gb_s / 1000)
        assert not any("Fargate" in x.what for x in cost.lines)
    finally:
        report = down(RUN_ID, settings, hooks(said))
    assert report.nothing_left, report.leftovers
    assert lambda_leftovers(RUN_ID) == []


@pytest.mark.e2e  # up, one table run of invocations and down: ~25 s
def test_a_function_killed_mid_phase_leaves_a_partial_run_that_goes_on(
    rehearsal: Rehearsal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Worker 0's second window is killed once it wrote progress (its runtime gone, as
    Lambda kills one out of memory): the run is partial, that window counted up to its
    last progress and named with Lambda's error, the third window measures as usual,
    and `down` leaves nothing."""
    split_every(monkeypatch, 1.0)
    playbook = rehearsal.playbook
    playbook.write_text(TINY.replace("duration_s: 2", "duration_s: 3"))
    settings = rehearsal.lambda_settings()
    said: list[str] = []
    state = up(str(playbook), settings, hooks(said), UpOptions(workers=2), RUN_ID)
    warm(rehearsal, RUN_ID, 6, state.worker_memory_mb or 1024)
    client = boto3.client("dynamodb")

    def progressed() -> bool:
        fresh = StateStore(settings.runs_dir).load(RUN_ID)
        fleet_run = fresh.table_runs[0].fleet_run_id if fresh.table_runs else None
        if fleet_run is None or fresh.results_table is None:
            return False
        store = ResultStore(client, fresh.results_table, fleet_run)
        return (0, 1) in store.slot_reports("progress")

    rehearsal.lambdas.standin.kill[(0, 1)] = progressed
    try:
        result = run(RUN_ID, settings, hooks(said), RunOptions())
        (only,) = result.runs
        assert only.partial
        notes = " | ".join(only.notes)
        assert "worker 0 window 1: no final report" in notes
        assert "Runtime.ExitError" in notes
        totals = only.totals()
        assert totals.sent == (
            totals.succeeded
            + totals.throttled
            + totals.errors
            + totals.timeouts
            + totals.unaccounted
        )
        after = StateStore(settings.runs_dir).load(RUN_ID)
        killed = [i for i in after.invocations if (i.worker, i.window) == (0, 1)]
        assert killed and killed[0].state == "failed"
        assert "signal: killed" in (killed[0].reason or "")
        later = [i for i in after.invocations if (i.worker, i.window) == (0, 2)]
        assert later and later[0].status == "complete"
    finally:
        report = down(RUN_ID, settings, hooks(said))
    assert report.nothing_left, report.leftovers
    assert lambda_leftovers(RUN_ID) == []
