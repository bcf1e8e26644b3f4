"""Compiles the emulator's modules with mypyc into `.native/<digest>/` (see native.py).

python -m emulator.nativebuild build    # compile the current sources (~1 min)
python -m emulator.nativebuild status   # which emulator runs, and why
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from emulator.native import COMPLETE, ROOT, build_dir, compiled_sources, find_build, native_dir

MYPY_CACHE = ".mypy-cache"
"""The build's own mypy cache, in .native/. mypy 2 keeps its cache in one SQLite file, and
`make test` runs the type check (`.mypy_cache`) beside this build: sharing it failed the
build with "database is locked" (a fresh clone, 2026-12-02). Kept between builds, so a
rebuild after an edit re-checks only what changed."""

OPT_LEVEL = "1"
"""gcc's -O level for mypyc's C. -O3 (mypyc's default) cost 141 s of CPU to compile, -O2
127 s, -O1 85 s, and the compiled code ran no faster for it (2026-12-02, same sources,
one after the other on a quiet machine): the datastore benchmark's v1 19.0 s CPU at -O3,
19.4 s at -O1, v4 51.6 s and 50.6 s; the endpoint's PutItem/s 17,311 and 20,814 at -O3,
20,190 and 17,108 at -O1 (two rounds each, machine noise); `simulate ondemand-growth.yaml`
7.0-7.3 s at -O3, 5.9-6.4 s at -O1. mypyc's C is mostly calls into CPython's runtime,
which no -O level speeds up; the build runs in every fresh `make test`. Commands:
`benchmarks/simulate.py datastore`, `benchmarks/endpoint.py --targets emulator --seconds 8
--rounds 2`, each against a copy of the tree holding the other build."""


def build(root: Path = ROOT, jobs: int = 2) -> Path:
    """Compile the current sources into `.native/<digest>/`; a no-op when that exists.

    Built in a scratch folder and renamed into place only when complete, so that an
    interrupted build is never loaded; builds of older sources are removed."""
    target = build_dir(root)
    if (target / COMPLETE).is_file():
        return target
    from mypyc.build import mypycify  # dev dependency: only a build needs it
    from setuptools import Distribution

    native = native_dir(root)
    native.mkdir(exist_ok=True)
    (native / ".gitignore").write_text("*\n")
    scratch = Path(tempfile.mkdtemp(prefix="build-", dir=native))
    cwd = os.getcwd()
    try:
        os.chdir(root)  # mypyc names modules by their path from the working folder
        # mypycify passes its paths to mypy's command line, so options go in the list.
        options = ["--cache-dir", str(native / MYPY_CACHE)]
        extensions = mypycify(
            [*options, *compiled_sources(root)],
            opt_level=OPT_LEVEL,
            multi_file=True,
            target_dir=str(scratch / "c"),
        )
        dist = Distribution({"name": "hotbench-native", "ext_modules": extensions})
        dist.cmdclass["build_ext"] = _files_in_parallel(dist.get_command_class("build_ext"), jobs)
        command = dist.get_command_obj("build_ext")
        command.build_lib = str(scratch / "lib")
        command.build_temp = str(scratch / "obj")
        command.parallel = jobs
        dist.run_command("build_ext")
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    finally:
        os.chdir(cwd)
    lib = scratch / "lib"
    (lib / COMPLETE).write_text(target.name + "\n")
    if not target.exists():
        lib.rename(target)
    for old in native.iterdir():  # builds of older sources, and this build's scratch
        if old.is_dir() and old.name not in (target.name, MYPY_CACHE):
            shutil.rmtree(old, ignore_errors=True)
    return target


def _files_in_parallel(build_ext: Any, jobs: int) -> Any:
    """setuptools' build_ext, compiling an extension's C files `jobs` at a time.

    Why: its `parallel` builds extensions side by side, but mypyc puts every module's C
    in one extension (68 files, 18 MB), which distutils compiles one file after another:
    the build kept one core busy for 85 s while the other sat idle once `make test`'s
    pure pass had finished beside it. Each file goes through the compiler's own public
    `compile` call, so flags, dependency checks and errors stay distutils'."""

    class FilesInParallel(build_ext):
        def build_extensions(self) -> None:
            compile_all = self.compiler.compile

            def compile_each(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
                if len(sources) < 2:
                    return list(compile_all(sources, *args, **kwargs))
                with ThreadPoolExecutor(jobs) as pool:
                    done = pool.map(lambda one: compile_all([one], *args, **kwargs), sources)
                    return [obj for objects in done for obj in objects]

            self.compiler.compile = compile_each
            super().build_extensions()

    return FilesInParallel


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["status"]:
        reason = find_build()[1]
        print(f"emulator: {reason}")
        return 0
    if args == ["build"]:
        try:
            target = build()
        except ImportError as exc:
            print(
                f"emulator: not compiled ({exc}); install the dev extras "
                "(pip install -e '.[dev]') to compile it. Running pure Python."
            )
            return 0
        except (Exception, SystemExit) as exc:  # no compiler, say: pure Python still runs
            print(
                f"emulator: the mypyc build failed ({exc}); running pure Python. "
                "Needs gcc and the Python headers (python3-dev).",
                file=sys.stderr,
            )
            return 0
        print(f"emulator: compiled by mypyc into {target.relative_to(ROOT)}")
        return 0
    print("usage: python -m emulator.nativebuild build|status", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
