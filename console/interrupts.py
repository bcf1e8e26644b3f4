"""SIGTERM and SIGHUP handled as Ctrl-C.

CI cancels a job with SIGTERM and a closed terminal sends SIGHUP; either used to end
`hotbench` at once (exit 143), skipping the clean-up that Ctrl-C runs: the one-shot run's
`finally` that deletes its tables, a workflow step's record of where it stopped, the
messages that say what is left. Turning both into a KeyboardInterrupt subclass sends them
down the very same paths, and the exit code still says which signal it was (128 + its
number, as a shell reports it).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any, Final

from console import exitcodes

SIGNALS: Final = (signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    """A SIGTERM or SIGHUP, raised where the process was, like Ctrl-C's KeyboardInterrupt."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise(signum: int, _frame: FrameType | None) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def termination_as_interrupt() -> Iterator[None]:
    """Inside, SIGTERM and SIGHUP raise `Terminated` in the main thread; the previous
    handlers come back after (a test calling `main()` keeps its own). Signal handlers
    can only be set in the main thread: elsewhere this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    before: dict[int, Any] = {sig: signal.signal(sig, _raise) for sig in SIGNALS}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def exit_code(exc: KeyboardInterrupt) -> int:
    """130 for Ctrl-C; 143 for SIGTERM, 129 for SIGHUP (128 + the signal's number)."""
    if isinstance(exc, Terminated):
        return 128 + exc.signum
    return exitcodes.INTERRUPTED


def what(exc: KeyboardInterrupt) -> str:
    """How the interruption is named in a message."""
    return (
        f"interrupted ({signal.Signals(exc.signum).name})"
        if isinstance(exc, Terminated)
        else "interrupted"
    )


@contextlib.contextmanager
def first_interrupt_stops(on_stop: Callable[[], None] | None = None) -> Iterator[threading.Event]:
    """Inside, the first Ctrl-C sets the event instead of interrupting (`on_stop` says
    so), for work that can end cleanly at its next step with what it has (a simulation
    keeps its partial result); a second Ctrl-C interrupts at once, as usual. Signal
    handlers can only be set in the main thread: elsewhere Ctrl-C interrupts as usual."""
    stop = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def first(signum: int, frame: FrameType | None) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        if on_stop is not None:
            on_stop()

    before = signal.signal(signal.SIGINT, first)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, before)
