"""Fixtures for the workflow tests: the CLI as a user runs it, in a private runs folder,
and a clean-up that stops every process a test's runs left (never anything else)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from console.run import processes
from console.run.state import StateStore

ROOT = Path(__file__).resolve().parents[2]

SHORT_PLAYBOOK = """\
name: short
tables:
  - name: hot
    partition_key: {name: pk}
    billing_mode: PROVISIONED
    read_capacity: 100
    write_capacity: 2000
  - name: od
    partition_key: {name: pk}
    billing_mode: PAY_PER_REQUEST
    warm_throughput: {read: 12000, write: 4000}
load:
  attributes:
    pk: {dist: uniform, count: 1000, format: "k{:04d}"}
  phases:
    - {name: w, operation: put, rate: 400, duration_s: %(duration)s}
  runs:
%(runs)s
"""
THREE_RUNS = "    - {table: hot}\n    - {table: od, repeats: 2, pause_s: 1}"
"""hot#1, od#1, a 1 s pause, od#2: a provisioned table, an on-demand one, a repeat."""
TWO_RUNS = "    - {table: hot}\n    - {table: od}"
"""hot#1 then od#1: enough for a resumed run to go on past the interrupted table run."""
ONE_RUN = "    - {table: hot}"
"""hot#1 alone: for a test of one interrupted table run, which needs no other."""


def short_playbook_text(duration_s: float, runs: str = THREE_RUNS) -> str:
    """SHORT_PLAYBOOK at 400 writes/s for `duration_s` per table run, over `runs`. Each
    live table run costs a test about 7 s (workers start, a 2 s GO lead, the load), so a
    test runs only the table runs it checks."""
    return SHORT_PLAYBOOK % {"duration": duration_s, "runs": runs}


class Cli:
    """`python -m console.cli ...` in the repository, with this test's runs folder."""

    def __init__(self, runs_dir: Path) -> None:
        self.runs_dir = runs_dir
        self.env = {
            **os.environ,
            "HOTBENCH_PURE": "1",
            "HOTBENCH_RUNS_DIR": str(runs_dir),
            "AWS_EC2_METADATA_DISABLED": "true",
        }
        for name in ("HOTBENCH_TARGET", "HOTBENCH_REGION", "HOTBENCH_MAX_COST_USD"):
            self.env.pop(name, None)

    def argv(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "console.cli", *args]

    def __call__(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(*args),
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )

    def popen(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.argv(*args),
            cwd=ROOT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
        )

    def json(self, *args: str) -> Any:
        out = self(*args, "--json")
        assert out.returncode == 0, out.stdout + out.stderr
        return json.loads(out.stdout)


@pytest.fixture
def cli(tmp_path: Path) -> Iterator[Cli]:
    runs_dir = tmp_path / "runs"
    yield Cli(runs_dir)
    # whatever a failing test left: stop the processes its runs recorded, by pid, and
    # only if they are still the ones we started
    for state in StateStore(runs_dir).all_runs():
        if state.emulator is not None:
            processes.stop(state.emulator.pid, f"emulator serve --port {state.emulator.port} ")
        if state.reaper_pid is not None:
            processes.stop(state.reaper_pid, state.run_id)
        for table_run in state.table_runs:
            for pid in table_run.worker_pids:
                processes.stop(pid, "loadgen.live.worker")


@pytest.fixture
def short_playbook(tmp_path: Path) -> Path:
    path = tmp_path / "short.yaml"
    path.write_text(short_playbook_text(3))
    return path


def alive(pid: int, marker: str) -> bool:
    return processes.is_ours(pid, marker)
