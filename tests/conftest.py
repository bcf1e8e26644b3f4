"""Shared test helpers: small playbooks built in code, the repo's paths, and the suite's
one in-process AWS (moto) and one fake Terraform, so no test file carries its own."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from textual.pilot import Pilot

    from loadgen.results.records import PlaybookResult

from console.run import processes
from loadgen.format.playbook import Playbook, parse_playbook

ROOT = Path(__file__).resolve().parent.parent
PLAYBOOKS = ROOT / "playbooks"
FAKE_TERRAFORM = ROOT / "tests" / "terraform" / "fixtures" / "fake_terraform.py"
BUILT_IN_CHECKS = [  # the built-in playbooks that carry criteria
    "prelaunch-template.yaml",
    "write-sharding.yaml",
    "gsi-hot-key.yaml",
    "warm-throughput.yaml",
    "ondemand-max.yaml",
    "auto-scaling-launch.yaml",
]


def serve_emulator(
    *flags: str, env: dict[str, str] | None = None
) -> tuple[int, subprocess.Popen[str]]:
    """`hotbench emulator serve` with these flags on a free port, pure Python (no build),
    its output (the banner first) on stdout: the port and the process (kill it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = {**(os.environ if env is None else env), "HOTBENCH_PURE": "1", "COLUMNS": "300"}
    command = [sys.executable, "-m", "console.cli", "emulator", "serve", "--port", str(port)]
    proc = subprocess.Popen(
        [*command, *flags],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    return port, proc


def make_playbook(
    tables: list[dict[str, Any]],
    attributes: dict[str, Any],
    phases: list[dict[str, Any]],
    runs: list[dict[str, Any]] | None = None,
    name: str = "test",
) -> Playbook:
    """A playbook from plain dicts, validated exactly like a YAML file."""
    load: dict[str, Any] = {"attributes": attributes, "phases": phases}
    if runs is not None:
        load["runs"] = runs
    return parse_playbook({"name": name, "tables": tables, "load": load}, "<test>")


@pytest.fixture
def playbooks_dir() -> Path:
    return PLAYBOOKS


BUILT_IN_SIMULATIONS = pytest.mark.xdist_group("built-in-simulations")
"""The pytest-xdist group of every test that reads `built_in_simulation`. A session
fixture lives once per process, and pytest-xdist spreads a module's tests over its
processes: without the group each of them simulated the built-in playbooks again (M1,
M2 and M3 take 13 CPU-seconds compiled, 3 s of it M1)."""


@pytest.fixture(scope="session")
def built_in_simulation() -> Callable[[str], PlaybookResult]:
    """`simulated(name)`: playbooks/<name>.yaml simulated with the default parameters,
    once per process for every test that asks (mark them `BUILT_IN_SIMULATIONS`). The
    result is shared: read it, never change it."""
    from loadgen.format.playbook import load_playbook
    from loadgen.simulation.simulate import simulate

    results: dict[str, PlaybookResult] = {}

    def simulated(name: str) -> PlaybookResult:
        if name not in results:
            results[name] = simulate(load_playbook(PLAYBOOKS / f"{name}.yaml"))
        return results[name]

    return simulated


@pytest.fixture
def shared_simulations(
    monkeypatch: pytest.MonkeyPatch, built_in_simulation: Callable[[str], PlaybookResult]
) -> None:
    """`hotbench simulate` of a built-in playbook (default parameters, --quiet) prints
    `built_in_simulation`'s result, the one test_fidelity compares with its golden file to
    the last digit, instead of simulating the playbook again: for tests that check what the
    command prints or writes of a result, not the simulation. Mark them
    `BUILT_IN_SIMULATIONS`."""
    import console.commands.simulate as command
    from emulator.params import DEFAULT_PARAMS
    from loadgen.format.playbook import load_playbook

    def shared(playbook: Playbook, _console: Any, quiet: bool, params: Any) -> PlaybookResult:
        assert quiet and params == DEFAULT_PARAMS
        assert playbook == load_playbook(PLAYBOOKS / f"{playbook.name}.yaml")
        return built_in_simulation(playbook.name)

    monkeypatch.setattr(command, "simulate_with_progress", shared)


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """moto in this process, with test credentials and none of the caller's AWS settings
    (a developer's real profile must never be reached)."""
    from moto import mock_aws

    for name in list(os.environ):
        if name.startswith("AWS_") or name.startswith("HOTBENCH_RUNS"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    with mock_aws():
        yield


@pytest.fixture
def no_aws_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No AWS credentials anywhere botocore looks: none of the caller's AWS_* variables,
    no shared credentials or config file, no instance metadata (a developer's real
    profile must never be reached, and the lookup must not wait on a metadata endpoint)."""
    for name in list(os.environ):
        if name.startswith("AWS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.fixture
def fake_terraform(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """An executable `terraform` that replays recorded output and logs every invocation:
    `binary` its path, `workdir` an empty stack folder, `calls()` the logged invocations,
    `tmp` the test's folder."""
    script = tmp_path / "bin" / "terraform"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE_TERRAFORM} "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    log = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_TF_LOG", str(log))
    monkeypatch.delenv("FAKE_TF_SCENARIO", raising=False)
    monkeypatch.delenv("FAKE_TF_HANDSHAKE", raising=False)
    workdir = tmp_path / "stack"
    workdir.mkdir()

    def calls() -> list[dict[str, Any]]:
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines()]

    yield {"binary": str(script), "workdir": workdir, "calls": calls, "tmp": tmp_path}


WAIT_S = 300.0
"""How long a test waits for a condition before it fails. Generous on purpose: the
condition is what a test checks, never how fast it came, and the suite must pass on a
2-core machine with both cores busy (`make test-stress`)."""


def wait_for(
    predicate: Callable[[], object], timeout_s: float = WAIT_S, poll_s: float = 0.05
) -> None:
    """Polls until `predicate()` is true; fails after `timeout_s` (a bound, not a pace)."""
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, f"condition not met within {timeout_s:.0f} s"
        time.sleep(poll_s)


async def until(pilot: Pilot[Any], ok: Callable[[], object], timeout_s: float = WAIT_S) -> None:
    """wait_for for a Textual test: pauses the pilot (the app keeps running) between polls."""
    deadline = time.monotonic() + timeout_s
    while not ok():
        assert time.monotonic() < deadline, f"condition not met within {timeout_s:.0f} s"
        await pilot.pause(0.1)


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups (its own hook)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow live tests, which measure throttling physics in real time, share one
    pytest-xdist group: they run one after another on one process, never beside each
    other, while the rest of the suite runs on the other (`make test` uses two). A slow
    test that measures nothing in real time (`@pytest.mark.slow(realtime=False)`: a fit,
    a comparison of two simulations) stays out of the group, so the scheduler can put it
    beside the live ones instead of after them."""
    for item in items:
        marker = item.get_closest_marker("slow")
        if marker is not None and marker.kwargs.get("realtime", True):
            item.add_marker(pytest.mark.xdist_group("live"))


OWNER_VARIABLE = "HOTBENCH_TEST_OWNER"
"""Set to each pytest process's pid for its session: every process a test starts inherits
it, so the session can find what its tests left running."""
LEFT_RUNNING_GRACE_S = 20.0
"""How long the end of a session waits for its processes to exit by themselves (a reaper
notices its run is down within a second or two)."""


def _left_running(owner: str) -> dict[int, tuple[str, str]]:
    """pid -> (command line, the test it was started in) of the live processes whose
    environment names `owner`."""
    found: dict[int, tuple[str, str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        pid = int(entry.name)
        environ = (processes.proc_file(pid, "environ") or b"").split(b"\0")
        if f"{OWNER_VARIABLE}={owner}".encode() not in environ:
            continue
        line = processes.cmdline(pid)
        if line is None:  # a zombie: it has exited
            continue
        started_in = [v for v in environ if v.startswith(b"PYTEST_CURRENT_TEST=")]
        found[pid] = (line, started_in[0].split(b"=", 1)[1].decode() if started_in else "?")
    return found


@pytest.fixture(scope="session", autouse=True)
def nothing_left_running() -> Iterator[None]:
    """Every process a test starts (emulators, workers, reapers, CLI commands) has ended
    by the end of the session. A leak fails the session here, named by the test that
    started it, and is killed, instead of running on after the suite (an emulator started
    twice by `up` once did, unseen, for hours)."""
    if not Path("/proc").is_dir():
        yield
        return
    owner = str(os.getpid())
    os.environ[OWNER_VARIABLE] = owner
    yield
    deadline = time.monotonic() + LEFT_RUNNING_GRACE_S
    left = _left_running(owner)
    while left and time.monotonic() < deadline:
        time.sleep(0.5)
        left = _left_running(owner)
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert not left, "left running by tests (killed now):\n" + "\n".join(
        f"  pid {pid}, started in {test}: {line}" for pid, (line, test) in left.items()
    )
