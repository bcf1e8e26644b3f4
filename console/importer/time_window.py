"""The window an import reads: `--last 24h` or `--from T --to T`, in aware UTC, cut to
whole periods, and the period CloudWatch still keeps for it.

CloudWatch keeps one-minute datapoints 15 days, five-minute ones 63 days and hourly ones
455 days, and rounds a start time older than 15 days down to 5 minutes, older than 63
days down to the hour (GetMetricData, StartTime:
https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_GetMetricData.html).
A minute is published about a minute after it ends, so the window ends at the last
whole minute at least two minutes ago.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta

from console.importer.import_result import MissingData, TimeWindow

RETENTION = ((timedelta(days=15), 60), (timedelta(days=63), 300), (timedelta(days=455), 3600))
"""(age of the window's start, the finest period kept for it)."""
PUBLISH_DELAY = timedelta(minutes=2)
MAX_WINDOW = timedelta(days=15)
"""At most 15 days per import: a longer window of one-minute data does not exist, and
a day's curve is what a playbook replays."""

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(m|min|h|d)\s*$")


class WindowError(ValueError):
    """A window the user gave that cannot be read; the message says the fix."""


def parse_duration(text: str) -> timedelta:
    """`90m`, `24h`, `2d` as a timedelta."""
    found = _DURATION.match(text)
    if found is None:
        raise WindowError(f"--last {text!r}: give minutes, hours or days, e.g. 90m, 24h or 2d")
    amount, unit = float(found.group(1)), found.group(2)
    minutes = {"m": 1, "min": 1, "h": 60, "d": 1440}[unit]
    if amount <= 0:
        raise WindowError(f"--last {text!r}: the window must be longer than zero")
    return timedelta(minutes=amount * minutes)


def parse_instant(text: str, flag: str) -> datetime:
    """ISO 8601 with a UTC offset (`2026-11-30T00:00:00Z`, `...+01:00`) as aware UTC.
    A time without an offset is refused: a laptop's zone is not the account's."""
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise WindowError(
            f"{flag} {text!r} is not an ISO 8601 time: write e.g. 2026-11-30T08:00:00Z "
            "or 2026-11-30T09:00:00+01:00"
        ) from None
    if value.tzinfo is None or value.utcoffset() is None:
        raise WindowError(
            f"{flag} {text!r} has no UTC offset: add Z for UTC or the offset, e.g. "
            f"{text.strip()}Z or {text.strip()}+01:00"
        )
    return value.astimezone(UTC)


def finest_period(start: datetime, now: datetime) -> int:
    age = now - start
    for limit, period in RETENTION:
        if age <= limit:
            return period
    raise WindowError(
        f"the window starts {age.days} days ago: CloudWatch keeps DynamoDB's metrics "
        "455 days at most; choose a later window"
    )


def _floor(moment: datetime, period_s: int) -> datetime:
    epoch = int(moment.timestamp())
    return datetime.fromtimestamp(epoch - epoch % period_s, UTC)


def resolve(
    now: datetime,
    last: str | None = None,
    start: str | None = None,
    end: str | None = None,
) -> tuple[TimeWindow, list[MissingData]]:
    """The window of the options (default: the last 24 hours), and what its
    resolution costs, as notes."""
    now = now.astimezone(UTC)
    newest = _floor(now - PUBLISH_DELAY, 60)
    if last is not None and (start is not None or end is not None):
        raise WindowError("give either --last or --from/--to, not both")
    if start is None and end is not None:
        raise WindowError("--to needs --from (or use --last)")
    if start is not None:
        begin = parse_instant(start, "--from")
        finish = parse_instant(end, "--to") if end is not None else newest
    else:
        finish = newest
        begin = finish - parse_duration(last or "24h")
    notes: list[MissingData] = []
    if finish > newest:
        notes.append(
            MissingData(
                "window",
                f"--to is later than the newest published minute ({newest:%Y-%m-%d %H:%M} UTC)",
                "the window ends there",
            )
        )
        finish = newest
    if finish - begin > MAX_WINDOW:
        raise WindowError(
            f"the window is {(finish - begin).days} days long: at most 15 days per import "
            "(import one day at a time)"
        )
    period = finest_period(begin, now)
    begin, finish = _floor(begin, period), _floor(finish, period)
    if finish <= begin:
        raise WindowError(
            f"the window {begin:%Y-%m-%d %H:%M} to {finish:%Y-%m-%d %H:%M} UTC holds no "
            f"whole {period // 60}-minute period: choose a later --to or an earlier --from"
        )
    if period > 60:
        notes.append(
            MissingData(
                "window",
                f"CloudWatch keeps one-minute data 15 days; this window starts "
                f"{(now - begin).days} days ago, so its series are per {period // 60} minutes",
                f"the rate constant within each {period // 60} minutes",
            )
        )
    return TimeWindow(begin, finish, period), notes


def chunks(window: TimeWindow, queries: int, max_points: int) -> list[tuple[datetime, datetime]]:
    """[start, end) pieces of the window such that `queries` series over one piece
    return at most `max_points` datapoints (GetMetricData's limit per call)."""
    per_chunk = max(1, max_points // max(1, queries))
    count = math.ceil(window.periods / per_chunk)
    out = []
    for i in range(count):
        first = window.period_start(i * per_chunk)
        last = min(window.end, window.period_start((i + 1) * per_chunk))
        out.append((first, last))
    return out
