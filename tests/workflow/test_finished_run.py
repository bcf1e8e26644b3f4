"""`run --run` on a run whose table runs have all finished runs nothing, says so first,
prints the results as they were and exits 0; the run's state is left as it was (its
run step's times are not those of a step that did nothing)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from console.cli import main
from console.run.state import RunState, StateStore, Status, Step, TableRun
from console.workflow.runrecord import save_run
from loadgen.results.records import Counts, PhaseResult, RunResult
from tests.conftest import ROOT

RUN_ID = "hb-1201090000-f1f1"
FINISHED = datetime(2026, 12, 1, 9, 30, 5, tzinfo=UTC)


def _finished_run(runs_dir: Path) -> StateStore:
    store = StateStore(runs_dir)
    state = RunState(
        run_id=RUN_ID,
        target="local",
        region="us-east-1",
        playbook_path=str(ROOT / "playbooks" / "smoke.yaml"),
        playbook_name="smoke",
        scale=0.1,
    )
    for step in (Step.PLAN, Step.UP, Step.RUN):
        state.record(step).status = Status.DONE
        state.record(step).started_at = FINISHED
        state.record(step).finished_at = FINISHED
    for variant in ("hotKey", "spread"):
        counts = Counts(sent=7500, succeeded=7500)
        run = RunResult(
            variant,
            1,
            5.0,
            seconds={0: counts},
            phases=[PhaseResult("rush", "put", 0.0, 5.0, offered=7500, counts=counts)],
        )
        save_run(store.run_dir(RUN_ID) / "results" / f"{variant}-1.json", run)
        state.table_runs.append(
            TableRun(
                variant=variant,
                repeat=1,
                status=Status.DONE,
                started_at=FINISHED,
                finished_at=FINISHED,
                result_path=f"results/{variant}-1.json",
            )
        )
    store.save(state)
    return store


def test_run_on_a_finished_run_says_nothing_ran_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _finished_run(tmp_path)
    before = store.load(RUN_ID).record(Step.RUN).model_copy()
    code = main(["run", "--run", RUN_ID, "--runs-dir", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith(f"nothing ran: every table run of {RUN_ID} had finished")
    assert "(the last at 2026-12-01 09:30:05 UTC)" in first
    assert "hotKey" in out and "spread" in out  # the results as they were
    assert store.load(RUN_ID).record(Step.RUN) == before  # the state untouched
    assert not (store.run_dir(RUN_ID) / "result.json").exists()  # nothing rewritten
