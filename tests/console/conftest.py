"""The console's tests: a tiny playbook (seconds, a low rate) and an isolated runs folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from console.tui.backend import Backend
from console.workflow import load_settings

TINY = Path(__file__).with_name("tiny.yaml")


@pytest.fixture
def tiny_playbook() -> Path:
    return TINY


@pytest.fixture
def backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Backend:
    monkeypatch.setenv("HOTBENCH_PURE", "1")
    return Backend(load_settings(target="local", runs_dir=tmp_path / "runs"))
