"""make test's pass runner: every pass runs whatever the one before did, and the summary
adds up pytest's counts and names the passes that failed."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

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


@pytest.mark.parametrize("title", [None, "make test-fast"])
def test_all_passing_exits_zero_under_its_goals_title(title: str | None) -> None:
    """`make test-fast` sets PASSES_TITLE, so its summary does not read as `make test`'s."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "PASSES_TITLE"}
    if title is not None:
        env["PASSES_TITLE"] = title
    out = subprocess.run(
        [sys.executable, str(SCRIPT), f"only: {sys.executable} -c pass"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert out.returncode == 0, out.stdout
    assert "every pass succeeded" in out.stdout
    assert f"=== {title or 'make test'}: one line per pass" in out.stdout.splitlines()


def test_a_background_pass_runs_beside_the_next_and_wait_holds_the_one_after(
    tmp_path: Path,
) -> None:
    """The build runs beside lint and the pure pass; the compiled pass starts after it.
    The background pass waits for a file the next pass writes, so it can only finish if
    both run at once (no timing involved); the pass after --wait needs the file the
    background pass wrote last."""
    beside, built = tmp_path / "beside", tmp_path / "built"
    build = (
        "import os, time\n"
        f"while not os.path.exists({str(beside)!r}): time.sleep(0.01)\n"
        f"open({str(built)!r}, 'w').close()\n"
        "print('built it')"
    )
    lint = f"open({str(beside)!r}, 'w').close()"
    compiled = f"import os; raise SystemExit(0 if os.path.exists({str(built)!r}) else 4)"
    out = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            f"build&: {sys.executable} -c {shlex.quote(build)}",
            f"lint: {sys.executable} -c {shlex.quote(lint)}",
            "--wait",
            f"compiled: {sys.executable} -c {shlex.quote(compiled)}",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stdout
    lines = out.stdout.splitlines()
    # the build's output is printed whole when it ends, after lint's began
    lint_began = next(i for i, line in enumerate(lines) if line.startswith("=== lint:"))
    assert lines.index("built it") > lint_began
    table = lines[lines.index("=== make test: one line per pass") + 1 :]
    assert [line.split()[0] for line in table[:3]] == ["build", "lint", "compiled"]


def test_a_background_pass_that_cannot_start_is_a_failed_pass() -> None:
    out = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "gone&: /nonexistent/command",
            f"next: {sys.executable} -c pass",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1, out.stdout
    assert out.stdout.splitlines()[-2].strip() == "FAILED: gone"


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
    specs = [w for w in words[words.index("scripts/passes.py") + 1 :] if w != "--wait"]
    names = [parse_pass(spec)[0] for spec in specs]
    # the build first, in the background; lint, format and types beside it
    assert names[:4] == ["native&", "lint", "format", "types"]
    assert "--wait" in words  # the tests on the compiled emulator wait for the build
    selected: dict[str, str | None] = {}
    for spec in specs:
        name, argv, _ = parse_pass(spec)
        if argv[0].endswith("pytest"):  # a marker expression stays one word
            selected[name] = argv[argv.index("-m") + 1] if "-m" in argv else None
    if goal == "test":  # every test runs on the compiled emulator; the pure pass its own
        assert selected == {"pure": "not slow", "compiled": None}
    else:  # the everyday loop leaves out the slow live checks and the end-to-end cases
        assert selected == {"fast": "not slow and not e2e"}
