"""Arrivals that follow a recorded or drawn traffic curve, one rate per minute:
`rate: {per_minute: [1200, 1800, 4000, ...]}`, or `rate: {csv: traffic.csv}` beside the
playbook.

Minute i of the phase offers `per_minute[i]` requests (or iterations) a second, held for
the whole minute: a per-minute record (CloudWatch's 1-minute sums divided by 60) is
replayed with each minute's count exact, which a line through the points would not
keep. The phase lasts as many minutes as the curve has values (`duration_s` may be left
out; given, it must agree). Like every open arrival form it is a rate over time
(`segments`), so the simulation and the live runner run it as they run a constant rate
or a ramp: one request per arrival for one operation, or an iteration per arrival for a
mix or a scenario.

The API others build on (`hotbench import` writes curves; an engine of open arrivals
reads them): `RateCurve` (the form: `per_minute`, `segments`), `PerMinuteRate` (the
playbook's mapping), `read_rate_csv` and `write_rate_csv` (the CSV beside a playbook).
"""

from __future__ import annotations

import contextlib
import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from loadgen.format.kinds.constant_rate import RATE_LIMIT, RateNumber
from loadgen.format.kinds.families import OpenArrivals, RateSegment

if TYPE_CHECKING:
    from loadgen.format.playbook import Phase

MINUTE_S = 60.0
MAX_MINUTES = 7 * 24 * 60
"""A week of minutes: a phase's longest duration."""

DIRECTORY = "directory"
"""The validation context's key for the playbook file's folder, where a CSV is read from
(loadgen.format.playbook.load_playbook gives it; a playbook from a run plan carries the
values, not the file)."""

RATE_COLUMNS = ("rate", "rate_per_s", "requests_per_s")
"""Header names of the rate column in a CSV; without one, the last column is the rate."""


class PerMinuteRate(BaseModel):
    """`rate: {per_minute: [...]}` or `rate: {csv: FILE}`: one rate a second per minute."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    per_minute: list[RateNumber] = Field(min_length=1, max_length=MAX_MINUTES)
    """Requests (or iterations) a second during each minute of the phase, in order."""
    csv: str | None = Field(default=None, exclude=True)
    """A CSV file of the rates, beside the playbook (read when the playbook is loaded:
    the plan a worker reads carries the values, so it is never written out)."""

    @model_validator(mode="before")
    @classmethod
    def _read_csv(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict) or data.get("csv") is None:
            return data
        if "per_minute" in data:
            raise ValueError("give per_minute or csv, not both")
        path = _csv_path(str(data["csv"]), info.context)
        return {**data, "per_minute": read_rate_csv(path)}

    @property
    def duration_s(self) -> float:
        """The phase's length: a minute per value."""
        return MINUTE_S * len(self.per_minute)


def _csv_path(name: str, context: Any) -> Path:
    path = Path(name)
    if path.is_absolute():
        return path
    directory = context.get(DIRECTORY) if isinstance(context, dict) else None
    if directory is None:
        raise ValueError(
            f"csv {name!r} is read beside the playbook file: load the playbook from its "
            "file, or give the rates as per_minute"
        )
    return Path(directory) / path


def _number(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def parse_rate_csv(text: str, name: str = "<csv>") -> list[float]:
    """The rates of a CSV's rows, one per minute: the `rate` column when the first row is
    a header naming one (`minute,rate`), else the last column; blank lines and lines
    starting with `#` are skipped. ValueError names the file, the line and the cell."""
    rows = [
        (n, row)
        for n, row in enumerate(csv.reader(io.StringIO(text)), 1)
        if row and any(c.strip() for c in row) and not row[0].lstrip().startswith("#")
    ]
    column = -1
    if rows and any(_number(c) is None for c in rows[0][1]):
        header = [c.strip().lower() for c in rows[0][1]]
        named = [i for i, h in enumerate(header) if h in RATE_COLUMNS]
        if not named and len(header) > 1:
            raise ValueError(
                f"{name} line {rows[0][0]}: a header needs a rate column "
                f"({', '.join(RATE_COLUMNS)}); found {', '.join(header)}"
            )
        column = named[0] if named else -1
        rows = rows[1:]
    rates = []
    for n, row in rows:
        cell = row[column].strip() if -len(row) <= column < len(row) else ""
        value = _number(cell)
        if value is None:
            raise ValueError(f"{name} line {n}: {cell!r} is not a rate (a number a second)")
        if not 0 <= value <= RATE_LIMIT:
            raise ValueError(f"{name} line {n}: {value:g} is not a rate from 0 to {RATE_LIMIT:,}")
        rates.append(value)
    if not rates:
        raise ValueError(f"{name} holds no rates: one row per minute, the rate a second")
    if len(rates) > MAX_MINUTES:
        raise ValueError(f"{name}: {len(rates):,} minutes is more than a week ({MAX_MINUTES:,})")
    return rates


def read_rate_csv(path: Path) -> list[float]:
    """The rates of a CSV file beside a playbook (parse_rate_csv)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"no such CSV file {str(path)!r}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read CSV {str(path)!r}: {exc}") from None
    return parse_rate_csv(text, path.name)


def write_rate_csv(path: Path, per_minute: Iterable[float]) -> None:
    """A curve as the CSV `rate: {csv: ...}` reads: a header, then `minute,rate` rows."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["minute", "rate"])
    # 12 significant digits: a recorded rate (count / 60, to three decimals) read back as
    # written (`:g` keeps six, and moved a minute of 73,484 requests by 0.2).
    writer.writerows([minute, f"{rate:.12g}"] for minute, rate in enumerate(per_minute))
    path.write_text(out.getvalue(), encoding="utf-8")


def phase_defaults(data: Any, context: Any) -> Any:
    """A curve's phase without `duration_s` lasts as long as the curve (run before the
    phase's fields are validated, so that `duration_s` is never missing)."""
    if not isinstance(data, dict) or "duration_s" in data:
        return data
    rate = data.get("rate")
    if not isinstance(rate, dict):
        return data
    # Where the curve cannot be read, its own validation says why; a stand-in duration
    # keeps a second message ("duration_s: field required") out.
    minutes = 1
    if isinstance(rate.get("per_minute"), list) and "csv" not in rate:
        minutes = max(1, len(rate["per_minute"]))
    elif rate.get("csv") is not None:
        with contextlib.suppress(ValueError):
            minutes = len(read_rate_csv(_csv_path(str(rate["csv"]), context)))
    return {**data, "duration_s": MINUTE_S * minutes}


@dataclass(frozen=True, slots=True)
class RateCurve(OpenArrivals):
    name = "per-minute curve"
    fields = ("rate",)

    per_minute: tuple[float, ...]
    source: str | None = None
    """The CSV file it was read from, if any (for the words)."""

    @classmethod
    def selected(cls, phase: Phase) -> bool:
        return isinstance(phase.rate, PerMinuteRate)

    @classmethod
    def read(cls, phase: Phase) -> RateCurve:
        rate = phase.rate
        assert isinstance(rate, PerMinuteRate)
        if abs(phase.duration_s - rate.duration_s) > 1e-9:
            minutes = len(rate.per_minute)
            raise ValueError(
                f"the per-minute rate covers {minutes:,} minute(s) ({rate.duration_s:,.0f} s) "
                f"and duration_s is {phase.duration_s:,.0f}: leave duration_s out (the curve "
                f"sets it) or give {phase.duration_s / MINUTE_S:g} minute(s) of rates"
            )
        return cls(tuple(rate.per_minute), rate.csv)

    def segments(self, duration_s: float, scale: float = 1.0) -> list[RateSegment]:
        # Minute i is [60 i, 60 (i + 1)); the curve sets the phase's duration, so the cut
        # at duration_s (and the idle tail past the curve) only matters to a phase
        # copied with another duration.
        out = []
        for i, r in enumerate(self.per_minute):
            t0 = MINUTE_S * i
            if t0 >= duration_s:
                break
            out.append(RateSegment(t0, min(t0 + MINUTE_S, duration_s), r * scale, r * scale))
        end = out[-1].t1 if out else 0.0
        if end < duration_s:
            out.append(RateSegment(end, duration_s, 0.0, 0.0))
        return out

    def peak_rate(self) -> float:
        return max(self.per_minute)

    def words(self) -> str:
        low, high = min(self.per_minute), max(self.per_minute)
        shown = f"{low:,.0f}-{high:,.0f}/s" if low != high else f"{high:,.0f}/s"
        where = f" from {self.source}" if self.source else ""
        return f"per-minute curve of {len(self.per_minute):,} minutes{where}, {shown}"


def curve_minutes(phases: Iterable[Phase]) -> int:
    """How many minutes the per-minute curves of `phases` hold, one phase after another
    (what a backtest of an imported day can cut)."""
    return sum(
        len(phase.kind.arrivals.per_minute)
        for phase in phases
        if isinstance(phase.kind.arrivals, RateCurve)
    )
