"""The live M1 record in docs/results/ is what README.md and docs/loadgen.md show: a
table edited by hand, or a new record not copied into them, fails here."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results"


def newest_record() -> dict[str, Any]:
    """The record README.md cites (the one made on the newest commit it was copied from)."""
    cited = re.search(r"live-m1-([0-9a-f]{12})\.json", (ROOT / "README.md").read_text())
    assert cited, "README.md cites no live M1 record (benchmarks/live_m1.py makes one)"
    record: dict[str, Any] = json.loads((RESULTS / f"live-m1-{cited[1]}.json").read_text())
    return record


def live_rows(markdown: str) -> dict[tuple[str, int], str]:
    """(variant, run) -> the live column, from every `| variant | run | live | ...` row."""
    rows = re.findall(r"^\| (\w+) \| (\d) \| ([\d.]+ %) \|", markdown, re.M)
    return {(name, int(run)): live for name, run, live in rows}


def test_the_record_is_reconciled_and_names_its_commit() -> None:
    record = newest_record()
    assert re.fullmatch(r"[0-9a-f]{40}", record["provenance"]["commit"])
    assert record["provenance"]["dirty"] is False
    assert all(run["reconciled"] and run["unaccounted"] == 0 for run in record["runs"])


def test_readme_and_loadgen_docs_show_the_record() -> None:
    record = newest_record()
    expected = {
        (r["table"], r["repeat"]): f"{100 * r['throttle_rate']:.1f} %" for r in record["runs"]
    }
    commit = record["provenance"]["commit"][:12]
    for doc in (ROOT / "README.md", ROOT / "docs" / "loadgen.md"):
        text = doc.read_text()
        assert f"live-m1-{commit}.json" in text, doc
        assert live_rows(text) == expected, doc
