"""What `--scale` preserves per workload kind (loadgen/analysis/scale_rule.py): nothing
to say for open rates of one operation, a rounding said for a closed loop that does not
scale to whole users, and a warning where the answer is not preserved (a lock every
user takes): in the plan, before a live run and in its results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from console.cli import main
from loadgen.analysis.scale_rule import scale_notes
from loadgen.format.playbook import load_playbook
from tests.conftest import PLAYBOOKS
from tests.loadgen.test_live_users import LOCKED_ORDER, scenario_playbook

M5 = PLAYBOOKS / "datastore-sync.yaml"


def test_open_rates_of_one_operation_are_preserved_at_any_scale() -> None:
    assert scale_notes(load_playbook(PLAYBOOKS / "hot-partition.yaml"), 0.1) == []
    assert scale_notes(load_playbook(PLAYBOOKS / "ycsb.yaml"), 0.1) == []  # 20 x 0.1 = 2


def test_a_lock_every_user_takes_is_not_preserved_and_a_lock_each_is() -> None:
    notes = scale_notes(load_playbook(M5), 0.1)
    # v1 and v2 share one lock; v3 (a lock per namespace) and v4 (per model) do not
    assert [(n.phase, n.kind) for n in notes] == [("v1", "shared lock"), ("v2", "shared lock")]
    assert all(n.wrong_answer for n in notes)
    assert "show up to 10x the iterations it allows; --scale 1 measures it" in notes[1].words
    assert scale_notes(load_playbook(M5), 1.0) == []


def test_users_that_do_not_scale_to_whole_users_are_said() -> None:
    playbook = scenario_playbook(
        {"name": "orders", "users": 6, "scenario": "order", "duration_s": 1.0},
        {"order": {"steps": LOCKED_ORDER["order"]["steps"][1:2]}},  # no lock: rounding only
    )
    (note,) = scale_notes(playbook, 0.1)
    assert note.kind == "rounded users" and not note.wrong_answer
    assert "6 users at --scale 0.1 run as 1 (not 0.6): the load is 1.67x" in note.words
    assert "--scale 0.167 runs whole users" in note.words


def test_the_plan_prints_the_warning_and_its_json_carries_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a minute of v2 (the plan prices a scenario by simulating it: the whole playbook's
    # 16 hours take minutes)
    short = ["plan", str(M5), "--runs-dir", str(tmp_path), "--phase", "v2", "--duration-scale"]
    assert main([*short, "0.005", "--scale", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "warning: phase v2: --scale 0.1 does not preserve the answer" in out
    assert out.index("warning:") < out.index("fleet:")  # under the tables, before the rest
    assert main([*short, "0.005", "--json", "--scale", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["warnings"] == []
