"""Runs `make test`'s passes one after another and ends with one line per pass.

Why a script and not Make's own sequence: Make stops at the first failing command, so a
lint error hid whether the tests passed, and a failure in the compiled pass meant the
pure-Python pass never ran at all. Here every pass runs whatever the one before it did,
each pass's output streams as it comes (CI shows it live), and the end is a summary a
reader takes in at a glance: which pass failed, its pytest counts, how long it took. The
last line is `total: N passed, N failed` so a tool that reads closing lines sees the
whole run, not only the last pass.

Usage: `python scripts/passes.py 'NAME: [VAR=value ...] COMMAND ...' ... [--wait] ...`, one
argument per pass, as the Makefile writes them (the Makefile stays the one list of what
`make test` runs). A pass named `NAME&` runs in the background while the passes after it
run; its output is kept and printed as one block when it ends (two streams interleaved
line by line read as neither). `--wait` waits for every background pass started so far
before the next pass starts. Why: on a 2-core machine the mypyc build spends most of its
time on one core (mypyc itself is single-threaded), so lint, the type check and the
pure-Python pass, which need no build, run beside it instead of after it.
Exit code: 0 when every pass succeeded, 1 otherwise.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import TextIO

# pytest's closing line, e.g. "3 failed, 650 passed, 1 skipped, 2 errors in 301.2s".
_PYTEST_CLOSING = re.compile(r"^=*\s*(?P<counts>(\d+ \w+)(, \d+ \w+)*) in [\d.]+s")
_COUNT = re.compile(r"(\d+) (\w+)")


@dataclass
class PassResult:
    """One pass's outcome: its exit code, its wall time and, for pytest, its counts."""

    name: str
    returncode: int
    seconds: float
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def _counts(line: str) -> dict[str, int]:
    """The counts of pytest's closing line ('passed', 'failed', 'errors', ...)."""
    found: dict[str, int] = {}
    for number, word in _COUNT.findall(line):
        found[word.rstrip("s") if word == "errors" else word] = int(number)
    return found


def run_pass(
    name: str, argv: list[str], env: dict[str, str], out: TextIO | None = None
) -> PassResult:
    """Runs one pass, streaming its output to `out` (stdout by default), and keeps
    pytest's closing counts."""
    sink = sys.stdout if out is None else out
    started = time.monotonic()
    counts: dict[str, int] = {}
    sink.write(f"\n=== {name}: {' '.join(argv)}\n")
    sink.flush()
    with subprocess.Popen(
        argv,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        bufsize=1,
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            sink.write(line)
            sink.flush()
            match = _PYTEST_CLOSING.match(line.strip())
            if match:
                counts = _counts(match.group("counts"))
        returncode = process.wait()
    return PassResult(name, returncode, time.monotonic() - started, counts)


class BackgroundPass:
    """A pass run on a thread while the passes after it run; its output is kept in memory
    (a build's or a pytest pass's output is a few hundred lines) and printed by `join`."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str]) -> None:
        self.name = name
        self._log = io.StringIO()
        self._result: PassResult | None = None
        self._thread = threading.Thread(target=self._run, args=(argv, env), daemon=True)
        print(f"\n=== {name}: started in the background: {' '.join(argv)}", flush=True)
        self._thread.start()

    def _run(self, argv: list[str], env: dict[str, str]) -> None:
        try:
            self._result = run_pass(self.name, argv, env, self._log)
        except OSError as exc:  # e.g. the command does not exist: a failed pass, not a crash
            self._log.write(f"{self.name}: {exc}\n")
            self._result = PassResult(self.name, 127, 0.0)

    def join(self) -> PassResult:
        """Waits for the pass, prints its output, returns its result."""
        self._thread.join()
        sys.stdout.write(self._log.getvalue())
        sys.stdout.flush()
        assert self._result is not None
        return self._result


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"


def summary(results: list[PassResult], title: str = "make test") -> list[str]:
    """One line per pass, then the total in the plain closing form. `title` names the
    goal (the Makefile sets PASSES_TITLE for `make test-fast`), so a summary says which
    loop it closes."""
    lines = ["", f"=== {title}: one line per pass"]
    passed = failed = 0
    for result in results:
        status = "ok" if result.ok else f"FAILED (exit {result.returncode})"
        if result.counts:
            n_passed = result.counts.get("passed", 0)
            n_failed = result.counts.get("failed", 0) + result.counts.get("error", 0)
            passed += n_passed
            failed += n_failed
            tests = f"{n_passed} passed, {n_failed} failed"
            skipped = result.counts.get("skipped", 0)
            if skipped:
                tests += f", {skipped} skipped"
        else:
            tests = ""
        lines.append(
            f"  {result.name:<10} {status:<18} {_duration(result.seconds):>13}   {tests}".rstrip()
        )
    bad = [r.name for r in results if not r.ok]
    lines.append(f"  {'FAILED: ' + ', '.join(bad) if bad else 'every pass succeeded'}")
    lines.append(f"total: {passed} passed, {failed} failed")
    return lines


WAIT = "--wait"
"""The argument that waits for every background pass started so far."""


def parse_pass(spec: str) -> tuple[str, list[str], dict[str, str]]:
    """'compiled: A=1 pytest -q' -> ('compiled', ['pytest', '-q'], {'A': '1'})."""
    name, _, command = spec.partition(": ")
    words = shlex.split(command)
    env: dict[str, str] = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        key, _, value = words.pop(0).partition("=")
        env[key] = value
    if not name or not words:
        raise ValueError(f"a pass is 'NAME: COMMAND ...', got {spec!r}")
    return name, words, env


def run_all(argv: list[str]) -> list[PassResult]:
    """Every pass in order, background ones beside the others; results in spec order."""
    slots: list[PassResult | BackgroundPass] = []
    waiting: list[BackgroundPass] = []

    def wait_all() -> None:
        for background in waiting:
            slots[slots.index(background)] = background.join()
        waiting.clear()

    for spec in argv:
        if spec == WAIT:
            wait_all()
            continue
        name, words, env = parse_pass(spec)
        if name.endswith("&"):
            background = BackgroundPass(name[:-1], words, env)
            waiting.append(background)
            slots.append(background)
        else:
            slots.append(run_pass(name, words, env))
    wait_all()
    return [slot for slot in slots if isinstance(slot, PassResult)]


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python scripts/passes.py 'NAME: COMMAND ...' ...", file=sys.stderr)
        return 2
    try:  # every spec parsed before any pass runs: a typo fails at once, not at the end
        for spec in argv:
            if spec != WAIT:
                parse_pass(spec)
    except ValueError as err:
        print(f"passes.py: {err}", file=sys.stderr)
        return 2
    # popped, not read: the passes' own processes (test_passes runs this script) must not
    # inherit the goal's title
    title = os.environ.pop("PASSES_TITLE", "make test")
    results = run_all(argv)
    print("\n".join(summary(results, title)), flush=True)
    return 0 if all(result.ok for result in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
