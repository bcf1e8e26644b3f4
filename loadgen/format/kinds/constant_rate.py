"""Arrivals at one rate for the whole phase: `rate: 4000` (every playbook's first form)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from loadgen.format.kinds.families import OpenArrivals, RateSegment

if TYPE_CHECKING:
    from loadgen.format.playbook import Phase

RATE_LIMIT = 1_000_000
"""The highest rate (requests or iterations a second) a phase may ask for."""

RateNumber = Annotated[float, Field(ge=0, le=RATE_LIMIT)]
"""`rate: N`: requests per second offered (open loop); 0 for an idle pause. With a mix
or a scenario: iterations started per second."""


@dataclass(frozen=True, slots=True)
class ConstantRate(OpenArrivals):
    name = "constant rate"
    fields = ("rate",)

    rate: float

    @classmethod
    def selected(cls, phase: Phase) -> bool:
        return isinstance(phase.rate, int | float)

    @classmethod
    def read(cls, phase: Phase) -> ConstantRate:
        assert isinstance(phase.rate, int | float)
        return cls(float(phase.rate))

    def segments(self, duration_s: float, scale: float = 1.0) -> list[RateSegment]:
        r = self.rate * scale
        return [RateSegment(0.0, duration_s, r, r)]

    def peak_rate(self) -> float:
        return self.rate

    def words(self) -> str:
        return f"{self.rate:,.0f}/s"
