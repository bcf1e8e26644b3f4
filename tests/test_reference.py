"""docs/reference.md holds every published figure the fidelity tests assert, with its source.

The figures are read from tests/emulator/model/test_fidelity.py itself (its M1 tables, and
every number its M2/M3 tests compare with), so a figure added there without its published
source here fails. The repository names no file outside itself, and every anchor of reference.md the
code and docs cite is a section of the page.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference.md"
FIDELITY = ROOT / "tests" / "emulator" / "model" / "test_fidelity.py"

# Every number the M2/M3 fidelity tests use: the published text it stands for, in that
# measurement's section, or None for a tolerance, an index or a count.
M2_M3_NUMBERS: dict[float, tuple[str, str] | None] = {
    4130: ("M2", "4,130 +/- 2 writes/s"),
    0.0005: ("M2", "within 0.05 %"),
    0.9: ("M2", "0.9 to 3.8 s"),
    3.8: ("M2", "0.9 to 3.8 s"),
    12762: ("M2", "12,762 reads/s"),
    1000: ("M3", "steps of about 1,000/s"),
    360: ("M3", "full 8 minutes"),  # the test's window, 6-10 minutes, around the 8 published
    600: ("M3", "full 8 minutes"),
    2030: ("M3", "After 34 minutes"),
    6500: ("M3", "served 7,000/s"),  # 7,000 +/- 500
    7500: ("M3", "served 7,000/s"),
    # tolerances, series times and counts
    0: None,
    1: None,
    2: None,
    6: None,
    10: None,
    60: None,
    470: None,
    500: None,
    0.03: None,
    0.15: None,
}
M1_NUMBERS: dict[float, tuple[str, str] | None] = {
    480_000: ("M1", "480,000 requests in all"),
    0.81: ("M1", "about 19 % below"),  # goodGsi peak / good peak
    100: None,  # rate -> percent
    2.0: None,
    0.04: None,
    0.05: None,
    1: None,
}


def _sections() -> dict[str, str]:
    """The page's `## ` sections by their first word (M1, M2, ...)."""
    out: dict[str, str] = {}
    for block in REFERENCE.read_text(encoding="utf-8").split("\n## ")[1:]:
        out[block.split()[0].rstrip(".")] = block
    return out


def _fidelity_tree() -> ast.Module:
    return ast.parse(FIDELITY.read_text(encoding="utf-8"))


def _table(name: str) -> dict[tuple[str, int], float]:
    for node in _fidelity_tree().body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            table: dict[tuple[str, int], float] = ast.literal_eval(node.value)
            return table
    raise AssertionError(f"tests/emulator/model/test_fidelity.py defines no {name}")


def _numbers_in_tests(prefix: str) -> set[float]:
    out: set[float] = set()
    for node in _fidelity_tree().body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith(prefix):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Constant) and type(sub.value) in (int, float):
                    out.add(sub.value)
    return out


def test_m1_throttle_rates_and_peaks_are_published_in_m1() -> None:
    m1 = _sections()["M1"]
    rates, peaks = _table("M1_RATES"), _table("M1_PEAKS")
    assert len(rates) == len(peaks) == 6
    for key, rate in rates.items():
        assert f"{rate:.1f} %" in m1, (key, rate)
    for key, peak in peaks.items():
        assert f"{peak:,}/s" in m1, (key, peak)


@pytest.mark.parametrize(
    ("prefix", "known"),
    [("test_m1", M1_NUMBERS), ("test_m2", M2_M3_NUMBERS), ("test_m3", M2_M3_NUMBERS)],
)
def test_every_asserted_figure_appears_in_its_section(
    prefix: str, known: dict[float, tuple[str, str] | None]
) -> None:
    used = _numbers_in_tests(prefix)
    unknown = sorted(used - set(known))
    assert not unknown, (
        f"{prefix}* compares with {unknown}: publish each figure in docs/reference.md "
        "with its source and list it in tests/test_reference.py"
    )
    sections = _sections()
    for number in sorted(used):
        where = known[number]
        if where is not None:
            section, text = where
            assert text in sections[section], (number, section, text)


@pytest.mark.parametrize("section", ["M1", "M2", "M3", "M4"])
def test_each_measurement_names_its_source_and_date(section: str) -> None:
    text = _sections()[section]
    source = text.split("**Source**", 1)
    assert len(source) == 2, f"{section} has no **Source** paragraph"
    assert re.search(r"\b(19|20)\d\d\b", text), f"{section} gives no date"
    assert "[3P]" in source[1].split("\n\n", 1)[0], f"{section}'s source is not marked [3P]"


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _tracked_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / p for p in listed if (ROOT / p).is_file()]


def _texts() -> dict[Path, str]:
    out = {}
    for path in _tracked_files():
        try:
            out[path] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return out


def test_cited_anchors_exist() -> None:
    anchors = {
        _slug(line.lstrip("#"))
        for line in REFERENCE.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }
    cited = {
        (path.relative_to(ROOT).as_posix(), anchor)
        for path, text in _texts().items()
        for anchor in re.findall(r"reference\.md#([\w-]+)", text)
    }
    assert cited, "nothing cites docs/reference.md by anchor"
    missing = sorted((where, a) for where, a in cited if a not in anchors)
    assert not missing, f"anchors cited but not in docs/reference.md: {missing}"


def test_no_file_names_a_file_outside_the_repository() -> None:
    outside = "shared" + "/"  # spelt in two parts so this file does not name it
    offenders = [
        path.relative_to(ROOT).as_posix() for path, text in _texts().items() if outside in text
    ]
    assert not offenders, f"files naming {outside}: {offenders}"
