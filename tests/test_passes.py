"""make test's pass runner: every pass runs whatever the one before did, and the summary
adds up pytest's counts and names the passes that failed."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "passes.py"


def test_every_pass_runs_after_a_failure_and_the_summary_names_it() -> None:
    fake_pytest = "print('3 failed, 650 passed, 1 skipped in 12.3s')"
    out = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            f"first: {sys.executable} -c 'raise SystemExit(3)'",
            f'second: HOTBENCH_X=1 {sys.executable} -c "{fake_pytest}"',
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1
    lines = out.stdout.splitlines()
    assert "=== second:" in out.stdout  # ran although first failed
    assert any(line.split()[:3] == ["first", "FAILED", "(exit"] for line in lines)
    assert any("second" in line and "650 passed, 3 failed, 1 skipped" in line for line in lines)
    assert lines[-2].strip() == "FAILED: first"
    assert lines[-1] == "total: 650 passed, 3 failed"


def test_all_passing_exits_zero() -> None:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), f"only: {sys.executable} -c pass"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout
    assert "every pass succeeded" in out.stdout
