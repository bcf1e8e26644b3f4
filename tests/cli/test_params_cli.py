"""--params on the commands that run the model, and `hotbench params`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from console.cli import main
from console.run.options import UpOptions
from console.targets.emulator_process import emulator_argv
from emulator.emulator_options import EmulatorOptions
from emulator.paramsfile import load_params
from tests.conftest import PLAYBOOKS

SMOKE = str(PLAYBOOKS / "smoke.yaml")


def _params(tmp_path: Path, text: str) -> str:
    path = tmp_path / "params.yaml"
    path.write_text(text)
    return str(path)


def test_params_lists_values_sources_and_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _params(tmp_path, "grace_s: 1.5\n")
    assert main(["params", "--params", path]) == 0
    out = capsys.readouterr().out
    grace = next(line for line in out.splitlines() if "grace_s" in line)
    assert "1.5" in grace and "fit" in grace and path in grace
    burst = next(line for line in out.splitlines() if "burst_s" in line)
    assert "AWS" in burst and "default" in burst


def test_simulate_runs_under_the_file(tmp_path: Path) -> None:
    """A longer grace lets the hot key take more before its first throttle."""
    runs = {}
    for name, params in (("default", None), ("graceful", _params(tmp_path, "grace_s: 1.5\n"))):
        out = tmp_path / f"{name}.json"
        argv = ["simulate", SMOKE, "--quiet", "--json", str(out)]
        assert main(argv + (["--params", params] if params else [])) == 0
        runs[name] = json.loads(out.read_text())["runs"][0]
    assert runs["graceful"]["first_throttle_s"] > runs["default"]["first_throttle_s"] + 0.5
    assert runs["graceful"]["throttled"] < runs["default"]["throttled"]


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", SMOKE, "--quiet"],
        ["advise", SMOKE],
        ["check", str(PLAYBOOKS / "write-sharding.yaml"), "--quiet"],
        ["check", str(PLAYBOOKS / "write-sharding.yaml"), "--validate"],
        ["run", SMOKE, "--quiet"],
        ["params"],
    ],
)
def test_a_bad_file_is_one_message_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    path = _params(tmp_path, "gsi_backlog: 10\n")
    assert main([*argv, "--params", path]) == 2
    out = capsys.readouterr().out
    assert "unknown parameter 'gsi_backlog' (did you mean gsi_backlog_s?)" in out


def test_the_local_emulator_that_up_starts_gets_the_file(tmp_path: Path) -> None:
    loaded = load_params(_params(tmp_path, "grace_s: 2\n"))
    argv = emulator_argv(8123, EmulatorOptions(params=loaded, scale=0.1))
    assert argv[-2:] == ["--params", loaded.path]
    assert "--params" not in emulator_argv(8123, UpOptions().emulator)


def test_params_with_an_endpoint_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _params(tmp_path, "grace_s: 2\n")
    argv = ["run", SMOKE, "--endpoint", "http://127.0.0.1:1", "--params", path]
    assert main(argv) == 2
    assert "an --endpoint emulator has its own" in capsys.readouterr().out
