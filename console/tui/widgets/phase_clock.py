"""Where the run is in time: the T0 countdown, the phase's elapsed and remaining time,
the pause before the next repeat."""

from __future__ import annotations

from datetime import datetime

from textual.widgets import Static

from loadgen.format.playbook import Phase


class PhaseClock(Static):
    def __init__(self, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.text = ""

    def show(
        self,
        label: str | None,
        t0: datetime | None,
        phases: list[Phase],
        now: datetime,
        pause_until: datetime | None = None,
        next_label: str | None = None,
        waiting: str = "",
    ) -> None:
        self.text = self._words(label, t0, phases, now, pause_until, next_label, waiting)
        self.update(self.text)

    @staticmethod
    def _words(
        label: str | None,
        t0: datetime | None,
        phases: list[Phase],
        now: datetime,
        pause_until: datetime | None,
        next_label: str | None,
        waiting: str,
    ) -> str:
        if pause_until is not None and now < pause_until:
            left = (pause_until - now).total_seconds()
            return f"pause: {next_label or 'next'} in {left:,.0f} s"
        if label is None:
            return "waiting for the run"
        if t0 is None:
            return f"{label}: waiting for T0\n{waiting}"
        elapsed = (now - t0).total_seconds()
        if elapsed < 0:
            return f"{label}: T0 in {-elapsed:,.0f} s"
        start = 0.0
        for phase in phases:
            if elapsed < start + phase.duration_s:
                done = elapsed - start
                left = phase.duration_s - done
                return (
                    f"{label} T+{elapsed:,.0f} s\n{phase.name}: "
                    f"{done:,.0f} / {phase.duration_s:,.0f} s, {left:,.0f} s left"
                )
            start += phase.duration_s
        return f"{label} T+{elapsed:,.0f} s\nphases done ({start:,.0f} s)"
