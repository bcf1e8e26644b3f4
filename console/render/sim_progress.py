"""The progress line of a long simulation, on stderr: simulated time, rate, time left."""

from __future__ import annotations

import time
from typing import TextIO

from loadgen.simulation.progress import SimProgress, clock

SHOW_AFTER_S = 2.0
"""A simulation that ends sooner shows no progress: it would only flicker."""
TTY_EVERY_S = 0.25
PLAIN_EVERY_S = 10.0
"""Without a terminal (`--progress` into a log), a line this often, not a redrawn one."""


def progress_text(p: SimProgress, elapsed_s: float) -> str:
    """`simulating orders #1 h14: 14:02:10 of 24:00:00 (58 %), 31.2 M requests/s,
    1,850x real time, 0:24 left`."""
    share = p.simulated_s / p.total_s if p.total_s else 1.0
    rate = p.requests / elapsed_s if elapsed_s > 0 else 0.0
    speed = p.simulated_s / elapsed_s if elapsed_s > 0 else 0.0
    left = elapsed_s * (p.total_s - p.simulated_s) / p.simulated_s if p.simulated_s else 0.0
    shown = f"{rate / 1e6:,.1f} M" if rate >= 1e6 else f"{rate:,.0f}"
    return (
        f"simulating {p.label}: {clock(p.simulated_s)} of {clock(p.total_s)} "
        f"({share:.0%}), {shown} requests/s, {speed:,.0f}x real time, {clock(left)} left"
    )


class ProgressLine:
    """Reports `SimProgress` on a stream: redrawn in place on a terminal, or (`always`,
    for `--progress` into a file or pipe) one line every PLAIN_EVERY_S. Nothing in the
    first SHOW_AFTER_S, and nothing at all without a terminal unless `always`."""

    def __init__(self, stream: TextIO, always: bool = False) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.enabled = self.tty or always
        self.started = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, p: SimProgress) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        elapsed = now - self.started
        if elapsed < SHOW_AFTER_S or now - self.last < (TTY_EVERY_S if self.tty else PLAIN_EVERY_S):
            return
        self.last = now
        text = progress_text(p, elapsed)
        if self.tty:
            self.stream.write("\r" + text + "\033[K")
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.shown = True

    def say(self, text: str) -> None:
        """A message between progress lines (the line is cleared first)."""
        self.clear()
        self.stream.write(text + "\n")
        self.stream.flush()

    def clear(self) -> None:
        """Remove the redrawn line (before the results print)."""
        if self.tty and self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False
