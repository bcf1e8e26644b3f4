"""A named scenario: every iteration runs the steps of `load.scenarios[NAME]` in order:
`scenario: checkout`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from loadgen.format.kinds.families import Iterations
from loadgen.format.workload_checks import unknown_scenario

if TYPE_CHECKING:
    from loadgen.format.playbook import Phase, Playbook, Problem, Scenario
    from loadgen.format.workload_spec import AnyStep


@dataclass(frozen=True, slots=True)
class NamedScenario(Iterations):
    name = "scenario"
    fields = ("scenario",)

    scenario: str

    @classmethod
    def read(cls, phase: Phase) -> NamedScenario:
        assert phase.scenario is not None
        return cls(phase.scenario)

    @property
    def label(self) -> str:
        return f"scenario {self.scenario}"

    @property
    def scenario_name(self) -> str | None:
        return self.scenario

    def own_steps(self, scenarios: Mapping[str, Scenario]) -> tuple[list[AnyStep], list[str]]:
        if self.scenario not in scenarios:
            return [], []
        return list(scenarios[self.scenario].steps), [self.scenario]

    def summary(self, load: str, tail: str) -> str:
        return f"{load}, scenario {self.scenario} {tail}"

    def listed_scenarios(self) -> list[str]:
        return [self.scenario]

    def problems(self, playbook: Playbook, index: int) -> list[Problem]:
        if self.scenario in playbook.load.scenarios:
            return []
        return [unknown_scenario(playbook, self.scenario, ("load", "phases", index, "scenario"))]
