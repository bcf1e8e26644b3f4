"""A capacity change during a run: `update_table: {write_capacity: 8000}` with `wait:
active` (the default) or `none`. The phase offers no load; the runner makes the
UpdateTable at the phase's start, on every path alike (the simulation's model, the
emulator, a real table), and with `wait: active` the next phase starts once the table
and its GSIs are ACTIVE again, however long DynamoDB takes (docs/playbooks.md
#capacity-changes-during-a-run)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from loadgen.format.kinds.families import Control, Iterations

if TYPE_CHECKING:
    from loadgen.format.playbook import CapacityChange, Phase, Playbook, Problem

CONTROL_MIN_S = 1.0
"""A capacity-change phase without `duration_s` lasts at least this long (DynamoDB's
UPDATING after a change of provisioned units lasts 1-2 s when no split is needed)."""

LABEL = "update_table"


def control_defaults(data: Any, context: Any) -> Any:
    """A change's phase without `duration_s` lasts CONTROL_MIN_S at least (run before the
    phase's fields are validated, so that `duration_s` is never missing)."""
    if not isinstance(data, dict) or "duration_s" in data or data.get("update_table") is None:
        return data
    return {**data, "duration_s": CONTROL_MIN_S}


@dataclass(frozen=True, slots=True)
class UpdateTable(Control):
    name = "update table"
    fields = ("update_table", "wait")

    change: CapacityChange
    wait: str = "active"

    @classmethod
    def read(cls, phase: Phase) -> UpdateTable:
        assert phase.update_table is not None
        return cls(phase.update_table, phase.wait or "active")

    @property
    def label(self) -> str:
        return LABEL

    @property
    def waits(self) -> bool:
        return self.wait == "active"

    def words(self) -> str:
        until = ", then wait until ACTIVE" if self.waits else ", not waiting"
        return f"UpdateTable {self.change.words()}{until}"

    def request(self, table_name: str, in_force: Mapping[str, Any]) -> dict[str, Any]:
        return self.change.request(table_name, in_force)

    def problems(self, playbook: Playbook, index: int) -> list[Problem]:
        """A GSI the change names must be a GSI of every table the load runs on."""
        out: list[Problem] = []
        known = {t.name for t in playbook.tables}
        tables = [playbook.table(r.table) for r in playbook.runs() if r.table in known]
        for name in self.change.gsis:
            lacking = [t.name for t in tables if name not in {g.name for g in t.gsis}]
            if lacking:
                out.append(
                    (
                        ("load", "phases", index, "update_table", "gsis", name),
                        f"names GSI {name!r}, which table(s) {', '.join(lacking)} do not have",
                    )
                )
        return out


@dataclass(frozen=True, slots=True)
class ChangeStep(Iterations):
    """What a change's phase does instead of iterations: nothing the workers run."""

    name = "update table"
    fields = ()

    @classmethod
    def selected(cls, phase: Phase) -> bool:
        return False

    @classmethod
    def read(cls, phase: Phase) -> ChangeStep:
        return cls()

    @property
    def label(self) -> str:
        return LABEL

    def summary(self, load: str, tail: str) -> str:
        return f"{load} ({tail.replace('for ', 'at least ', 1)})"
