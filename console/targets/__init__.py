"""Targets: where a run's tables and workers live, behind one interface (interface.Target).

`target_for(state, settings)` builds the run's own target from what the run recorded at
`up` (its target and region), so a later command with other settings still acts on the
right account and region; `target_named(settings)` builds the one a new run would use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from console.targets.interface import FleetBinding, HotKeyView, MetricsSource, Target

if TYPE_CHECKING:  # importing console.targets loads no workflow module (no cycle)
    from console.run.settings import Settings, TargetName
    from console.run.state import RunState

__all__ = [
    "FleetBinding",
    "HotKeyView",
    "MetricsSource",
    "Target",
    "run_settings",
    "target_class",
    "target_for",
    "target_named",
]


def run_settings(state: RunState, settings: Settings) -> Settings:
    """The settings with the run's own target, region and AWS profile (recorded at `up`):
    a later command from another shell still acts as the run's identity, in its region."""
    return settings.model_copy(
        update={
            "target": state.target,
            "region": state.region,
            "aws_profile": state.aws_profile or settings.aws_profile,
        }
    )


Clients = Mapping[str, Any]
"""Service name -> a client to use instead of one made from the settings (tests, or a
caller that already holds them); a target without AWS clients ignores them."""


def billed_up(state: RunState) -> bool:
    """Up on a target that charges for it: a local run's emulator holds a process but
    costs nothing, so `runs` and the JSON never call it billable. Here, not on RunState:
    the run's state knows its target's name, not what the target is."""
    return state.billable_up and bool(target_class(state.target).billed)


def target_class(name: TargetName) -> Any:
    """The class implementing the target `name`: its class attributes (billed,
    worker_kind, ...) answer questions that need no settings. The one place that turns
    a target's name into its implementation."""
    if name == "aws":
        from console.targets.aws import AwsTarget

        return AwsTarget
    from console.targets.local import LocalTarget

    return LocalTarget


def target_named(settings: Settings, clients: Clients | None = None) -> Target:
    """The target `settings.target` names, in `settings.region`."""
    target: Target = target_class(settings.target)(settings, clients)
    return target


def target_for(state: RunState, settings: Settings, clients: Clients | None = None) -> Target:
    """The run's own target, in the run's own region."""
    return target_named(run_settings(state, settings), clients)
