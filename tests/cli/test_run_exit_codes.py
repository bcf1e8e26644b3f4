"""`hotbench run`'s exit codes and what it prints when a run is not clean, and the
teardown that reports what it could not delete."""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from rich.console import Console

from console import exitcodes
from console.commands.run import exit_code
from console.render.results_table import report_result
from loadgen.live.playbook_run import delete_tables
from loadgen.results.records import Counts, Leftover, PhaseResult, PlaybookResult, RunResult

ROOT = Path(__file__).resolve().parents[2]


def result_with(counts: Counts, partial: bool = False) -> PlaybookResult:
    run = RunResult("bad", 1, 2.0, seconds={0: counts}, partial=partial)
    run.phases.append(PhaseResult("w", "put", 0.0, 2.0, offered=counts.sent, counts=counts))
    return PlaybookResult("pb", "run", runs=[run])


def test_a_clean_run_exits_0() -> None:
    assert exit_code(result_with(Counts(sent=10, succeeded=7, throttled=3))) == (exitcodes.OK, [])


def test_a_scenarios_failed_conditions_and_lost_transactions_are_not_run_errors() -> None:
    from collections import Counter

    expected = Counter({"ConditionalCheckFailedException": 3, "TransactionCanceledException": 1})
    counts = Counts(sent=10, succeeded=6, errors=4, errors_by_type=expected)
    assert exit_code(result_with(counts)) == (exitcodes.OK, [])
    counts.errors_by_type["ValidationException"] += 1
    counts.errors += 1
    counts.sent += 1
    assert exit_code(result_with(counts)) == (
        exitcodes.RUN_ERRORS,
        ["bad #1: 1 errors, 0 timeouts"],
    )


def test_errors_timeouts_gaps_partial_and_leftovers_each_have_a_code() -> None:
    errors = result_with(Counts(sent=10, succeeded=8, errors=1, timeouts=1))
    assert exit_code(errors) == (exitcodes.RUN_ERRORS, ["bad #1: 1 errors, 1 timeouts"])
    gap = result_with(Counts(sent=10, succeeded=8, unaccounted=2))
    assert exit_code(gap)[0] == exitcodes.RUN_UNRECONCILED
    unlabelled = result_with(Counts(sent=10, succeeded=8))  # a gap nobody labelled
    assert exit_code(unlabelled)[0] == exitcodes.RUN_UNRECONCILED
    partial = result_with(Counts(sent=10, succeeded=8, unaccounted=2), partial=True)
    code, why = exit_code(partial)
    assert code == exitcodes.RUN_PARTIAL and why == [
        "bad #1: not reconciled, 2 unaccounted",
        "bad #1: partial",
    ]
    left = result_with(Counts(sent=1, succeeded=1), partial=True)
    left.left_behind.append(Leftover("table", "hb-x", "aws dynamodb delete-table", "AccessDenied"))
    assert exit_code(left)[0] == exitcodes.LEFT_BEHIND


def test_the_readme_documents_every_exit_code() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    documented = {int(n) for n in re.findall(r"^\| `(\d+)` \|", section, re.M)}
    defined = {v for k, v in vars(exitcodes).items() if k.isupper() and isinstance(v, int)}
    assert documented == defined


def test_the_table_shows_sent_errors_timeouts_late_and_any_unaccounted() -> None:
    out = StringIO()
    counts = Counts(sent=100, succeeded=80, errors=3, timeouts=4, late=5, unaccounted=13)
    result = result_with(counts, partial=True)
    result.left_behind.append(
        Leftover("table", "hb-x", "aws dynamodb delete-table X", "AccessDenied")
    )
    report_result(result, None, Console(file=out, width=250))
    text = out.getvalue()
    header = next(line for line in text.splitlines() if "succeeded" in line)
    for column in ("sent", "errors", "timeouts", "late", "unaccounted"):
        assert column in header
    row = next(line for line in text.splitlines() if "bad (partial) (unreconciled)" in line)
    assert re.search(r"100 .* 80 .* 0 .* 3 .* 4 .* 5 .* 13 ", row), row
    assert (
        "left behind: table hb-x (AccessDenied); remove it with: aws dynamodb delete-table X"
        in (text)
    )
    clean = StringIO()
    report_result(result_with(Counts(sent=1, succeeded=1)), None, Console(file=clean, width=250))
    assert "unaccounted" not in clean.getvalue()  # the column appears only when needed


def test_a_table_that_cannot_be_deleted_is_reported_with_its_command() -> None:
    client = boto3.client(
        "dynamodb", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b"
    )
    said: list[str] = []
    with Stubber(client) as stub:
        stub.add_client_error("delete_table", "AccessDeniedException", "not allowed")
        stub.add_response("delete_table", {"TableDescription": {"TableName": "hb-r-good"}})
        stub.add_client_error("delete_table", "ResourceNotFoundException", "gone")
        left = delete_tables(
            client, ["hb-r-bad", "hb-r-good", "hb-r-gone"], "http://127.0.0.1:8000", said.append
        )
        stub.assert_no_pending_responses()
    assert [x.resource for x in left] == ["table hb-r-bad"]
    assert left[0].delete_command == (
        "aws dynamodb delete-table --table-name hb-r-bad --endpoint-url http://127.0.0.1:8000"
    )
    assert "AccessDeniedException" in left[0].error
    assert len(said) == 1 and "remove it with: aws dynamodb delete-table" in said[0]


def test_one_leftover_record_keeps_the_result_s_and_down_s_json() -> None:
    """`run`'s result and `down`'s report share one record; each writes it as before."""
    from console.run.models import DownReport

    left = Leftover("table", "hb-x", "aws dynamodb delete-table X", "AccessDenied")
    result = PlaybookResult("pb", "run", left_behind=[left])
    assert result.to_json()["left_behind"] == [
        {"resource": "table hb-x", "error": "AccessDenied", "remove": "aws dynamodb delete-table X"}
    ]
    found = Leftover(kind="ecs:cluster", id="arn:c", delete_command="aws ecs delete-cluster")
    report = DownReport(run_id="hb-x", target="aws", leftovers=[found])
    assert report.model_dump(mode="json")["leftovers"] == [
        {"kind": "ecs:cluster", "id": "arn:c", "delete_command": "aws ecs delete-cluster"}
    ]
    assert report.leftovers == [found] and not report.nothing_left


def test_in_process_tables_are_reported_but_not_left_behind() -> None:
    client: Any = boto3.client(
        "dynamodb", region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b"
    )
    said: list[str] = []
    with Stubber(client) as stub:
        stub.add_client_error("delete_table", "InternalServerError", "boom")
        assert delete_tables(client, ["hb-r-x"], None, said.append) == []
    assert "could not delete table hb-r-x" in said[0] and "in-process emulator" in said[0]


@pytest.mark.parametrize("pattern", [r"suppress\(Exception\)", r"except Exception: *pass"])
def test_no_swallowed_exception_in_loadgen_or_console(pattern: str) -> None:
    for package in ("loadgen", "console"):
        for path in (ROOT / package).rglob("*.py"):
            assert not re.search(pattern, path.read_text()), path


def test_a_ctrl_c_during_the_clean_up_names_every_table_it_leaves() -> None:
    class Client:
        class exceptions:
            ResourceNotFoundException = LookupError

        def __init__(self) -> None:
            self.deleted: list[str] = []

        def delete_table(self, TableName: str) -> None:
            if TableName == "hb-r-2":
                raise KeyboardInterrupt
            self.deleted.append(TableName)

    client = Client()
    said: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        delete_tables(client, ["hb-r-1", "hb-r-2", "hb-r-3"], "http://h:1", said.append)
    assert client.deleted == ["hb-r-1"]
    assert len(said) == 2
    assert all(m.startswith("clean-up failed: could not delete table hb-r-") for m in said)
    assert "--table-name hb-r-2 " in said[0] and "--table-name hb-r-3 " in said[1]
