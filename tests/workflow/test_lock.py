"""One command changes a run at a time; `down` takes the run from a busy holder."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from console.workflow.errors import EXIT_STATE, StateError
from console.workflow.lock import run_lock

ROOT = Path(__file__).resolve().parents[2]
HOLDER = """
import sys, time
from pathlib import Path
from console.workflow.lock import run_lock
with run_lock(Path(sys.argv[1]), "run"):
    try:  # entered before saying "locked": the interrupt may come at once
        print("locked", flush=True)
        time.sleep(60)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
"""


def test_a_busy_run_is_refused_and_down_interrupts_the_holder(tmp_path: Path) -> None:
    run_dir = tmp_path / "hb-x"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(run_dir)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(StateError) as busy, run_lock(run_dir, "prewarm"):
            pass
        assert busy.value.code == EXIT_STATE
        assert f"process {holder.pid} is running `run`" in str(busy.value)
        started = time.monotonic()
        with run_lock(run_dir, "down", interrupt_holder=True):
            # the holder was interrupted as by Ctrl-C and let go
            assert holder.wait(10) == 0
            assert holder.stdout.readline().strip() == "interrupted"
        assert time.monotonic() - started < 30
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


def test_a_killed_holder_leaves_the_run_free(tmp_path: Path) -> None:
    run_dir = tmp_path / "hb-y"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(run_dir)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    holder.kill()
    holder.wait()
    with run_lock(run_dir, "run"):
        assert (run_dir / ".lock").read_text().startswith(str(os.getpid()))
