"""The width the CLI draws at is the terminal's own: `hotbench simulate` run in a
pseudo-terminal of 80 and of 100 columns (the size set on the terminal, as a resized
window sets it; no COLUMNS) keeps every line within it and the table names and throttle
rates whole. test_table_widths.py holds what is drawn at a width; this holds that the
width is the terminal's (a pipe gets 200 columns, which is why the cut tables were not
seen by tests that read a pipe)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from tests.conftest import PLAYBOOKS, ROOT

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def _in_terminal(argv: list[str], columns: int, rows: int = 24) -> str:
    """What `argv` prints on a pseudo-terminal of `columns` x `rows`, colours stripped."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["TERM"] = "xterm-256color"
    proc = subprocess.Popen(
        argv, stdin=follower, stdout=follower, stderr=follower, cwd=ROOT, env=env
    )
    os.close(follower)
    out = bytearray()
    while True:  # read until the command closes its side (EIO on Linux)
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            proc.kill()
            raise AssertionError(f"no output for 120 s: {bytes(out[-400:])!r}")
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    assert proc.wait(timeout=60) == 0, bytes(out[-2000:]).decode(errors="replace")
    return ANSI.sub("", out.decode(errors="replace")).replace("\r\n", "\n")


@pytest.mark.parametrize("columns", [80, 100])
def test_simulate_draws_at_the_terminals_width(columns: int, tmp_path: Path) -> None:
    report = tmp_path / "smoke.json"
    argv = [sys.executable, "-m", "console.cli", "simulate", str(PLAYBOOKS / "smoke.yaml")]
    text = _in_terminal([*argv, "--json", str(report)], columns)
    lines = text.splitlines()
    assert max(len(line.rstrip()) for line in lines) <= columns
    assert any(len(line.rstrip()) > 60 for line in lines)  # drawn wide, not at a default
    assert "…" not in text
    for run in json.loads(report.read_text())["runs"]:
        rate = f"{run['throttled'] / max(1, run['offered']) * 100:.1f} %"
        assert any(
            re.search(rf"│ {re.escape(run['table'])}\b", line) and rate in line for line in lines
        ), f"{run['table']}: its name and {rate} are not on one line at {columns} columns"
