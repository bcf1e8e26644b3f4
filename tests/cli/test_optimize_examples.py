"""The examples docs/optimize.md shows, on the built-in playbooks: the recommendation passes
`hotbench check` and costs less than the naive fix (provisioned for the peak at 70 %
utilisation); on M1 with the hot key marked shardable, the shard count that passes, and
that capacity alone cannot. Each runs a few dozen full simulations: slow, left to
`make test` (they measure nothing in real time)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from console.cli import main
from tests.conftest import PLAYBOOKS

pytestmark = pytest.mark.slow(realtime=False)


def optimize(args: list[str], out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["optimize", *args, "--out", str(out), "--quiet", "--no-chart"])
    text = capsys.readouterr().out
    assert code == 0, text
    return text


def month(text: str, label: str) -> float:
    found = re.search(rf"{label}.*? at \$([\d,.]+) a month", text)
    assert found, text
    return float(found.group(1).replace(",", ""))


def short_launch_spike(folder: Path) -> Path:
    """playbooks/launch-spike.yaml with its phases a fifth as long (24 s of 9,000 writes/s,
    96 s of 3,000): the same rates, criteria and month, five times fewer requests."""
    data = yaml.safe_load((PLAYBOOKS / "launch-spike.yaml").read_text())
    for phase in data["load"]["phases"]:
        phase["duration_s"] /= 5
    path = folder / "launch-spike-short.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.mark.parametrize("playbook", ["warm-throughput.yaml", "launch-spike"])
def test_the_recommendation_passes_check_and_beats_the_naive_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], playbook: str
) -> None:
    path = PLAYBOOKS / playbook if playbook.endswith(".yaml") else short_launch_spike(tmp_path)
    text = optimize([str(path), "--trials", "10"], tmp_path, capsys)
    recommended, naive = month(text, "recommended: "), month(text, "naive fix .*?: ")
    summary = re.search(r"naive fix \(provisioned for the peak at 70 % utilisation\).*", text)
    assert summary and ", passes (" in summary.group(0), text
    assert recommended < naive
    assert main(["check", str(tmp_path / "best.yaml"), "--quiet"]) == 0


def test_m1_with_the_hot_key_shardable_finds_the_shards_capacity_cannot_replace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = optimize(
        [
            str(PLAYBOOKS / "hot-partition.yaml"),
            "--table",
            "bad",
            "--shard",
            "warehouseId",
            "--max-shards",
            "10",
            "--trials",
            "10",
        ],
        tmp_path,
        capsys,
    )
    assert "no capacity keeps it within the criteria with fewer than 4 shards" in text
    assert "capacity alone cannot: unsharded" in text
    found = re.search(r"the fewest shards of warehouseId that pass: (\d+)", text)
    assert found and 4 <= int(found.group(1)) <= 10, text
    best = yaml.safe_load((tmp_path / "best.yaml").read_text())
    bad = next(t for t in best["tables"] if t["name"] == "bad")
    assert bad["partition_key"]["name"] == "warehouseIdShard"
    assert main(["check", str(tmp_path / "best.yaml"), "--quiet"]) == 0
