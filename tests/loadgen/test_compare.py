"""Two results side by side: figures line up by where they sit, tolerances decide."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from console.cli import main
from loadgen.analysis.compare import CompareError, compare
from loadgen.analysis.figures import by_key
from tests.conftest import ROOT

LIVE_M1 = ROOT / "docs" / "results" / "live-m1-b81809b3fcd4.json"


@pytest.fixture
def live() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(LIVE_M1.read_text())
    return data


def test_a_result_agrees_with_itself(live: dict[str, Any]) -> None:
    result = compare(live, copy.deepcopy(live))
    assert result.agree and not result.only_a and not result.only_b
    assert len(result.rows) == len(by_key(live))
    assert all(r.residual == 0 for r in result.rows)


def test_a_moved_rate_is_outside_two_points_and_named(live: dict[str, Any]) -> None:
    other = copy.deepcopy(live)
    other["runs"][2]["throttle_rate"] += 0.03  # goodGsi 26.6 % -> 29.6 %
    result = compare(live, other)
    assert not result.agree
    [row] = result.outside
    assert row.a.key == "goodGsi #1 | run | throttle_rate"
    assert row.residual == pytest.approx(1.5)
    assert (
        "DIFFER: 1 of" in result.verdict()
        and "goodGsi #1 | run | throttle_rate" in result.verdict()
    )


def test_a_tolerance_stated_by_the_reference_wins(live: dict[str, Any]) -> None:
    other = copy.deepcopy(live)
    other["runs"][2]["throttle_rate"] += 0.03
    live["tolerances"] = {"goodGsi #1 | run | throttle_rate": {"abs": 0.05}}
    assert compare(live, other).agree


def test_a_throttle_on_one_side_only_is_a_difference(live: dict[str, Any]) -> None:
    other = copy.deepcopy(live)
    other["runs"][1]["first_throttle_s"] = 5.0  # good never throttled in A
    [row] = compare(live, other).outside
    assert row.a.key == "good #1 | run | first_throttle_s" and row.a.value is None


def test_a_reference_file_with_few_figures_compares_only_those(live: dict[str, Any]) -> None:
    reference = {
        "format": "hotbench.result/1",
        "playbook": "hot-partition",
        "runs": [{"table": "bad", "repeat": 1, "throttle_rate": 0.548}],
    }
    result = compare(reference, live)
    assert [r.a.key for r in result.rows] == ["bad #1 | run | throttle_rate"]
    assert result.agree and len(result.only_b) > 50


def test_different_playbooks_cannot_be_compared(live: dict[str, Any]) -> None:
    other = dict(live, playbook="smoke")
    with pytest.raises(CompareError, match="different playbooks"):
        compare(live, other)


def test_cli_exit_codes_and_json(
    tmp_path: Path, live: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    same = tmp_path / "same.json"
    same.write_text(json.dumps(live))
    assert main(["compare", str(LIVE_M1), str(same)]) == 0
    assert "AGREE: all" in capsys.readouterr().out
    moved = copy.deepcopy(live)
    moved["runs"][0]["consumed_wcu_peak_1min"] *= 1.2
    changed = tmp_path / "moved.json"
    changed.write_text(json.dumps(moved))
    assert main(["compare", str(LIVE_M1), str(changed), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["agree"] is False
    [outside] = [f for f in report["figures"] if not f["within"]]
    assert outside["run"] == "bad #1" and outside["figure"] == "consumed_wcu_peak_1min"
    not_result = tmp_path / "x.json"
    not_result.write_text('{"a": 1}')
    assert main(["compare", str(LIVE_M1), str(not_result)]) == 2
    assert "is not a hotbench result" in capsys.readouterr().out
    assert main(["compare", str(LIVE_M1), str(tmp_path / "missing.json")]) == 2


def test_a_live_check_prints_how_the_simulation_compares() -> None:
    """`check --mode live` adds one verdict line: the playbook simulated and compared with
    the live result. A result that is itself the simulation agrees; one that throttled
    far less is named."""
    from dataclasses import replace as dc_replace

    from rich.console import Console

    from console.commands.check import simulated_beside
    from console.render.live_vs_simulated import print_live_vs_simulated
    from emulator.params import DEFAULT_PARAMS
    from loadgen.format.playbook import load_playbook
    from loadgen.simulation.simulate import simulate
    from tests.conftest import PLAYBOOKS

    playbook = load_playbook(PLAYBOOKS / "smoke.yaml")
    console = Console(record=True, width=200)
    print_live_vs_simulated(simulated_beside(playbook, simulate(playbook), DEFAULT_PARAMS), console)
    assert "live vs simulated: AGREE" in console.export_text()
    graceful = simulate(playbook, dc_replace(DEFAULT_PARAMS, grace_s=4.0))
    console = Console(record=True, width=200)
    print_live_vs_simulated(simulated_beside(playbook, graceful, DEFAULT_PARAMS), console)
    text = console.export_text()
    assert "live vs simulated: DIFFER" in text and "hotKey #1 | run | throttle_rate" in text
