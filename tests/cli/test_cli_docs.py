"""The CLI's help, docs/cli.md and the README agree.

docs/cli.md is the options reference, rendered from argparse by `render()` below: the
test fails when a flag, its default or its help changes without the reference (run
`python -m tests.cli.test_cli_docs > docs/cli.md`). Every `--flag` the README and the
docs show on a `hotbench COMMAND` line must be an option of that command, so an example
cannot keep a flag that was renamed or moved.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

import pytest

from console.cli import DefaultsHelpFormatter, build_parser, main
from tests.conftest import ROOT

HEADER = """# Command-line options

Every option of every `hotbench` command, with its default, as `hotbench COMMAND --help`
prints them (this file is rendered from the parser; `tests/cli/test_cli_docs.py` fails
when they differ). Settings marked `HOTBENCH_...` also come from the environment or
`hotbench.toml` ([docs/workflow.md](workflow.md)). Exit codes: [README](../README.md#exit-codes).
"""


def commands() -> dict[str, argparse.ArgumentParser]:
    """Every command and sub-command by its name (`emulator serve`)."""
    out: dict[str, argparse.ArgumentParser] = {}

    def walk(prefix: str, parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    full = f"{prefix} {name}".strip()
                    nested = any(isinstance(a, argparse._SubParsersAction) for a in child._actions)
                    if not nested:
                        out[full] = child
                    walk(full, child)

    walk("", build_parser())
    return out


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    formatter = DefaultsHelpFormatter(parser.prog)
    text = formatter._expand_help(action) if action.help else ""
    return " ".join(text.split()).replace("|", "\\|")


def render() -> str:
    lines = [HEADER]
    for name, parser in commands().items():
        lines.append(f"## `hotbench {name}`\n")
        positional = [a for a in parser._actions if not a.option_strings]
        if positional:
            lines.append(
                "Arguments: "
                + ", ".join(f"`{a.metavar or a.dest}` ({_help(parser, a)})" for a in positional)
                + "\n"
            )
        lines.append("| option | what it does |")
        lines.append("|---|---|")
        for action in parser._actions:
            if not action.option_strings or isinstance(action, argparse._HelpAction):
                continue
            flag = ", ".join(action.option_strings)
            if action.choices:
                flag += " {" + ",".join(str(c) for c in action.choices) + "}"
            elif action.nargs != 0:
                flag += f" {action.metavar or action.dest.upper()}"
            lines.append(f"| `{flag}` | {_help(parser, action)} |")
        lines.append("")
    return "\n".join(lines)


def test_docs_cli_md_is_the_parsers_options() -> None:
    assert (ROOT / "docs" / "cli.md").read_text() == render(), (
        "docs/cli.md is out of date: python -m tests.cli.test_cli_docs > docs/cli.md"
    )


def _command_lines(text: str) -> list[tuple[str, str]]:
    """(command, the line with its continuations) for each `hotbench COMMAND ...` in a
    fenced code block."""
    known = sorted(commands(), key=len, reverse=True)
    out: list[tuple[str, str]] = []
    blocks, inside, lang = [], False, ""
    for line in text.splitlines():
        if line.startswith("```"):
            inside, lang = not inside, line[3:].strip()
            if inside:
                blocks.append([] if lang in ("", "sh", "bash", "console") else None)
        elif inside and blocks[-1] is not None:
            blocks[-1].append(line)
    for block in blocks:
        if block is None:
            continue
        joined = "\n".join(block).replace("\\\n", " ")
        for line in joined.splitlines():
            code = line.split("#", 1)[0]
            found = re.search(r"hotbench (.+)", code)
            if found is None:
                continue
            rest = found.group(1)
            name = next((c for c in known if rest == c or rest.startswith(c + " ")), None)
            if name is not None:
                out.append((name, rest))
    return out


DOCS = ["README.md", *(f"docs/{p.name}" for p in sorted((ROOT / "docs").glob("*.md")))]


@pytest.mark.parametrize("doc", DOCS)
def test_every_flag_an_example_shows_is_an_option_of_that_command(doc: str) -> None:
    parsers = commands()
    wrong = []
    for name, line in _command_lines((ROOT / doc).read_text()):
        options = {o for a in parsers[name]._actions for o in a.option_strings}
        for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", line):
            if flag not in options:
                wrong.append(f"hotbench {name}: {flag}")
    assert not wrong, f"{doc} shows flags the command does not take: {wrong}"


def test_the_readme_shows_every_command_and_links_the_options_reference() -> None:
    readme = (ROOT / "README.md").read_text()
    shown = {name for name, _ in _command_lines(readme)}
    assert set(commands()) <= shown, set(commands()) - shown
    assert "docs/cli.md" in readme


def test_every_option_with_a_default_says_it_in_its_help() -> None:
    """Also an option that takes a value and has none unless given (`(default: none)`,
    or what happens instead: `--seconds`: when the run step ends)."""
    for name, parser in commands().items():
        for action in parser._actions:
            if not action.option_strings or isinstance(action, argparse._HelpAction):
                continue
            takes_value = action.nargs != 0
            if takes_value or action.default not in (None, False, "==SUPPRESS=="):
                if isinstance(action.default, list):
                    continue
                assert "default" in _help(parser, action), f"hotbench {name} {action.dest}"


def test_version_and_bare_hotbench(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert re.fullmatch(r"hotbench \d+\.\d+\.\d+\S*\n", capsys.readouterr().out)
    proc = subprocess.run(
        [sys.executable, "-m", "console.cli"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    for name in ("simulate", "check", "plan", "up", "run", "watch", "down", "console"):
        assert f"    {name} " in proc.stdout
    assert "error" not in proc.stderr


if __name__ == "__main__":
    sys.stdout.write(render())
