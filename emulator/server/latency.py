"""Response latency the emulator adds, so a client sees in-region timing (M2: p50 4-5 ms,
throttled or not: a refusal is as fast as a success)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

_DURATION = r"([0-9]*\.?[0-9]+)\s*(ms|s|us)?"


def _seconds(value: str, unit: str | None) -> float:
    factor = {"ms": 1e-3, "s": 1.0, "us": 1e-6, None: 1e-3}[unit]
    return float(value) * factor


@dataclass(frozen=True)
class Latency:
    """`none`, `fixed:4ms` or `normal:4ms,1ms` (mean, standard deviation; never negative)."""

    kind: str = "none"
    mean_s: float = 0.0
    sd_s: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Latency:
        text = text.strip().lower()
        if text in ("", "none", "0"):
            return cls()
        fixed = re.fullmatch(rf"fixed:{_DURATION}", text)
        if fixed:
            return cls("fixed", _seconds(fixed.group(1), fixed.group(2)))
        normal = re.fullmatch(rf"normal:{_DURATION}\s*,\s*{_DURATION}", text)
        if normal:
            return cls(
                "normal",
                _seconds(normal.group(1), normal.group(2)),
                _seconds(normal.group(3), normal.group(4)),
            )
        raise ValueError(f"latency model {text!r}: use none, fixed:4ms or normal:4ms,1ms")

    def sample(self) -> float:
        """Seconds to wait before answering one request."""
        if self.kind == "fixed":
            return self.mean_s
        if self.kind == "normal":
            return max(0.0, random.gauss(self.mean_s, self.sd_s))
        return 0.0
