"""Runs a command several times in a row while a CPU hog keeps every core busy.

Why: a test that waits a fixed number of seconds or counts samples passes on a quiet
laptop and fails on a loaded CI runner. Running the whole suite under a hog that spins
one process per core (at the same priority as the tests) is the check that no test
depends on timing it does not control; `make test-stress` runs it three times.

Usage: `python scripts/stress.py [--runs N] [--hogs N] -- COMMAND ...`
Prints each run's exit code and wall time, then `stress: N of N runs passed`.
Exit code: 0 when every run passed, 1 otherwise, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import time


def _spin() -> None:
    """Keeps one core busy until terminated."""
    x = 0
    while True:
        x = (x * 31 + 7) % 1_000_003


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs in a row (default: 3)")
    parser.add_argument(
        "--hogs", type=int, default=os.cpu_count() or 2, help="spinning processes (default: cores)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    hogs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.hogs)]
    for hog in hogs:
        hog.start()
    passed = 0
    try:
        for run in range(1, args.runs + 1):
            started = time.monotonic()
            code = subprocess.call(command)
            minutes, seconds = divmod(round(time.monotonic() - started), 60)
            print(f"stress: run {run} of {args.runs}: exit {code}, {minutes} min {seconds:02d} s")
            passed += code == 0
    finally:
        for hog in hogs:
            hog.terminate()
    print(f"stress: {passed} of {args.runs} runs passed under {args.hogs} CPU hogs")
    return 0 if passed == args.runs else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
