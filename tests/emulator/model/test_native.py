"""The compiled core (emulator/native.py): loaded only when built from the current sources,
and indistinguishable from the pure-Python modules in what it computes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from console.output import write_json
from emulator import native
from loadgen.results.records import PlaybookResult
from tests.conftest import BUILT_IN_SIMULATIONS

ROOT = Path(__file__).resolve().parents[3]
EXPECT_NATIVE = "HOTBENCH_EXPECT_NATIVE"
"""Set by `make test`, which builds first: the compiled modules must then be in use."""


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the emulator's sources, to edit."""
    shutil.copytree(
        ROOT / "emulator",
        tmp_path / "emulator",
        ignore=shutil.ignore_patterns("__pycache__", "*.so"),
    )
    return tmp_path


def _complete_build(root: Path) -> Path:
    build = native.build_dir(root)
    build.mkdir(parents=True)
    (build / native.COMPLETE).write_text("")
    return build


def test_compiled_modules_are_the_per_request_ones() -> None:
    sources = native.compiled_sources()
    assert "emulator/server/single_item.py" in sources
    assert "emulator/model.py" in sources
    assert "loadgen/simulation/closed_loop.py" in sources  # once per simulated request, like these
    assert "emulator/native.py" not in sources
    assert "emulator/server/serving.py" not in sources


def test_digest_follows_every_compiled_source_and_nothing_else(tree: Path) -> None:
    before = native.source_digest(tree)
    runner = tree / "emulator" / "server" / "serving.py"
    runner.write_text(runner.read_text() + "\n# not compiled\n")
    assert native.source_digest(tree) == before
    buckets = tree / "emulator" / "buckets.py"
    buckets.write_text(buckets.read_text() + "\n# edited\n")
    assert native.source_digest(tree) != before


def test_a_build_of_older_sources_is_never_loaded(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    build = _complete_build(tree)
    assert native.find_build(tree) == (build, f"compiled by mypyc (.native/{build.name})")
    model = tree / "emulator" / "model.py"
    model.write_text(model.read_text().replace("\n", "\n\n", 1))
    found, reason = native.find_build(tree)
    assert found is None
    assert "older sources" in reason and "make native" in reason


def test_an_unfinished_build_is_never_loaded(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(native.PURE_ENV, raising=False)
    (_complete_build(tree) / native.COMPLETE).unlink()
    assert native.find_build(tree)[0] is None


def test_pure_setting_wins_over_a_current_build(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _complete_build(tree)
    monkeypatch.setenv(native.PURE_ENV, "1")
    assert native.find_build(tree) == (None, "pure Python (HOTBENCH_PURE is set)")


def _built() -> bool:
    """A build of the current sources exists (whatever HOTBENCH_PURE says)."""
    return bool(os.environ.get(EXPECT_NATIVE)) or (native.build_dir() / native.COMPLETE).is_file()


def _module_file(module: str, pure: bool) -> str:
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    if pure:
        env[native.PURE_ENV] = "1"
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import {module} as m, emulator.native as n; print(m.__file__); print(n.status())",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return out.stdout


def test_modules_load_from_the_build_when_current_and_from_source_when_pure() -> None:
    pure = _module_file("emulator.server.single_item", pure=True)
    assert pure.splitlines()[0] == str(ROOT / "emulator/server/single_item.py")
    if not _built():
        pytest.skip("no compiled build of the current sources (make test builds one)")
    file, status = _module_file("emulator.server.single_item", pure=False).splitlines()
    assert file.startswith(str(ROOT / ".native")) and file.endswith(".so"), file
    assert status.startswith("compiled by mypyc")
    # not compiled: still its source, beside the compiled modules it drives
    assert _module_file("emulator.server.serving", pure=False).splitlines()[0].endswith(".py")


def _simulated_in_child(
    playbook: str, pure: bool, out: Path, engine: str = "per-request"
) -> dict[str, Any]:
    """`hotbench simulate PLAYBOOK --json` in a process of its own, pure or compiled, on
    `engine` (per request by default, as `built_in_simulation` runs the playbooks)."""
    env = {k: v for k, v in os.environ.items() if k != native.PURE_ENV}
    if pure:
        env[native.PURE_ENV] = "1"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "console.cli",
            "simulate",
            f"playbooks/{playbook}",
            "--engine",
            engine,
            "--json",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        check=True,
        timeout=300,
    )
    result: dict[str, Any] = json.loads(out.read_text())
    return result


@pytest.mark.slow(realtime=False)  # CPU only: not in the live group
@BUILT_IN_SIMULATIONS  # the compiled side is test_fidelity's simulation of M1
@pytest.mark.parametrize(
    "playbook",
    [
        "hot-partition.yaml",  # open rates: loadgen/simulation/simulate.py's grouped ticks
        # a closed loop of users, transactions and retries: loadgen/simulation/closed_loop.py
        "checkout-hot-item.yaml",
    ],
)
def test_compiled_and_pure_simulations_agree_to_the_last_digit(
    tmp_path: Path, playbook: str, built_in_simulation: Callable[[str], PlaybookResult]
) -> None:
    """The pure modules in a process of their own against the compiled ones: this
    process's simulation when it runs compiled (`make test`'s compiled pass: the one
    test_fidelity compares with its golden file, simulated once for both), else a
    compiled process of its own. Both through the JSON `hotbench simulate --json`
    writes."""
    if not _built():
        pytest.skip("no compiled build of the current sources (make test builds one)")
    if native.compiled():
        shared = built_in_simulation(playbook.removesuffix(".yaml")).to_json()
        write_json(tmp_path / "compiled.json", shared)  # what `simulate --json` writes
        compiled = json.loads((tmp_path / "compiled.json").read_text())
    else:
        compiled = _simulated_in_child(playbook, False, tmp_path / "compiled.json")
    pure = _simulated_in_child(playbook, True, tmp_path / "pure.json")
    outputs = []
    for result in (compiled, pure):
        del result["started_at"], result["wall_s"]  # when and how fast: all else must agree
        outputs.append(result)
    assert outputs[0] == outputs[1]


@pytest.mark.slow(realtime=False)  # CPU only: not in the live group
def test_compiled_and_pure_aggregate_engines_agree_to_the_last_digit(tmp_path: Path) -> None:
    """The aggregate engine (compiled beside the model: emulator/native.py) draws and
    admits alike compiled and pure: M1's open rates, each in a process of its own."""
    if not _built():
        pytest.skip("no compiled build of the current sources (make test builds one)")
    outputs = []
    for pure in (False, True):
        result = _simulated_in_child(
            "hot-partition.yaml", pure, tmp_path / f"{pure}.json", engine="aggregate"
        )
        del result["started_at"], result["wall_s"]
        outputs.append(result)
    assert outputs[0] == outputs[1]
