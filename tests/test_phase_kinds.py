"""A phase's kind is derived once, in loadgen/format/kinds/; nothing else branches on the
fields it is derived from.

Which kind a phase is (open or closed arrivals; one operation, a mix or a scenario) was
once worked out by some 70 checks of which optional fields were empty, in a dozen
modules; a new kind would have touched them all. Now `phase.kind` says it, and this scan
fails any branch (if, while, a conditional expression, an assert, a comprehension's
filter, `and`/`or`, match) on a phase's kind fields outside the kinds' own folder, as
tests/targets/test_contract.py does for a target's name.

A phase is recognised by name, as types are not in the syntax tree: `phase`, anything
ending in `.phase`, an element of something named `phases`, or a name annotated `Phase`.
"""

from __future__ import annotations

import ast
from pathlib import Path

from loadgen.format.kinds import KIND_FIELDS
from loadgen.format.playbook import Phase
from tests.test_import_graph import write_tree

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("loadgen", "format", "kinds")
"""The one folder that reads a phase's kind fields: the forms and their registry."""
SCANNED = ("loadgen", "console")


def _is_phase_type(node: ast.expr | None) -> bool:
    """An annotation naming Phase (also `Phase | None`, "Phase", module.Phase)."""
    if node is None:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return False
    if isinstance(node, ast.BinOp):
        return _is_phase_type(node.left) or _is_phase_type(node.right)
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    return name == "Phase"


def _is_phases(node: ast.expr) -> bool:
    """`phases`, `x.phases`: a list of phases."""
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
    return name == "phases"


def _loop_targets(target: ast.expr, iterable: ast.expr) -> set[str]:
    """The names a loop over phases binds to a phase (`for p in x.phases`, `for i, p in
    enumerate(x.phases)`, `for p, r in zip(x.phases, ...)`)."""
    if _is_phases(iterable) and isinstance(target, ast.Name):
        return {target.id}
    if not (isinstance(iterable, ast.Call) and isinstance(target, ast.Tuple)):
        return set()
    func = iterable.func.id if isinstance(iterable.func, ast.Name) else None
    elements = target.elts
    if func == "enumerate" and iterable.args and _is_phases(iterable.args[0]):
        return (
            {elements[1].id} if len(elements) == 2 and isinstance(elements[1], ast.Name) else set()
        )
    if func == "zip":
        return {
            t.id
            for t, a in zip(elements, iterable.args, strict=False)
            if isinstance(t, ast.Name) and _is_phases(a)
        }
    return set()


def phase_names(tree: ast.Module) -> set[str]:
    """Names the module binds to a phase (module-wide: a name is one thing in a module)."""
    names = {"phase"}
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and _is_phase_type(node.annotation):
            names.add(node.arg)
        elif (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and _is_phase_type(node.annotation)
        ):
            names.add(node.target.id)
        elif isinstance(node, ast.For | ast.comprehension):
            names |= _loop_targets(node.target, node.iter)
        elif isinstance(node, ast.Assign) and _is_phase_expr(node.value, set()):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _is_phase_expr(node: ast.expr, names: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Attribute):
        return node.attr == "phase"
    if isinstance(node, ast.Subscript):
        return _is_phases(node.value)
    return False


def _tests(tree: ast.Module) -> list[ast.expr]:
    """Every expression a branch is taken on."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            found.append(node.test)
        elif isinstance(node, ast.comprehension):
            found += node.ifs
        elif isinstance(node, ast.BoolOp):
            found.append(node)
        elif isinstance(node, ast.Match):
            found.append(node.subject)
    return found


def branches_on_kind_fields(root: Path = ROOT) -> list[str]:
    """`path:line: expression` for each branch on a phase's kind field outside the kinds."""
    found: set[str] = set()
    for package in SCANNED:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root)
            if rel.parts[: len(KINDS)] == KINDS:
                continue
            tree = ast.parse(path.read_text(), str(path))
            names = phase_names(tree)
            for test in _tests(tree):
                for node in ast.walk(test):
                    if (
                        isinstance(node, ast.Attribute)
                        and node.attr in KIND_FIELDS
                        and _is_phase_expr(node.value, names)
                    ):
                        found.add(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    return sorted(found)


def test_no_branch_on_a_phase_kind_field_outside_the_kinds() -> None:
    """The engines, the live runner, the analysis and the console ask `phase.kind`."""
    assert branches_on_kind_fields() == []


def test_the_kind_fields_are_the_phases_own() -> None:
    assert set(Phase.model_fields) >= KIND_FIELDS
    assert {"rate", "ramp", "users", "mix", "scenario", "think_s", "pacing_s"} <= KIND_FIELDS


PLANTED = """
from loadgen.format.playbook import Phase


def engine(phase):
    if phase.users is None:
        return "open"
    return "closed"


def arrivals(playbook):
    return [p for p in playbook.load.phases if p.mix is not None]


class Loop:
    def pool(self):
        return self.run.phase.max_users or 1000

    def spread(self, current: Phase | None):
        return 1.0 if current and current.pacing_s else 0.0

    def each(self, playbook):
        for i, ph in enumerate(playbook.load.phases):
            while ph.ramp:
                break
        assert playbook.load.phases[0].rate is not None


def step_words(step):
    if step.think_s:  # a step's think time, not a phase's: not a kind
        return "then think"
    return phase_name(step.scenario)
"""


def test_a_planted_branch_is_found_and_the_kinds_may_branch(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "loadgen/live/planted.py": PLANTED,
            "loadgen/format/kinds/planted_form.py": PLANTED,
            "console/render/fine.py": "def f(phase):\n    return phase.kind.engine\n",
        },
    )

    def at(text: str) -> str:
        line = next(n for n, ln in enumerate(PLANTED.splitlines(), 1) if text in ln)
        return f"loadgen/live/planted.py:{line}: {text}"

    assert branches_on_kind_fields(root) == sorted(
        at(expression)
        for expression in (
            "phase.users",
            "p.mix",
            "self.run.phase.max_users",
            "current.pacing_s",
            "ph.ramp",
            "playbook.load.phases[0].rate",
        )
    )
