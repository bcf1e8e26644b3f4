"""A mergeable latency histogram: log buckets of two significant digits.

Workers never send averages or percentiles to the coordinator, because percentiles of
percentiles are meaningless (the "averages of averages" complaint about peer tools).
Each worker counts its latencies into buckets whose bounds are fixed numbers (two
significant digits of the latency in microseconds: 4.5 ms, 4.6 ms, ..., 10 ms, 11 ms),
so the buckets of any number of workers line up and merge by adding counts. Percentiles
are then read from the merged buckets with a relative error of at most ~10 % (one bucket
width), and the maximum is kept exactly.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any


def bucket_of(micros: int) -> int:
    """Lower bound (in microseconds) of the bucket holding `micros`: its first two
    significant digits, e.g. 4,567 -> 4,500 and 99 -> 99 (below 100 us buckets are 1 us)."""
    if micros < 100:
        return max(0, micros)
    step = 10 ** (len(str(micros)) - 2)
    return micros // step * step


def bucket_width(lower: int) -> int:
    """Width of the bucket starting at `lower` (the unit of its second digit)."""
    if lower < 100:
        return 1
    return 10 ** (len(str(lower)) - 2)


class LatencyHistogram:
    """Counts of latencies per bucket, plus the exact maximum."""

    __slots__ = ("buckets", "max_us")

    def __init__(self) -> None:
        self.buckets: Counter[int] = Counter()
        self.max_us = 0

    def record(self, seconds: float) -> None:
        """Count one latency given in seconds."""
        micros = int(seconds * 1_000_000)
        self.buckets[bucket_of(micros)] += 1
        if micros > self.max_us:
            self.max_us = micros

    @property
    def count(self) -> int:
        return sum(self.buckets.values())

    def merge(self, other: LatencyHistogram) -> None:
        """Add another histogram's counts (the only correct way to combine workers)."""
        self.buckets.update(other.buckets)
        self.max_us = max(self.max_us, other.max_us)

    def percentile(self, q: float) -> float | None:
        """The q-th percentile (0-100) in milliseconds: the midpoint of the bucket that
        holds the q-th observation, capped at the exact maximum; None when empty."""
        total = self.count
        if total == 0:
            return None
        rank = max(1, math.ceil(q / 100.0 * total))
        seen = 0
        for lower in sorted(self.buckets):
            seen += self.buckets[lower]
            if seen >= rank:
                mid = lower + bucket_width(lower) / 2.0
                return min(mid, float(self.max_us)) / 1000.0
        return self.max_us / 1000.0

    def to_json(self) -> dict[str, Any]:
        """The `latency_ms` block: the number of requests timed (real, not full-scale
        units), percentiles in ms and the raw buckets (keys: bucket lower bounds in
        microseconds, as strings because JSON keys are strings)."""

        def rounded(v: float | None) -> float | None:
            return None if v is None else round(v, 3)

        # Named for what it counts: the requests actually timed, at the run's real rate.
        # Beside a full-scale `sent` (scale 0.1: sent 7,500, 750 timed) a bare `count`
        # read as the same unit and as lost requests.
        return {
            "timed_requests": self.count,
            "p50": rounded(self.percentile(50)),
            "p90": rounded(self.percentile(90)),
            "p99": rounded(self.percentile(99)),
            "max": rounded(self.max_us / 1000.0) if self.count else None,
            "histogram_unit": "us",
            "histogram": {str(k): v for k, v in sorted(self.buckets.items())},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> LatencyHistogram:
        out = cls()
        if not data:
            return out
        out.buckets = Counter({int(k): int(v) for k, v in data.get("histogram", {}).items()})
        top = data.get("max")
        out.max_us = round(float(top) * 1000) if top is not None else 0
        return out
