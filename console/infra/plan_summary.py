"""A readable summary of a saved plan (``terraform show -json <planfile>``).

Reviewers want "what kinds of things change", not 400 lines of diff: counts of creates,
updates, replacements and destroys per resource type, plus the cost estimate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ACTION_KINDS = ("create", "update", "replace", "destroy")


def action_kind(actions: list[str]) -> str | None:
    """Map Terraform's action list to one kind; ``None`` for no-op and reads."""
    if "delete" in actions and "create" in actions:
        return "replace"
    if actions == ["create"]:
        return "create"
    if actions == ["update"]:
        return "update"
    if actions == ["delete"]:
        return "destroy"
    return None


@dataclass
class TypeCounts:
    """How many resources of one type are created, updated, replaced, destroyed."""

    create: int = 0
    update: int = 0
    replace: int = 0
    destroy: int = 0

    def add(self, kind: str) -> None:
        setattr(self, kind, getattr(self, kind) + 1)

    def describe(self) -> str:
        return ", ".join(f"{getattr(self, k)} {k}" for k in ACTION_KINDS if getattr(self, k))


@dataclass
class PlanSummary:
    """Change counts per resource type of one plan."""

    by_type: dict[str, TypeCounts] = field(default_factory=dict)

    @property
    def totals(self) -> TypeCounts:
        total = TypeCounts()
        for counts in self.by_type.values():
            for kind in ACTION_KINDS:
                setattr(total, kind, getattr(total, kind) + getattr(counts, kind))
        return total

    @property
    def has_changes(self) -> bool:
        return any(getattr(self.totals, k) for k in ACTION_KINDS)

    def lines(self) -> list[str]:
        """Human-readable lines: a total, then one line per changed resource type."""
        t = self.totals
        head = (
            f"Plan: {t.create} to create, {t.update} to update, "
            f"{t.replace} to replace, {t.destroy} to destroy"
        )
        if not self.has_changes:
            return [head + " (no changes)"]
        width = max(len(name) for name in self.by_type)
        body = [
            f"  {name:<{width}}  {self.by_type[name].describe()}" for name in sorted(self.by_type)
        ]
        return [head, *body]

    def __str__(self) -> str:
        return "\n".join(self.lines())


def summarize(plan: Mapping[str, Any]) -> PlanSummary:
    """Count managed-resource changes per type; data sources and no-ops are left out."""
    summary = PlanSummary()
    for rc in plan.get("resource_changes", []) or []:
        if rc.get("mode", "managed") != "managed":
            continue
        kind = action_kind(list(rc.get("change", {}).get("actions", [])))
        if kind is None:
            continue
        summary.by_type.setdefault(str(rc.get("type", "?")), TypeCounts()).add(kind)
    return summary
