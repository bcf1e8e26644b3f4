"""Workload kinds as types: a phase's kind is read once from its fields, names the engine
that runs it, and a new arrival form is a class and a line in the registry."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import loadgen.format.kinds as kinds
from console.render.phase_words import phase_lines
from loadgen.format.kinds.families import OpenArrivals, RateSegment
from loadgen.format.playbook import load_playbook, parse_playbook
from loadgen.load.arrivals import Schedule
from loadgen.simulation.simulate import simulate

if TYPE_CHECKING:
    from loadgen.format.playbook import Phase, Playbook

PLAYBOOKS = Path(__file__).resolve().parents[2] / "playbooks"


def _playbook(**phase: Any) -> Playbook:
    return parse_playbook(
        {
            "name": "k",
            "tables": [
                {"name": "t", "partition_key": {"name": "pk"}, "billing_mode": "PAY_PER_REQUEST"}
            ],
            "load": {
                "attributes": {"pk": {"dist": "uniform", "count": 100}},
                "scenarios": {"s": {"steps": [{"name": "read", "op": "get"}]}},
                "phases": [{"name": "p", "duration_s": 60, **phase}],
            },
        }
    )


@pytest.mark.parametrize(
    ("phase", "name", "engine", "words"),
    [
        ({"rate": 200}, "constant rate x one operation", "requests", "p: put 200/s for 60 s"),
        (
            {"ramp": {"start": 1, "end": 9}, "operation": "get"},
            "ramp x one operation",
            "requests",
            "p: get ramp for 60 s",
        ),
        (
            {"rate": 200, "retry": "standard"},
            "constant rate x one operation",
            "iterations",  # the application's retries wait on replies
            "p: put 200/s for 60 s, retry standard",
        ),
        (
            {"users": 5, "think_s": 1, "operation": "get"},
            "users x one operation",
            "iterations",
            "p: get 5 users, think 1 s for 60 s",
        ),
        (
            {"rate": 20, "max_users": 50, "scenario": "s"},
            "constant rate x scenario",
            "iterations",
            "p: 20/s arrivals onto up to 50 users, scenario s for 60 s",
        ),
        (
            {"users": {"start": 1, "end": 4}, "pacing_s": 2, "mix": [{"op": "get", "weight": 1}]},
            "users x mix",
            "iterations",
            "p: users 1->4, an iteration every 2 s, mix for 60 s: get 100 %",
        ),
    ],
)
def test_a_phase_says_what_it_is(phase: dict[str, Any], name: str, engine: str, words: str) -> None:
    (read,) = _playbook(**phase).load.phases
    assert read.kind.name == name
    assert read.kind.engine == engine
    assert phase_lines(read, {})[0] == words


def test_every_built_in_playbook_parses_into_kinds() -> None:
    found = {}
    for path in sorted(PLAYBOOKS.glob("*.yaml")):
        for phase in load_playbook(path).load.phases:
            found.setdefault(phase.kind.name, phase.kind.engine)
    assert found == {
        "constant rate x one operation": "requests",
        "ramp x one operation": "requests",
        "users x scenario": "iterations",
        "users x mix": "iterations",
    }


def test_the_copy_of_a_phase_has_the_kind_of_its_fields() -> None:
    (phase,) = _playbook(rate=200).load.phases
    closed = phase.model_copy(update={"rate": None, "users": 3})
    assert closed.kind.name == "users x one operation"
    assert phase.model_copy(update={"duration_s": 5}).kind is not None


@dataclass(frozen=True)
class _Burst(OpenArrivals):
    """A form made up here: the whole phase's requests in its first half, at twice the
    rate. It reads `rate` (a number) ahead of the constant rate."""

    name = "burst"
    fields = ("rate",)

    rate: float

    @classmethod
    def selected(cls, phase: Phase) -> bool:
        return isinstance(phase.rate, float) and phase.name.startswith("burst")

    @classmethod
    def read(cls, phase: Phase) -> _Burst:
        assert isinstance(phase.rate, float)
        return cls(phase.rate)

    def segments(self, duration_s: float, scale: float = 1.0) -> list[RateSegment]:
        half, r = duration_s / 2, 2 * self.rate * scale
        return [RateSegment(0.0, half, r, r), RateSegment(half, duration_s, 0.0, 0.0)]

    def peak_rate(self) -> float:
        return 2 * self.rate

    def words(self) -> str:
        return f"a burst at {2 * self.rate:,.0f}/s"


def test_a_new_arrival_form_is_a_class_and_its_place_in_the_registry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(kinds, "ARRIVAL_FORMS", (_Burst, *kinds.ARRIVAL_FORMS))
    playbook = _playbook(name="burst", rate=100, duration_s=4)
    (phase,) = playbook.load.phases
    assert phase.kind.name == "burst x one operation" and phase.kind.engine == "requests"
    assert phase_lines(phase, {}) == ["burst: put a burst at 200/s for 4 s"]
    assert Schedule.for_phase(phase).total == 400
    (run,) = simulate(playbook).runs  # the vectorised engine, unchanged
    assert [run.seconds[t].sent for t in range(4)] == [200, 200, 0, 0]
    mixed = _playbook(name="burst", rate=5, duration_s=4, scenario="s")
    (run,) = simulate(mixed).runs  # and the closed-loop engine's open arrivals
    assert sum(c.started for c in run.iterations.values()) == 20
    assert all(t < 2 for t, c in run.iterations.items() if c.started)
