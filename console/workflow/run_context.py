"""What a step needs from the run it works on: the run's own settings (target and region
recorded at `up`), its DynamoDB client, and its playbook's table spec."""

from __future__ import annotations

from typing import Any

from console.targets import run_settings, target_for
from console.workflow.errors import StateError
from console.workflow.run_state import RunState
from console.workflow.settings import Settings
from loadgen.playbook import Playbook, TableSpec


def dynamodb_client(state: RunState, settings: Settings) -> Any:
    """A DynamoDB client on the run's own tables (its target's endpoint and region)."""
    return target_for(state, settings).dynamodb_client(state)


__all__ = ["dynamodb_client", "find_spec", "run_settings"]


def find_spec(playbook: Playbook, variant: str) -> TableSpec:
    try:
        return playbook.table(variant)
    except KeyError:
        raise StateError(f"the playbook no longer has a table {variant!r}") from None
