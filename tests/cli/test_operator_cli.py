"""What a user of kubectl, k6 or Locust expects of the command line: bad numbers refused
as they are parsed (before a plan is printed or anything made), the closest command or
option for a typo, `hotbench help COMMAND`, `-V`, and an unwritable output path found
before the run it would be written after."""

from __future__ import annotations

from pathlib import Path

import pytest

from console.cli import main
from tests.conftest import ROOT

SMOKE = str(ROOT / "playbooks" / "smoke.yaml")
CHECKED = str(ROOT / "playbooks" / "write-sharding.yaml")


def _usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    out = capsys.readouterr()
    return out.out, out.err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["plan", SMOKE, "--workers", "-3"], "argument --workers: must be at least 1 (got -3)"),
        (["plan", SMOKE, "--scale", "-1"], "argument --scale: must be in (0, 1]"),
        (["up", SMOKE, "--workers", "0", "--yes"], "argument --workers: must be at least 1"),
        (["up", SMOKE, "--scale", "2", "--yes"], "argument --scale: must be in (0, 1]"),
        (["run", SMOKE, "--scale", "0"], "argument --scale: must be in (0, 1]"),
        (["run", "--run", "hb-x", "--pause-scale", "-1"], "argument --pause-scale: must be 0"),
        (["console", SMOKE, "--seed-items", "-5"], "argument --seed-items: must be 0 or more"),
        (["watch", "hb-x", "--interval", "0"], "argument --interval: must be above 0"),
        (["plan", SMOKE, "--workers", "two"], "argument --workers: 'two' is not a whole number"),
        (["simulate", SMOKE, "--duration-scale", "0"], "argument --duration-scale: must be above"),
    ],
)
def test_bad_numbers_are_refused_as_they_are_parsed_before_any_plan(
    argv: list[str],
    said: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # the default runs folder: must stay empty
    out, err = _usage_error(argv, capsys)
    assert said in err
    assert "plan on" not in out  # refused before the plan is printed
    assert not any(tmp_path.iterdir())  # nothing made


def test_a_mistyped_command_or_option_gets_the_closest_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, err = _usage_error(["simulat", SMOKE], capsys)
    assert "unknown command 'simulat' (did you mean 'simulate'?)" in err
    _, err = _usage_error(["plan", SMOKE, "--wrokers", "2"], capsys)
    assert "unrecognized arguments: --wrokers 2 (did you mean --workers?)" in err
    assert "hotbench plan: error" in err  # named by the command's own parser
    _, err = _usage_error(["emulator", "serve", "--prot", "8000"], capsys)
    assert "(did you mean --port?)" in err
    _, err = _usage_error(["emulator", "srve"], capsys)
    assert "unknown action 'srve' (did you mean 'serve'?)" in err
    _, err = _usage_error(["run", SMOKE, "--target", "lcoal"], capsys)
    assert "(did you mean 'local'?)" in err
    _, err = _usage_error(["zzzz"], capsys)
    assert "did you mean" not in err  # nothing close: no guess


def test_help_command_prints_a_commands_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["help"]) == 0
    listed = capsys.readouterr().out
    assert "simulate" in listed and "COMMAND" in listed
    assert main(["help", "run"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("usage: hotbench run") and "--pause-scale" in shown
    assert main(["help", "emulator", "serve"]) == 0
    assert capsys.readouterr().out.startswith("usage: hotbench emulator serve")
    _, err = _usage_error(["help", "rn"], capsys)
    assert "no command 'rn' to help with (did you mean 'run'?)" in err


def test_short_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["-V"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("hotbench ")


@pytest.mark.parametrize("option", ["--report", "--json"])
def test_check_refuses_an_unwritable_output_before_the_run(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On AWS the money would be spent first; locally the minutes. Found before: exit 2
    and nothing ran (the runner is never reached)."""
    import console.commands.check as check

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the check ran before its output path was checked")

    monkeypatch.setattr(check, "obtain_result", never)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = main(["check", CHECKED, "--quiet", option, str(blocker / "out.json")])
    assert code == 2
    out = capsys.readouterr().out
    assert f"error: {option} {blocker / 'out.json'}: cannot write there" in out
    assert "nothing was run" in out
    folder = tmp_path / "folder.json"
    folder.mkdir()
    code = main(["check", CHECKED, "--validate", option, str(folder)])
    assert code == 2  # --validate refuses what check would: a folder is no file
    assert "is a folder" in capsys.readouterr().out


def test_run_and_simulate_refuse_an_unwritable_json_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import console.commands.simulate as simulate

    monkeypatch.setattr(simulate, "simulate_with_progress", lambda *a, **k: 1 / 0)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["simulate", SMOKE, "--json", str(blocker / "r.json")]) == 2
    assert main(["run", SMOKE, "--json", str(blocker / "r.json")]) == 2
    out = capsys.readouterr().out
    assert out.count("cannot write there") == 2
