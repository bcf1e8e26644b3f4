"""Shared fixtures for the Terraform kit tests (tests/terraform)."""

from __future__ import annotations

import json
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tfkit import FIXTURES


@pytest.fixture
def fake_terraform(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """An executable `terraform` that replays fixtures and logs every invocation."""
    script = tmp_path / "bin" / "terraform"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\nexec {sys.executable} {FIXTURES / "fake_terraform.py"} "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_TF_LOG", str(log))
    monkeypatch.delenv("FAKE_TF_SCENARIO", raising=False)
    monkeypatch.delenv("FAKE_TF_HANDSHAKE", raising=False)
    workdir = tmp_path / "stack"
    workdir.mkdir()

    def calls() -> list[dict[str, Any]]:
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]

    yield {"binary": str(script), "workdir": workdir, "calls": calls, "tmp": tmp_path}


@pytest.fixture
def offline_terraform_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No plugin cache, no checkpoint call: tests must never reach for the network."""
    for name in ("TF_PLUGIN_CACHE_DIR", "TF_DATA_DIR", "TF_CLI_ARGS", "TF_CLI_ARGS_init"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CHECKPOINT_DISABLE", "1")
