"""make test's pass runner: every pass runs whatever the one before did, and the summary
adds up pytest's counts and names the passes that failed."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys

import pytest

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


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.parametrize("goal", ["test", "test-fast"])
def test_the_makefiles_passes_parse(goal: str) -> None:
    """Each pass the Makefile hands to the script is one 'NAME: COMMAND' argument once the
    shell has split the recipe (a nested double quote split a pass in two once)."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        from passes import parse_pass
    finally:
        sys.path.pop(0)
    recipe = subprocess.run(
        ["make", "-n", "-B", "-C", str(ROOT), goal],
        capture_output=True,
        text=True,
        timeout=60,
    ).stdout.replace("\\\n", " ")
    line = next(x for x in recipe.splitlines() if "scripts/passes.py" in x)
    words = shlex.split(line)
    specs = words[words.index("scripts/passes.py") + 1 :]
    names = [parse_pass(spec)[0] for spec in specs]
    assert names[:3] == ["lint", "format", "types"]
    for spec in specs:
        _, argv, _ = parse_pass(spec)
        if "-m" in argv:  # a marker expression stays one argument
            assert argv[argv.index("-m") + 1] == "not slow", spec
