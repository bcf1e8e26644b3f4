"""The two halves of a phase's kind, as types: how arrivals come, what an iteration does.

A phase's kind is one arrival form (a constant rate, a ramp, a per-minute curve, a
closed population of users) times one iteration form (one operation, a weighted mix, a
named scenario). Each form is a class in its own module of this folder that reads its
fields off a validated `Phase`, says what is wrong with them, says itself in words, and
gives the runners the shape they need:

- an open arrival form (`OpenArrivals`) is a rate over time, piecewise linear
  (`segments`): the one thing the schedule (loadgen.load.arrivals), and so every engine
  of open arrivals, needs of it;
- a closed form (`ClosedArrivals`) is a population over time and a pause between a
  user's iterations;
- an iteration form (`Iterations`) is what the scenario interpreter runs per iteration:
  an entry picked by weight, or a named scenario.

Engines are written against these families, never against a form, so a new form of an
existing family (the per-minute curve is one) runs in the simulation and live without a
change to either. Which engine runs a phase is the kind's to say (`PhaseKind.engine`,
in loadgen.format.kinds). Nothing here imports the engines: the format is the lowest
layer of loadgen (docs/architecture.md, "Workload kinds").
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

if TYPE_CHECKING:
    from typing import Self

    from loadgen.format.playbook import Phase, Playbook, Problem, Scenario
    from loadgen.format.workload_spec import AnyStep

Engine = Literal["requests", "iterations", "control"]
"""How the runners run a phase. `requests`: each arrival is one request sent on the
schedule (the vectorised open-loop simulation, loadgen.simulation.simulate; the live
worker's schedule loop). `iterations`: each arrival, or each user's next turn, is an
iteration of the scenario interpreter (the closed-loop engine,
loadgen.simulation.closed_loop; the live users, loadgen.live.live_users). `control`: no
requests; the runner itself changes the table (a `Control` form: an UpdateTable) between
the workers' phases (loadgen.simulation.model_update; loadgen.live.segmented_run)."""


@dataclass(frozen=True, slots=True)
class RateSegment:
    """A rate moving linearly from r0 to r1 between t0 and t1 (phase-relative seconds):
    the piece an open arrival form's rate curve is made of."""

    t0: float
    t1: float
    r0: float
    r1: float

    @property
    def area(self) -> float:
        """Arrivals in the segment (the integral of its rate)."""
        return (self.r0 + self.r1) * (self.t1 - self.t0) / 2.0


def whole_arrivals(area: float) -> int:
    """The arrivals a rate curve of `area` makes due: arrival k is due when the curve's
    integral reaches k, so the count is the area floored (with a hair for rounding)."""
    return math.floor(area + 1e-9)


class Form(ABC):
    """What every form of either half has: its name, the phase fields it is read from,
    and how it reads them."""

    name: ClassVar[str]
    """The form in words, for a kind's name (`constant rate x one operation`)."""
    fields: ClassVar[tuple[str, ...]]
    """The phase fields it is read from, the one that selects it first (the playbook's
    messages name them; tests/test_phase_kinds.py keeps branches on them in this folder)."""

    @classmethod
    def selected(cls, phase: Phase) -> bool:
        """Whether the phase's fields ask for this form: by default, its first field is
        given."""
        return getattr(phase, cls.fields[0]) is not None

    @classmethod
    @abstractmethod
    def read(cls, phase: Phase) -> Self:
        """The form from a phase that selected it; ValueError (the playbook's message)
        when its fields do not go together."""

    def problems(self, playbook: Playbook, index: int) -> list[Problem]:
        """What is wrong with the form within the playbook (a scenario it names that is
        not there), each located at its field; the model alone cannot see these."""
        return []


class Arrivals(Form):
    """How a phase's arrivals come."""

    stray: ClassVar[str | None] = None
    """The message for this form's other fields given to a phase of another form."""

    @classmethod
    def strays(cls, phase: Phase) -> bool:
        """Whether the phase gives this form's other fields (`stray`) without selecting it."""
        return False

    @abstractmethod
    def words(self) -> str:
        """The arrivals for people: `200/s`, `10 users, think 1 s`."""

    def peak_rate(self) -> float:
        """The highest rate it offers (0 for a population)."""
        return 0.0

    def peak_users(self) -> int:
        """The most users it runs at once (0 for open arrivals)."""
        return 0

    def mean_think_s(self) -> float:
        """A user's mean think between iterations (0 without one), for what is worked
        out ahead of a run (advise's cycle times)."""
        return 0.0


class OpenArrivals(Arrivals):
    """Arrivals at a rate that does not wait on the system: the rate over the phase is
    piecewise linear."""

    @abstractmethod
    def segments(self, duration_s: float, scale: float = 1.0) -> list[RateSegment]:
        """The rate over the phase's `duration_s`, times `scale`, in order from t = 0,
        end to end (loadgen.load.arrivals.Schedule integrates and inverts it)."""


class ClosedArrivals(Arrivals):
    """A population: each user starts its next iteration when the last one ended (plus a
    pause)."""

    @abstractmethod
    def levels(self, duration_s: float) -> list[tuple[float, int]]:
        """(seconds into the phase, users) steps of the population (the simulation's)."""

    @abstractmethod
    def ramps(self) -> bool:
        """Whether the population changes over the phase (live users then follow
        `level_at`)."""

    @abstractmethod
    def level_at(self, t: float, duration_s: float) -> float:
        """The population at `t` into the phase (live users poll it)."""

    @abstractmethod
    def start_spread_s(self) -> float:
        """Over how long the users' first iterations start."""

    @abstractmethod
    def pause_s(self, iteration_s: float, rng: random.Random) -> float:
        """A user's wait before its next iteration, after one that took `iteration_s`."""


class Control(Form):
    """Work the runner does itself at a phase's start instead of offering load: a change
    of the table (an UpdateTable). Such a phase sends no requests; its arrivals are none
    (`NoArrivals`) for everything that reads a phase's schedule."""

    @property
    @abstractmethod
    def label(self) -> str:
        """The result's `operation` of the phase (`update_table`)."""

    @property
    @abstractmethod
    def waits(self) -> bool:
        """Whether the next phase waits until the table and its GSIs are ACTIVE again."""

    @abstractmethod
    def words(self) -> str:
        """The change for people (the plan's line, the results' phase)."""

    @abstractmethod
    def request(self, table_name: str, in_force: Mapping[str, Any]) -> dict[str, Any]:
        """The DynamoDB request the runner makes, given the table as DescribeTable shows
        it when the phase starts."""


class NoArrivals(OpenArrivals):
    """The arrivals of a phase that offers no load (a `Control` phase): none, over its
    duration, so every reader of a phase's schedule sees an idle phase."""

    name = "no load"
    fields = ()

    @classmethod
    def selected(cls, phase: Phase) -> bool:
        return False

    @classmethod
    def read(cls, phase: Phase) -> NoArrivals:
        return cls()

    def segments(self, duration_s: float, scale: float = 1.0) -> list[RateSegment]:
        return [RateSegment(0.0, duration_s, 0.0, 0.0)]

    def words(self) -> str:
        return "no load"


class Iterations(Form):
    """What each iteration of a phase does."""

    one_request: ClassVar[bool] = False
    """Each iteration is one request of the phase's operation (the only form the
    `requests` engine runs)."""

    @property
    @abstractmethod
    def label(self) -> str:
        """The result's `operation` of the phase: the operation, `mix` or `scenario NAME`."""

    @property
    def entries(self) -> tuple[AnyStep, ...]:
        """The entries an iteration picks one of by `weight` (empty when every iteration
        runs `scenario_name`)."""
        return ()

    @property
    def scenario_name(self) -> str | None:
        """The scenario every iteration runs, or None when it picks an entry."""
        return None

    def own_steps(self, scenarios: Mapping[str, Scenario]) -> tuple[list[AnyStep], list[str]]:
        """The steps it names itself (entries, or its scenario's steps) and the scenarios
        they are, before the calls of scenarios are followed (LoadSpec.iteration_steps):
        none for one operation."""
        return [], []

    @abstractmethod
    def summary(self, load: str, tail: str) -> str:
        """The phase's line in the plan, around the arrivals' words and `tail` (its
        duration and retries)."""

    def listed_steps(self) -> list[AnyStep]:
        """The steps the plan lists under the phase's line."""
        return []

    def operation_shares(self) -> list[tuple[AnyStep, float]]:
        """The entries that are one request of a plain operation (get, put, update or
        query, with keys drawn as the phase's attributes are), each with its share of the
        iterations: what advise's per-operation arithmetic can take of a form whose
        iterations are not all one request (an imported day is a mix of them). None here."""
        return []

    def listed_scenarios(self) -> list[str]:
        """The scenarios whose steps the plan lists under the phase's line."""
        return []
