"""How a step talks to whoever drives it (the CLI, the Textual console, a test).

Steps are plain blocking functions. They never print, never read the keyboard and never
start a UI: they report through these callbacks, ask through `confirm`, and stop at the
next safe point when `cancel` is set. A UI runs a step in a worker thread (Textual:
`@work(thread=True)`) and marshals callbacks to its own thread
(`app.call_from_thread`); the CLI calls steps directly and prints from the callbacks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field


def _ignore(_text: str) -> None:
    return None


def _no_progress(_label: str, _fraction: float | None) -> None:
    return None


def _refuse(_question: str) -> bool:
    return False


@dataclass
class Hooks:
    """Callbacks of a step; every one is called on the step's thread."""

    say: Callable[[str], None] = _ignore
    """One line for the user (creating X, 3 of 4 workers ready, terraform's progress)."""
    progress: Callable[[str, float | None], None] = _no_progress
    """(what, fraction done in [0, 1] or None when unknown): a progress bar."""
    confirm: Callable[[str], bool] = _refuse
    """A yes/no question (the cost before `up`); the default refuses, so a script that
    forgot `--yes` creates nothing."""
    cancel: threading.Event = field(default_factory=threading.Event)
    """Set by the UI (or a signal handler) to ask the step to stop at the next safe point;
    the step then cleans up what it must and raises KeyboardInterrupt."""

    def check_cancel(self) -> None:
        if self.cancel.is_set():
            raise KeyboardInterrupt


def auto_yes(hooks: Hooks) -> Hooks:
    """The same hooks answering yes (`--yes`)."""
    return Hooks(
        say=hooks.say, progress=hooks.progress, confirm=lambda _q: True, cancel=hooks.cancel
    )
