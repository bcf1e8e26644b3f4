"""One name, one thing: no two modules share a basename and no two classes share a name
across the packages, unless the allow-list below says why they are the same thing.

Two `state.py` or two `ConfigError`s make a reader (and an import completed by an editor)
pick the wrong one; a module's name should say what it holds. A new duplicate fails here:
rename it, or add it below with the reason it is one thing seen from two places."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("emulator", "loadgen", "console")

SHARED_BASENAMES: dict[str, tuple[frozenset[str], str]] = {
    "__init__.py": (frozenset(), "every package has one; its name is the package's"),
    "advise.py": (
        frozenset({"console/commands/advise.py", "loadgen/analysis/advise.py"}),
        "`hotbench advise` (console/commands/ is named by CLI verb) over loadgen's advice",
    ),
    "simulate.py": (
        frozenset({"console/commands/simulate.py", "loadgen/simulation/simulate.py"}),
        "`hotbench simulate` (console/commands/ is named by CLI verb) over the simulation",
    ),
    "run.py": (
        frozenset({"console/commands/run.py", "console/tui/screens/run.py"}),
        "the `run` step: its CLI verb and its TUI screen (screens/ is named by step)",
    ),
    "compare.py": (
        frozenset({"console/commands/compare.py", "loadgen/analysis/compare.py"}),
        "`hotbench compare` (console/commands/ is named by CLI verb) over the comparison",
    ),
    "params.py": (
        frozenset({"console/commands/params.py", "emulator/params.py"}),
        "`hotbench params` (console/commands/ is named by CLI verb) over the parameter set",
    ),
    "optimize.py": (
        frozenset(
            {
                "console/commands/optimize.py",
                "console/tui/screens/optimize.py",
                "loadgen/analysis/optimize.py",
            }
        ),
        "`hotbench optimize`: its CLI verb and its TUI screen over the search",
    ),
}
"""Basename -> (the exact modules allowed to share it, why). `__init__.py` is any package's."""

SHARED_CLASSES: dict[str, tuple[frozenset[str], str]] = {}
"""Class name -> (the exact modules allowed to define it, why)."""


def modules(root: Path = ROOT) -> list[Path]:
    return sorted(p for package in PACKAGES for p in (root / package).rglob("*.py"))


def by_basename(root: Path = ROOT) -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for path in modules(root):
        found[path.name].add(path.relative_to(root).as_posix())
    return {name: paths for name, paths in found.items() if len(paths) > 1}


def by_class(root: Path = ROOT) -> dict[str, set[str]]:
    """Top-level classes defined in more than one module (a name a reader imports)."""
    found: dict[str, set[str]] = defaultdict(set)
    for path in modules(root):
        tree = ast.parse(path.read_text(), str(path))
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                found[node.name].add(path.relative_to(root).as_posix())
    return {name: paths for name, paths in found.items() if len(paths) > 1}


def unexplained(
    duplicates: dict[str, set[str]], allowed: dict[str, tuple[frozenset[str], str]]
) -> list[str]:
    """Each duplicate not in the allow-list, or with more modules than it allows."""
    problems = []
    for name, paths in sorted(duplicates.items()):
        if name == "__init__.py":
            continue
        allowed_paths = allowed.get(name, (frozenset(), ""))[0]
        if paths != allowed_paths:
            problems.append(f"{name}: {', '.join(sorted(paths))}")
    return problems


def stale(
    duplicates: dict[str, set[str]], allowed: dict[str, tuple[frozenset[str], str]]
) -> list[str]:
    """Allow-list entries that no longer match a duplicate (the list must stay true)."""
    return [name for name in allowed if name != "__init__.py" and name not in duplicates]


def test_no_two_modules_share_a_basename() -> None:
    problems = unexplained(by_basename(), SHARED_BASENAMES)
    assert not problems, (
        "modules sharing a basename (rename one so its name says what it holds, or list "
        f"it in SHARED_BASENAMES with the reason): {problems}"
    )


def test_no_two_classes_share_a_name() -> None:
    problems = unexplained(by_class(), SHARED_CLASSES)
    assert not problems, (
        "classes sharing a name across the packages (rename one, or list it in "
        f"SHARED_CLASSES with the reason): {problems}"
    )


def test_the_allow_lists_name_only_real_duplicates() -> None:
    assert not stale(by_basename(), SHARED_BASENAMES), "remove the entry: no longer shared"
    assert not stale(by_class(), SHARED_CLASSES), "remove the entry: no longer shared"


def test_a_new_duplicate_is_found(tmp_path: Path) -> None:
    """The checks themselves: a second state.py and a second ConfigError are reported."""
    for where in ("emulator/server", "console/workflow", "loadgen"):
        (tmp_path / where).mkdir(parents=True)
    (tmp_path / "emulator/server/state.py").write_text("class ConfigError(Exception): ...\n")
    (tmp_path / "console/workflow/state.py").write_text("class ConfigError(Exception): ...\n")
    (tmp_path / "loadgen/other.py").write_text("class Unique: ...\n")
    assert unexplained(by_basename(tmp_path), SHARED_BASENAMES) == [
        "state.py: console/workflow/state.py, emulator/server/state.py"
    ]
    assert unexplained(by_class(tmp_path), SHARED_CLASSES) == [
        "ConfigError: console/workflow/state.py, emulator/server/state.py"
    ]
