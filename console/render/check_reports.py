"""The reports of `hotbench check`: the terminal table, JSON, Markdown and JUnit XML.

All four are drawn from the same verdicts (loadgen.analysis.criteria), advice
(loadgen.analysis.advise) and result (loadgen.results.records), so a pull-request comment, a
CI test report and the JSON archive never disagree. The JSON layout is
docs/check-report.schema.json.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from console.output import UserError
from console.render.fitted_tables import Column, fit
from loadgen.analysis.advise import TableAdvice
from loadgen.analysis.criteria import Verdict, unit_of
from loadgen.results.records import PlaybookResult

FORMAT = "hotbench.check/1"
REPORT_SUFFIXES = (".json", ".md", ".xml")
STATUS_MARK = {"pass": "PASS", "fail": "FAIL", "skipped": "SKIP"}
STATUS_STYLE = {"pass": "green", "fail": "red", "skipped": "yellow"}
MD_MARK = {"pass": "✅ pass", "fail": "❌ **fail**", "skipped": "⏭️ skipped"}


@dataclass
class CheckOutcome:
    """Everything a check produced: what the reports are drawn from."""

    playbook: str
    source: str
    """The playbook file checked."""
    result: PlaybookResult
    verdicts: list[Verdict]
    advice: list[TableAdvice]

    @property
    def passed(self) -> bool:
        return not any(v.status == "fail" for v in self.verdicts)

    @property
    def counts(self) -> dict[str, int]:
        found = Counter(v.status for v in self.verdicts)
        return {status: found.get(status, 0) for status in ("pass", "fail", "skipped")}

    def summary(self) -> str:
        """One short line: how many criteria held."""
        c, total = self.counts, len(self.verdicts)
        skipped = f", {c['skipped']} skipped" if c["skipped"] else ""
        if self.passed:
            return f"{c['pass']} of {total} criteria hold{skipped}"
        return f"{c['fail']} of {total} criteria failed{skipped}"

    def headline(self) -> str:
        c = self.counts
        total = len(self.verdicts)
        if self.passed:
            skipped = f", {c['skipped']} skipped" if c["skipped"] else ""
            return f"PASSED: {c['pass']} of {total} criteria hold{skipped}"
        failed = "; ".join(
            f"{v.criterion.name} (measured {v.measured_text}, expected {v.expected})"
            for v in self.verdicts
            if v.status == "fail"
        )
        return f"FAILED: {c['fail']} of {total} criteria: {failed}"


def check_reports(paths: list[str]) -> None:
    """Refuse an unknown report type before anything runs."""
    for path in paths:
        if Path(path).suffix.lower() not in REPORT_SUFFIXES:
            raise UserError(
                f"--report {path}: unknown report type; use a name ending in "
                f"{', '.join(REPORT_SUFFIXES)} (JSON, Markdown, JUnit XML)"
            )


def write_report(path: str, outcome: CheckOutcome) -> None:
    """Write one report, its format chosen by the file name's suffix."""
    from console.output import write_json

    suffix = Path(path).suffix.lower()
    if suffix == ".json":
        write_json(path, to_json(outcome))
        return
    text = to_markdown(outcome) if suffix == ".md" else to_junit(outcome)
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(target.suffix + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
    except OSError as exc:
        raise UserError(f"cannot write {target}: {exc.strerror}; choose another path") from None


# --- terminal --------------------------------------------------------------------------------


def verdict_tables(outcome: CheckOutcome, width: int = 1000) -> list[Table]:
    """One row a criterion: PASS/FAIL/SKIP, its name, what was measured, what was
    expected, of what; at `width` the long texts fold (console.render.fitted_tables)."""
    columns = [
        Column("", justify="left", key=True),
        Column("criterion", justify="left", key=True, fold_to=18),
        Column("measured", justify="left", rank=0, fold_to=14),
        Column("expected", justify="left", rank=1, fold_to=10),
        Column("of", justify="left", rank=2, fold_to=10),
    ]
    rows = []
    for v in outcome.verdicts:
        style = STATUS_STYLE[v.status]
        measured = v.measured_text + (f" ({v.detail})" if v.detail else "")
        rows.append(
            [
                f"[{style}]{STATUS_MARK[v.status]}[/]",
                v.criterion.name,
                measured,
                v.expected,
                v.scope,
            ]
        )
    title = (
        f"{outcome.playbook}: check ({outcome.result.mode}, target {outcome.result.target or '-'})"
    )
    return fit(title, columns, rows, width)


# --- JSON ------------------------------------------------------------------------------------


def verdict_json(v: Verdict) -> dict[str, Any]:
    return {
        "name": v.criterion.name,
        "metric": v.criterion.metric,
        "unit": unit_of(v.criterion),
        "status": v.status,
        "scope": v.scope,
        "measured": v.measured,
        "measured_text": v.measured_text,
        "expected": v.expected,
        "reference": v.reference,
        "detail": v.detail,
        "criterion": v.criterion.model_dump(mode="json", exclude_none=True),
    }


def advice_json(a: TableAdvice) -> dict[str, Any]:
    first = a.first_hit
    return {
        "table": a.table,
        "verdict": a.verdict(),
        "first_limit": None
        if first is None
        else {
            "phase": first.phase,
            "scope": first.scope,
            "limit": first.limit,
            "offered_units": round(first.offered_units, 3),
            "limit_units": round(first.limit_units, 3),
            "hot_key": None
            if first.hot_key is None
            else {
                "attribute": first.hot_key.attribute,
                "value": first.hot_key.value,
                "share": round(first.hot_key.share, 6),
            },
            "seconds_to_hit": first.seconds_to_hit,
            "fix": first.fix,
        },
        "lines": a.lines(),
    }


def to_json(outcome: CheckOutcome) -> dict[str, Any]:
    """The check report: verdicts, advice and the full result (docs/checks.md)."""
    return {
        "format": FORMAT,
        "playbook": outcome.playbook,
        "source": outcome.source,
        "mode": outcome.result.mode,
        "target": outcome.result.target,
        "passed": outcome.passed,
        "counts": outcome.counts,
        "criteria": [verdict_json(v) for v in outcome.verdicts],
        "advice": [advice_json(a) for a in outcome.advice],
        "result": outcome.result.to_json(),
    }


# --- Markdown --------------------------------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(outcome: CheckOutcome) -> str:
    """For a pull-request comment: the verdicts first, then the advice and the runs."""
    result = outcome.result
    lines = [
        f"### hotbench check `{outcome.playbook}`: "
        + ("**passed**" if outcome.passed else "**failed**"),
        "",
        f"{outcome.summary()}. Mode `{result.mode}`, target `{result.target or '-'}`"
        + (f", scale {result.scale:g}" if result.scale != 1.0 else "")
        + f", playbook `{outcome.source}`.",
        "",
        "| | criterion | measured | expected | of |",
        "|---|---|---|---|---|",
    ]
    for v in outcome.verdicts:
        measured = v.measured_text + (f" ({v.detail})" if v.detail else "")
        lines.append(
            f"| {MD_MARK[v.status]} | {_cell(v.criterion.name)} | {_cell(measured)} | "
            f"{_cell(v.expected)} | {_cell(v.scope)} |"
        )
    lines += ["", "<details><summary>Advice: the first limit each table hits</summary>", ""]
    for a in outcome.advice:
        lines += ["```", *a.lines(), "```", ""]
    lines += ["</details>", "", "<details><summary>Runs</summary>", ""]
    lines += [
        "| table | run | offered | succeeded | throttled | rate | first throttle |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for run in result.runs:
        data = run.to_json()
        first = data["first_throttle_s"]
        lines.append(
            f"| {run.table}{' (partial)' if run.partial else ''} | {run.repeat} | "
            f"{data['offered']:,} | {data['succeeded']:,} | {data['throttled']:,} | "
            f"{data['throttle_rate'] * 100:.1f} % | "
            f"{'-' if first is None else f'{first:.1f} s'} |"
        )
    lines += ["", "</details>", ""]
    return "\n".join(lines)


# --- JUnit XML -------------------------------------------------------------------------------


def to_junit(outcome: CheckOutcome) -> str:
    """One test case per criterion: a failure carries the measured value and the limit,
    a skipped one says why, so CI test views show the check like any test suite."""
    counts = outcome.counts
    suites = ET.Element("testsuites", name="hotbench check")
    suite = ET.SubElement(
        suites,
        "testsuite",
        name=f"hotbench.check.{outcome.playbook}",
        tests=str(len(outcome.verdicts)),
        failures=str(counts["fail"]),
        errors="0",
        skipped=str(counts["skipped"]),
        time=f"{outcome.result.wall_s or 0.0:.3f}",
    )
    props = ET.SubElement(suite, "properties")
    for key, value in (
        ("playbook", outcome.source),
        ("mode", outcome.result.mode),
        ("target", outcome.result.target or "-"),
        ("scale", f"{outcome.result.scale:g}"),
    ):
        ET.SubElement(props, "property", name=key, value=value)
    for v in outcome.verdicts:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"hotbench.{outcome.playbook}",
            name=v.criterion.name,
            time="0",
        )
        summary = f"measured {v.measured_text}, expected {v.expected} ({v.scope})"
        if v.status == "fail":
            failure = ET.SubElement(case, "failure", message=summary, type="CriterionFailed")
            failure.text = json.dumps(verdict_json(v), indent=2)
        elif v.status == "skipped":
            ET.SubElement(case, "skipped", message=v.detail or "not measured")
        else:
            ET.SubElement(case, "system-out").text = summary
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )
