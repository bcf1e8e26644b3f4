"""Fleets of workers behind one interface, and the processes fleet on this machine.

A fleet only starts workers, says how many are still alive and stops them. It never
carries results: those go through the results table (loadgen.live.resultstore), so a fleet can
lose a worker without losing the run. Every fleet runs the same worker
(`loadgen.live.worker`): as processes here (`LocalFleet`), as Fargate tasks
(loadgen.live.ecs_tasks) or as Lambda invocations (loadgen.live.lambda_invokes).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Protocol


class Fleet(Protocol):
    """What the coordinator needs from a fleet."""

    def start(self, run_id: str, workers: int, env: dict[str, str]) -> None:
        """Start `workers` workers, each with `env` plus its worker index."""

    def running(self) -> int:
        """How many workers are starting or running."""

    def released(self, t0: float, admitted: list[int]) -> None:
        """The barrier let `admitted` go at wall-clock `t0`: a fleet whose workers measure
        a split run window by window (loadgen.live.windows) starts the later windows
        from this; the others have nothing to do."""

    def stop(self, reason: str) -> None:
        """Stop every worker still running (abort or teardown)."""

    def notes(self) -> list[str]:
        """Problems seen while starting or running (failed starts, exit codes)."""

    def leftovers(self) -> list[tuple[str, str]]:
        """(worker, command that stops it) for every worker that may still run, for the
        message when `stop` failed."""


class LocalFleet:
    """N worker processes on this machine (`python -m loadgen.live.worker`), for runs against
    the local emulator. Their stderr goes to log files, named in the notes on failure."""

    def __init__(
        self,
        python: str = sys.executable,
        log_dir: str | None = None,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.python = python
        self.log_dir = Path(log_dir or tempfile.mkdtemp(prefix="hotbench-workers-"))
        self.extra_env = extra_env or {}
        self.procs: dict[int, subprocess.Popen[bytes]] = {}
        self.logs: dict[int, Path] = {}

    def start(self, run_id: str, workers: int, env: dict[str, str]) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for w in range(workers):
            self.start_one(run_id, w, env)

    def start_one(self, run_id: str, worker: int, env: dict[str, str]) -> subprocess.Popen[bytes]:
        """Start one worker process (also used by tests to start a duplicate)."""
        full = {**os.environ, **self.extra_env, **env, "HOTBENCH_WORKER": str(worker)}
        log = self.log_dir / f"{run_id}-worker-{worker}-{len(self.procs)}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [self.python, "-m", "loadgen.live.worker"],
                env=full,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        if worker in self.procs and self.procs[worker].poll() is None:
            self.procs[-1 - len(self.procs)] = proc  # a duplicate: keep it reachable
        else:
            self.procs[worker] = proc
        self.logs[worker] = log
        return proc

    def kill(self, worker: int) -> None:
        """Kill one worker at once (SIGKILL: no final report), as a crash would."""
        self.procs[worker].kill()

    def running(self) -> int:
        return sum(1 for p in self.procs.values() if p.poll() is None)

    def released(self, t0: float, admitted: list[int]) -> None:
        return None  # a process measures the whole run: nothing starts later

    def stop(self, reason: str) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)

    def leftovers(self) -> list[tuple[str, str]]:
        return [
            (f"worker process {p.pid}", f"kill -9 {p.pid}")
            for p in self.procs.values()
            if p.poll() is None
        ]

    def notes(self) -> list[str]:
        out = []
        for w, proc in sorted(self.procs.items()):
            code = proc.poll()
            if code not in (None, 0) and w >= 0:
                out.append(f"worker {w} exited with code {code} (log: {self.logs.get(w)})")
        return out
