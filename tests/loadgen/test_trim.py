"""A long playbook run short for a first try: `--duration-scale`, `--table`, `--phase`
(loadgen/format/trim.py), on simulate, run, check and plan, always said in the output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from console.cli import main
from loadgen.format.playbook_error import PlaybookError
from loadgen.format.trim import Trim, load_trimmed
from tests.conftest import PLAYBOOKS

M1 = PLAYBOOKS / "hot-partition.yaml"
M5 = PLAYBOOKS / "datastore-sync.yaml"
SHARDING = PLAYBOOKS / "write-sharding.yaml"


def test_a_playbook_of_hours_is_cut_to_one_phase_of_a_minute() -> None:
    trimmed = load_trimmed(M5, Trim(duration_scale=0.005, phases=("v2",)))
    phases = trimmed.playbook.load.phases
    assert [(p.name, p.duration_s) for p in phases] == [("v2", 54.0)]  # of 10,800 s
    assert trimmed.words().startswith(
        "trimmed (--duration-scale 0.005 --phase v2): not the playbook as written; phases v2 54 s"
    )


def test_tables_keep_their_runs_and_pauses_and_criteria_on_others_are_left_out() -> None:
    trimmed = load_trimmed(M1, Trim(tables=("badOnDemand",)))
    runs = trimmed.playbook.runs()
    assert [(r.table, r.repeats, r.pause_s) for r in runs] == [("badOnDemand", 3, 600.0)]
    assert [t.name for t in trimmed.playbook.tables] == ["badOnDemand"]
    sharding = load_trimmed(SHARDING, Trim(tables=("sharded",)))
    # "sharded throttles 10x less than unsharded" compares with a table that is gone
    assert sharding.left_out and all("unsharded" in n for n in sharding.left_out)
    assert all(c.table == "sharded" for c in sharding.playbook.criteria)
    assert "criteria left out" in sharding.words()


def test_an_unknown_name_is_refused_with_the_closest_one() -> None:
    closest = r"--table god: no such table \(did you mean 'good'\?\)"
    with pytest.raises(PlaybookError, match=closest):
        load_trimmed(M1, Trim(tables=("god",)))
    with pytest.raises(PlaybookError, match="--phase rush: no such phase"):
        load_trimmed(M1, Trim(phases=("rush",)))
    assert not Trim() and Trim(duration_scale=0.5)


def test_simulate_says_its_result_is_of_a_trimmed_playbook(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    argv = ["simulate", str(M1), "--table", "bad", "--duration-scale", "0.1", "--quiet"]
    assert main([*argv, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("trimmed (--duration-scale 0.1 --table bad)")
    result = json.loads(out.read_text())
    assert result["notes"][0].startswith("trimmed (--duration-scale 0.1 --table bad)")
    assert [r["table"] for r in result["runs"]] == ["bad"]
    assert result["runs"][0]["offered"] == 48_000  # 4,000 writes/s for 12 s of 120


def test_plan_prices_the_trimmed_playbook_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", str(M1), "--runs-dir", str(tmp_path), "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    argv = ["plan", str(M1), "--runs-dir", str(tmp_path), "--json", "--table", "good"]
    assert main([*argv, "--duration-scale", "0.5"]) == 0
    trimmed = json.loads(capsys.readouterr().out)
    assert [t["variant"] for t in trimmed["tables"]] == ["good"]
    assert trimmed["load_s"] == 60 and whole["load_s"] == 720
    assert trimmed["notes"][0].startswith("trimmed (--duration-scale 0.5 --table good)")
    assert trimmed["estimated_cost_usd"] < whole["estimated_cost_usd"]


def test_a_run_made_by_up_runs_its_own_playbook(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--run", "hb-1201090000-abcd", "--phase", "rush"])
    assert code == 2
    assert "give --duration-scale, --table or --phase to `hotbench up`" in capsys.readouterr().out


def test_up_keeps_the_trimmed_playbook_as_its_runs_copy(tmp_path: Path) -> None:
    """Every later step (run, watch, tally, down, the reaper) reads the run's copy: kept
    trimmed, with a comment saying what it was cut from."""
    from console.run.state import StateStore
    from console.workflow.steps import keep_playbook
    from loadgen.format.playbook import load_playbook

    trim = Trim(duration_scale=0.25, tables=("good",))
    copy = keep_playbook(StateStore(tmp_path), "hb-1", M1, trim)
    assert copy.read_text().startswith("# trimmed (--duration-scale 0.25 --table good)")
    assert load_playbook(copy) == load_trimmed(M1, trim).playbook
