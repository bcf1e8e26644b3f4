"""A UI stops a running step by setting `Hooks.cancel`: the table run's fleet is stopped
as on Ctrl-C, the state says `interrupted`, and `down` still removes everything."""

from __future__ import annotations

import threading
from pathlib import Path

from console.run.state import StateStore, Status, Step
from console.workflow import Hooks, RunOptions, Settings, UpOptions, down, run, up
from tests.workflow.conftest import ONE_RUN, alive, short_playbook_text


def test_cancel_stops_a_run_in_the_middle(tmp_path: Path) -> None:
    playbook = tmp_path / "p.yaml"
    playbook.write_text(short_playbook_text(30, ONE_RUN))  # long enough to be cancelled
    settings = Settings(runs_dir=tmp_path / "runs")
    state = up(playbook, settings, Hooks(confirm=lambda _q: True), UpOptions(scale=0.5))
    try:
        hooks = Hooks()
        said: list[str] = []

        def say(line: str) -> None:
            said.append(line)
            if line.startswith("GO:"):
                hooks.cancel.set()  # what a UI's Stop button does, from its own thread

        hooks.say = say
        outcome: list[BaseException] = []

        def drive() -> None:
            try:
                run(state.run_id, settings, hooks, RunOptions())
            except BaseException as exc:  # the step's thread reports to the UI
                outcome.append(exc)

        worker = threading.Thread(target=drive)
        worker.start()
        worker.join(60)
        assert not worker.is_alive(), "the cancelled run did not stop"
        assert outcome and isinstance(outcome[0], KeyboardInterrupt)
        after = StateStore(settings.runs_dir).load(state.run_id)
        assert after.record(Step.RUN).status == Status.FAILED
        assert after.record(Step.RUN).error == "interrupted"
        first = after.table_runs[0]
        assert first.status == Status.FAILED and first.worker_pids
        for pid in first.worker_pids:
            assert not alive(pid, "loadgen.live.worker")  # stopped by the coordinator's finally
    finally:
        report = down(state.run_id, settings, Hooks())
    assert report.nothing_left
    assert state.emulator is not None and not alive(state.emulator.pid, "emulator serve")
