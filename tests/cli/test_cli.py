"""The CLI: the simulate command's output and its handling of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from console.cli import main
from tests.conftest import BUILT_IN_SIMULATIONS, PLAYBOOKS, ROOT, serve_emulator


@BUILT_IN_SIMULATIONS
@pytest.mark.usefixtures("shared_simulations")  # M2 simulated once for the session
def test_simulate_prints_the_table_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    code = main(
        ["simulate", str(PLAYBOOKS / "new-table-ceiling.yaml"), "--json", str(out), "--quiet"]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "new-table-ceiling" in printed and "fresh" in printed
    data = json.loads(out.read_text())
    assert data["mode"] == "simulate"
    assert data["runs"][0]["throttled"] > 0


def test_bad_playbook_is_one_message_and_exit_2_never_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntables: []\nload: {phases: []}\n")
    proc = subprocess.run(
        [sys.executable, "-m", "console.cli", "simulate", str(bad)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "bad.yaml" in proc.stdout
    assert "tables" in proc.stdout


@BUILT_IN_SIMULATIONS
@pytest.mark.usefixtures("shared_simulations")  # M2 simulated once for the session
def test_unwritable_json_path_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    code = main(
        [
            "simulate",
            str(PLAYBOOKS / "new-table-ceiling.yaml"),
            "--quiet",
            "--json",
            str(blocker / "r.json"),
        ]
    )
    assert code == 2
    assert "cannot write" in capsys.readouterr().out


def test_emulator_serve_says_what_runs_and_stops_cleanly_on_ctrl_c() -> None:
    import signal

    port, proc = serve_emulator()
    try:
        assert proc.stdout is not None
        banner = [proc.stdout.readline() for _ in range(6)]
        assert banner[0].startswith(f"hotbench emulator listening on http://127.0.0.1:{port}")
        assert banner[3].strip() == "emulator: pure Python (HOTBENCH_PURE is set)"
        assert banner[4].strip().startswith("store: full (items: whole")
        assert "memory bound" in banner[4] and "(default: half the machine's memory)" in banner[4]
        proc.send_signal(signal.SIGINT)
        rest, _ = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 0
    assert rest.strip().endswith("emulator stopped") and "Traceback" not in rest


def test_the_command_map_names_every_command_its_module_registers() -> None:
    """COMMANDS says which module registers each command; a command added to a module
    but not to the map would still work (the whole parser is built) but start slowly,
    and one in the map but in no module would lose its parser."""
    import argparse
    import importlib

    from console.commands import COMMANDS, MODULES

    registered: dict[str, str] = {}
    for name in MODULES:
        sub = argparse.ArgumentParser().add_subparsers(dest="command")
        importlib.import_module(f"console.commands.{name}").register(sub)
        registered |= dict.fromkeys(sub.choices, name)
    assert registered == COMMANDS


def _imported(probe: str, *names: str, env: dict[str, str] | None = None) -> list[str]:
    """Which of `names` a fresh interpreter has imported after running `probe`."""
    code = (
        f"import json, sys\n{probe}\nprint(json.dumps([m for m in {names!r} if m in sys.modules]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    found: list[str] = json.loads(out.stdout.strip().splitlines()[-1])
    return found


def test_a_command_line_imports_only_its_command() -> None:
    """`hotbench emulator serve` (started for every local run) imports neither the
    workflow nor the playbook models; `hotbench --help` still lists every command."""
    probe = "from console.cli import build_parser\nbuild_parser(['emulator', 'serve'])"
    assert _imported(probe, "console.workflow", "loadgen.format.playbook", "numpy") == []
    helped = subprocess.run(
        [sys.executable, "-m", "console.cli", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    for command in ("simulate", "emulator", "up", "down", "console", "calibrate"):
        assert f"\n    {command}" in helped.stdout, helped.stdout


def test_the_commands_that_read_a_run_import_no_numpy(tmp_path: Path) -> None:
    """`runs`, `down`, `tally` and `watch` (each started several times by a workflow
    test) price and print a state: they import neither numpy nor the key generator
    (0.3 s of CPU each), which only `plan`, `up` and `run` use. Nor httpx (0.23 s), which
    only a call to a local run's emulator needs."""
    import os

    probe = (
        "from console.cli import main\n"
        "assert main(['runs', '--json']) == 0\n"
        "from console.cli import build_parser\n"
        "for c in ('down', 'tally', 'watch'): build_parser([c])\n"
        "import console.workflow.steps, console.workflow.watching, console.workflow.run_cost\n"
        "import console.targets.local, console.targets.aws"
    )
    env = {**os.environ, "HOTBENCH_RUNS_DIR": str(tmp_path)}
    assert (
        _imported(probe, "numpy", "loadgen.load.keys", "loadgen.load.seed", "httpx", env=env) == []
    )


def test_the_reaper_and_a_worker_import_only_what_they_use() -> None:
    """The reaper (one per run, asleep until the deadline) reads the state: no step, no
    playbook, no rich, no numpy until it must run `down`. A worker parses its playbook
    from JSON: no PyYAML, and nothing of the console."""
    reaper = _imported(
        "import console.workflow.reaper",
        "numpy",
        "rich",
        "loadgen.format.playbook",
        "console.workflow.steps",
        "console.run.models",
    )
    assert reaper == []
    assert _imported("import loadgen.live.worker", "yaml", "rich", "console") == []


def test_the_workflow_package_names_resolve() -> None:
    """console.workflow imports its modules on first use of a name (its _EXPORTS map):
    every name it exports is found in the module the map names."""
    import ast

    import console.workflow as workflow

    assert sorted(workflow._HOME) == sorted(workflow.__all__)
    # the imports mypy reads (under TYPE_CHECKING) name the same modules and names
    tree = ast.parse(Path(workflow.__file__).read_text())
    guarded = next(n for n in tree.body if isinstance(n, ast.If))
    typed = {
        node.module: tuple(a.name for a in node.names)
        for node in guarded.body
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert typed == workflow._EXPORTS
    # a module named like an exported name would replace it on the package once imported
    # (console.workflow.tally the module hid tally the step)
    modules = {p.stem for p in Path(workflow.__file__).parent.glob("*.py")}
    assert sorted(set(workflow.__all__) & modules) == []
    for name in workflow.__all__:
        assert getattr(workflow, name) is not None, name
