"""`hotbench run` when a worker is killed with SIGKILL mid-run: the run completes, is
labelled partial, the dead worker's requests in flight are a labelled `unaccounted`
count, and the command exits with the documented partial code."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import ClassVar

import pytest

from console.cli import main as cli
from console.exitcodes import RUN_PARTIAL
from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from loadgen.live import playbook_run as live
from loadgen.live.fleet import LocalFleet
from loadgen.live.resultstore import ResultStore, make_client
from loadgen.results.records import Counts

from .conftest import tiny_playbook


class KillingFleet(LocalFleet):
    """A local fleet that SIGKILLs worker 1 once its first progress item shows sends."""

    killed: ClassVar[list[Counts]] = []

    def start(self, run_id: str, workers: int, env: dict[str, str]) -> None:
        super().start(run_id, workers, env)
        store = ResultStore(
            make_client(env["HOTBENCH_CONTROL_ENDPOINT"], "us-east-1", live.LOCAL_CREDENTIALS),
            env["HOTBENCH_RESULTS_TABLE"],
            run_id,
        )

        def kill_later() -> None:
            deadline = time.time() + 30
            while time.time() < deadline:
                progress = store.reports("progress")
                if 1 in progress and progress[1].totals().sent > 0:
                    self.kill(1)
                    KillingFleet.killed.append(progress[1].totals())
                    return
                time.sleep(0.1)

        threading.Thread(target=kill_later, daemon=True).start()


@pytest.mark.e2e  # a 6 s phase of two workers and a kill: ~15 s
def test_run_with_a_killed_worker_exits_partial_and_prints_the_unaccounted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pb.json"
    path.write_text(json.dumps(tiny_playbook(rate=200, duration_s=6.0).model_dump(mode="json")))
    out = tmp_path / "live.json"
    monkeypatch.setattr(live, "LocalFleet", KillingFleet)
    # A slow server keeps ~30 requests per worker in flight, so the dead worker's last
    # progress item must show sends without outcomes.
    with EmulatorServer(
        EmulatorOptions(scale=1.0, create_delay_s=0), port=0, latency="fixed:300ms"
    ) as emu:
        code = cli(
            [
                "run",
                str(path),
                "--target",
                "local",
                "--workers",
                "2",
                "--scale",
                "1",
                "--endpoint",
                str(emu.endpoint_url),
                "--json",
                str(out),
            ]
        )
    printed = capsys.readouterr().out
    assert KillingFleet.killed, "worker 1 was never killed"
    run = json.loads(out.read_text())["runs"][0]
    assert run["partial"] is True and run["reconciled"] is False
    assert run["unaccounted"] > 0
    assert run["sent"] == (
        run["succeeded"] + run["throttled"] + run["errors"] + run["timeouts"] + run["unaccounted"]
    )
    # Worker 0's whole share was sent; worker 1's stops at its last progress item.
    assert 600 < run["sent"] < 1200 == run["scheduled"]
    assert any(
        f"worker 1: {run['unaccounted']} sent requests unaccounted" in n for n in run["notes"]
    )
    assert code == RUN_PARTIAL == 10
    assert "unaccounted" in printed and "(partial)" in printed
    assert f"worker 1: {run['unaccounted']} sent requests unaccounted" in " ".join(printed.split())
    assert "exit 10:" in printed


@pytest.mark.slow  # two worker processes, a 6 s phase and a kill: ~30 s of wall time
def test_a_killed_workers_running_iterations_are_unaccounted_and_the_run_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scenario's users are always mid-iteration (no think between them, 300 ms a
    request): the dead worker's last progress item holds iterations started and not
    ended, which the run labels unaccounted."""
    playbook = tiny_playbook(duration_s=6.0).model_dump(mode="json")
    playbook["load"]["phases"] = [
        {"name": "reads", "users": 8, "scenario": "read", "duration_s": 6.0}
    ]
    playbook["load"]["scenarios"] = {
        "read": {"steps": [{"name": "get", "op": "get", "key": {"pk": "P001", "sk": "S001"}}]}
    }
    path = tmp_path / "pb.json"
    path.write_text(json.dumps(playbook))
    out = tmp_path / "live.json"
    KillingFleet.killed.clear()
    monkeypatch.setattr(live, "LocalFleet", KillingFleet)
    with EmulatorServer(
        EmulatorOptions(scale=1.0, create_delay_s=0), port=0, latency="fixed:300ms"
    ) as emu:
        code = cli(
            [
                *("run", str(path), "--target", "local", "--workers", "2", "--scale", "1"),
                *("--endpoint", str(emu.endpoint_url), "--json", str(out), "--quiet"),
            ]
        )
    assert KillingFleet.killed, "worker 1 was never killed"
    run = json.loads(out.read_text())["runs"][0]
    its = run["iterations"]
    assert run["partial"] is True and code == RUN_PARTIAL
    assert its["unaccounted"] > 0
    assert its["started"] == its["ok"] + its["failed"] + its["unfinished"] + its["unaccounted"]
    assert any(
        f"worker 1: {its['unaccounted']} started iterations unaccounted" in n for n in run["notes"]
    )
