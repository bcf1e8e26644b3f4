"""Workload kinds: what a phase is, derived once when the playbook is validated.

A phase's kind (`PhaseKind`, `phase.kind`) is how its arrivals come (one of
`ARRIVAL_FORMS`) times what an iteration does (one of `ITERATION_FORMS`), with the
application's retry policy. The playbook keeps its fields (`rate`, `ramp`, `users`,
`think_s`, `pacing_s`, `operation`, `mix`, `scenario`, `max_users`, `retry`); this module
reads them once, through the forms, into types, and everything above the format asks
the kind, never the fields (tests/test_phase_kinds.py fails a branch on them outside
this folder).

Adding a form: a module in this folder with a class of `families.Arrivals` (an open
rate curve: `families.OpenArrivals`; a population: `families.ClosedArrivals`) or
`families.Iterations`, and its name in `ARRIVAL_FORMS` or `ITERATION_FORMS` below (the
registry: the order they are tried in); a field of its own goes on `Phase`
(loadgen.format.playbook), a new shape of `rate` in `RateField`. The engines are
written against the families, so a form of an existing family runs in the simulation
and live with no other change; `PhaseKind.engine` names the engine that runs a phase
(docs/architecture.md, "Workload kinds").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Discriminator, Tag

from loadgen.format.kinds.capacity_change import ChangeStep, UpdateTable, control_defaults
from loadgen.format.kinds.constant_rate import ConstantRate, RateNumber
from loadgen.format.kinds.families import (
    Arrivals,
    ClosedArrivals,
    Control,
    Engine,
    Iterations,
    NoArrivals,
    OpenArrivals,
    RateSegment,
    whole_arrivals,
)
from loadgen.format.kinds.mix import WeightedMix
from loadgen.format.kinds.named_scenario import NamedScenario
from loadgen.format.kinds.one_operation import OneOperation
from loadgen.format.kinds.rate_curve import PerMinuteRate, RateCurve, phase_defaults
from loadgen.format.kinds.rate_ramp import RateRamp
from loadgen.format.kinds.users import ClosedUsers
from loadgen.format.workload_spec import RetrySpec

if TYPE_CHECKING:
    from loadgen.format.playbook import Phase, Playbook, Problem

__all__ = [
    "ARRIVAL_FORMS",
    "CONTROL_FORMS",
    "DEFAULT_MAX_USERS",
    "ITERATION_FORMS",
    "KIND_FIELDS",
    "Arrivals",
    "ClosedArrivals",
    "Control",
    "Engine",
    "Iterations",
    "OpenArrivals",
    "PhaseKind",
    "RateField",
    "RateSegment",
    "kind_of",
    "prepare_phase",
    "whole_arrivals",
]

ARRIVAL_FORMS: tuple[type[Arrivals], ...] = (ConstantRate, RateCurve, RateRamp, ClosedUsers)
"""How arrivals come, in the order they are tried: the registry of arrival forms."""

ITERATION_FORMS: tuple[type[Iterations], ...] = (OneOperation, WeightedMix, NamedScenario)
"""What an iteration does; the first is the default (a phase that names none of them
puts)."""

CONTROL_FORMS: tuple[type[Control], ...] = (UpdateTable,)
"""What a phase that offers no load does instead (the runner's own work: an UpdateTable).
A phase of one of these has no arrival or iteration form of its own (`NoArrivals`,
`ChangeStep`) and runs on the `control` engine."""


def _rate_shape(value: Any) -> str:
    return "rate=per_minute" if isinstance(value, dict | PerMinuteRate) else "rate=number"


RateField = Annotated[
    Annotated[RateNumber, Tag("rate=number")] | Annotated[PerMinuteRate, Tag("rate=per_minute")],
    Discriminator(_rate_shape),
]
"""A phase's `rate`: a number (ConstantRate) or a mapping (RateCurve's
`{per_minute: [...]}`), told apart by the value's shape, so that a mistake in either gets
the message of the form it meant and not both (the tags are left out of the playbook's
error paths)."""

DEFAULT_MAX_USERS = 1000
"""Users available to an open-arrival mix or scenario without `max_users` (k6's
maxVUs default is the preallocated count; 1000 keeps a worker's tasks bounded)."""

KIND_FIELDS: frozenset[str] = frozenset(
    {f for form in (*ARRIVAL_FORMS, *ITERATION_FORMS, *CONTROL_FORMS) for f in form.fields}
    - {"operation", "consistent_read"}  # one operation's parameters: never empty
    | {"max_users", "retry"}
)
"""The phase fields a kind is derived from: outside this folder nothing branches on
them (tests/test_phase_kinds.py)."""


def _one_of(names: list[str]) -> str:
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else names[0]


def _selectors(forms: tuple[type[Arrivals], ...] | tuple[type[Iterations], ...]) -> list[str]:
    return list(dict.fromkeys(form.fields[0] for form in forms))


@dataclass(frozen=True)
class PhaseKind:
    """What a phase is: its arrivals, its iterations and its application's retries."""

    arrivals: Arrivals
    iterations: Iterations
    retry: RetrySpec
    max_users: int | None = None
    control: Control | None = None
    """The runner's own work at the phase's start (an UpdateTable), for a phase that
    offers no load."""

    @property
    def name(self) -> str:
        """`constant rate x one operation`, `users x scenario`, ..."""
        return f"{self.arrivals.name} x {self.iterations.name}"

    @property
    def engine(self) -> Engine:
        """`requests` for one operation at open arrivals with no application retries (the
        load of every playbook before load models, run vectorised and unchanged:
        tests/golden); `iterations` for everything else."""
        if self.control is not None:
            return "control"
        plain = self.iterations.one_request and self.retry.mode == "none"
        return "requests" if isinstance(self.arrivals, OpenArrivals) and plain else "iterations"

    @property
    def user_pool(self) -> int:
        """Users available to open arrivals of iterations (k6's maxVUs): `max_users`,
        else DEFAULT_MAX_USERS; an arrival with none free is a dropped iteration."""
        return self.max_users or DEFAULT_MAX_USERS

    def capacity_change(self) -> Control:
        """The change a `control` phase makes; ValueError for a phase of load."""
        if self.control is None:
            raise ValueError(f"{self.name}: a phase of load makes no capacity change")
        return self.control

    def rate_segments(self, duration_s: float, scale: float = 1.0) -> list[RateSegment]:
        """The open arrivals' rate curve (loadgen.load.arrivals.Schedule); a population
        has none."""
        if not isinstance(self.arrivals, OpenArrivals):
            raise ValueError(f"{self.name}: a population of users has no arrival schedule")
        return self.arrivals.segments(duration_s, scale)

    def most_users(self, scale: float = 1.0) -> float:
        """The most users the phase runs at once at `scale`: a population's peak, scaled;
        open arrivals of iterations' pool, which is not; none for requests."""
        if isinstance(self.arrivals, ClosedArrivals):
            return float(self.arrivals.peak_users()) * scale
        return float(self.user_pool) if self.engine == "iterations" else 0.0

    def expected_requests(self, duration_s: float, scale: float = 1.0) -> int | None:
        """The requests the phase sends when each arrival is one request (the schedule's
        count, which a plan prices); None when they depend on how its iterations go,
        which only a run (or the simulation) tells."""
        if self.engine == "iterations":
            return None
        total = 0.0
        for segment in self.rate_segments(duration_s, scale):  # summed as the schedule does
            total += segment.area
        return whole_arrivals(total)

    def draws_key(self, of_index: bool) -> bool:
        """Whether the phase's requests draw a table's key attribute from the load's
        distributions: one operation draws its primary key, and at open arrivals every
        GSI's key too; a closed loop writes an item without a GSI's attributes into no
        entry of that (sparse) index; a mix's or scenario's steps name their keys."""
        if not self.iterations.one_request:
            return False
        return not of_index or self.engine == "requests"

    def words(self) -> str:
        """The arrivals in words, with the pool of users open iterations run on."""
        if self.control is not None:
            return self.control.words()
        shown = self.arrivals.words()
        if isinstance(self.arrivals, OpenArrivals) and not self.iterations.one_request:
            return f"{shown} arrivals onto up to {self.user_pool:,} users"
        return shown

    def summary(self, duration_s: float) -> str:
        """The phase's line in the plan (after its name)."""
        retry = f", retry {self.retry.mode}" if self.retry.mode != "none" else ""
        return self.iterations.summary(self.words(), f"for {duration_s:,.0f} s{retry}")

    def problems(self, playbook: Playbook, index: int) -> list[Problem]:
        """What is wrong with the phase's forms within the playbook, located."""
        if self.control is not None:
            return self.control.problems(playbook, index)
        return self.arrivals.problems(playbook, index) + self.iterations.problems(playbook, index)


def kind_of(phase: Phase) -> PhaseKind:
    """The phase's kind from its fields; ValueError with the playbook's message when they
    ask for no arrival form or two, or two iteration forms, or do not go together."""
    controls = [form for form in CONTROL_FORMS if form.selected(phase)]
    if controls:
        return _control_kind(phase, controls[0])
    if phase.wait is not None:
        raise ValueError("wait applies to a phase with update_table")
    # Forms are tried in the registry's order: the first that a phase's fields select is
    # its form; fields of two forms (rate and users) are a mistake.
    arrivals = [form for form in ARRIVAL_FORMS if form.selected(phase)]
    given = _selectors(tuple(arrivals))
    if len(given) != 1:
        shown = f" (got {' and '.join(given)})" if given else ""
        raise ValueError(f"give exactly one of {_one_of(_selectors(ARRIVAL_FORMS))}{shown}")
    iterations = [form for form in ITERATION_FORMS if form.selected(phase)]
    if len(_selectors(tuple(iterations))) > 1:
        names = " and ".join(_selectors(tuple(iterations)))
        raise ValueError(f"give one of {_one_of(_selectors(ITERATION_FORMS))}, not {names}")
    arrival_form = arrivals[0]
    for form in ARRIVAL_FORMS:
        if form is not arrival_form and form.stray and form.strays(phase):
            raise ValueError(form.stray)
    kind = PhaseKind(
        arrival_form.read(phase),
        (iterations or [ITERATION_FORMS[0]])[0].read(phase),
        phase.retry,
        phase.max_users,
    )
    if phase.max_users is not None and not (
        isinstance(kind.arrivals, OpenArrivals) and not kind.iterations.one_request
    ):
        raise ValueError(
            "max_users applies to a mix or scenario at a rate (with users, users is the population)"
        )
    return kind


def _control_kind(phase: Phase, form: type[Control]) -> PhaseKind:
    """A phase that changes the table: none of the load's fields go with it."""
    load = (KIND_FIELDS - set(form.fields) - {"retry"}) | {"operation"}
    given = sorted(load & phase.model_fields_set)
    if given:
        raise ValueError(
            f"{form.fields[0]} changes the table and offers no load: drop {', '.join(given)} "
            "(put the load in a phase of its own)"
        )
    return PhaseKind(NoArrivals(), ChangeStep.read(phase), phase.retry, None, form.read(phase))


FIELD_DEFAULTS = (phase_defaults, control_defaults)
"""What forms fill in of a phase's raw fields before they are validated (a curve's
duration)."""


def prepare_phase(data: Any, context: Any) -> Any:
    """A phase's raw fields with what its form fills in (FIELD_DEFAULTS)."""
    for fill in FIELD_DEFAULTS:
        data = fill(data, context)
    return data
