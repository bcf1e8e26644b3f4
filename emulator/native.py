"""The emulator's compiled core: the same Python modules, compiled by mypyc when built.

Why compile: the endpoint's per-request work (JSON, validation, the capacity model, the
item store) is pure Python, and the per-request cost decides how far a small machine can
drive a rehearsal. mypyc compiles these very modules, type hints and all, to C
extensions: no second copy of the model to keep in step, and the pure-Python modules
stay the reference (set HOTBENCH_PURE=1 to run them).

How it stays honest: a build lands in `.native/<digest>/`, the digest covering every
compiled module's source and the interpreter's ABI. At import, `emulator/__init__.py`
looks for the build of the sources as they are now; a build of older sources is never
loaded (the modules then run as plain Python), so an edit is never shadowed by a stale
extension. The build sits beside the sources instead of over them, and the package's
`__path__` puts it first.

    python -m emulator.nativebuild build    # compile (make does this; ~1 min)
    python -m emulator.nativebuild status   # which one runs, and why
"""

from __future__ import annotations

import hashlib
import os
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPLETE = "COMPLETE"
PURE_ENV = "HOTBENCH_PURE"

NOT_COMPILED = frozenset(
    {
        "emulator/__init__.py",
        "emulator/native.py",  # this loader: it runs before any build can be found
        "emulator/nativebuild.py",  # the build itself
        "emulator/server/__init__.py",
        "emulator/eventloop.py",  # picks the event loop, once per process
        "emulator/server/serving.py",  # signal handling and threads, once per server
        "emulator/server/shapes.py",  # closures over botocore's model; plain requests skip it
        "emulator/paramsfile.py",  # reads a YAML file once per process
    }
)
"""Modules left as Python: each runs once per process or run, not once per request."""

COMPILED_ELSEWHERE = (
    "loadgen/simulation/simulate.py",
    "loadgen/simulation/aggregate.py",
    "loadgen/simulation/closed_loop.py",
    "loadgen/simulation/item_collections.py",
    "loadgen/load/scenario.py",
)
"""Modules outside the emulator compiled with it. The simulation runner reads playbooks, so
it lives in loadgen beside the live runner, but its per-tick loop drives the model as hot
as the endpoint does (compiled: about 1.2x). The closed-loop engine, the item-collection
tracker it updates and the scenario interpreter whose actions it performs run once per
simulated request, not per tick (M5's v4: 1.2 M requests, each rendered, charged,
admitted and tracked on its own), so they are compiled too (v4: about 1.7x). The
aggregate engine's busy ticks admit one route at a time, so it is compiled as well. Named by
path, never imported: the emulator still depends on nothing of loadgen, and
`loadgen/__init__.py` asks `activate` for it."""


def compiled_sources(root: Path = ROOT) -> list[str]:
    """The modules a build compiles, as sorted paths relative to `root`."""
    found = [p.relative_to(root).as_posix() for p in (root / "emulator").rglob("*.py")]
    found += [rel for rel in COMPILED_ELSEWHERE if (root / rel).is_file()]
    return sorted(p for p in found if p not in NOT_COMPILED)


def source_digest(root: Path = ROOT) -> str:
    """What a build is valid for: every compiled source, byte for byte, and the ABI."""
    digest = hashlib.sha256(sysconfig.get_config_var("EXT_SUFFIX").encode())
    for rel in compiled_sources(root):
        digest.update(rel.encode() + b"\0" + (root / rel).read_bytes() + b"\0")
    return digest.hexdigest()[:20]


def native_dir(root: Path = ROOT) -> Path:
    """Where builds live (ignored by git)."""
    return root / ".native"


def build_dir(root: Path = ROOT) -> Path:
    """Where the build of the current sources lives, once built."""
    return native_dir(root) / source_digest(root)


def find_build(root: Path = ROOT) -> tuple[Path | None, str]:
    """The build to load, or None, with the reason in words."""
    if os.environ.get(PURE_ENV):
        return None, f"pure Python ({PURE_ENV} is set)"
    if not native_dir(root).is_dir():
        return None, "pure Python (no compiled build: run `make native`)"
    try:
        wanted = build_dir(root)
    except OSError as exc:
        return None, f"pure Python (sources unreadable: {exc})"
    if (wanted / COMPLETE).is_file():
        return wanted, f"compiled by mypyc ({wanted.relative_to(root)})"
    return None, (
        "pure Python (the compiled build is of older sources: run `make native` to rebuild it)"
    )


class _State:
    """What `activate` decided, for `status()`."""

    build: Path | None = None
    reason = "pure Python (not activated)"


def activate(package_name: str, package_path: list[str]) -> None:
    """Put the compiled build of `package_name` ahead of its sources on the package's
    `__path__` (the import system then finds each compiled module's extension first and
    every other module's .py as before). Called at the top of each package __init__."""
    if package_name == "emulator":
        _State.build, _State.reason = find_build()
    build = _State.build
    if build is None:
        return
    sub = build.joinpath(*package_name.split("."))
    if sub.is_dir() and str(sub) not in package_path:
        package_path.insert(0, str(sub))
    if str(build) not in sys.path:
        sys.path.append(str(build))  # the group library the compiled modules share


def compiled() -> bool:
    """Whether the emulator's modules run compiled (mypyc classes refuse what plain
    Python classes allow, e.g. an interpreted subclass's instances)."""
    return _State.build is not None


def status() -> str:
    """Which emulator runs, e.g. 'compiled by mypyc (.native/1f2e...)'."""
    return _State.reason
