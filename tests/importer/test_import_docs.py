"""docs/import.md stays true: its policy is the permission list's, its permission table
names every action, and its worked examples are what the command prints."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from console.cli import main
from console.importer.permissions import IMPORT_PERMISSIONS, import_policy
from console.targets.preflight import principal_arn
from tests.conftest import ROOT

DOC = (ROOT / "docs" / "import.md").read_text()


def _blocks(language: str) -> list[str]:
    """The fenced blocks of the doc in `language` ("" for plain ones)."""
    out: list[str] = []
    inside: list[str] | None = None
    for line in DOC.splitlines():
        if line.startswith("```"):
            if inside is None:
                inside = [] if line[3:].strip() == language else None
                if inside is None:
                    inside = ["<other>"]
            else:
                if inside[:1] != ["<other>"]:
                    out.append("\n".join(inside) + "\n")
                inside = None
        elif inside is not None:
            inside.append(line)
    return out


def test_the_documented_policy_is_the_permission_list() -> None:
    (policy,) = _blocks("json")
    assert json.loads(policy) == import_policy()


def test_the_permission_table_names_every_action() -> None:
    for p in IMPORT_PERMISSIONS:
        assert f"| `{p.action}` |" in DOC, p.action


def test_an_assumed_role_is_simulated_as_its_role() -> None:
    assert (
        principal_arn("arn:aws:sts::123456789012:assumed-role/Ops/me")
        == "arn:aws:iam::123456789012:role/Ops"
    )
    assert (
        principal_arn("arn:aws:iam::123456789012:user/ana") == "arn:aws:iam::123456789012:user/ana"
    )


EXAMPLES = [b for b in _blocks("") if b.startswith("$ hotbench import")]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda b: b.split("\n", 1)[0][:70])
def test_the_worked_examples_are_what_the_command_prints(
    example: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    no_aws_credentials: None,
) -> None:
    command, *shown = example.rstrip("\n").split("\n")
    argv = shlex.split(command.removeprefix("$ hotbench "))
    out = None
    if "--out" in argv:
        out = tmp_path / argv[argv.index("--out") + 1]
        argv[argv.index("--out") + 1] = str(out)
    monkeypatch.chdir(ROOT)
    assert main(argv) == 0
    printed = capsys.readouterr().out.rstrip("\n").split("\n")
    if out is not None:
        printed = [line.replace(f"{tmp_path}/", "") for line in printed]
        assert (out.parent / f"{out.stem}.recorded.json").is_file()
    assert printed == shown
