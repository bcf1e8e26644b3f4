"""What a step needs from the run it works on: the run's own settings (target and region
recorded at `up`) and its DynamoDB client."""

from __future__ import annotations

from typing import Any

from console.run.settings import Settings
from console.run.state import RunState
from console.targets import run_settings, target_for


def dynamodb_client(state: RunState, settings: Settings) -> Any:
    """A DynamoDB client on the run's own tables (its target's endpoint and region)."""
    return target_for(state, settings).dynamodb_client(state)


__all__ = ["dynamodb_client", "run_settings"]
