"""A closed population: `users: 10` (or a ramp of users), each starting its next
iteration when the last one ended, plus `think_s`, or on a `pacing_s` beat."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from loadgen.format.kinds.families import ClosedArrivals
from loadgen.format.workload_spec import (
    Think,
    Users,
    think_mean,
    think_seconds,
    think_words,
)

if TYPE_CHECKING:
    from loadgen.format.playbook import Phase

MAX_START_SPREAD_S = 60.0
NO_PAUSE_SPREAD_S = 0.1


def _seconds(value: float) -> str:
    return f"{value:g} s"


@dataclass(frozen=True, slots=True)
class ClosedUsers(ClosedArrivals):
    name = "users"
    fields = ("users", "think_s", "pacing_s")
    stray = "think_s and pacing_s pace a closed loop: they need users"

    users: int | Users
    think: Think | None = None
    pacing_s: float | None = None

    @classmethod
    def read(cls, phase: Phase) -> ClosedUsers:
        assert phase.users is not None
        if phase.think_s is not None and phase.pacing_s is not None:
            raise ValueError("give think_s or pacing_s, not both")
        return cls(phase.users, phase.think_s, phase.pacing_s)

    @classmethod
    def strays(cls, phase: Phase) -> bool:
        """Whether the phase gives this form's pacing without users."""
        return phase.think_s is not None or phase.pacing_s is not None

    def peak_users(self) -> int:
        users = self.users
        return users if isinstance(users, int) else max(users.start, users.end)

    def mean_think_s(self) -> float:
        return think_mean(self.think)

    def levels(self, duration_s: float) -> list[tuple[float, int]]:
        """One step for a fixed population; for a ramp `steps` equal windows, or one step
        per user for a linear ramp."""
        users = self.users
        if isinstance(users, int):
            return [(0.0, users)]
        steps = users.steps or max(1, abs(users.end - users.start))
        out = []
        for k in range(steps + (0 if users.steps else 1)):
            frac = k / steps if not users.steps else k / max(1, steps - 1) if steps > 1 else 0
            level = round(users.start + (users.end - users.start) * min(1.0, frac))
            out.append((duration_s * k / (steps + (0 if users.steps else 1)), level))
        return out

    def ramps(self) -> bool:
        return isinstance(self.users, Users)

    def level_at(self, t: float, duration_s: float) -> float:
        """Linear, or held in `steps` equal windows."""
        users = self.users
        if isinstance(users, int):
            return float(users)
        frac = min(1.0, max(0.0, t / duration_s))
        if users.steps:
            n = users.steps
            frac = min(n - 1, int(frac * n)) / (n - 1) if n > 1 else 0.0
        return users.start + (users.end - users.start) * frac

    def start_spread_s(self) -> float:
        """One think time (or pacing beat), at most a minute, so that users in a steady
        loop are out of step as they would be after the first few iterations, instead of
        all firing at t = 0 (a burst no steady application makes); 0.1 s without a pause."""
        if self.pacing_s is not None:
            return min(MAX_START_SPREAD_S, self.pacing_s)
        if self.think is None:
            return NO_PAUSE_SPREAD_S
        return min(MAX_START_SPREAD_S, max(NO_PAUSE_SPREAD_S, think_mean(self.think)))

    def pause_s(self, iteration_s: float, rng: random.Random) -> float:
        """On a pacing beat, what is left of it (none when the iteration took longer);
        else a think time (a range drawn from `rng`); else none."""
        if self.pacing_s is not None:
            return max(0.0, self.pacing_s - iteration_s)
        if self.think is not None:
            return think_seconds(self.think, rng)
        return 0.0

    def words(self) -> str:
        users = self.users
        if isinstance(users, Users):
            shown = f"users {users.start:,}->{users.end:,}"
            if users.steps:
                shown += f" in {users.steps} steps"
        else:
            shown = f"{users:,} users"
        if self.pacing_s is not None:
            shown += f", an iteration every {_seconds(self.pacing_s)}"
        elif self.think is not None:
            shown += f", think {think_words(self.think)}"
        return shown
