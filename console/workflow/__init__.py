"""The operator workflow: plan, up, prewarm, run, watch, tally, down, over one run.

A run is a folder `<runs_dir>/<run-id>/` whose `state.json` (console.run.state) says
what exists, where, since when, what it cost so far and which step is next. Every step
is a blocking function of (run id or playbook, Settings, Hooks, options) that reads the
state, acts, and saves the state after each change, so any step can be resumed by
calling it again after a crash, and `down` works from the state alone.

How a UI drives it (the CLI in console/commands, the Textual console, the playbook
checks):

- Read the settings once: ``settings = load_settings(target=..., ...)``.
- Call a step on a worker thread, never on the UI thread: steps block for seconds to
  hours (Terraform, seeding, a 30-minute run). Pass ``Hooks(say=..., progress=...,
  confirm=..., cancel=event)``; the callbacks are called on that worker thread, so a UI
  marshals them to its own thread (Textual: ``app.call_from_thread``). ``confirm`` is
  asked before anything billable is created; setting ``cancel`` stops the step at the
  next safe point (it then raises KeyboardInterrupt after cleaning up what it must).
- ``watch(run_id, settings)`` is an iterator of `WatchFrame`s (one per second): iterate
  it on a worker thread too, beside a `run` on another; it only reads.
- Errors are `WorkflowError`s (a `UserError` with an exit code, errors.py): show the
  message; it names the problem and the fix.
- Read-only views (`runs`, `StateStore.load`) are cheap and safe from any thread.

Nothing here prints or reads the keyboard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from console.run.errors import (
        EXIT_AWS_DENIED,
        EXIT_INFRA,
        EXIT_LEFTOVERS,
        EXIT_REFUSED,
        EXIT_STATE,
        EXIT_USAGE,
        AwsDenied,
        ConfigError,
        CostRefused,
        CredentialsError,
        InfraError,
        LeftoversError,
        StateError,
        WorkflowError,
    )
    from console.run.hooks import Hooks, auto_yes
    from console.run.models import (
        CostLine,
        CostTally,
        DownReport,
        Leftover,
        PlannedFleet,
        PlannedIndex,
        PlannedTable,
        PlanReport,
    )
    from console.run.options import RunOptions, UpOptions, WarmTarget
    from console.run.samples import IndexSample, WatchFrame, WorkerStatus
    from console.run.settings import Settings, TargetName, load_settings
    from console.run.state import RunState, StateStore, Status, Step
    from console.workflow.steps import (
        build_image,
        check_credentials,
        down,
        plan,
        prewarm,
        run,
        runs,
        tally,
        up,
        watch,
    )

_EXPORTS = {
    "console.run.errors": (
        "EXIT_AWS_DENIED",
        "EXIT_INFRA",
        "EXIT_LEFTOVERS",
        "EXIT_REFUSED",
        "EXIT_STATE",
        "EXIT_USAGE",
        "AwsDenied",
        "ConfigError",
        "CostRefused",
        "CredentialsError",
        "InfraError",
        "LeftoversError",
        "StateError",
        "WorkflowError",
    ),
    "console.run.hooks": ("Hooks", "auto_yes"),
    "console.run.models": (
        "CostLine",
        "CostTally",
        "DownReport",
        "Leftover",
        "PlannedFleet",
        "PlannedIndex",
        "PlannedTable",
        "PlanReport",
    ),
    "console.run.options": ("RunOptions", "UpOptions", "WarmTarget"),
    "console.run.state": ("RunState", "StateStore", "Status", "Step"),
    "console.run.samples": ("IndexSample", "WatchFrame", "WorkerStatus"),
    "console.run.settings": ("Settings", "TargetName", "load_settings"),
    "console.workflow.steps": (
        "build_image",
        "check_credentials",
        "down",
        "plan",
        "prewarm",
        "run",
        "runs",
        "tally",
        "up",
        "watch",
    ),
}
"""Where each name below lives. The package imports a module on first use of one of its
names (PEP 562): importing any console.workflow module runs this file first, and eager
imports here made `hotbench runs` or the reaper import every step, the targets, the
cost model, the playbook and numpy (0.8 s of CPU) to read one state file."""

_HOME = {name: module for module, names in _EXPORTS.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # __import__, not importlib.import_module: `python -X importtime` times only the former.
    value = getattr(__import__(module, fromlist=[name]), name)
    globals()[name] = value
    return value


__all__ = sorted(_HOME)
"""Every name of the map, for `from console.workflow import *` and for readers."""
