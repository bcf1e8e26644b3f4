"""`hotbench optimize` with capacity that moves: auto scaling searched as a dimension of a
provisioned table (a launch ramp where fixed capacity at the peak costs more than a policy
whose minimum carries the ramp until the scaler acts), and an imported playbook (per-minute
curves, a table's history) optimized to a passing recommendation. Each runs a handful of
full simulations of a few minutes of load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from console.cli import main
from tests.conftest import PLAYBOOKS
from tests.terraform.tfkit import expected_settings

pytestmark = pytest.mark.slow(realtime=False)

RAMP = (PLAYBOOKS / "optimize-auto-scaling.yaml").read_text()
"""A launch ramp to 400 writes/s for five minutes, four hours a day and a tenth of it the
rest: fixed capacity must hold the peak all month, a policy only while it lasts."""

IMPORTED = """\
name: orders-imported
description: A replay of a recorded morning, shaped as `hotbench import` writes it.
tables:
  - name: orders
    partition_key: {name: pk, type: S}
    billing_mode: PAY_PER_REQUEST
    item_size_bytes: 800
    history:
      previous_on_demand_peak: {read: 900.5, write: 2400.25}
load:
  attributes:
    pk: {dist: zipf, count: 5000, s: 0.6}
  phases:
    - name: t0900
      operation: put
      rate: {per_minute: [110.5, 160.117]}
    - name: t0902
      rate: {per_minute: [320.25, 480.4]}
      mix:
        - {op: put, weight: 70.0}
        - {op: get, weight: 30.0}
criteria:
  - {name: orders throttles at most 0.5 %, metric: throttle_rate, table: orders, max: 0.005}
"""
"""The importer's shape (docs/import.md): phases named by the clock, one per stretch of
stable shares, each a per-minute curve; the table's recorded peak as its history."""


def optimize(tmp: Path, text: str, *extra: str) -> tuple[int, dict[str, Any], Path]:
    path = tmp / "pb.yaml"
    path.write_text(text)
    out = tmp / "out"
    code = main(
        [
            "optimize",
            str(path),
            "--out",
            str(out),
            "--json",
            str(tmp / "r.json"),
            "--jobs",
            "1",
            "--quiet",
            *extra,
        ]
    )
    return code, json.loads((tmp / "r.json").read_text()), out


@pytest.fixture(scope="module")
def ramp(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any], Path]:
    return optimize(tmp_path_factory.mktemp("ramp"), RAMP, "--trials", "4", "--seed", "1")


def test_auto_scaling_beats_fixed_capacity_at_the_peak(
    ramp: tuple[int, dict[str, Any], Path],
) -> None:
    code, report, _ = ramp
    assert code == 0
    group = report["groups"][0]
    best, naive = group["best"], group["naive_fix"]
    assert best["passed"] and "write auto scaling at" in best["configuration"]
    fixed = [
        e for e in group["evaluations"] if e["passed"] and "auto scaling" not in e["configuration"]
    ]
    assert fixed, "the search also tried fixed capacity that passes"
    # the policy's month is cheaper than any fixed capacity that passes, and the naive fix
    assert best["month_usd"] < min(e["month_usd"] for e in fixed) < naive["month_usd"]
    # a policy whose minimum cannot carry the ramp until the scaler acts throttles
    assert any(
        not e["passed"] and "auto scaling" in e["configuration"] for e in group["evaluations"]
    )


def test_best_yaml_carries_the_policy_and_terraform_takes_it(
    ramp: tuple[int, dict[str, Any], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, out = ramp
    best = out / "best.yaml"
    assert main(["check", str(best), "--quiet"]) == 0
    entry = yaml.safe_load(best.read_text())["tables"][0]
    policy = entry["auto_scaling"]["write"]
    assert entry["write_capacity"] == policy["min"] and policy["min"] < policy["max"]
    assert 20 <= policy["target_pct"] <= 90
    variables = json.loads((out / "best.tfvars.json").read_text())
    assert variables["spec_file"] == str(best.resolve())
    (scaling,) = expected_settings(entry, variables["run_id"])["auto_scaling"]
    assert scaling["scalable_dimension"] == "dynamodb:table:WriteCapacityUnits"
    assert (scaling["min_capacity"], scaling["max_capacity"], scaling["target_value"]) == (
        policy["min"],
        policy["max"],
        policy["target_pct"],
    )


def test_an_imported_playbook_optimizes_to_a_passing_recommendation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report, out = optimize(tmp_path, IMPORTED, "--trials", "3", "--seed", "1")
    assert code == 0 and report["passed"]
    best = yaml.safe_load((out / "best.yaml").read_text())
    table = best["tables"][0]
    assert table["history"] == {"previous_on_demand_peak": {"read": 900.5, "write": 2400.25}}
    assert best["load"]["phases"][1]["rate"] == {"per_minute": [320.25, 480.4]}
    assert main(["check", str(out / "best.yaml"), "--quiet"]) == 0
