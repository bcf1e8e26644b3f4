"""The local target's emulator process: a detached `hotbench emulator serve` and its tables.

The emulator runs as its own process (not inside the command), so it outlives `up` and
serves `prewarm`, `run`, `watch` and `tally` from separate commands, and survives the
CLI being killed; its pid and port are in the state, and `down` stops it.
"""

from __future__ import annotations

import contextlib
import functools
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from console.run import processes
from console.run.errors import InfraError
from console.run.hooks import Hooks
from console.run.state import EmulatorProcess, RunState, utc_now
from loadgen.live.playbook_run import LOCAL_CREDENTIALS
from loadgen.live.resultstore import make_client

if TYPE_CHECKING:
    import httpx

    from emulator.emulator_options import EmulatorOptions

EMULATOR_MARKER = "emulator serve --port"
"""In the emulator's command line: how a recorded pid is recognised as ours."""
START_TIMEOUT_S = 60.0
"""The compiled core loads in a second; the pure-Python emulator on a loaded machine in
a few. A minute is far beyond either and still fails a broken start clearly."""
PORT_ATTEMPTS = 3


def marker(port: int) -> str:
    """The trailing space tells port 80 from 8000 (the scale always follows the port)."""
    return f"{EMULATOR_MARKER} {port} "


def emulator_argv(port: int, options: EmulatorOptions) -> list[str]:
    return ["-m", "console.cli", "emulator", "serve", "--port", str(port), *options.argv()]


@functools.cache
def http() -> httpx.Client:
    """The process's one HTTP client for the emulator's endpoint. Why one: `httpx.get`
    builds a client, and with it an SSL context from the CA bundle, on every call (35 ms of
    CPU here), and `up` polls `healthy` ten times a second while the emulator starts; a
    kept client costs that once and keeps its connection. httpx documents a Client as
    shareable between threads (the TUI calls it from its workers). httpx is imported here,
    not at the top: it costs 0.23 s of CPU, and most commands never call the emulator."""
    import httpx

    return httpx.Client(timeout=10)


def healthy(endpoint: str, timeout_s: float = 1.0) -> bool:
    import httpx

    try:
        response = http().get(endpoint + "/", timeout=timeout_s)
    except httpx.HTTPError:
        return False
    return response.status_code == 200 and "hotbench emulator" in response.text


def start_emulator(run_dir: Path, options: EmulatorOptions, hooks: Hooks) -> EmulatorProcess:
    """Start the emulator detached on a free loopback port and wait until it answers."""
    log = run_dir / "emulator.log"
    last_error = ""
    for _attempt in range(PORT_ATTEMPTS):
        port = processes.free_loopback_port()
        argv = emulator_argv(port, options)
        pid = processes.spawn_detached(argv, log)
        emu = EmulatorProcess(
            pid=pid,
            port=port,
            scale=1.0 if options.scale is None else options.scale,
            started_at=utc_now(),
            log_path=str(log),
            store=options.store,
        )
        hooks.say(f"emulator starting on {emu.endpoint} (pid {pid}, log {log})")
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if healthy(emu.endpoint):
                return emu
            processes.reap_child(pid)
            if not processes.is_ours(pid, marker(port)):
                break
            time.sleep(0.1)
        processes.stop(pid, marker(port))
        last_error = _log_tail(log)
    raise InfraError(
        f"the emulator did not start (log {log}): {last_error or 'no output'}; "
        "try `hotbench emulator serve --port 0` to see why"
    )


def _log_tail(log: Path, lines: int = 3) -> str:
    with contextlib.suppress(OSError):
        return " | ".join(log.read_text(errors="replace").strip().splitlines()[-lines:])
    return ""


def emulator_alive(emu: EmulatorProcess | None) -> bool:
    return emu is not None and processes.is_ours(emu.pid, marker(emu.port))


def stop_emulator(emu: EmulatorProcess) -> bool:
    """True when it is gone."""
    return processes.stop(emu.pid, marker(emu.port))


def client(state: RunState) -> Any:
    """A DynamoDB client on the run's emulator, with fixed local credentials (a
    developer's real AWS credentials are never sent to it)."""
    if state.emulator is None:
        raise InfraError(f"run {state.run_id} has no emulator recorded")
    return make_client(state.emulator.endpoint, state.region, LOCAL_CREDENTIALS)


def _view(emu: EmulatorProcess, path: str, params: dict[str, Any]) -> dict[str, Any] | None:
    """One of the emulator's /_hotbench JSON views; None when it cannot be read, since these
    only feed displays and pre-warming decisions that go on without them."""
    import httpx

    try:
        response = http().get(emu.endpoint + path, params=params, timeout=5)
        response.raise_for_status()
        data: dict[str, Any] = response.json()
        return data
    except (httpx.HTTPError, ValueError):
        return None


def partitions(emu: EmulatorProcess, table: str) -> dict[str, Any] | None:
    """The emulator's partition map of `table` (None when it cannot be read)."""
    return _view(emu, "/_hotbench/partitions", {"table": table})


def metrics(emu: EmulatorProcess, seconds: int = 5) -> dict[str, Any] | None:
    """The emulator's per-second metrics of the last `seconds` (None when unreadable)."""
    return _view(emu, "/_hotbench/metrics", {"seconds": seconds})
