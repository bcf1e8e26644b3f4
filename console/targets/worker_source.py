"""The worker image's build context: the files loadgen/Dockerfile copies, as one archive.

A local builder (docker, podman, finch) builds from this context unpacked, CodeBuild from
the same archive uploaded to S3, so both build the same files. The archive is
deterministic (sorted names, fixed timestamps and modes), so its SHA-256 names the
sources: the image tag `src-<first 12 hex>` says which sources an image was built from,
and a repository that already holds that tag needs no second build.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
DOCKERFILE: Final = "loadgen/Dockerfile"
"""Relative to the context's root, as `docker build -f` and the buildspec name it."""
FILES: Final = ("pyproject.toml", "README.md")
PACKAGES: Final = ("loadgen", "emulator", "console")
"""What the Dockerfile COPYs: the packaging files and the three packages (the worker
imports loadgen and emulator; `pip install .` needs console to exist as a package)."""
SKIPPED_SUFFIXES: Final = (".pyc", ".pyo", ".so", ".c", ".html")
"""Build products of a checkout (bytecode, a compiled emulator and its C and annotation
files): the image compiles nothing and must not carry the operator's machine's binaries."""
FIXED_TIME: Final = (1980, 1, 1, 0, 0, 0)
"""The earliest time a zip entry can hold: the same bytes whenever it is made."""


@dataclass(frozen=True)
class SourceArchive:
    """The context as zip bytes, and what names it."""

    data: bytes
    sha256: str
    files: tuple[str, ...]

    @property
    def tag(self) -> str:
        """The image tag of these sources (ECR tags: up to 300 of [A-Za-z0-9_.-])."""
        return f"src-{self.sha256[:12]}"

    @property
    def key(self) -> str:
        """Where the archive lives in the run's source bucket."""
        return f"worker-source/{self.sha256[:12]}.zip"


def worker_files(root: Path = ROOT) -> Iterator[str]:
    """Every file of the context, relative to `root`, sorted."""
    names: list[str] = [f for f in FILES if (root / f).is_file()]
    for package in PACKAGES:
        for path in (root / package).rglob("*"):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            if path.suffix in SKIPPED_SUFFIXES:
                continue
            names.append(path.relative_to(root).as_posix())
    yield from sorted(names)


def source_archive(root: Path = ROOT) -> SourceArchive:
    """The context of `root` as a deterministic zip (zipfile: the format CodeBuild
    unpacks from S3, https://docs.aws.amazon.com/codebuild/latest/userguide/create-project.html)."""
    files = tuple(worker_files(root))
    if DOCKERFILE not in files:
        raise FileNotFoundError(f"{root / DOCKERFILE} is missing: the worker image needs it")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in files:
            info = zipfile.ZipInfo(name, FIXED_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, (root / name).read_bytes())
    data = buffer.getvalue()
    return SourceArchive(data, hashlib.sha256(data).hexdigest(), files)


def unpack(archive: SourceArchive, into: Path) -> Path:
    """The context as a folder (a local builder reads a directory)."""
    with zipfile.ZipFile(io.BytesIO(archive.data)) as opened:
        opened.extractall(into)
    return into
