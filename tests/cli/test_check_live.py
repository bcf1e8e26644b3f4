"""The prelaunch template checked live on the local emulator gives the verdicts the
simulation gives: the same criteria pass and the same one fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from console.cli import main
from tests.conftest import PLAYBOOKS

# Appended to the template's criteria: 6,000 writes/s consume 6,000 WCU/s, so a ceiling
# of 5,000 must fail in both modes (the comparison would be empty if all passed).
MUST_FAIL = """
  - name: peak WCU under 5,000 (must fail)
    metric: consumed_wcu_peak
    table: orders
    window_s: 1
    max: 5000
"""


@pytest.mark.slow
def test_prelaunch_template_live_and_simulated_agree(tmp_path: Path) -> None:
    playbook = tmp_path / "prelaunch.yaml"
    playbook.write_text((PLAYBOOKS / "prelaunch-template.yaml").read_text() + MUST_FAIL)
    verdicts = {}
    for mode, extra in (
        ("simulate", []),
        # 5 % of the template's rates (300 writes/s at the peak) with the emulator at the
        # same scale: 30 s of real time, figures reported in full-scale units.
        ("live", ["--target", "local", "--scale", "0.05", "--workers", "2"]),
    ):
        report = tmp_path / f"{mode}.json"
        code = main(
            ["check", str(playbook), "--mode", mode, *extra, "--quiet", "--report", str(report)]
        )
        data = json.loads(report.read_text())
        assert code == 1, data["counts"]
        verdicts[mode] = {c["name"]: c["status"] for c in data["criteria"]}
        measured = {c["name"]: c["measured"] for c in data["criteria"]}
        assert measured["peak WCU under 5,000 (must fail)"] == pytest.approx(6000, rel=0.05)
    assert verdicts["live"] == verdicts["simulate"]
    assert sorted(verdicts["live"].values()).count("fail") == 1
    assert "skipped" not in verdicts["live"].values()
