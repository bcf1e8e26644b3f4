"""Arrivals at a rate that moves from `start` to `end` over the phase, linearly or in
`steps` equal windows: `ramp: {start: 1000, end: 8000, steps: 8}`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from loadgen.format.kinds.families import OpenArrivals, RateSegment

if TYPE_CHECKING:
    from loadgen.format.playbook import Phase


class Ramp(BaseModel):
    """A rate that moves from `start` to `end` over the phase, linearly or in `steps`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    start: float = Field(ge=0)
    end: float = Field(ge=0)
    steps: int | None = Field(default=None, ge=1)
    """Equal-length constant windows instead of a linear ramp."""


@dataclass(frozen=True, slots=True)
class RateRamp(OpenArrivals):
    name = "ramp"
    fields = ("ramp",)

    ramp: Ramp

    @classmethod
    def read(cls, phase: Phase) -> RateRamp:
        assert phase.ramp is not None
        return cls(phase.ramp)

    def segments(self, duration_s: float, scale: float = 1.0) -> list[RateSegment]:
        ramp = self.ramp
        a, b = ramp.start * scale, ramp.end * scale
        if ramp.steps is None:
            return [RateSegment(0.0, duration_s, a, b)]
        n = ramp.steps
        width = duration_s / n
        rates = [a + (b - a) * i / (n - 1) for i in range(n)] if n > 1 else [a]
        return [RateSegment(i * width, (i + 1) * width, r, r) for i, r in enumerate(rates)]

    def peak_rate(self) -> float:
        return max(self.ramp.start, self.ramp.end)

    def words(self) -> str:
        return "ramp"
