"""Where a simulation is: what the engines report while they run, for a progress line."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SimProgress:
    """One report: the phase running, and the whole playbook's simulated time."""

    label: str
    """The table run and phase, e.g. `orders #1 peak`."""
    fraction: float
    """Of the current phase."""
    simulated_s: float
    """Simulated seconds done, the whole playbook (pauses between repeats included)."""
    total_s: float
    """Simulated seconds the playbook holds."""
    requests: int
    """Requests simulated so far."""


Progress = Callable[[SimProgress], None]


class ProgressClock:
    """Turns the engines' phase-relative reports into playbook-wide ones."""

    def __init__(self, total_s: float, report: Progress | None) -> None:
        self.total_s = total_s
        self.report = report
        self.done_s = 0.0
        """Simulated seconds of the phases and pauses finished."""
        self.requests = 0
        """Requests of the phases finished."""

    def at(self, label: str, phase_t: float, duration_s: float, requests: int) -> None:
        """A phase `phase_t` seconds in, with `requests` of its requests simulated."""
        if self.report is not None:
            self.report(
                SimProgress(
                    label,
                    phase_t / duration_s if duration_s else 1.0,
                    self.done_s + phase_t,
                    self.total_s,
                    self.requests + requests,
                )
            )

    def passed(self, seconds: float, requests: int = 0) -> None:
        """A phase or pause finished."""
        self.done_s += seconds
        self.requests += requests


def clock(seconds: float) -> str:
    """12:03:07, or 3:07 under an hour."""
    whole = int(max(0.0, seconds))
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
