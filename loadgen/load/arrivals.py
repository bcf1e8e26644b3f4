"""The arrival process: when each request of a phase is due (open loop).

A phase's rate over time is piecewise linear; request k is due when the integral of the
rate first reaches k. The simulation counts due requests per tick from the same integral
that the live worker inverts to get its send times, so both offer the same load. Worker
w of W takes requests k = w, w + W, w + 2W, ...: the fleet's union is the schedule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from loadgen.format.playbook import Phase


@dataclass(frozen=True)
class Segment:
    """Rate moving linearly from r0 to r1 between t0 and t1 (phase-relative seconds)."""

    t0: float
    t1: float
    r0: float
    r1: float

    @property
    def area(self) -> float:
        return (self.r0 + self.r1) * (self.t1 - self.t0) / 2.0


class Schedule:
    """The cumulative request count of one phase and its inverse."""

    def __init__(self, segments: list[Segment]) -> None:
        self.segments = segments
        self.duration = segments[-1].t1 if segments else 0.0
        self._cum: list[float] = []
        total = 0.0
        for seg in segments:
            self._cum.append(total)
            total += seg.area
        self.total_area = total
        self.total = math.floor(total + 1e-9)

    @classmethod
    def for_phase(cls, phase: Phase, scale: float = 1.0) -> Schedule:
        d = phase.duration_s
        if phase.rate is not None:
            r = phase.rate * scale
            return cls([Segment(0.0, d, r, r)])
        ramp = phase.ramp
        assert ramp is not None
        a, b = ramp.start * scale, ramp.end * scale
        if ramp.steps is None:
            return cls([Segment(0.0, d, a, b)])
        n = ramp.steps
        width = d / n
        rates = [a + (b - a) * i / (n - 1) for i in range(n)] if n > 1 else [a]
        return cls([Segment(i * width, (i + 1) * width, r, r) for i, r in enumerate(rates)])

    def rate_at(self, t: float) -> float:
        for seg in self.segments:
            if seg.t0 <= t < seg.t1:
                frac = (t - seg.t0) / (seg.t1 - seg.t0)
                return seg.r0 + (seg.r1 - seg.r0) * frac
        return 0.0

    def area_until(self, t: float) -> float:
        """Integral of the rate from 0 to t."""
        if t <= 0:
            return 0.0
        for i, seg in enumerate(self.segments):
            if t < seg.t1:
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
        for i, seg in enumerate(self.segments):
            end = self._cum[i] + seg.area
            if target < end or i == len(self.segments) - 1:
                rest = target - self._cum[i]
                slope = (seg.r1 - seg.r0) / (seg.t1 - seg.t0)
                if abs(slope) < 1e-12:
                    return seg.t0 + (rest / seg.r0 if seg.r0 > 0 else 0.0)
                # r0*dt + slope*dt^2/2 = rest
                disc = seg.r0 * seg.r0 + 2.0 * slope * rest
                return seg.t0 + (-seg.r0 + math.sqrt(max(0.0, disc))) / slope
        return self.duration

    def worker_share(self, worker: int, workers: int) -> range:
        """The requests this worker sends: worker, worker+W, ... (interleaved, so every
        worker's share follows the same rate curve)."""
        return range(worker, self.total, workers)

    def worker_times(self, worker: int, workers: int) -> list[float]:
        """Send times of this worker's share."""
        return [self.send_time(k) for k in self.worker_share(worker, workers)]
