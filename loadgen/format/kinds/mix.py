"""A weighted mix: each iteration runs one entry, chosen by its `weight`:
`mix: [{op: get, weight: 95}, {op: put, weight: 5}]` (an entry may call a scenario)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from loadgen.format.kinds.families import Iterations
from loadgen.format.workload_checks import Loc, step_problems, unknown_scenario
from loadgen.format.workload_spec import ScenarioCall

if TYPE_CHECKING:
    from loadgen.format.playbook import Phase, Playbook, Problem, Scenario
    from loadgen.format.workload_spec import AnyStep

NOT_IN_A_MIX = ("lock", "release", "think")
"""Steps that only make sense in order, within a scenario."""


@dataclass(frozen=True, slots=True)
class WeightedMix(Iterations):
    name = "mix"
    fields = ("mix",)

    mix: tuple[AnyStep, ...]

    @classmethod
    def read(cls, phase: Phase) -> WeightedMix:
        assert phase.mix is not None
        return cls(tuple(phase.mix))

    @property
    def label(self) -> str:
        return "mix"

    @property
    def entries(self) -> tuple[AnyStep, ...]:
        return self.mix

    def own_steps(self, scenarios: Mapping[str, Scenario]) -> tuple[list[AnyStep], list[str]]:
        return list(self.mix), []

    def summary(self, load: str, tail: str) -> str:
        total = sum(e.weight or 0.0 for e in self.mix) or 1.0
        shares = ", ".join(f"{e.label} {100 * (e.weight or 0.0) / total:.0f} %" for e in self.mix)
        return f"{load}, mix {tail}: {shares}"

    def listed_steps(self) -> list[AnyStep]:
        return [e for e in self.mix if not isinstance(e, ScenarioCall)]

    def listed_scenarios(self) -> list[str]:
        return [e.scenario for e in self.mix if isinstance(e, ScenarioCall)]

    def operation_shares(self) -> list[tuple[AnyStep, float]]:
        total = sum(e.weight or 0.0 for e in self.mix)
        if total <= 0:
            return []
        return [(e, (e.weight or 0.0) / total) for e in self.mix if _plain(e)]

    def problems(self, playbook: Playbook, index: int) -> list[Problem]:
        return list(self._problems(playbook, index))

    def _problems(self, playbook: Playbook, p: int) -> Iterator[tuple[Loc, str]]:
        phase = playbook.load.phases[p]
        labels: list[str] = []
        for i, step in enumerate(self.mix):
            loc: Loc = ("load", "phases", p, "mix", i)
            if step.weight is None:
                yield ((*loc, "weight"), "each mix entry needs a weight (e.g. weight: 50)")
            if step.op in NOT_IN_A_MIX:
                yield (
                    (*loc, "op"),
                    f"{step.op} belongs in a scenario (its steps run in order), not in a mix",
                )
            if step.label in labels:
                yield ((*loc, "name"), f"mix entries need distinct names: {step.label!r} twice")
            labels.append(step.label)
            if isinstance(step, ScenarioCall):
                if step.scenario not in playbook.load.scenarios:
                    yield unknown_scenario(playbook, step.scenario, (*loc, "scenario"))
                continue
            captured = set(step.capture)
            yield from step_problems(playbook, loc, step, [phase], captured | {"version"})


PLAIN_OPERATIONS = ("get", "put", "update", "query")
"""The operations a phase of one operation runs (Phase.operation)."""

PLAIN_FIELDS = frozenset({"op", "weight", "name", "consistent_read"})
"""A mix entry that sets nothing else draws its keys as a phase of its operation does."""


def _plain(step: AnyStep) -> bool:
    """Whether `step` is one request a phase of one operation could send."""
    if isinstance(step, ScenarioCall) or step.op not in PLAIN_OPERATIONS:
        return False
    return set(step.model_dump(exclude_defaults=True)) <= PLAIN_FIELDS
