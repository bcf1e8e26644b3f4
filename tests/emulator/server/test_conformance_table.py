"""docs/emulator.md's conformance table kept true (issue 16 item 10): its operations are
the service's, its parameters botocore's, and every supported row names a test that
exists and exercises its parameter."""

from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path

import botocore
import botocore.session

from emulator.server.service import KNOWN_UNSUPPORTED, OPERATIONS, STREAM_OPERATIONS

ROOT = Path(__file__).resolve().parents[3]
TESTS = Path(__file__).resolve().parent
ROW = re.compile(r"^\| (\w+) \| ([\w()]+) \| (yes|partly|ignored|no) \| (.*?) \| (.+?) \|$")


def _rows() -> list[tuple[str, str, str, str]]:
    """(operation, parameter, supported, test) of each row of the Conformance table."""
    text = (ROOT / "docs" / "emulator.md").read_text()
    section = text.split("\n## Conformance\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith(("| Operation", "|---")):
            continue
        match = ROW.match(line)
        assert match is not None, f"malformed conformance row: {line}"
        operation, parameter, supported, _, test = match.groups()
        rows.append((operation, parameter, supported, test.strip("`")))
    return rows


def _test_sources() -> dict[str, str]:
    """The source of every test function here, by `file.py::name`."""
    out = {}
    for path in TESTS.glob("test_*.py"):
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.parse(text).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                # From its first decorator: a parametrized test names its cases there.
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                out[f"{path.name}::{node.name}"] = "\n".join(lines[first - 1 : node.end_lineno])
    return out


def test_the_table_lists_exactly_the_services_operations() -> None:
    listed = {operation for operation, *_ in _rows()}
    assert listed == set(OPERATIONS) | set(STREAM_OPERATIONS) | KNOWN_UNSUPPORTED
    for operation, parameter, supported, _ in _rows():
        if operation in KNOWN_UNSUPPORTED:
            assert (parameter, supported) == ("(all)", "no"), operation


WRITTEN_AGAINST = (1, 43)
"""The botocore minor the table was written against: with it, the table lists exactly its
request members. A newer botocore may add parameters (CI installs the newest): the table
must still name only real ones, and the new ones are reported, not failed, so a release
of botocore cannot break the build; they go into the table when the table is next read."""


def test_each_supported_operation_lists_botocores_request_members() -> None:
    session = botocore.session.get_session()
    models = {"dynamodb": session.get_service_model("dynamodb")}
    models["dynamodbstreams"] = session.get_service_model("dynamodbstreams")
    exact = tuple(int(n) for n in botocore.__version__.split(".")[:2]) <= WRITTEN_AGAINST
    rows = _rows()
    for operation in (*OPERATIONS, *STREAM_OPERATIONS):
        model = models["dynamodbstreams" if operation in STREAM_OPERATIONS else "dynamodb"]
        members = set(model.operation_model(operation).input_shape.members) or {"(none)"}
        listed = [p for o, p, _, _ in rows if o == operation]
        assert len(listed) == len(set(listed)), f"{operation}: a parameter listed twice"
        assert set(listed) <= members, f"{operation}: {set(listed) - members} are not parameters"
        if exact:
            assert set(listed) == members, operation
        elif members - set(listed):
            warnings.warn(
                f"{operation}: botocore {botocore.__version__} adds {sorted(members - set(listed))}"
                "; add them to docs/emulator.md's conformance table",
                stacklevel=1,
            )


CALLS = {"CreateTable": ("create_table", "key_table")}
"""Ways a test calls an operation beyond its boto3 method (conftest's key_table creates)."""


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def test_every_supported_row_names_a_test_that_exercises_it() -> None:
    sources = _test_sources()
    problems = []
    for operation, parameter, supported, test in _rows():
        if supported in ("ignored", "no"):
            if test != "-":
                problems.append(f"{operation}.{parameter} is {supported} but names a test")
            continue
        source = sources.get(test)
        if source is None:
            problems.append(f"{operation}.{parameter}: no test {test}")
            continue
        if parameter != "(none)" and parameter not in source:
            problems.append(f"{test} does not mention {operation}.{parameter}")
        if not any(call in source for call in CALLS.get(operation, (_snake(operation),))):
            problems.append(f"{test} does not call {operation}")
    assert problems == []
