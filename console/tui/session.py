"""What the console knows at a moment: the run, the latest reports, the watched samples.

No arithmetic lives here beyond keeping what the workflow sent, in the order it came, so
the screens can draw it; the app fills it from its workers on the UI thread.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from console.workflow import (
    CostTally,
    DownReport,
    IndexSample,
    PlanReport,
    RunState,
    WatchFrame,
    WorkerStatus,
)
from loadgen.format.playbook import Playbook
from loadgen.results.records import PlaybookResult

if TYPE_CHECKING:
    from loadgen.analysis.optimize import OptimizeReport

GO_LINE = re.compile(r"GO: .*T0 in (\d+(?:\.\d+)?) s")
"""The coordinator's start line (loadgen.live.coordinator): `GO: 2 of 2 workers, T0 in
2.0 s`."""

SeriesKey = tuple[str, str, str | None]
"""(source, table variant, index or None)."""


@dataclass
class Watched:
    """Every sample `watch` yielded for one table run (`variant#repeat`)."""

    label: str
    series: dict[SeriesKey, list[IndexSample]] = field(default_factory=lambda: defaultdict(list))
    workers: WorkerStatus | None = None
    first_at: datetime | None = None
    last_at: datetime | None = None
    go_at: datetime | None = None
    """T0: the start of the first second the workers reported (None before GO)."""

    def samples(self, source: str, table: str, index: str | None = None) -> list[IndexSample]:
        return self.series.get((source, table, index), [])

    def totals(self, source: str, table: str, index: str | None = None) -> dict[str, float]:
        """Sums over the samples so far (what the run screen shows while it runs)."""
        out: dict[str, float] = defaultdict(float)
        for s in self.samples(source, table, index):
            out["accepted"] += s.accepted
            out["throttled"] += s.throttled
            for reason, n in s.throttled_by_reason.items():
                out[reason] += n
        return out


@dataclass
class Session:
    """The console's memory of one run; the run's state.json stays the truth."""

    playbook_path: Path | None = None
    playbook: Playbook | None = None
    run_id: str | None = None
    state: RunState | None = None
    plan: PlanReport | None = None
    advice: list[str] | None = None
    hot_keys: dict[str, list[str]] = field(default_factory=dict)
    preview: PlaybookResult | None = None
    result: PlaybookResult | None = None
    tally: CostTally | None = None
    down: DownReport | None = None
    watched: dict[str, Watched] = field(default_factory=dict)
    """Per table run label, in the order runs started."""
    current_label: str | None = None
    watch_note: str | None = None
    watch_finished: bool = False
    partitions: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    insights: dict[str, list[dict[str, Any]] | None] = field(default_factory=dict)
    """AWS: per table variant, its Contributor Insights rules and top contributors."""
    busy: str | None = None
    """The step running now (one at a time), or None."""
    waiting_for: str | None = None
    """What was asked of the running step (cancel, then destroy), shown until it ends."""
    progress: tuple[str, float | None] | None = None
    log: list[str] = field(default_factory=list)
    go_t0: datetime | None = None
    """When the last `GO: ... T0 in 2.0 s` line said the load would start: once it has,
    the line is no longer true and the step line says the load runs instead."""
    error: str | None = None
    exported: list[Path] = field(default_factory=list)
    optimized: OptimizeReport | None = None
    """The last `optimize` search of this playbook (the optimize screen)."""
    optimizing: str | None = None
    """Its progress while it runs."""

    @property
    def billable_up(self) -> bool:
        return self.state is not None and self.state.billable_up

    def add_frame(self, frame: WatchFrame) -> None:
        """Append a frame's samples under their run label (or the current one)."""
        if frame.note:
            self.watch_note = frame.note
        if frame.finished:
            self.watch_finished = True
        if frame.run_label:
            self.current_label = frame.run_label
            current = self.watched.setdefault(frame.run_label, Watched(frame.run_label))
            if frame.workers is not None:
                current.workers = frame.workers
        for sample in frame.samples:
            # A table run's last seconds can come after the next run began: a sample
            # belongs to the latest run of its own table.
            watched = self.latest_for(sample.table)
            if watched is None:
                continue  # traffic before the table's first run (seeding)
            watched.series[(sample.source, sample.table, sample.index)].append(sample)
            watched.first_at = min(watched.first_at or sample.start, sample.start)
            watched.last_at = max(watched.last_at or sample.start, sample.start)
            if sample.source == "workers":
                watched.go_at = min(watched.go_at or sample.start, sample.start)

    def latest_for(self, variant: str) -> Watched | None:
        """The last table run of a variant that the stream has named."""
        found = [w for label, w in self.watched.items() if label.split("#")[0] == variant]
        return found[-1] if found else None

    def say(self, line: str) -> None:
        self.log.append(line)
        del self.log[:-200]
        announced = GO_LINE.match(line)
        if announced:
            self.go_t0 = utc_now() + timedelta(seconds=float(announced.group(1)))

    def step_line(self, now: datetime | None = None) -> str | None:
        """What the running step last said, as it stands now: a GO line whose T0 has
        passed says the load runs since T0 (left as it was, it told the whole run that
        T0 was 2 s away)."""
        if not self.log:
            return None
        line = self.log[-1]
        if self.go_t0 is not None and GO_LINE.match(line) and (now or utc_now()) >= self.go_t0:
            label = self.current_label or "the table run"
            return f"{label}: the load runs since T0 {self.go_t0:%H:%M:%S}"
        return line


def utc_now() -> datetime:
    return datetime.now(UTC)
