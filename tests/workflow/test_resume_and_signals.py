"""Resume, stop and cost rules that tell the truth.

- SIGTERM (how CI cancels a job) and SIGHUP (a closed terminal) are handled as Ctrl-C:
  the one-shot run, the workflow's steps and the reaper clean up and exit 128 + signal;
- an interrupted `run` is resumed by `run` (not the optional `prewarm`) and says so;
- `up --run` on a run that is down or whose emulator died refuses with exit 5;
- --max-cost-usd: against the target's cost, or --max-cost-of aws for a local run.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from console.run.errors import CostRefused
from console.run.settings import Settings
from console.run.state import (
    EmulatorProcess,
    RunState,
    StateStore,
    Status,
    Step,
    TableRun,
)
from console.workflow.bringup import refuse_over_limit
from tests.conftest import wait_for
from tests.workflow.conftest import ONE_RUN, ROOT, Cli, short_playbook_text


def a_state() -> RunState:
    state = RunState(
        run_id="hb-1201090000-abcd",
        target="local",
        region="us-east-1",
        playbook_path=str(ROOT / "playbooks" / "smoke.yaml"),
        playbook_name="smoke",
    )
    for step in (Step.PLAN, Step.UP):
        state.record(step).status = Status.DONE
        state.record(step).started_at = datetime.now(UTC)
    return state


def test_an_interrupted_run_is_resumed_by_run_and_a_finished_one_goes_on_to_tally() -> None:
    state = a_state()
    assert state.next_step == Step.PREWARM
    run = state.record(Step.RUN)
    run.status, run.started_at = Status.FAILED, datetime.now(UTC) + timedelta(seconds=1)
    assert state.next_step == Step.RUN  # not the prewarm it skipped
    run.status = Status.DONE
    assert state.next_step == Step.TALLY


def test_up_run_on_a_down_run_or_a_dead_emulator_refuses_with_exit_5(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "runs")
    state = a_state()
    state.emulator = EmulatorProcess(
        pid=2**22 + 7, port=9, scale=0.1, started_at=datetime.now(UTC), log_path="x"
    )  # no such process: the emulator died and took the tables with it
    store = StateStore(cli.runs_dir)
    store.save(state)
    out = cli("up", state.playbook_path, "--run", state.run_id, "--yes")
    assert out.returncode == 5, out.stdout + out.stderr
    text = " ".join(out.stdout.split())
    assert f"the emulator of run {state.run_id} is gone" in text and "already up" not in text
    state.record(Step.DOWN).status = Status.DONE
    state.emulator.stopped_at = datetime.now(UTC)
    store.save(state)
    out = cli("up", state.playbook_path, "--run", state.run_id, "--yes")
    assert out.returncode == 5, out.stdout + out.stderr
    assert f"run {state.run_id} is down" in out.stdout


class Report:
    """The parts of a PlanReport the cost guard reads."""

    def __init__(self, cost: float, hypothetical: bool) -> None:
        self.estimated_cost_usd, self.hypothetical = cost, hypothetical
        self.target = "local" if hypothetical else "aws"


@pytest.mark.parametrize(
    ("hypothetical", "of", "refused"),
    [(True, "target", False), (True, "aws", True), (False, "target", True)],
    ids=["local: free where it runs", "local --max-cost-of aws", "aws"],
)
def test_max_cost_applies_to_the_targets_cost_or_to_aws_when_asked(
    hypothetical: bool, of: str, refused: bool
) -> None:
    settings = Settings(max_cost_usd=1.0, max_cost_of=of)  # type: ignore[arg-type]
    report: Any = Report(22.48, hypothetical)
    if refused:
        with pytest.raises(CostRefused, match=r"\$22.48, over --max-cost-usd \$1.00"):
            refuse_over_limit(report, settings)
    else:  # nothing to guard: said, not silently passed
        said = refuse_over_limit(report, settings)
        assert said == (
            "--max-cost-usd $1.00 guards nothing here: the local target costs nothing (the "
            "same run would cost $22.48 on AWS; --max-cost-of aws compares the limit with that)"
        )
    under = refuse_over_limit(Report(0.5, hypothetical), settings)  # type: ignore[arg-type]
    assert (under is not None) == (hypothetical and of == "target")


def test_a_local_up_over_the_limit_with_max_cost_of_aws_creates_nothing(tmp_path: Path) -> None:
    cli = Cli(tmp_path / "runs")
    playbook = str(ROOT / "playbooks" / "hot-partition.yaml")
    out = cli("up", playbook, "--yes", "--max-cost-usd", "1", "--max-cost-of", "aws")
    assert out.returncode == 3, out.stdout + out.stderr
    assert "would cost on AWS $" in out.stdout and "(--max-cost-of aws)" in out.stdout
    assert not cli.runs_dir.exists() or not any(cli.runs_dir.iterdir())
    out = cli("run", playbook, "--max-cost-usd", "1", "--max-cost-of", "aws")
    assert out.returncode == 3, out.stdout + out.stderr


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_one_shot_run_handles_sigterm_and_sighup_as_ctrl_c(
    tmp_path: Path, sig: signal.Signals
) -> None:
    cli = Cli(tmp_path / "runs")
    proc = cli.popen(
        "run", str(ROOT / "playbooks" / "smoke.yaml"), "--scale", "0.2", "--pause-scale", "0"
    )
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:  # until the fleet is starting
        seen.append(line)
        if "running hotKey #1" in line:
            break
    proc.send_signal(sig)
    rest, _ = proc.communicate(timeout=60)
    out = "".join(seen) + rest
    assert proc.returncode == 128 + sig, out
    assert f"interrupted ({sig.name})" in out and "Traceback" not in out


@pytest.mark.e2e  # up, an interrupted run, its resume and down: ~20 s
def test_sigterm_during_run_then_run_resumes_saying_so(cli: Cli, tmp_path: Path) -> None:
    playbook = tmp_path / "one.yaml"
    playbook.write_text(short_playbook_text(3, ONE_RUN))  # the interrupted run is all it needs
    state = cli.json("up", str(playbook), "--yes", "--scale", "0.5")
    run_id = state["run_id"]
    store = StateStore(cli.runs_dir)
    proc = cli.popen("run", "--run", run_id)
    wait_for(lambda: store.load(run_id).table_runs[:1] != [] and _running(store, run_id))
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 143, out
    assert "interrupted (SIGTERM)" in out and "Traceback" not in out
    after = store.load(run_id)
    assert after.record(Step.RUN).status == Status.FAILED
    assert after.table_runs[0].status == Status.FAILED and after.table_runs[0].interrupted
    assert after.next_step == Step.RUN
    rows = cli.json("runs")
    assert next(r for r in rows if r["run_id"] == run_id)["next_step"] == "run"
    again = cli("run", "--run", run_id, timeout=180)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "hot#1 was interrupted during its table run" in again.stdout
    assert f"{run_id}-hot is made anew" in again.stdout  # not run on a heated table
    result = json.loads((cli.runs_dir / run_id / "result.json").read_text())
    restart = {"after": "interrupted", "attempt_of": "hot#1", "table": "recreated"}
    assert result["runs"][0]["restart"] == restart  # and the result says so
    down = cli("down", run_id)
    assert down.returncode == 0, down.stdout + down.stderr


def _running(store: StateStore, run_id: str) -> bool:
    runs: list[TableRun] = store.load(run_id).table_runs
    return bool(runs) and runs[0].status == Status.RUNNING


def test_the_reaper_handles_sigterm_as_ctrl_c(tmp_path: Path) -> None:
    state = a_state()
    state.deadline = datetime.now(UTC) + timedelta(hours=1)
    state.emulator = EmulatorProcess(
        pid=__import__("os").getpid(), port=9, scale=0.1, started_at=datetime.now(UTC), log_path="x"
    )
    StateStore(tmp_path).save(state)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "console.workflow.reaper",
            state.run_id,
            "--settings",
            Settings().model_dump_json(),
            "--runs-dir",
            str(tmp_path),
            "--poll",
            "0.2",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    assert "reaper of" in proc.stdout.readline()
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 143, out
    assert f"reaper of {state.run_id}: interrupted (SIGTERM)" in out and "Traceback" not in out
