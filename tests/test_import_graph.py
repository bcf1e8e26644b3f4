"""Inside each package, folders depend one way and no two modules import each other.

tests/test_layers.py keeps the three packages in order (console -> loadgen -> emulator);
this keeps the order inside them, where a circle had grown unseen (console/targets and
console/workflow imported each other through 12 files). The layers, lowest first, and why
each sits where it does: docs/architecture.md.

An import under `if TYPE_CHECKING:` is for the type checker only and is not an edge; an
import inside a function is (it runs, only later)."""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("emulator", "loadgen", "console")

LAYERS: dict[str, list[set[str]]] = {
    "loadgen": [
        {"format", "results"},
        {"load"},
        {"simulation", "live"},
        {"analysis"},
        {"runners"},
    ],
    "console": [
        {"exitcodes"},
        {"output", "interrupts"},
        {"cost"},
        {"infra", "run"},
        {"render"},
        {"targets"},
        {"workflow", "importer"},
        {"tui"},
        {"commands"},
        {"cli"},
    ],
}
"""Each package's folders (and top-level modules) from the bottom up: a folder may import
its own layer's members only if it is itself (simulation and live are beside each other,
never importing one another), and any lower layer."""


def module_name(path: Path, root: Path) -> str:
    name = ".".join(path.relative_to(root).with_suffix("").parts)
    return name.removesuffix(".__init__")


def _type_checking_only(tree: ast.Module) -> set[int]:
    """ids of the nodes under `if TYPE_CHECKING:` (an import the type checker reads)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.If):
            continue
        test = node.test
        name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
        if name == "TYPE_CHECKING":
            skipped.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return skipped


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the project modules it imports at run time (`from a import b` counts
    a.b when b is a module, else a)."""
    paths = {
        module_name(p, root): p for package in PACKAGES for p in (root / package).rglob("*.py")
    }

    def resolve(name: str) -> str | None:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = defaultdict(set)
    for name, path in paths.items():
        tree = ast.parse(path.read_text(), str(path))
        skipped = _type_checking_only(tree)
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                targets = [resolve(alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = [resolve(f"{node.module}.{alias.name}") for alias in node.names]
            else:
                continue
            graph[name].update(t for t in targets if t and t != name)
        graph.setdefault(name, set())
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def layer_of(module: str) -> tuple[str, int, str] | None:
    """(package, layer, member) of a module, or None where its package has no layers."""
    package, _, rest = module.partition(".")
    if package not in LAYERS or not rest:
        return None
    member = rest.partition(".")[0]
    for level, members in enumerate(LAYERS[package]):
        if member in members:
            return package, level, member
    raise AssertionError(f"{module}: {member!r} is in no layer of {package} (add it to LAYERS)")


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Each import from a folder to one at its own layer or above (in the same package)."""
    found = []
    for source, targets in sorted(graph.items()):
        here = layer_of(source)
        if here is None:
            continue
        for target in sorted(targets):
            there = layer_of(target)
            if there is None or there[0] != here[0] or there[2] == here[2]:
                continue
            if there[1] >= here[1]:
                found.append(f"{source} -> {target}")
    return found


def test_no_two_modules_import_each_other() -> None:
    assert circles(import_graph()) == []


def test_folders_import_only_the_layers_below() -> None:
    assert upward_imports(import_graph()) == []


def test_every_folder_has_a_layer() -> None:
    for package in LAYERS:
        members = {
            p.stem if p.is_file() else p.name
            for p in (ROOT / package).iterdir()
            if (p.is_dir() and (p / "__init__.py").exists())
            or (p.suffix == ".py" and p.name != "__init__.py")
        }
        listed = set().union(*LAYERS[package])
        assert members == listed, f"{package}: unlisted {members - listed}, gone {listed - members}"


def write_tree(tmp_path: Path, files: dict[str, str]) -> Path:
    """Files under tmp_path (a made-up tree for a scan to find something planted in)."""
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_a_circle_through_a_late_import_is_found(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "console/__init__.py": "",
            "console/run/__init__.py": "",
            "console/run/a.py": "def f():\n    from console.run.b import g\n",
            "console/run/b.py": "from console.run import a\n",
        },
    )
    assert circles(import_graph(root)) == [["console.run.a", "console.run.b"]]


def test_a_type_checking_import_is_no_circle(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "console/__init__.py": "",
            "console/run/a.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from console.run.b import B\n",
            "console/run/b.py": "from console.run.a import A\n",
        },
    )
    assert circles(import_graph(root)) == []


def test_an_import_from_a_lower_folder_up_is_found(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "console/__init__.py": "",
            "console/run/__init__.py": "",
            "console/run/state.py": "def f():\n    from console.targets import target_class\n",
            "console/targets/__init__.py": "",
            "loadgen/__init__.py": "",
            "loadgen/simulation/__init__.py": "",
            "loadgen/simulation/sim.py": "from loadgen.live import worker\n",
            "loadgen/live/__init__.py": "",
            "loadgen/live/worker.py": "",
        },
    )
    assert upward_imports(import_graph(root)) == [
        "console.run.state -> console.targets",
        "loadgen.simulation.sim -> loadgen.live.worker",
    ]
