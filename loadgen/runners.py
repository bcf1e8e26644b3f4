"""The one interface to run a playbook, in virtual time or live.

The workflow, the console and the playbook checks all ask for "this playbook's result"
and should not care whether it came from the capacity model (`SimulatedRunner`, seconds,
no HTTP) or from a fleet of workers against an endpoint (`LiveRunner`). Both return the
same `PlaybookResult`, so a result from either can be printed, compared, checked or
exported the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from emulator.params import DEFAULT_PARAMS, CapacityParams
from loadgen.format.playbook import Playbook
from loadgen.live.coordinator import Notify
from loadgen.live.playbook_run import LiveOptions, run_playbook
from loadgen.results.records import PlaybookResult
from loadgen.simulation.simulate import TICK_S, Progress, simulate


class PlaybookRunner(Protocol):
    """Runs every table run of a playbook and returns what was measured."""

    mode: str
    """"simulate" or "run": the `mode` the result carries."""

    def run(self, playbook: Playbook) -> PlaybookResult: ...


@dataclass
class SimulatedRunner:
    """The playbook through the capacity model in virtual time."""

    params: CapacityParams = DEFAULT_PARAMS
    progress: Progress | None = None
    """Where the simulation is (`SimProgress`), every few simulated seconds."""
    tick_s: float = TICK_S
    mode: str = "simulate"
    engine: str = "auto"
    """Which engine runs open-arrival phases (loadgen.simulation.simulate.ENGINES)."""
    stop: Callable[[], bool] | None = None
    """Asked every simulated second: True ends the simulation there with a partial
    result (Ctrl-C)."""

    def run(self, playbook: Playbook) -> PlaybookResult:
        return simulate(
            playbook, self.params, self.progress, self.tick_s, engine=self.engine, stop=self.stop
        )


@dataclass
class LiveRunner:
    """The playbook driven by a fleet of workers against a DynamoDB endpoint."""

    options: LiveOptions = field(default_factory=LiveOptions)
    notify: Notify | None = None
    """Progress messages (creating, seeding, workers ready, GO, ...)."""
    mode: str = "run"

    def run(self, playbook: Playbook) -> PlaybookResult:
        return run_playbook(playbook, self.options, self.notify)
