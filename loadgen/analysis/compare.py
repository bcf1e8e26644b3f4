"""Two results of the same playbook, figure by figure, against stated tolerances.

Used by `hotbench compare` (simulated against live, emulator against AWS, before against
after a change) and by `hotbench calibrate` for its residuals. Result A is the reference:
differences are B - A, and a tolerance is A's where A states one (a reference file
does), else B's, else the default for the figure's kind (loadgen.analysis.figures).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loadgen.analysis.figures import Figure, Tolerance, by_key, residual, tolerance_for


class CompareError(ValueError):
    """Two documents that cannot be compared; the message says why and what to give."""


@dataclass(frozen=True)
class Row:
    """One figure in both results."""

    a: Figure
    b: Figure
    tolerance: Tolerance
    residual: float
    """(b - a) in tolerances."""

    @property
    def within(self) -> bool:
        return abs(self.residual) <= 1.0

    @property
    def difference(self) -> float | None:
        if self.a.value is None or self.b.value is None:
            return None
        return self.b.value - self.a.value

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.a.run,
            "scope": self.a.scope,
            "figure": self.a.name,
            "a": self.a.value,
            "b": self.b.value,
            "difference": self.difference,
            "tolerance": {"abs": self.tolerance.abs, "rel": self.tolerance.rel},
            "residual": round(self.residual, 4),
            "within": self.within,
        }


@dataclass
class Comparison:
    """Every figure both results carry, and those only one does."""

    playbook: str
    a_label: str
    b_label: str
    rows: list[Row] = field(default_factory=list)
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)

    @property
    def outside(self) -> list[Row]:
        return [r for r in self.rows if not r.within]

    @property
    def agree(self) -> bool:
        return bool(self.rows) and not self.outside

    def verdict(self) -> str:
        if not self.rows:
            return "NOTHING TO COMPARE: the two results share no figure"
        if self.agree:
            return f"AGREE: all {len(self.rows)} figures within tolerance"
        worst = max(self.outside, key=lambda r: abs(r.residual))
        return (
            f"DIFFER: {len(self.outside)} of {len(self.rows)} figures outside tolerance "
            f"(worst {worst.a.key}: {_show(worst.a.value)} vs {_show(worst.b.value)}, "
            f"{worst.residual:+.1f} tolerances)"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "hotbench.compare/1",
            "playbook": self.playbook,
            "a": self.a_label,
            "b": self.b_label,
            "agree": self.agree,
            "verdict": self.verdict(),
            "figures": [r.to_json() for r in self.rows],
            "only_in_a": self.only_a,
            "only_in_b": self.only_b,
        }


def _show(value: float | None) -> str:
    return "none" if value is None else f"{value:,.4g}"


def describe(document: dict[str, Any]) -> str:
    """ "run on local", "simulate on model", "reference M1" ..."""
    if "reference" in document:
        return f"reference {document['reference'].get('id', '')}".strip()
    return f"{document.get('mode', '?')} on {document.get('target') or '?'}"


def check_result(document: Any, where: str) -> dict[str, Any]:
    if not isinstance(document, dict) or document.get("format") != "hotbench.result/1":
        raise CompareError(
            f"{where} is not a hotbench result (format hotbench.result/1, docs/results.md); "
            "give a file written by `--json` or one of docs/reference-results/"
        )
    return document


def compare(
    a: dict[str, Any], b: dict[str, Any], a_label: str = "A", b_label: str = "B"
) -> Comparison:
    """B against A, figure by figure (A is the reference)."""
    if a.get("playbook") != b.get("playbook"):
        raise CompareError(
            f"the results are of different playbooks ({a.get('playbook')!r} and "
            f"{b.get('playbook')!r}); compare two results of the same playbook"
        )
    fa, fb = by_key(a), by_key(b)
    out = Comparison(str(a.get("playbook")), a_label, b_label)
    for key, figure in fa.items():
        other = fb.get(key)
        if other is None:
            out.only_a.append(key)
            continue
        tolerance = tolerance_for(figure, a, b)
        out.rows.append(Row(figure, other, tolerance, residual(figure, other, tolerance)))
    out.only_b = [k for k in fb if k not in fa]
    return out
