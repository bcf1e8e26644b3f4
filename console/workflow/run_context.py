"""What a step needs from the run it works on: the run's own settings (target and region
recorded at `up`), its DynamoDB client, and its playbook's table spec."""

from __future__ import annotations

from typing import Any

from console.workflow import local
from console.workflow.errors import StateError
from console.workflow.run_state import RunState
from console.workflow.settings import Settings
from loadgen.playbook import Playbook, TableSpec


def dynamodb_client(state: RunState, settings: Settings) -> Any:
    if state.target == "local":
        return local.client(state)
    from console.workflow import aws

    return aws.session(run_settings(state, settings)).client("dynamodb")


def run_settings(state: RunState, settings: Settings) -> Settings:
    """The settings with the run's own target and region (recorded at `up`)."""
    return settings.model_copy(update={"target": state.target, "region": state.region})


def find_spec(playbook: Playbook, variant: str) -> TableSpec:
    try:
        return playbook.table(variant)
    except KeyError:
        raise StateError(f"the playbook no longer has a table {variant!r}") from None
