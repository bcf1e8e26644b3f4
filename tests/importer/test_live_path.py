"""The live path (boto3 clients, botocore's request validation) against an account that
answers from a scenario: recording and replaying give the same import, throttled calls
are retried with backoff, pages and long windows are followed, denials and missing
credentials are one clear line each, and --anonymize leaves no key value behind."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from console import exitcodes
from console.importer import metric_queries
from console.importer.aws_calls import LiveCalls, ThrottleBackoff
from console.importer.import_result import ImportResult, to_jsonable
from console.importer.import_run import ImportOptions, run_import
from console.output import UserError
from tests.importer import scenarios
from tests.importer.fake_account import FakeAccount, Scenario


def _options(scenario: Scenario, **more: Any) -> ImportOptions:
    return ImportOptions(
        tables=(scenario.table["TableName"],),
        start=scenario.start.isoformat(),
        end=scenario.end.isoformat(),
        **more,
    )


def _import(
    account: FakeAccount,
    scenario: Scenario,
    backoff: ThrottleBackoff | None = None,
    lines: list[str] | None = None,
    **more: Any,
) -> ImportResult:
    said = lines if lines is not None else []
    return run_import(
        _options(scenario, **more),
        progress=said.append,
        now=scenario.end + timedelta(minutes=5),
        live=LiveCalls(account.session(), backoff=backoff, on_retry=said.append),
    )


def _same(a: ImportResult, b: ImportResult) -> None:
    left, right = to_jsonable(a), to_jsonable(b)
    left.pop("source"), right.pop("source")
    assert left == right


@pytest.fixture(scope="module")
def quiet() -> Scenario:
    return scenarios.sessions_quiet()


@pytest.fixture(scope="module")
def day() -> Scenario:
    """Three hours of the orders day around its noon peak (the hot key throttles)."""
    return scenarios.orders_day(minutes=180, offset=600)


def test_a_recorded_import_replays_to_the_same_result(day: Scenario, tmp_path: Path) -> None:
    live = _import(FakeAccount([day]), day, save=tmp_path / "snap")
    replayed = run_import(ImportOptions(from_saved=tmp_path / "snap"))
    _same(live, replayed)
    assert live.source == "account" and replayed.source.startswith("snapshot")


def test_throttled_calls_are_retried_with_backoff(quiet: Scenario) -> None:
    waits: list[float] = []
    account = FakeAccount([quiet], throttle_first={"GetMetricData": 3, "DescribeTable": 1})
    said: list[str] = []
    backoff = ThrottleBackoff(attempts=5, base_s=0.5, cap_s=4, sleep=waits.append)
    result = _import(account, quiet, backoff, said)
    _same(result, _import(FakeAccount([quiet]), quiet))
    assert len(waits) == 4
    assert all(0 <= w <= min(4, 0.5 * 2**n) for n, w in zip([0, 0, 1, 2], waits, strict=True))
    assert sum(op == "DescribeTable" for _, op, _ in account.calls) == 2
    retries = [line for line in said if "throttled" in line]
    assert retries[0].startswith(
        "dynamodb DescribeTable throttled (ThrottlingException); retrying in"
    )
    assert retries[1].startswith(
        "cloudwatch GetMetricData throttled (ThrottlingException); retrying in"
    )
    # botocore's own retries do not see a stubbed answer: every retry here is this layer's
    assert sum(op == "GetMetricData" for _, op, _ in account.calls) == 4


def test_a_call_still_throttled_after_every_attempt_stops_the_import(quiet: Scenario) -> None:
    account = FakeAccount([quiet], throttle_first={"GetMetricData": 100})
    with pytest.raises(UserError) as caught:
        _import(account, quiet, ThrottleBackoff(attempts=3, sleep=lambda _s: None))
    assert caught.value.code == exitcodes.INFRA_FAILED
    assert "cloudwatch:GetMetricData failed for table sessions: ThrottlingException" in str(
        caught.value
    )


def test_pages_are_followed(day: Scenario) -> None:
    paged = FakeAccount([day], page_points=1_000, page_items=2)
    result = _import(paged, day)
    _same(result, _import(FakeAccount([day]), day))
    tokens = [(op, p.get("NextToken")) for _, op, p in paged.calls if p.get("NextToken")]
    assert {op for op, _ in tokens} >= {"GetMetricData", "DescribeScalableTargets"}


def test_a_window_longer_than_one_call_is_cut(
    day: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GetMetricData returns at most 100,800 datapoints a call: with a lower limit the
    day is read in pieces, each under it, and the import is the same."""
    whole = _import(FakeAccount([day]), day)
    monkeypatch.setattr(metric_queries, "MAX_POINTS", 2_000)
    account = FakeAccount([day])
    _same(_import(account, day), whole)
    pieces = [p for _, op, p in account.calls if op == "GetMetricData"]
    assert len(pieces) >= 4
    for p in pieces:
        minutes = (p["EndTime"] - p["StartTime"]).total_seconds() / 60
        assert len(p["MetricDataQueries"]) * minutes <= 2_000
    assert pieces[0]["StartTime"] == day.start and pieces[-1]["EndTime"] == day.end


def test_a_table_that_is_not_there(quiet: Scenario) -> None:
    with pytest.raises(UserError) as caught:
        run_import(
            ImportOptions(tables=("nope",), last="1h"),
            now=quiet.end,
            live=LiveCalls(FakeAccount([quiet]).session()),
        )
    assert caught.value.code == exitcodes.USAGE
    assert str(caught.value) == "table nope not found in us-east-1: check the name and --region"


def test_without_describe_table_nothing_is_read(quiet: Scenario) -> None:
    quiet_denied = Scenario(**{**quiet.__dict__, "denied": {"dynamodb:DescribeTable"}})
    account = FakeAccount([quiet_denied])
    with pytest.raises(UserError) as caught:
        _import(account, quiet_denied)
    assert caught.value.code == exitcodes.AWS_REFUSED
    assert "may not call dynamodb:DescribeTable" in str(caught.value)
    assert {op for _, op, _ in account.calls} == {"GetCallerIdentity", "SimulatePrincipalPolicy"}


def test_a_denial_the_check_could_not_see_stops_at_the_call(quiet: Scenario) -> None:
    """The caller may not simulate policies: the check says so, and a denied GetMetricData
    is then met at the call (exit 4, the action named)."""
    denied = Scenario(
        **{**quiet.__dict__, "denied": {"iam:SimulatePrincipalPolicy", "cloudwatch:GetMetricData"}}
    )
    with pytest.raises(UserError) as caught:
        _import(FakeAccount([denied]), denied)
    assert caught.value.code == exitcodes.AWS_REFUSED
    assert "may not call cloudwatch:GetMetricData" in str(caught.value)


def test_reports_that_may_not_be_read_are_one_line_each(day: Scenario) -> None:
    denied = Scenario(
        **{
            **day.__dict__,
            "denied": {"iam:SimulatePrincipalPolicy", "cloudwatch:GetInsightRuleReport"},
        }
    )
    result = _import(FakeAccount([denied]), denied)
    lines = [m.line() for m in (*result.missing, *result.tables[0].missing)]
    assert lines[0].startswith("permissions: not checked first (iam:SimulatePrincipalPolicy on ")
    assert lines[0].endswith(
        "answered AccessDeniedException); assumes each call that is denied is said below as "
        "it happens"
    )
    report_lines = [line for line in lines if "GetInsightRuleReport" in line]
    assert len(report_lines) == 6  # two rules on the table and on each GSI
    assert report_lines[0] == (
        "orders: may not call cloudwatch:GetInsightRuleReport, so no report of rule "
        "DynamoDBContributorInsights-PKC-orders-1764460800000; assumes no hot keys: each key "
        "attribute uniform"
    )
    assert all(k.fit is None for k in result.tables[0].keys)
    assert result.tables[0].operations  # the traffic is still read


def test_no_credentials_is_one_line_with_the_fix(no_aws_credentials: None) -> None:
    with pytest.raises(UserError) as caught:
        run_import(ImportOptions(tables=("orders",), region="us-east-1"))
    assert caught.value.code == exitcodes.USAGE
    assert str(caught.value).startswith("no AWS credentials found: set AWS_PROFILE")
    assert "--from-saved DIR" in str(caught.value)


def _saved_text(folder: Path) -> str:
    return "".join(p.read_text() for p in folder.rglob("*.json"))


def test_anonymized_keys_are_stable_for_a_salt_and_never_saved(
    day: Scenario, tmp_path: Path
) -> None:
    a = _import(FakeAccount([day]), day, anonymize=True, salt="team-salt", save=tmp_path / "a")
    b = _import(FakeAccount([day]), day, anonymize=True, salt="team-salt")
    c = _import(FakeAccount([day]), day, anonymize=True, salt="other")
    key = lambda r: r.tables[0].keys[0].hot[0]  # noqa: E731
    assert key(a).keys == key(b).keys != key(c).keys
    assert key(a).keys[0].startswith("anon-") and len(key(a).keys[0]) == 21
    assert key(a).share == pytest.approx(scenarios.HOT_SHARE)
    assert a.anonymized == "HMAC-SHA256 keyed with the salt given"
    saved = _saved_text(tmp_path / "a")
    assert scenarios.HOT_CUSTOMER not in saved and "SKU-00001" not in saved
    assert '"anonymized": "HMAC-SHA256 keyed with the salt given"' in saved
    replayed = run_import(ImportOptions(from_saved=tmp_path / "a"))
    assert key(replayed).keys == key(a).keys


def test_a_saved_snapshot_can_be_anonymized_afterwards(day: Scenario, tmp_path: Path) -> None:
    _import(FakeAccount([day]), day, save=tmp_path / "raw")
    assert scenarios.HOT_CUSTOMER in _saved_text(tmp_path / "raw")
    shared = run_import(
        ImportOptions(from_saved=tmp_path / "raw", anonymize=True, save=tmp_path / "shared")
    )
    assert scenarios.HOT_CUSTOMER not in _saved_text(tmp_path / "shared")
    assert shared.tables[0].keys[0].hot[0].keys[0].startswith("anon-")
    assert "a random salt kept nowhere" in (shared.anonymized or "")


def test_a_partial_snapshot_is_still_written(quiet: Scenario, tmp_path: Path) -> None:
    account = FakeAccount([quiet], throttle_first={"GetMetricData": 100})
    with pytest.raises(UserError):
        _import(
            account, quiet, ThrottleBackoff(attempts=2, sleep=lambda _s: None), save=tmp_path / "p"
        )
    manifest = (tmp_path / "p" / "manifest.json").read_text()
    assert '"complete": false' in manifest
    assert '"ThrottlingException"' in _saved_text(tmp_path / "p")
