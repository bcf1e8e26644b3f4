"""A mix's or scenario's iterations on the run screen: their rate and failures by reason.

An open-loop phase of one operation is judged by its requests (the throttle rate beside
it); a closed loop is judged by what its users got done, whose rate falls when a
bottleneck migrates (issue 26), so the line shows iterations per second over the last
ten watched seconds and every failure so far by reason. Hidden for a run without
iterations, so the screen of today's playbooks does not change.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rich.text import Text
from textual.widgets import Static

from console.run.samples import IndexSample

RECENT_S = 10
"""Watched seconds the live rate is averaged over."""


def iteration_text(samples: list[IndexSample], final: dict[str, Any] | None) -> Text | None:
    """The line's text: the run's result once it finished, the samples while it runs;
    None when there are no iterations to show."""
    if final is not None and "iterations" in final:
        it = final["iterations"]
        return _line(it["iterations_per_s"], it["ok"], Counter(it["failed_by_reason"]), True)
    counted = [s for s in samples if s.iterations_ok is not None]
    if not counted:
        return None
    recent = counted[-RECENT_S:]
    rate = sum(s.iterations_ok or 0.0 for s in recent) / len(recent)
    failed: Counter[str] = Counter()
    for s in counted:
        failed.update(s.iterations_failed_by_reason)
    return _line(rate, sum(s.iterations_ok or 0.0 for s in counted), failed, False)


def _line(rate: float, ok: float, failed: Counter[str], final: bool) -> Text:
    text = Text("iterations ")
    text.append(f"{rate:,.1f}/s", style="bold")
    text.append(" result" if final else f" last {RECENT_S} s", style="dim")
    text.append(f"  ok {ok:,.0f}")
    total = sum(failed.values())
    text.append(f"  failed {total:,.0f}", style="bold red" if total else "green")
    if total:
        reasons = ", ".join(f"{k} {v:,.0f}" for k, v in failed.most_common())
        text.append(f": {reasons}", style="red")
    return text


class IterationRate(Static):
    """One line under the chart; hidden when the run has no iterations."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.display = False

    def show(self, samples: list[IndexSample], final: dict[str, Any] | None) -> None:
        text = iteration_text(samples, final)
        self.display = text is not None
        if text is not None:
            self.update(text)
