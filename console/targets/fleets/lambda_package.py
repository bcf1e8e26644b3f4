"""The Lambda fleet's function package: a zip of the worker's code and its pinned
requirements, built on this machine without Docker.

The worker's dependencies are the ones the ECS image installs (loadgen/requirements-worker.txt,
pinned), as wheels for the function's platform: pip downloads manylinux wheels for the
Lambda runtime's Python (`--platform ... --only-binary=:all: --python-version 3.12
--implementation cp`, as AWS documents for a .zip with native libraries:
https://docs.aws.amazon.com/lambda/latest/dg/python-package.html) and unpacks them with
`--target`, so nothing is compiled here and nothing of this machine's Python goes in. The
unpacked dependencies are kept per requirements, platform and Python version in the
user's cache folder: the first package downloads about 41 MB from PyPI, later ones none.

Then the code: loadgen/ and emulator/ (the worker imports both), Python sources only (no
bytecode, no compiled emulator of this machine). The zip is deterministic (sorted names,
fixed times and modes), so its SHA-256 names it; Terraform's `source_code_hash` is its
base64, and a package that did not change is not uploaded again.

Lambda takes at most 50 MB zipped for a direct upload and 250 MB unzipped
(https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html): a package
over either is refused here, with the way out.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from console.run.errors import ConfigError, InfraError

ROOT: Final = Path(__file__).resolve().parents[3]
REQUIREMENTS: Final = ROOT / "loadgen" / "requirements-worker.txt"
RUNTIME: Final = "python3.12"
"""The function's runtime (terraform/modules/lambda-fleet): a managed runtime AWS keeps
patched, whose Python the wheels are chosen for."""
PYTHON_VERSION: Final = "3.12"
PLATFORMS: Final[dict[str, tuple[str, ...]]] = {
    "X86_64": ("manylinux2014_x86_64", "manylinux_2_28_x86_64"),
    "ARM64": ("manylinux2014_aarch64", "manylinux_2_28_aarch64"),
}
"""The wheels' platforms: manylinux2014 as AWS documents, and manylinux_2_28 for the
pinned numpy, whose x86_64 wheels start there (the runtime's Amazon Linux 2023 has glibc
2.34, which runs both)."""
CODE: Final = ("loadgen", "emulator")
"""The first-party packages the handler imports (tests/targets/test_lambda_fleet.py
checks it imports nothing else of this repository)."""
SKIPPED_SUFFIXES: Final = (".pyc", ".pyo", ".so", ".c", ".html", ".txt.bak")
FIXED_TIME: Final = (1980, 1, 1, 0, 0, 0)
ZIPPED_LIMIT: Final = 50 * 1024 * 1024
UNZIPPED_LIMIT: Final = 250 * 1024 * 1024


@dataclass(frozen=True)
class Package:
    """The function's zip: where it is, its SHA-256, its sizes."""

    path: Path
    sha256: bytes
    zipped_bytes: int
    unzipped_bytes: int

    @property
    def base64_sha256(self) -> str:
        """Terraform's `source_code_hash` for this zip."""
        return base64.b64encode(self.sha256).decode()


Pip = Sequence[str]
"""The pip command (`python -m pip`), its arguments follow."""


def dependencies(
    cache: Path,
    architecture: str,
    say: Callable[[str], None],
    pip: Pip = (sys.executable, "-m", "pip"),
    requirements: Path = REQUIREMENTS,
) -> Path:
    """The unpacked wheels of the pinned requirements for the runtime's platform, made
    once per requirements, platform and Python version."""
    platforms = PLATFORMS.get(architecture)
    if platforms is None:
        raise ConfigError(f"cpu_architecture {architecture}: X86_64 or ARM64")
    key = hashlib.sha256(
        requirements.read_bytes() + " ".join((PYTHON_VERSION, *platforms)).encode()
    ).hexdigest()[:16]
    site = cache / f"deps-{key}"
    if (site / ".complete").is_file():
        return site
    partial = cache / f"deps-{key}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    say(
        f"lambda: the worker's dependencies for {RUNTIME} on {architecture} (pip, manylinux "
        "wheels, once: about 41 MB from PyPI)"
    )
    argv = [
        *pip,
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-compile",
        "--no-deps",
        "--target",
        str(partial),
        "--implementation",
        "cp",
        "--python-version",
        PYTHON_VERSION,
        "--only-binary=:all:",
        *(arg for platform in platforms for arg in ("--platform", platform)),
        "-r",
        str(requirements),
    ]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        tail = "\n".join((done.stderr or done.stdout).strip().splitlines()[-5:])
        raise InfraError(
            f"could not get the worker's dependencies for the Lambda package (pip exited "
            f"{done.returncode}): {tail}; check the network to PyPI, or run with --fleet ecs"
        )
    (partial / ".complete").write_text(" ".join(argv))
    if site.exists():
        shutil.rmtree(site)
    partial.rename(site)
    return site


def package_files(site: Path, root: Path = ROOT) -> Iterator[tuple[str, Path]]:
    """(name in the zip, file) of every file of the package, sorted: the dependencies,
    then the code's Python sources."""
    found: dict[str, Path] = {}
    for path in site.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.name != ".complete":
            found[path.relative_to(site).as_posix()] = path
    for package in CODE:
        for path in (root / package).rglob("*.py"):
            if "__pycache__" in path.parts or path.name.endswith(SKIPPED_SUFFIXES):
                continue
            found[path.relative_to(root).as_posix()] = path
    yield from sorted(found.items())


def write_zip(dest: Path, files: Iterator[tuple[str, Path]]) -> Package:
    """A deterministic zip of `files` (fixed time, world-readable modes: Lambda runs the
    code as another user than the one who zipped it)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    unzipped = 0
    partial = dest.with_suffix(".partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for name, path in files:
            data = path.read_bytes()
            unzipped += len(data)
            info = zipfile.ZipInfo(name, FIXED_TIME)
            executable = path.stat().st_mode & 0o111
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    partial.replace(dest)
    blob = dest.read_bytes()
    return Package(dest, hashlib.sha256(blob).digest(), len(blob), unzipped)


def build_package(
    dest: Path,
    architecture: str,
    cache: Path,
    say: Callable[[str], None],
    pip: Pip = (sys.executable, "-m", "pip"),
    root: Path = ROOT,
) -> Package:
    """The function's zip at `dest`, from the cached dependencies and the code."""
    site = dependencies(cache, architecture, say, pip, root / "loadgen" / "requirements-worker.txt")
    package = write_zip(dest, package_files(site, root))
    mb = package.zipped_bytes / 1e6
    if package.zipped_bytes > ZIPPED_LIMIT or package.unzipped_bytes > UNZIPPED_LIMIT:
        raise ConfigError(
            f"the worker's Lambda package is {mb:,.1f} MB zipped, "
            f"{package.unzipped_bytes / 1e6:,.0f} MB unzipped: over Lambda's 50 MB / 250 MB "
            "for a function's zip; run with --fleet ecs"
        )
    say(f"lambda: package {dest.name}, {mb:,.1f} MB ({package.base64_sha256[:12]}...)")
    return package
