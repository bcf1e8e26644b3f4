"""The backtest: an imported playbook replayed in the simulation beside what the account
recorded, minute by minute; the agreement line; the recording as a result document that
`hotbench calibrate` accepts. Through the CLI, from a snapshot saved of a fake account
(offline)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from console.cli import main
from console.importer import playbook_draft
from console.importer.aws_calls import LiveCalls
from console.importer.import_run import ImportOptions, run_import
from console.importer.minute_comparison import correlation
from console.importer.playbook_draft import render, starting_at
from console.importer.recorded import Recorded, capacity_at, recorded
from loadgen.analysis.calibrate import load_measured
from tests.importer import scenarios
from tests.importer.fake_account import FakeAccount, Scenario

MINUTES = 8
LOW, HIGH = 1500.0, 2500.0
HOT = 0.6


def _busy_then_quiet() -> Scenario:
    """Eight minutes of writes on an on-demand table warmed to 10,000, alternating
    1,500/s and 2,500/s, one key holding 60 % (900/s, then 1,500/s against its
    partition's 1,000 WCU): the busy minutes throttle the key, the quiet ones do not."""
    start = datetime(2026, 11, 30, 9, tzinfo=UTC)
    rates = [LOW if m % 2 == 0 else HIGH for m in range(MINUTES)]
    refused: list[float | None] = [max(0.0, r * HOT - 1000.0) * 60 for r in rates]
    succeeded: list[float | None] = [
        r * 60 - (x or 0.0) for r, x in zip(rates, refused, strict=True)
    ]
    total = sum(rates) * 60
    series = {
        ("SuccessfulRequestLatency", "SampleCount", None, "PutItem"): succeeded,
        ("ThrottledRequests", "Sum", None, "PutItem"): refused,
        ("WriteKeyRangeThroughputThrottleEvents", "Sum", None, None): refused,
        ("ConsumedWriteCapacityUnits", "Sum", None, None): succeeded,
    }
    return scenarios.hot_key_writes(start, MINUTES, HOT, total, series)


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    scenario = _busy_then_quiet()
    snapshot = tmp_path / "snapshot"
    run_import(
        ImportOptions(
            tables=("hot",),
            start=scenario.start.isoformat(),
            end=scenario.end.isoformat(),
            save=snapshot,
        ),
        now=scenario.end + timedelta(minutes=3),
        live=LiveCalls(FakeAccount([scenario]).session()),
    )
    return snapshot


def test_the_replay_sits_beside_the_recording_and_calibrate_takes_it(
    saved: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    no_aws_credentials: None,
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    playbook = tmp_path / "hot.yaml"
    assert main(["import", "--from-saved", str(saved), "--out", str(playbook), "--quiet"]) == 0
    recording = Recorded.from_json(
        json.loads((tmp_path / "hot.recorded.json").read_text()), "hot.recorded.json"
    )
    assert recording.throttles["TableWriteKeyRangeThroughputExceeded"][1] == 500 * 60
    capsys.readouterr()
    out = tmp_path / "recorded-result.json"
    assert main(["backtest", str(playbook), "--quiet", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    line = next(x for x in printed.splitlines() if x.startswith("recorded "))
    # 4 busy minutes of 500 refused/s in 8 minutes of 2,000/s on average: 12.5 %.
    assert line.startswith("recorded 12.50 % throttled, simulated ")
    simulated = float(line.split("simulated ")[1].split(" %")[0])
    assert 5.0 < simulated < 20.0  # the model's partition refuses what passes 1,000 WCU/s
    r = float(line.split("per-minute correlation ")[1].split(";")[0])
    assert r > 0.9  # the busy minutes throttle in both, the quiet ones in neither
    assert "TableWriteKeyRangeThroughputExceeded" in printed
    measured = load_measured(out)
    assert measured.playbook.name == "import-hot"
    (run,) = measured.document["runs"]
    assert run["offered"] == pytest.approx(sum(LOW if m % 2 == 0 else HIGH for m in range(8)) * 60)
    names = {f.name for f, _ in measured.figures}
    assert "throttle_rate" in names


def test_a_window_of_minutes_and_a_what_if_that_has_no_recording(
    saved: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    no_aws_credentials: None,
) -> None:
    playbook = tmp_path / "hot.yaml"
    assert main(["import", "--from-saved", str(saved), "--out", str(playbook), "--quiet"]) == 0
    capsys.readouterr()
    out = tmp_path / "cut.json"
    cut = ["backtest", str(playbook), "--minutes", "2:4", "--quiet", "--json", str(out)]
    assert main(cut) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("recorded "))
    assert line.endswith("(minutes 2-4)")
    measured = load_measured(out)
    assert sum(p.duration_s for p in measured.playbook.load.phases) == 120
    tripled = tmp_path / "launch.yaml"
    launch = ["import", "--from-saved", str(saved), "--out", str(tripled), "--scale", "3"]
    assert main([*launch, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["backtest", str(tripled), "--quiet"]) == 2
    assert "is a launch what-if (every minute x3)" in capsys.readouterr().out


def test_correlation_is_none_for_a_flat_series() -> None:
    assert correlation(np.ones(5), np.arange(5.0)) is None
    assert correlation(np.arange(5.0), 2 * np.arange(5.0)) == pytest.approx(1.0)


def test_a_later_window_starts_where_auto_scaling_had_taken_the_table() -> None:
    result = run_import(ImportOptions(from_saved=scenarios.ORDERS_SNAPSHOT))
    rendered = render(result)
    recording = recorded(result, result.tables[0])
    at_noon = capacity_at(recording, 719)
    assert at_noon["write"] > 4000 and at_noon["read:bySku"] >= 100
    assert capacity_at(recording, 0)["write"] == rendered.playbook.tables[0].write_capacity
    spec = starting_at(rendered.playbook, at_noon | {"read:bySku": 5000}).tables[0]
    assert spec.write_capacity == at_noon["write"]
    assert spec.gsis[0].read_capacity == 1000  # bySku's read policy's max


def test_without_the_format_the_capacity_blocks_are_comments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(playbook_draft, "CAPACITY_BLOCKS_LIVE", False)
    result = run_import(ImportOptions(from_saved=scenarios.ORDERS_SNAPSHOT))
    rendered = render(result)
    assert "# auto_scaling and history below are commented out" in rendered.text
    assert "\n  # auto_scaling:\n  #   read: {target_pct: 70.0, min: 1000, max: 20000" in (
        rendered.text
    )
    assert rendered.playbook.tables[0].auto_scaling is None
    assert rendered.playbook.tables[0].write_capacity == 5850  # the window's highest
