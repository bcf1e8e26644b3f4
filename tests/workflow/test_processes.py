"""How the workflow tells its own processes (emulators, workers, reapers) alive from gone:
/proc's command line, and for an empty one, the state in /proc/PID/stat."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from console.run import processes
from console.targets import emulator_process
from console.workflow import Hooks, UpOptions
from tests.conftest import wait_for

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")

SLEEPER = "import time; time.sleep(60)  # hotbench-processes-test"


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", SLEEPER])
    wait_for(lambda: "hotbench-processes-test" in (processes.cmdline(proc.pid) or ""))
    yield proc
    proc.kill()
    proc.wait()


def test_a_live_process_shows_its_command_line(sleeper: subprocess.Popen[bytes]) -> None:
    assert processes.is_ours(sleeper.pid, "hotbench-processes-test")
    assert not processes.is_ours(sleeper.pid, "emulator serve --port")


def test_a_zombie_is_gone() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    # not reaped: it stays a zombie until proc.wait()
    wait_for(lambda: processes.has_exited(proc.pid))
    assert processes.cmdline(proc.pid) is None
    assert not processes.is_ours(proc.pid, "")
    proc.wait()
    assert processes.cmdline(proc.pid) is None  # and gone once reaped


def test_an_empty_command_line_of_a_live_process_is_not_death(
    sleeper: subprocess.Popen[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a process shows between execve replacing its memory and the kernel writing
    its argv (Popen has returned by then): alive, command line unknown."""
    real = processes.proc_file
    monkeypatch.setattr(
        processes,
        "proc_file",
        lambda pid, name: b"" if name == "cmdline" else real(pid, name),
    )
    assert processes.cmdline(sleeper.pid) == ""
    assert processes.is_ours(sleeper.pid, "hotbench-processes-test")


def test_an_emulator_read_mid_exec_is_started_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`start_emulator` checks its new process at once. Read in the middle of its exec,
    the emulator was taken for dead; a second was started and the first left running."""
    real = processes.proc_file
    seen: set[int] = set()

    def first_read_mid_exec(pid: int, name: str) -> bytes | None:
        if name == "cmdline" and pid not in seen:
            seen.add(pid)
            return b""
        return real(pid, name)

    spawned: list[int] = []
    real_spawn = processes.spawn_detached

    def spawn(*args: object, **kwargs: object) -> int:
        pid = real_spawn(*args, **kwargs)  # type: ignore[arg-type]
        spawned.append(pid)
        return pid

    monkeypatch.setattr(processes, "proc_file", first_read_mid_exec)
    monkeypatch.setattr(processes, "spawn_detached", spawn)
    emu = emulator_process.start_emulator(tmp_path, UpOptions().emulator, Hooks())
    try:
        assert spawned == [emu.pid]
        assert emulator_process.healthy(emu.endpoint)
    finally:
        for pid in spawned:
            processes.stop(pid, emulator_process.EMULATOR_MARKER)
    assert not emulator_process.emulator_alive(emu)


def test_the_session_finds_what_a_test_left_running(sleeper: subprocess.Popen[bytes]) -> None:
    """The suite's own guard (tests/conftest.py, `nothing_left_running`): a process started
    under this session is found with the test that started it; once reaped, it is not."""
    import os

    from tests.conftest import OWNER_VARIABLE, _left_running

    left = _left_running(os.environ[OWNER_VARIABLE])
    assert sleeper.pid in left
    line, test = left[sleeper.pid]
    assert "hotbench-processes-test" in line
    assert "test_the_session_finds_what_a_test_left_running" in test
    sleeper.kill()
    sleeper.wait()
    assert sleeper.pid not in _left_running(os.environ[OWNER_VARIABLE])
