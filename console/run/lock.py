"""One command at a time changes a run: a lock file in the run folder (flock).

Two commands writing the same state would lose each other's changes (a `run` saving
after a `down` would bring deleted tables back to life). `down` is the exception that
must always get through, at its deadline too: it interrupts the holder (SIGINT, as
Ctrl-C: the holder stops its fleet and saves what it did; SIGTERM, which hotbench takes
as Ctrl-C, when the holder ignores SIGINT), then takes the lock.
The lock dies with its process, so a SIGKILLed command never leaves the run locked.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

from console.run.errors import StateError

LOCK_FILE = ".lock"
INTERRUPT_WAIT_S = 60.0


def _holder(path: Path) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        return int(path.read_text().split()[0])
    return None


@contextlib.contextmanager
def run_lock(run_dir: Path, what: str, interrupt_holder: bool = False) -> Iterator[None]:
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if not _try_lock(fd):
            holder = _holder(path)
            if not interrupt_holder or holder is None or holder == os.getpid():
                raise StateError(
                    f"run {run_dir.name} is busy: process {holder} is running "
                    f"`{_holder_step(path)}`; wait for it, or `hotbench down {run_dir.name}` "
                    "to stop it and destroy the run"
                )
            _interrupt(fd, holder)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {what}\n".encode())
        yield
    finally:
        os.close(fd)  # releases the flock


def held(run_dir: Path) -> bool:
    """Whether a live command holds the run's lock now (a step that says `running` but
    whose command was killed holds nothing: the lock died with it). Asked with a shared
    lock, taken and given back at once, so it never blocks a step; read only."""
    try:
        fd = os.open(run_dir / LOCK_FILE, os.O_RDONLY)
    except OSError:
        return False  # no lock file: no step ever held it
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # releases the shared lock if taken
    return False


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder_step(path: Path) -> str:
    with contextlib.suppress(OSError, IndexError):
        return path.read_text().split()[1]
    return "a step"


def ignores_sigint(pid: int) -> bool:
    """Whether `pid` ignores SIGINT (Linux: its SigIgn mask in /proc; elsewhere assumed
    not). A command a script starts with `&` does: POSIX shells start background commands
    without job control with SIGINT ignored, and Python then never raises
    KeyboardInterrupt, so a SIGINT would be waited on for nothing."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigIgn:"):
                return bool(int(line.split()[1], 16) >> (signal.SIGINT - 1) & 1)
    return False


def _interrupt(fd: int, holder: int) -> None:
    """Interrupt the holder, wait for the lock; SIGKILL it if it does not let go. SIGINT
    is Ctrl-C; SIGTERM, which every hotbench command takes as Ctrl-C
    (console/interrupts.py), reaches a holder that ignores SIGINT."""
    first = signal.SIGTERM if ignores_sigint(holder) else signal.SIGINT
    for sig, wait_s in ((first, INTERRUPT_WAIT_S), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(holder, sig)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if _try_lock(fd):
                return
            time.sleep(0.1)
    raise StateError(f"process {holder} holds the run and could not be stopped")
