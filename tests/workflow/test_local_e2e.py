"""The workflow on the local target, as a user drives it: separate `hotbench` commands,
a detached emulator, a short playbook (3 s per table run at 400 writes/s, scale 0.5), and
nothing left at the end. Also: SIGKILL in the middle of `up` and of `run`, then resume;
`down` after a failed run."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from console.run.state import RunState, StateStore, Status, Step, utc_now
from tests.conftest import wait_for
from tests.workflow.conftest import TWO_RUNS, Cli, alive, short_playbook_text

# Each case is a whole lifecycle through separate `hotbench` processes (5-50 s): left out of
# make test-fast, run by make test.
pytestmark = pytest.mark.e2e

EMULATOR = "emulator serve --port"


def up(cli: Cli, playbook: Path) -> dict[str, Any]:
    state: dict[str, Any] = cli.json("up", str(playbook), "--yes", "--scale", "0.5")
    return state


def load(cli: Cli, run_id: str) -> RunState:
    return StateStore(cli.runs_dir).load(run_id)


def runs_row(cli: Cli, run_id: str) -> dict[str, Any]:
    rows: list[dict[str, Any]] = cli.json("runs")
    return next(r for r in rows if r["run_id"] == run_id)


def assert_nothing_left(cli: Cli, run_id: str) -> None:
    out = cli("down", run_id, "--json")
    assert out.returncode == 0, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["nothing_left"] is True and report["leftovers"] == []
    state = load(cli, run_id)
    assert state.emulator is not None
    assert not alive(state.emulator.pid, EMULATOR), "the emulator process is still running"
    assert state.reaper_pid is not None and not alive(state.reaper_pid, run_id)
    for table_run in state.table_runs:
        for pid in table_run.worker_pids:
            assert not alive(pid, "loadgen.live.worker")
    assert all(t.deleted_at is not None for t in state.tables.values())
    assert not state.billable_up
    row = runs_row(cli, run_id)
    assert row["up"] is False and row["next_step"] is None
    again = cli("down", run_id)  # a down run: exit 5, as the README's table says
    assert again.returncode == 5, again.stdout + again.stderr
    assert f"run {run_id} is already down" in again.stdout


def test_plan_up_prewarm_run_tally_down_leaves_nothing(cli: Cli, short_playbook: Path) -> None:
    plan = cli.json("plan", str(short_playbook), "--scale", "0.5")
    assert [t["variant"] for t in plan["tables"]] == ["hot", "od"]
    assert plan["hypothetical"] is True
    assert not cli.runs_dir.exists() or not any(cli.runs_dir.iterdir()), "plan created a run"

    state = up(cli, short_playbook)
    run_id = state["run_id"]
    emulator = state["emulator"]
    assert alive(emulator["pid"], EMULATOR)
    assert state["up"] is True and state["next_step"] == "prewarm"
    assert state["billable_up"] is False  # a local run never says billable
    assert runs_row(cli, run_id)["up"] is True
    names = {t["name"] for t in state["tables"].values()}
    assert names == {f"{run_id}-hot", f"{run_id}-od"}

    warmed = cli("prewarm", run_id)
    assert warmed.returncode == 0, warmed.stdout + warmed.stderr
    assert "already warm" in warmed.stdout
    assert "partition(s)" in warmed.stdout

    watcher = cli.popen("watch", run_id, "--json", "--interval", "0.5")
    ran = cli("run", "--run", run_id, "--json", str(cli.runs_dir / "result.json"))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    watched, _ = watcher.communicate(timeout=30)  # it ends by itself after the run step
    assert watcher.returncode == 0, watched
    frames = [json.loads(line) for line in watched.splitlines()]
    assert frames[-1]["finished"] is True
    samples = [x for f in frames for x in f["samples"]]
    by_source: dict[tuple[str, str], float] = {}
    for x in samples:
        key = (x["source"], x["table"])
        by_source[key] = by_source.get(key, 0.0) + x["accepted"]
    # the workers' per-second counts add up to every accepted write, none lost or twice
    # (full-scale units: 400/s x 3 s per table run; od ran twice)
    assert by_source[("workers", "hot")] == 1200
    assert by_source[("workers", "od")] == 2400
    assert by_source.get(("emulator", "hot"), 0) > 0 and by_source.get(("emulator", "od"), 0) > 0
    assert all(x["period_s"] == 1 for x in samples)
    assert any(
        f["workers"] and f["workers"]["ready"] == 2 and f["run_label"] == "hot#1" for f in frames
    )
    # the last table run's final status reaches the watcher: both workers done
    assert any(
        f["workers"] and f["workers"]["done"] == 2 and f["run_label"] == "od#2" for f in frames
    )
    # merged in time order: no table's line goes back in time
    for table in ("hot", "od"):
        starts = [x["start"] for x in samples if x["table"] == table and x["index"] is None]
        assert starts == sorted(starts), table
    result = json.loads((cli.runs_dir / "result.json").read_text())
    assert [(r["table"], r["repeat"]) for r in result["runs"]] == [("hot", 1), ("od", 1), ("od", 2)]
    # 400/s x 3 s offered per table run, in full-scale units
    assert all(r["offered"] == 1200 for r in result["runs"])
    assert runs_row(cli, run_id)["next_step"] == "tally"

    tally = cli.json("tally", run_id)
    assert tally["hypothetical"] is True
    units = next(line for line in tally["lines"] if line["unit"] == "M WRU")
    # the on-demand table took two runs of 1,200 one-unit writes
    assert units["quantity"] * 1e6 == 2400

    assert_nothing_left(cli, run_id)


def test_sigkill_during_up_then_up_resumes(cli: Cli, short_playbook: Path) -> None:
    # tables take 2 s to become ACTIVE: the kill lands while `up` waits for them
    proc = cli.popen("up", str(short_playbook), "--yes", "--scale", "0.5", "--create-delay", "2")
    store = StateStore(cli.runs_dir)

    def emulator_recorded() -> bool:
        found = store.all_runs()
        return bool(found) and found[0].emulator is not None

    wait_for(emulator_recorded)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    state = store.all_runs()[0]
    assert state.record(Step.UP).status == Status.RUNNING
    assert state.next_step == Step.UP
    row = runs_row(cli, state.run_id)
    assert row["up"] is True and row["billable_up"] is False  # up, but local: not billed
    resumed = cli("up", str(short_playbook), "--run", state.run_id, "--yes")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"resuming up of run {state.run_id}" in resumed.stdout
    after = load(cli, state.run_id)
    assert after.emulator is not None and after.record(Step.UP).status == Status.DONE
    assert state.emulator is not None
    assert after.emulator.pid == state.emulator.pid  # the live emulator was kept
    assert set(after.tables) == {"hot", "od"} and after.results_table
    assert_nothing_left(cli, state.run_id)


def test_sigkill_inside_a_run_then_run_resumes(cli: Cli, tmp_path: Path) -> None:
    playbook = tmp_path / "longer.yaml"
    playbook.write_text(short_playbook_text(4, TWO_RUNS))
    run_id = up(cli, playbook)["run_id"]
    proc = cli.popen("run", "--run", run_id)

    def workers_recorded() -> bool:
        state = load(cli, run_id)
        return any(tr.status == Status.RUNNING and tr.worker_pids for tr in state.table_runs)

    wait_for(workers_recorded)
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    killed = load(cli, run_id)
    interrupted = next(tr for tr in killed.table_runs if tr.status == Status.RUNNING)
    assert killed.record(Step.RUN).status == Status.RUNNING
    assert runs_row(cli, run_id)["next_step"] == "run"

    resumed = cli("run", "--run", run_id, "--json", str(tmp_path / "r.json"))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{interrupted.label} was killed during its table run" in resumed.stdout
    for pid in interrupted.worker_pids:  # the orphans of the killed coordinator
        assert not alive(pid, "loadgen.live.worker")
    result = json.loads((tmp_path / "r.json").read_text())
    assert [(r["table"], r["repeat"]) for r in result["runs"]] == [("hot", 1), ("od", 1)]
    again = next(r for r in result["runs"] if r["table"] == interrupted.variant)
    assert again["restart"]["after"] == "killed"  # on a table made anew, and said
    assert all(r["offered"] == 1600 for r in result["runs"])
    assert_nothing_left(cli, run_id)


def test_down_after_a_failed_run(cli: Cli, short_playbook: Path) -> None:
    run_id = up(cli, short_playbook)["run_id"]
    # no worker can reach the barrier in 10 ms: the coordinator gives up
    failed = cli("run", "--run", run_id, "--barrier-timeout", "0.01")
    assert failed.returncode == 7, failed.stdout + failed.stderr
    assert "Traceback" not in failed.stdout + failed.stderr
    assert "hot#1 failed" in failed.stdout and "workers ready" in failed.stdout
    state = load(cli, run_id)
    assert state.record(Step.RUN).status == Status.FAILED
    assert state.table_runs[0].status == Status.FAILED
    assert runs_row(cli, run_id)["up"] is True
    assert_nothing_left(cli, run_id)


def test_the_deadline_brings_the_run_down_by_itself(cli: Cli, short_playbook: Path) -> None:
    # The test sets the deadline itself once `up` is done, instead of racing a few seconds
    # of wall clock against `up` (on a loaded machine a 3 s deadline fired while up was
    # still creating). The reaper re-reads the state when its file changes.
    state = up(cli, short_playbook)
    run_id = state["run_id"]
    assert alive(state["emulator"]["pid"], EMULATOR)
    store = StateStore(cli.runs_dir)
    saved = store.load(run_id)
    saved.deadline = utc_now()
    store.save(saved)
    wait_for(lambda: load(cli, run_id).record(Step.DOWN).status == Status.DONE)
    wait_for(lambda: not alive(state["emulator"]["pid"], EMULATOR))
    assert not load(cli, run_id).billable_up
    log = cli.runs_dir / run_id / "reaper.log"
    wait_for(lambda: "nothing left" in log.read_text())  # printed after saving
    assert "passed: down" in log.read_text()
