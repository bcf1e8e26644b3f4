"""The import's window: ISO 8601 with offsets to aware UTC, --last, CloudWatch's
retention deciding the period, and the cuts that keep each GetMetricData call under
its datapoint limit."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from console.importer.import_result import TimeWindow
from console.importer.time_window import WindowError, chunks, parse_instant, resolve

NOW = datetime(2026, 11, 30, 12, 0, 30, tzinfo=UTC)


def test_offsets_are_read_and_turned_to_utc() -> None:
    assert parse_instant("2026-11-30T09:00:00+01:00", "--from") == datetime(
        2026, 11, 30, 8, tzinfo=UTC
    )
    assert parse_instant("2026-11-30T08:00:00Z", "--from") == datetime(2026, 11, 30, 8, tzinfo=UTC)
    assert parse_instant("2026-11-29T23:30:00-08:30", "--to").tzinfo is UTC


def test_a_time_without_an_offset_is_refused_with_the_fix() -> None:
    with pytest.raises(WindowError, match=r"no UTC offset: add Z .* 2026-11-30T08:00:00Z"):
        parse_instant("2026-11-30T08:00:00", "--from")
    with pytest.raises(WindowError, match="not an ISO 8601 time"):
        parse_instant("yesterday", "--from")


def test_the_default_is_the_last_day_up_to_the_last_published_minute() -> None:
    window, notes = resolve(NOW)
    assert window.end == datetime(2026, 11, 30, 11, 58, tzinfo=UTC)
    assert window.end - window.start == timedelta(days=1)
    assert window.period_s == 60 and window.periods == 1440
    assert notes == []


def test_last_takes_minutes_hours_days() -> None:
    assert resolve(NOW, last="90m")[0].periods == 90
    assert resolve(NOW, last="6h")[0].periods == 360
    with pytest.raises(WindowError, match=r"e\.g\. 90m, 24h or 2d"):
        resolve(NOW, last="a while")
    with pytest.raises(WindowError, match="either --last or --from"):
        resolve(NOW, last="1h", start="2026-11-30T00:00:00Z")


def test_a_window_in_the_future_ends_at_the_newest_minute_and_says_so() -> None:
    window, notes = resolve(NOW, start="2026-11-30T10:00:00Z", end="2026-11-30T13:00:00Z")
    assert window.end == datetime(2026, 11, 30, 11, 58, tzinfo=UTC)
    assert [n.subject for n in notes] == ["window"]
    assert "newest published minute" in notes[0].missing


def test_an_old_window_gets_the_period_cloudwatch_still_keeps() -> None:
    window, notes = resolve(NOW, start="2026-11-01T00:02:00Z", end="2026-11-02T00:00:00Z")
    assert window.period_s == 300
    assert window.start == datetime(2026, 11, 1, tzinfo=UTC)  # rounded down to 5 minutes
    assert "per 5 minutes" in notes[0].missing
    assert (
        resolve(NOW, start="2026-06-01T00:00:00Z", end="2026-06-02T00:00:00Z")[0].period_s == 3600
    )
    with pytest.raises(WindowError, match="455 days"):
        resolve(NOW, start="2024-01-01T00:00:00Z", end="2024-01-02T00:00:00Z")


def test_empty_and_overlong_windows_are_refused() -> None:
    with pytest.raises(WindowError, match="no whole 1-minute period"):
        resolve(NOW, start="2026-11-30T10:00:10Z", end="2026-11-30T10:00:50Z")
    with pytest.raises(WindowError, match="at most 15 days"):
        resolve(NOW, last="20d")


def test_the_window_is_the_same_instant_whatever_the_offset_it_is_given_in() -> None:
    a, _ = resolve(NOW, start="2026-11-30T00:00:00Z", end="2026-11-30T06:00:00Z")
    b, _ = resolve(
        NOW,
        start=datetime(
            2026, 11, 30, 5, 30, tzinfo=timezone(timedelta(hours=5, minutes=30))
        ).isoformat(),
        end="2026-11-29T22:00:00-08:00",
    )
    assert (a.start, a.end) == (b.start, b.end)


@given(
    periods=st.integers(min_value=1, max_value=21_600),
    queries=st.integers(min_value=1, max_value=500),
)
def test_chunks_cover_the_window_and_keep_each_call_under_the_limit(
    periods: int, queries: int
) -> None:
    start = datetime(2026, 11, 20, tzinfo=UTC)
    window = TimeWindow(start, start + timedelta(minutes=periods))
    pieces = chunks(window, queries, 100_800)
    assert pieces[0][0] == window.start and pieces[-1][1] == window.end
    for (_, end), (begin, _) in itertools.pairwise(pieces):
        assert end == begin
    for begin, end in pieces:
        assert queries * int((end - begin).total_seconds() // 60) <= 100_800
