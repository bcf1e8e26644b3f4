"""Shared test helpers: small playbooks built in code, and the repo's paths."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from loadgen.playbook import Playbook, parse_playbook

ROOT = Path(__file__).resolve().parent.parent
PLAYBOOKS = ROOT / "playbooks"
BUILT_IN_CHECKS = [  # the built-in playbooks that carry criteria
    "prelaunch-template.yaml",
    "write-sharding.yaml",
    "gsi-hot-key.yaml",
    "warm-throughput.yaml",
    "ondemand-max.yaml",
]


def make_playbook(
    tables: list[dict[str, Any]],
    attributes: dict[str, Any],
    phases: list[dict[str, Any]],
    runs: list[dict[str, Any]] | None = None,
    name: str = "test",
) -> Playbook:
    """A playbook from plain dicts, validated exactly like a YAML file."""
    load: dict[str, Any] = {"attributes": attributes, "phases": phases}
    if runs is not None:
        load["runs"] = runs
    return parse_playbook({"name": name, "tables": tables, "load": load}, "<test>")


@pytest.fixture
def playbooks_dir() -> Path:
    return PLAYBOOKS
