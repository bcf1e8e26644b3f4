"""`hotbench import` as a user runs it: from a saved snapshot with no credentials, what
it prints and writes, and one line with an exit code for each mistake."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from console import exitcodes
from console.cli import main
from console.importer.aws_calls import LiveCalls
from console.importer.import_run import ImportOptions, run_import
from loadgen.format.playbook import load_playbook
from tests.importer import scenarios
from tests.importer.fake_account import FakeAccount


def test_import_from_a_snapshot_prints_and_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_aws_credentials: None
) -> None:
    out, result = tmp_path / "orders.yaml", tmp_path / "import.json"
    code = main(
        [
            "import",
            "--from-saved",
            str(scenarios.ORDERS_SNAPSHOT),
            "--quiet",
            "--out",
            str(out),
            "--json",
            str(result),
        ]
    )
    printed = capsys.readouterr().out
    assert code == exitcodes.OK, printed
    lines = printed.splitlines()
    assert lines[0] == (
        f"import from snapshot {scenarios.ORDERS_SNAPSHOT} (us-east-1): 2026-11-29 00:00 to "
        "2026-11-30 00:00 UTC, 1,440 periods of 60 s"
    )
    assert lines[1].startswith(
        "orders (customerId): PROVISIONED 1,000 RCU / 1,000 WCU now (window peak 4,450 / 5,850)"
    )
    assert (
        "  throttles: TableWriteKeyRangeThroughputExceeded 3,269,565 (peak 235/s at 11:59)" in lines
    )
    assert any(
        line.startswith("  keys customerId (table): C0000042 30.00 %, ")
        and line.endswith("top 100 of ~100,000; tail Zipf s 1.00 over 99,900 keys holding 40.0 %")
        for line in lines
    )
    assert "missing" not in printed
    assert load_playbook(out).tables[0].name == "orders"
    document = json.loads(result.read_text())
    assert document["tables"][0]["definition"]["name"] == "orders"
    assert document["tables"][0]["keys"][0]["fit"]["tail"]["keys"] == 99_900
    assert document["window"]["start"] == "2026-11-29T00:00:00+00:00"


def test_insights_off_prints_the_missing_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "--from-saved", str(scenarios.SESSIONS_SNAPSHOT), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "missing (each with what the playbook assumes instead):" in printed
    assert "  sessions: Contributor Insights is disabled, so there are no hot keys" in printed


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["import"], "name at least one table (or give --from-saved DIR)"),
        (["import", "orders", "--from", "2026-11-29T00:00:00"], "has no UTC offset: add Z"),
        (
            ["import", "orders", "--last", "1h", "--to", "2026-11-29T00:00:00Z"],
            "either --last or --from/--to",
        ),
        (
            ["import", "--from-saved", str(scenarios.SESSIONS_SNAPSHOT), "--last", "1h"],
            "--from-saved replays the snapshot's own window",
        ),
        (
            ["import", "--from-saved", "/nonexistent/snap"],
            "is not an import snapshot (no manifest.json)",
        ),
        (
            ["import", "orders", "--from-saved", str(scenarios.SESSIONS_SNAPSHOT)],
            "holds sessions, not orders",
        ),
        (["import", "orders", "--region", "us-east-1"], "no AWS credentials found"),
    ],
)
def test_mistakes_are_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], no_aws_credentials: None
) -> None:
    assert main(argv) == exitcodes.USAGE
    printed = capsys.readouterr().out
    (error,) = [line for line in printed.splitlines() if line.startswith("error: ")]
    assert message in error
    assert "Traceback" not in printed


def test_several_tables_write_one_playbook_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quiet = scenarios.sessions_quiet()
    short = scenarios.sessions_quiet()
    short.table = {**short.table, "TableName": "sessions2"}
    short.insights = {k: {**v, "TableName": "sessions2"} for k, v in short.insights.items()}
    run_import(
        ImportOptions(
            tables=("sessions", "sessions2"),
            start=quiet.start.isoformat(),
            end=quiet.end.isoformat(),
            save=tmp_path / "snap",
        ),
        now=quiet.end + timedelta(minutes=3),
        live=LiveCalls(FakeAccount([quiet, short]).session()),
    )
    code = main(
        [
            "import",
            "--from-saved",
            str(tmp_path / "snap"),
            "--quiet",
            "--out",
            str(tmp_path / "pb.yaml"),
        ]
    )
    assert code == 0
    assert load_playbook(tmp_path / "pb-sessions.yaml").tables[0].name == "sessions"
    assert load_playbook(tmp_path / "pb-sessions2.yaml").tables[0].name == "sessions2"
    assert "wrote " + str(tmp_path / "pb-sessions2.yaml") in capsys.readouterr().out
