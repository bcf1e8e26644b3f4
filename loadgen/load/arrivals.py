"""The arrival process: when each request of a phase is due (open loop).

A phase's rate over time is piecewise linear; request k is due when the integral of the
rate first reaches k. The simulation counts due requests per tick from the same integral
that the live worker inverts to get its send times, so both offer the same load. Worker
w of W takes requests k = w, w + W, w + 2W, ...: the fleet's union is the schedule.
"""

from __future__ import annotations

import math
from bisect import bisect_right

from loadgen.format.kinds import RateSegment, whole_arrivals
from loadgen.format.playbook import Phase

Segment = RateSegment
"""A piece of the rate curve (the arrival forms' own type, loadgen.format.kinds.families)."""


class Schedule:
    """The cumulative request count of one phase and its inverse.

    Segments are found by bisection (a per-minute curve of a day has 1,440; the
    simulation asks for the count every tick and the live worker for every request's
    time); the arithmetic within a segment is the same for every arrival form."""

    def __init__(self, segments: list[Segment]) -> None:
        self.segments = segments
        self.duration = segments[-1].t1 if segments else 0.0
        self._cum: list[float] = []
        self._ends: list[float] = []
        self._t1s = [seg.t1 for seg in segments]
        total = 0.0
        for seg in segments:
            self._cum.append(total)
            self._ends.append(total + seg.area)
            total += seg.area
        self.total_area = total
        self.total = whole_arrivals(total)

    @classmethod
    def for_phase(cls, phase: Phase, scale: float = 1.0) -> Schedule:
        """The schedule of a phase of open arrivals (its kind's rate curve, at `scale`)."""
        return cls(phase.kind.rate_segments(phase.duration_s, scale))

    def rate_at(self, t: float) -> float:
        i = bisect_right(self._t1s, t)  # the first segment ending after t
        if i < len(self.segments):
            seg = self.segments[i]
            if seg.t0 <= t:
                frac = (t - seg.t0) / (seg.t1 - seg.t0)
                return seg.r0 + (seg.r1 - seg.r0) * frac
        return 0.0

    def area_until(self, t: float) -> float:
        """Integral of the rate from 0 to t."""
        if t <= 0:
            return 0.0
        i = bisect_right(self._t1s, t)
        if i < len(self.segments):
            seg = self.segments[i]
            dt = t - seg.t0
            slope = (seg.r1 - seg.r0) / (seg.t1 - seg.t0)
            return self._cum[i] + seg.r0 * dt + slope * dt * dt / 2.0
        return self.total_area

    def due_by(self, t: float) -> int:
        """Requests due strictly before t (request k is due at `send_time(k)`)."""
        if t <= 0:
            return 0
        return min(self.total, math.ceil(self.area_until(t) - 1e-9))

    def send_time(self, k: int) -> float:
        """When request k (0-based) is due: the first t where the integral reaches k."""
        target = float(k)
        if not self.segments:
            return self.duration
        # the first segment whose cumulative end passes k, else the last
        i = min(bisect_right(self._ends, target), len(self.segments) - 1)
        seg = self.segments[i]
        rest = target - self._cum[i]
        slope = (seg.r1 - seg.r0) / (seg.t1 - seg.t0)
        if abs(slope) < 1e-12:
            return seg.t0 + (rest / seg.r0 if seg.r0 > 0 else 0.0)
        # r0*dt + slope*dt^2/2 = rest
        disc = seg.r0 * seg.r0 + 2.0 * slope * rest
        return seg.t0 + (-seg.r0 + math.sqrt(max(0.0, disc))) / slope

    def worker_share(self, worker: int, workers: int) -> range:
        """The requests this worker sends: worker, worker+W, ... (interleaved, so every
        worker's share follows the same rate curve)."""
        return range(worker, self.total, workers)

    def worker_times(self, worker: int, workers: int) -> list[float]:
        """Send times of this worker's share."""
        return [self.send_time(k) for k in self.worker_share(worker, workers)]
