"""`hotbench check` and `hotbench advise` as a CI job and a new user meet them: exit codes,
the verdict for every built-in playbook, the reports, and bad files named by line."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from console.cli import main
from tests.conftest import BUILT_IN_CHECKS, PLAYBOOKS, ROOT

SCHEMA = json.loads((ROOT / "docs" / "check-report.schema.json").read_text())

# A small playbook whose second criterion cannot hold: the hot key throttles about half.
MUST_FAIL = """\
name: must-fail
tables:
  - name: hot
    partition_key: {name: wh}
    billing_mode: PROVISIONED
    read_capacity: 100
    write_capacity: 5000
load:
  attributes:
    wh: {dist: weighted, weights: {TOKYO: 80, OSAKA: 20}}
  phases:
    - {name: rush, operation: put, rate: 2000, duration_s: 20}
criteria:
  - name: the table limit is not the problem
    metric: throttle_rate
    table: hot
    reason: TableWriteProvisionedThroughputExceeded
    max: 0
  - name: no throttles on the hot table
    metric: throttle_rate
    table: hot
    max: 0.01
  - name: p99 under 20 ms
    metric: p99_latency_ms
    max: 20
"""


def _write(tmp_path: Path, text: str, name: str = "pb.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", BUILT_IN_CHECKS)
def test_every_built_in_check_passes_in_simulation(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "r.json"
    code = main(["check", str(PLAYBOOKS / name), "--quiet", "--report", str(report)])
    out = capsys.readouterr().out
    assert code == 0, out
    data = json.loads(report.read_text())
    assert data["passed"] and data["counts"]["fail"] == 0
    assert data["counts"]["pass"] >= 3  # every built-in states several criteria
    assert "PASSED" in out


def test_a_failing_criterion_exits_1_naming_it_and_its_measured_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    md, xml, js = tmp_path / "r.md", tmp_path / "r.xml", tmp_path / "r.json"
    args = ["check", str(_write(tmp_path, MUST_FAIL)), "--quiet"]
    code = main([*args, "--report", str(md), "--report", str(xml), "--report", str(js)])
    out = capsys.readouterr().out
    assert code == 1
    data = json.loads(js.read_text())
    by_name = {c["name"]: c for c in data["criteria"]}
    failed = by_name["no throttles on the hot table"]
    assert failed["status"] == "fail"
    # 80 % of 2,000 writes/s = 1,600 on one key against 1,000 WCU/s: 600 of 2,000 refused
    # (30 %), less what the partition's one second of grace lets through (~2.5 points).
    assert 0.26 < failed["measured"] < 0.30
    assert by_name["the table limit is not the problem"]["status"] == "pass"
    assert by_name["p99 under 20 ms"]["status"] == "skipped"  # no latency in simulation
    assert data["counts"] == {"pass": 1, "fail": 1, "skipped": 1}
    assert not data["passed"]
    headline = f"no throttles on the hot table (measured {failed['measured_text']}"
    assert headline in out and "FAILED: 1 of 3" in out
    markdown = md.read_text()
    assert "**failed**" in markdown and failed["measured_text"] in markdown
    assert "no throttles on the hot table" in markdown
    # The advice names the hot key in the report too.
    assert "wh=TOKYO" in markdown


def test_junit_has_one_case_per_criterion_with_the_failure(tmp_path: Path) -> None:
    xml = tmp_path / "r.xml"
    assert main(["check", str(_write(tmp_path, MUST_FAIL)), "--quiet", "--report", str(xml)]) == 1
    root = ET.parse(xml).getroot()
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [
        "the table limit is not the problem",
        "no throttles on the hot table",
        "p99 under 20 ms",
    ]
    assert suite.get("tests") == "3" and suite.get("failures") == "1"
    assert suite.get("skipped") == "1"
    failure = cases[1].find("failure")
    assert failure is not None and "measured" in (failure.get("message") or "")
    assert cases[0].find("failure") is None and cases[2].find("skipped") is not None


def test_json_report_matches_the_documented_schema(tmp_path: Path) -> None:
    report = tmp_path / "r.json"
    main(["check", str(PLAYBOOKS / "gsi-hot-key.yaml"), "--quiet", "--report", str(report)])
    data = json.loads(report.read_text())
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    jsonschema.validate(data, SCHEMA)
    first = data["advice"][0]["first_limit"]
    assert first["scope"] == "index byWarehouse" and first["hot_key"]["value"] == "WH-TOKYO"
    # The schema is strict enough to catch a broken report.
    del data["criteria"][0]["measured"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, SCHEMA)


def _exit_2(tmp_path: Path, text: str, *extra: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "console.cli", "check", str(_write(tmp_path, text)), *extra],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    return " ".join(proc.stdout.split())  # rich may wrap long lines


@pytest.mark.parametrize("validate", [True, False], ids=["--validate", "run"])
def test_bad_criterion_exits_2_naming_field_and_line(tmp_path: Path, validate: bool) -> None:
    text = MUST_FAIL.replace("    max: 0.01\n", "    max: lots\n")
    out = _exit_2(tmp_path, text, *(["--validate"] if validate else []))
    line = text.splitlines().index("    max: lots") + 1
    assert f"line {line}: criteria[1].max" in out
    assert "number" in out


def test_unknown_reference_and_unknown_field_name_their_lines(tmp_path: Path) -> None:
    text = MUST_FAIL.replace("    table: hot\n    max: 0.01", "    table: cold\n    max: 0.01")
    out = _exit_2(tmp_path, text, "--validate")
    line = text.splitlines().index("    table: cold") + 1
    assert f"line {line}: criteria[1].table" in out and "'cold'" in out
    text = MUST_FAIL.replace("    billing_mode: PROVISIONED", "    biling_mode: PROVISIONED")
    out = _exit_2(tmp_path, text, "--validate")
    line = text.splitlines().index("    biling_mode: PROVISIONED") + 1
    assert f"line {line}: tables[0].biling_mode" in out


@pytest.mark.parametrize("validate", [True, False], ids=["--validate", "run"])
def test_not_yaml_and_no_criteria_and_bad_report_type_exit_2(
    tmp_path: Path, validate: bool
) -> None:
    """`check --validate` refuses exactly what `check` refuses, before anything runs."""
    extra = ["--validate"] if validate else []
    assert "line 2" in _exit_2(tmp_path, "name: x\n  - broken: [\n", *extra)
    no_criteria = MUST_FAIL[: MUST_FAIL.index("criteria:")]
    assert "no criteria" in _exit_2(tmp_path, no_criteria, *extra)
    assert "unknown report type" in _exit_2(tmp_path, MUST_FAIL, "--report", "r.html", *extra)
    out = _exit_2(tmp_path, MUST_FAIL, "--target", "local", *extra)
    assert "--target applies to --mode live" in out


@pytest.mark.usefixtures("no_aws_credentials")
def test_live_check_on_aws_goes_through_the_workflow_and_needs_credentials(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No credentials: the plan and its cost are printed, then the credentials message,
    exit 2, and no run folder beyond the plan's (nothing was created on AWS)."""
    monkeypatch.setenv("HOTBENCH_RUNS_DIR", str(tmp_path / "runs"))
    out = _exit_2(tmp_path, MUST_FAIL, "--mode", "live", "--target", "aws", "--yes")
    assert "plan on aws" in out and "no AWS credentials found" in out, out
    assert "nothing was created" in out


def test_validate_runs_nothing_and_says_what_it_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["check", "--validate", str(PLAYBOOKS / "write-sharding.yaml")])
    out = capsys.readouterr().out
    assert code == 0
    assert "valid playbook 'write-sharding'" in out and "3 criteria" in out
    assert "offered" not in out  # no results table: nothing ran


def test_advise_names_the_hot_keys_of_m1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["advise", str(PLAYBOOKS / "hot-partition.yaml")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    verdicts = {line.split(":")[0]: line for line in out.split("=> ")[1:]}
    assert "table partition write" in verdicts["bad"] and "warehouseId=WH-TOKYO" in verdicts["bad"]
    assert "3,200 WCU/s against 1,000" in verdicts["bad"]  # the arithmetic is shown
    assert "shard warehouseId into at least 4 suffixes" in verdicts["bad"]
    assert "table partition write" in verdicts["badOnDemand"]
    assert "no limit is reached" in verdicts["good"]
    assert "index byWarehouse partition write" in verdicts["goodGsi"]
    assert "warehouseId=WH-TOKYO" in verdicts["goodGsi"]


def test_advise_json_is_the_check_reports_advice(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["advise", str(PLAYBOOKS / "hot-partition.yaml"), "--json"]) == 0
    advice = json.loads(capsys.readouterr().out)
    assert [a["table"] for a in advice] == ["bad", "good", "goodGsi", "badOnDemand"]
    bad = advice[0]["first_limit"]
    assert bad["hot_key"] == {"attribute": "warehouseId", "value": "WH-TOKYO", "share": 0.8}
    assert (bad["offered_units"], bad["limit_units"]) == (3200.0, 1000.0)
    assert advice[1]["first_limit"] is None
    jsonschema.validate(advice, {**SCHEMA["properties"]["advice"], "$defs": SCHEMA["$defs"]})


def test_an_unreachable_live_endpoint_exits_2_with_the_fix(tmp_path: Path) -> None:
    """Nothing listens on port 9: said at once (a refused connection is not retried for
    20 s), for `check --mode live` and for `run`, with no traceback."""
    out = _exit_2(
        tmp_path, MUST_FAIL, "--mode", "live", "--endpoint", "http://127.0.0.1:9", "--quiet"
    )
    assert "could not complete" in out and "hotbench emulator serve" in out
    assert "nothing listens on 127.0.0.1:9" in out and "run --mode simulate" in out
    path = _write(tmp_path, MUST_FAIL, "run.yaml")
    proc = subprocess.run(
        [sys.executable, "-m", "console.cli", "run", str(path), "--endpoint", "http://127.0.0.1:9"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    out = " ".join(proc.stdout.split())
    assert proc.returncode == 2 and "Traceback" not in proc.stdout + proc.stderr
    assert "nothing listens on 127.0.0.1:9" in out
    # rich folds a long path where it likes: compare without any whitespace
    assert f"hotbenchsimulate{path}" in "".join(proc.stdout.split())


def test_run_cost_prices_capacity_pro_rata_and_on_demand_by_units_used() -> None:
    from console.cost.measured_usage import run_cost_at
    from console.cost.prices import US_EAST_1 as prices
    from loadgen.format.playbook import parse_playbook
    from loadgen.results.records import Counts, PhaseResult, RunResult

    gsi = {"name": "g", "partition_key": {"name": "s"}, "projection": "KEYS_ONLY"}
    playbook = parse_playbook(
        {
            "name": "c",
            "tables": [
                {
                    "name": "prov",
                    "partition_key": {"name": "pk"},
                    "read_capacity": 100,
                    "write_capacity": 1000,
                    "gsis": [{**gsi, "read_capacity": 10, "write_capacity": 500}],
                },
                {
                    "name": "od",
                    "partition_key": {"name": "pk"},
                    "billing_mode": "PAY_PER_REQUEST",
                    "item_size_bytes": 3000,
                    "gsis": [gsi],
                },
            ],
            "load": {
                "attributes": {"pk": {"dist": "uuid"}, "s": {"dist": "uuid"}},
                "phases": [{"name": "w", "rate": 100, "duration_s": 1800}],
            },
        }
    )
    run_cost = run_cost_at(prices)
    run = RunResult("prov", 1, 1800.0)
    # Half an hour of 1,610 provisioned units, used or not.
    expected = 0.5 * (110 * prices.provisioned_rcu_hour + 1500 * prices.provisioned_wcu_hour)
    assert run_cost(playbook.table("prov"), run) == pytest.approx(expected)
    # On demand: 1,000 writes of 3 KB succeeded (3 WCU each) plus the one KEYS_ONLY index
    # write each that the run's counts hold for the GSI; the 500 throttled cost nothing.
    counts = Counts(
        sent=1500,
        succeeded=1000,
        throttled=500,
        consumed_wcu=3000.0,
        consumed_wcu_by_index={"g": 1000.0},
    )
    od = RunResult("od", 1, 1800.0, seconds={0: counts})
    od.phases = [PhaseResult("w", "put", 0, 1800, 1500, counts)]
    expected = (3000 + 1000) / 1e6 * prices.on_demand_per_million_write_units
    assert run_cost(playbook.table("od"), od) == pytest.approx(expected)
