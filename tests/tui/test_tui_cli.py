"""`hotbench console` refuses bad input before any screen opens, with a message and the
documented exit code."""

from __future__ import annotations

from pathlib import Path

import pytest

from console.cli import main


def test_a_bad_playbook_is_named_before_the_screen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntables: []\n")
    assert main(["console", str(bad)]) == 2
    assert "bad.yaml" in capsys.readouterr().out


def test_an_unknown_run_is_refused_with_the_state_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOTBENCH_RUNS_DIR", str(tmp_path))
    assert main(["console", "--run", "hb-nope"]) == 5
    assert "no run 'hb-nope'" in capsys.readouterr().out


def test_a_playbook_and_a_run_together_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["console", "playbooks/hot-partition.yaml", "--run", "hb-x"]) == 2
    assert "not both" in capsys.readouterr().out
