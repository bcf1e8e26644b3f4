"""The console's tests: a tiny playbook (seconds, a low rate) and an isolated runs folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from console.tui.backend import Backend
from console.workflow import load_settings

TINY = """\
name: tiny
description: Two tables for a few seconds at a low rate (the console's tests).
tables:
  - name: hot
    partition_key: {name: pk, type: S}
    sort_key: {name: sk, type: S}
    billing_mode: PROVISIONED
    read_capacity: 100
    write_capacity: 2000
    item_size_bytes: 500
  - name: od
    partition_key: {name: pk, type: S}
    sort_key: {name: sk, type: S}
    billing_mode: PAY_PER_REQUEST
    item_size_bytes: 500
load:
  attributes:
    pk: {dist: weighted, weights: {HOT: 90, COLD: 10}}
    sk: {dist: uniform, count: 1000, format: "i{:04d}"}
  phases:
    - name: rush
      operation: put
      rate: 1500
      duration_s: 3
  runs:
    - table: hot
    - table: od
      repeats: 2
      pause_s: 2
"""


@pytest.fixture
def tiny_playbook(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return path


@pytest.fixture
def backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Backend:
    monkeypatch.setenv("HOTBENCH_PURE", "1")
    return Backend(load_settings(target="local", runs_dir=tmp_path / "runs"))
