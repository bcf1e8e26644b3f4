"""The packages depend one way: console -> loadgen -> emulator.

Walks every module's imports (top level and inside functions, which is where a late
import would hide) so a reverse dependency fails here, not in a reviewer's head."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAY_NOT_IMPORT = {
    "emulator": ("loadgen", "console"),
    "loadgen": ("console",),
    "console": (),
}


def imported_packages(path: Path) -> set[tuple[str, int]]:
    """Top-level package names a module imports, with the line of each import."""
    found: set[tuple[str, int]] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update((alias.name.split(".")[0], node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add((node.module.split(".")[0], node.lineno))
    return found


def violations(package: str, root: Path = ROOT) -> list[str]:
    forbidden = MAY_NOT_IMPORT[package]
    return [
        f"{path.relative_to(root)}:{line} imports {name}"
        for path in sorted((root / package).rglob("*.py"))
        for name, line in sorted(imported_packages(path))
        if name in forbidden
    ]


@pytest.mark.parametrize("package", sorted(MAY_NOT_IMPORT))
def test_dependencies_point_one_way(package: str) -> None:
    assert violations(package) == []


def test_the_walk_finds_a_late_reverse_import(tmp_path: Path) -> None:
    module = tmp_path / "emulator" / "late.py"
    module.parent.mkdir()
    module.write_text(
        "def f():\n    from loadgen.format.playbook import Playbook\n    return Playbook\n"
    )
    assert violations("emulator", tmp_path) == ["emulator/late.py:2 imports loadgen"]
