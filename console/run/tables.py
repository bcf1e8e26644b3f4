"""A run's tables as the playbook names them: which variants a run creates, a variant's
spec, and the state a table starts its record with. Shared by the targets (which create
and describe tables) and the workflow's steps."""

from __future__ import annotations

import dataclasses

from console.cost.expected_usage import table_use
from console.run.errors import StateError
from console.run.state import TableState, utc_now
from loadgen.format.playbook import Playbook, TableSpec


def variants_in_runs(playbook: Playbook) -> list[TableSpec]:
    """The tables the load touches, in playbook order (only these are created)."""
    used = {r.table for r in playbook.runs()}
    return [t for t in playbook.tables if t.name in used]


def find_spec(playbook: Playbook, variant: str) -> TableSpec:
    try:
        return playbook.table(variant)
    except KeyError:
        raise StateError(f"the playbook no longer has a table {variant!r}") from None


def table_state(spec: TableSpec, name: str, arn: str | None = None) -> TableState:
    """The state of a table about to be created: the fields the cost record reads
    (console.cost.expected_usage.table_use, the one reading of a spec's billed shape) plus where
    and since when."""
    billed = dataclasses.asdict(table_use(spec, name, ()))
    del billed["spans"]
    del billed["stored_gb"]  # a run's record leaves storage out (docs/cost.md)
    return TableState(variant=spec.name, arn=arn, created_at=utc_now(), **billed)
