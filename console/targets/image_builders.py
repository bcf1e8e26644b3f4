"""A container engine on the operator's machine: docker, podman or finch, whichever is on
PATH, driven through the command line all three share (`build --platform -f -t`,
`login --username --password-stdin`, `push`).

The command line, not an SDK: podman and finch have no Python client of docker's, and the
three agree on these three verbs (docs.docker.com/reference/cli/docker/buildx/build/,
docs.podman.io/en/latest/markdown/podman-build.1.html, runfinch.com/docs/). The digest
is not read from their output (each prints it differently): ECR's DescribeImages gives
it after the push (console/targets/worker_image.py).
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from console.run.errors import InfraError

ENGINES: Final = ("docker", "podman", "finch")
"""Looked for on PATH in this order (HOTBENCH_IMAGE_BUILDER picks one)."""
PLATFORMS: Final = {"X86_64": "linux/amd64", "ARM64": "linux/arm64"}
"""The task definition's cpu_architecture -> the image platform: an arm64 image on an
X86_64 task stops with "exec format error" (docs/terraform.md#the-worker-image)."""
BUILD_TIMEOUT_S: Final = 3600.0
"""An uncached build pulls the base image and the pinned wheels: minutes, not an hour;
past it the engine is stuck, and the run's deadline still holds."""
PROBE_TIMEOUT_S: Final = 20.0
"""`<engine> info` asks the daemon (or podman's service, finch's VM); a CLI whose engine is
not running answers in well under a second, one behind a hung socket not at all."""
TAIL_LINES: Final = 15
"""How much of a failed command's output the error message carries."""


class ImageBuildFailed(InfraError):
    """The worker image could not be built or pushed (exit 7): the message names the
    step, the builder's own words and what to try."""


def platform_for(architecture: str) -> str:
    try:
        return PLATFORMS[architecture]
    except KeyError:
        raise ImageBuildFailed(
            f"no image platform for cpu_architecture {architecture!r} "
            f"(known: {', '.join(PLATFORMS)})"
        ) from None


@dataclass(frozen=True)
class LocalBuilder:
    """One engine on PATH and how to call it."""

    name: str
    """docker, podman or finch."""
    path: str
    say: Callable[[str], None] = print

    def probe(self) -> str | None:
        """None when the engine answers `info`; else why not (its last line). A docker
        CLI is often installed without a running daemon: PATH alone is not enough."""
        return _probe(self.path)

    def build(self, context: Path, reference: str, architecture: str) -> None:
        self._run(
            "build",
            [
                "build",
                "--platform",
                platform_for(architecture),
                "-f",
                str(context / "loadgen" / "Dockerfile"),
                "-t",
                reference,
                str(context),
            ],
            cwd=context,
        )

    def login(self, registry: str, password: str) -> None:
        """The ECR token on stdin, never on the command line (other users see argv)."""
        self._run(
            "login",
            ["login", "--username", "AWS", "--password-stdin", registry],
            stdin=password,
        )

    def push(self, reference: str) -> None:
        self._run("push", ["push", reference])

    def _run(
        self, step: str, args: list[str], cwd: Path | None = None, stdin: str | None = None
    ) -> None:
        tail: deque[str] = deque(maxlen=TAIL_LINES)
        try:
            proc = subprocess.Popen(
                [self.path, *args],
                cwd=cwd,
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
        except OSError as exc:
            raise ImageBuildFailed(f"{self.name} {step} could not start ({exc})") from None
        if stdin is not None and proc.stdin is not None:
            proc.stdin.write(stdin)
            proc.stdin.close()
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.rstrip()
            tail.append(line)
            if step != "login":  # login echoes nothing worth showing
                self.say(f"{self.name} {step}: {line}")
        try:
            code = proc.wait(BUILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            code = -1
        if code != 0:
            said = "\n".join(f"    {x}" for x in tail) or "    (no output)"
            raise ImageBuildFailed(
                f"{self.name} {step} failed (exit {code}):\n{said}\nfix what it says, or "
                "build inside the account instead (--image-builder codebuild), or give a "
                "built image (HOTBENCH_WORKER_IMAGE)"
            )


@functools.lru_cache(maxsize=8)
def _probe(path: str) -> str | None:
    """Asked once per process and engine (the plan, the preflight and `up` all ask)."""
    try:
        done = subprocess.run(
            [path, "info"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`{path} info` did not answer ({exc})"
    if done.returncode == 0:
        return None
    lines = [x for x in (done.stderr + done.stdout).splitlines() if x.strip()]
    return lines[-1].strip() if lines else f"`{path} info` exited {done.returncode}"


def find_local_builder(
    wanted: str | None = None,
    say: Callable[[str], None] = print,
    which: Callable[[str], str | None] = shutil.which,
) -> LocalBuilder | None:
    """The engine `wanted` (None: the first of ENGINES on PATH whose engine answers), or
    None when none is there. An engine on PATH that does not answer is skipped with a
    line saying why; one named but missing or not answering is for the caller to word
    (the probe's reason: `LocalBuilder.probe`)."""
    for name in (wanted,) if wanted else ENGINES:
        path = which(name)
        if not path:
            continue
        builder = LocalBuilder(name, path, say)
        if wanted:
            return builder
        why = builder.probe()
        if why is None:
            return builder
        say(f"image: {name} is on PATH but its engine does not answer ({why}); not used")
    return None
