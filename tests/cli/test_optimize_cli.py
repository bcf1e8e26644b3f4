"""`hotbench optimize` as a user meets it: the table and the summary, the files of --out
(best.yaml passes `hotbench check`), exit 1 with the closest criterion and the bound to
widen when nothing passes, exit 2 for bad input. Small playbooks, a few trials."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import yaml

from console.cli import main
from tests.loadgen.optimize_playbooks import HOT_KEY, LAUNCH


def write(tmp_path: Path, text: str, **section: Any) -> Path:
    data = yaml.safe_load(text)
    data["optimize"] = {**data.get("optimize", {}), **section}
    path = tmp_path / "pb.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def found(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Path]:
    tmp = tmp_path_factory.mktemp("optimize")
    path = write(tmp, LAUNCH, trials=4, month={"peak_hours_per_day": 2, "off_peak_fraction": 0.1})
    out = tmp / "out"
    capture = pytest.MonkeyPatch()
    lines: list[str] = []
    from rich.console import Console

    console = Console(width=200, record=True)
    capture.setattr("console.cli.Console", lambda *a, **k: console)
    try:
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
            ]
        )
    finally:
        capture.undo()
    lines.append(console.export_text())
    return code, "\n".join(lines), out


def test_found_prints_the_ranking_and_the_recommendation(found: tuple[int, str, Path]) -> None:
    code, text, _ = found
    assert code == 0, text
    assert "t: configurations, cheapest passing first" in text
    assert "C1: no throttles" in text
    assert "recommended: " in text and "a month" in text
    assert (
        "naive fix (provisioned for the peak at 70 % utilisation): provisioned, 8,600 WCU" in text
    )
    assert "month: the playbook's load 2 h a day, 10 % of it the other 22 h" in text
    assert "PASSED: 1 of 1 criteria hold" in text
    assert "configurations searched" in text and "a minute)" in text


def test_best_yaml_passes_check_and_the_tfvars_point_at_it(
    found: tuple[int, str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, out = found
    best = out / "best.yaml"
    assert best.read_text().startswith("# The cheapest configuration of tiny-launch")
    assert main(["check", str(best), "--quiet"]) == 0
    variables = json.loads((out / "best.tfvars.json").read_text())
    assert set(variables) == {"spec_file", "run_id", "owner", "expires_at", "region"}
    assert variables["spec_file"] == str(best.resolve())
    assert variables["run_id"] == "opt-tiny-launch" and variables["region"] == "us-east-1"
    svg = (out / "frontier.svg").read_text()
    assert svg.startswith("<svg") and "monthly cost against throttle rate" in svg
    root = ET.fromstring(svg)  # well-formed: an image viewer opens it
    assert root.tag.endswith("svg") and len(root.findall("{http://www.w3.org/2000/svg}circle")) >= 4


def test_the_json_report(
    found: tuple[int, str, Path], tmp_path_factory: pytest.TempPathFactory
) -> None:
    _, _, out = found
    report = json.loads((out.parent / "r.json").read_text())
    assert report["format"] == "hotbench.optimize/1" and report["passed"] is True
    group = report["groups"][0]
    assert group["tables"] == ["t"] and group["trials"] == 4
    assert group["best"]["passed"] and group["naive_fix"]["configuration"].startswith("provisioned")
    assert group["best"]["month_usd"] <= group["naive_fix"]["month_usd"]
    assert {"label", "configuration", "month_usd", "run_usd", "throttle_rate", "criteria"} <= set(
        group["evaluations"][0]
    )


def test_nothing_passing_exits_1_with_the_closest_and_the_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(
        tmp_path,
        LAUNCH,
        trials=4,
        month={"peak_hours_per_day": 0.01},
        tables={
            "t": {
                "billing_modes": ["PROVISIONED"],
                "keep": ["warm_throughput"],
                "capacity": {"write": {"min": 1900, "max": 2000}},
            }
        },
    )
    code = main(
        [
            "optimize",
            str(path),
            "--jobs",
            "1",
            "--quiet",
            "--no-chart",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    text = capsys.readouterr().out
    assert code == 1, text
    assert "nothing passed within the bounds" in text
    assert "the criterion that failed closest: no throttles" in text
    assert "widen: raise optimize.tables.t.capacity.write.max" in text
    assert not (tmp_path / "o" / "best.yaml").exists()


def test_the_command_line_marks_a_key_shardable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = HOT_KEY.split("optimize:")[0]
    path = tmp_path / "m1.yaml"
    path.write_text(text)
    code = main(
        [
            "optimize",
            str(path),
            "--table",
            "bad",
            "--shard",
            "warehouseId",
            "--max-shards",
            "8",
            "--billing-mode",
            "PROVISIONED",
            "--trials",
            "10",
            "--jobs",
            "1",
            "--quiet",
            "--no-chart",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "capacity alone cannot" in out
    best = yaml.safe_load((tmp_path / "o" / "best.yaml").read_text())
    assert best["tables"][0]["partition_key"]["name"] == "warehouseIdShard"
    assert best["criteria"][0]["name"] == "bad throttles at most 1 %"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--table", "nope"], "no table 'nope'"),
        (["--shard", "itemId"], "no partition key"),
        (["--peak-hours", "30"], "less than or equal to 24"),
    ],
)
def test_bad_options_exit_2_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], words: str
) -> None:
    path = write(
        tmp_path, HOT_KEY.replace("      write_shards: {key: warehouseId, max_shards: 8}\n", "")
    )
    code = main(
        ["optimize", str(path), "--table", "bad", *args, "--quiet"]
        if "--table" not in args
        else ["optimize", str(path), *args, "--quiet"]
    )
    text = capsys.readouterr().out
    assert code == 2 and words in text, text
    assert "with the command line's options" in text


def test_a_wrong_file_names_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pb.yaml"
    path.write_text(LAUNCH.replace("trials: 8", "trials: 8\n  month: {off_peak_fraction: 2}"))
    assert main(["optimize", str(path)]) == 2
    text = capsys.readouterr().out
    assert "line 18: optimize.month.off_peak_fraction" in text
