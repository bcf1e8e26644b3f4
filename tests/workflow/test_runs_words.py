"""`hotbench runs` says how a run's last step stands as it is: `interrupted` for a step
stopped by Ctrl-C, SIGTERM or SIGHUP (not `failed`), and for one whose command was
killed (not `running`: no live command holds the run's lock)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from console.cli import main
from console.run.lock import held, run_lock
from console.run.state import RunState, StateStore, Status, Step
from tests.conftest import ROOT


def _state(run_id: str, step: Step, status: Status, error: str | None = None) -> RunState:
    state = RunState(
        run_id=run_id,
        target="local",
        region="us-east-1",
        playbook_path=str(ROOT / "playbooks" / "smoke.yaml"),
        playbook_name="smoke",
    )
    record = state.record(step)
    record.status, record.started_at, record.error = status, datetime.now(UTC), error
    return state


def test_a_killed_up_and_an_interrupted_run_read_interrupted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = StateStore(tmp_path)
    killed = _state("hb-1201090000-0001", Step.UP, Status.RUNNING)
    stopped = _state("hb-1201090000-0002", Step.RUN, Status.FAILED, "interrupted")
    failed = _state("hb-1201090000-0003", Step.RUN, Status.FAILED, "only 0 of 2 workers")
    going = _state("hb-1201090000-0004", Step.UP, Status.RUNNING)
    for state in (killed, stopped, failed, going):
        store.save(state)
    assert killed.step_words(holder_alive=False) == "up interrupted"
    assert going.step_words(holder_alive=True) == "up running"
    assert stopped.step_words(holder_alive=False) == "run interrupted"
    assert failed.step_words(holder_alive=False) == "run failed"
    with run_lock(store.run_dir(going.run_id), "up"):  # a live `up` holds its run
        assert held(store.run_dir(going.run_id))
        assert not held(store.run_dir(killed.run_id))
        assert main(["runs", "--runs-dir", str(tmp_path)]) == 0
    rows = {line.split()[1]: line for line in capsys.readouterr().out.splitlines() if "hb-" in line}
    assert "up interrupted" in rows[killed.run_id]
    assert "run interrupted" in rows[stopped.run_id]
    assert "run failed" in rows[failed.run_id]
    assert "up running" in rows[going.run_id]
