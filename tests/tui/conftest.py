"""The console's tests: a tiny playbook (seconds, a low rate) and an isolated runs folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from console.targets.emulator_process import stop_emulator
from console.tui.backend import Backend
from console.workflow import Hooks, load_settings

TINY = Path(__file__).with_name("tiny.yaml")


@pytest.fixture
def tiny_playbook() -> Path:
    return TINY


@pytest.fixture
def backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Backend]:
    """A runs folder of the test's own; whatever a test leaves up (a failed assertion
    before its destroy) is destroyed afterwards, the emulator stopped at the least."""
    monkeypatch.setenv("HOTBENCH_PURE", "1")
    backend = Backend(load_settings(target="local", runs_dir=tmp_path / "runs"))
    try:
        yield backend
    finally:
        for state in backend.runs():
            if not state.billable_up:
                continue
            try:
                backend.down(state.run_id, Hooks())
            except Exception:  # a step of the test's app still holds the run
                if state.emulator is not None:
                    stop_emulator(state.emulator)
