"""Detached processes of a run (the local emulator, the deadline reaper): start them so
they outlive the command that started them, and stop only the ones we started.

A pid alone is not proof: after a reboot, a recorded pid may belong to anything. So a
process is ours only if its command line still carries the marker we started it with
(/proc/<pid>/cmdline on Linux; elsewhere the pid's existence is all we can check).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

#: The repository root of the running code: detached children run the same sources.
CODE_ROOT = Path(__file__).resolve().parents[2]

WORKER_MARKER = "loadgen.live.worker"
"""In a worker's command line: how a recorded worker pid is recognised as ours."""


def free_loopback_port() -> int:
    """A port the kernel says is free on 127.0.0.1 now. Another process may take it
    before the emulator binds; the caller retries with a fresh port when it does."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def spawn_detached(argv: Sequence[str], log_path: Path, env: dict[str, str] | None = None) -> int:
    """Start `python argv...` in its own session (so Ctrl-C or a closed terminal does not
    reach it), output to `log_path`; returns its pid."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    full_env = {**os.environ, **(env or {})}
    full_env["PYTHONPATH"] = os.pathsep.join(
        [str(CODE_ROOT), *filter(None, [full_env.get("PYTHONPATH")])]
    )
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            [sys.executable, *argv],
            cwd=CODE_ROOT,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return proc.pid


def proc_file(pid: int, name: str) -> bytes | None:
    """/proc/PID/NAME, or None when the process does not exist; b"" when it cannot be
    read (permissions)."""
    try:
        return Path(f"/proc/{pid}/{name}").read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        return b""


def has_exited(pid: int) -> bool:
    """Whether the process is gone, or /proc/PID/stat gives state Z (exited, not reaped)
    or X (dead). The state follows the parenthesised name, which may hold spaces."""
    stat = proc_file(pid, "stat")
    if stat is None:
        return True
    fields = stat.rpartition(b")")[2].split()
    return bool(fields) and fields[0] in (b"Z", b"X")


def cmdline(pid: int) -> str | None:
    """The process's command line, or None when it does not exist (or is a zombie); ""
    when it is alive but shows none."""
    raw = proc_file(pid, "cmdline")
    if raw is None:
        return None
    if not raw:
        # Empty: a zombie, or a process in the middle of execve. Popen returns once the
        # exec has replaced the child's memory, a moment before the kernel writes the new
        # argv there (1 spawn in 200 read it empty here). `up` read that moment once, took
        # its new emulator for dead, started a second and left the first running; so only
        # the state in /proc/PID/stat says dead. Elsewhere /proc may not exist at all.
        if Path("/proc").is_dir():
            return None if has_exited(pid) else ""
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return ""
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace")


def is_ours(pid: int | None, marker: str) -> bool:
    """Whether `pid` is alive and still the process we started (its command line has
    `marker`; without /proc, alive is enough)."""
    if pid is None or pid <= 0:
        return False
    line = cmdline(pid)
    if line is None:
        return False
    return line == "" or marker in line


def reap_child(pid: int) -> None:
    """Collect the exit status if `pid` is our child (else it stays a zombie, which
    `is_ours` already treats as gone)."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)


def stop(pid: int, marker: str, grace_s: float = 5.0) -> bool:
    """SIGTERM, then SIGKILL after `grace_s`; True when the process is gone (or was not
    ours to stop)."""
    if not is_ours(pid, marker):
        return True
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        reap_child(pid)
        if not is_ours(pid, marker):
            return True
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    for _ in range(40):
        reap_child(pid)
        if not is_ours(pid, marker):
            return True
        time.sleep(0.05)
    return False
