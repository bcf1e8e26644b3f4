"""What `hotbench optimize` prints and writes: the ranked table of configurations, the
cost-versus-throttle frontier (in the terminal and as an SVG file), the summary against
the naive fix, and the report as JSON. Drawn from one OptimizeReport
(loadgen.analysis.optimize), so the terminal, the files and the console's screen agree.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

from rich.table import Table

from loadgen.analysis.criteria import Verdict
from loadgen.analysis.optimize import (
    Evaluation,
    GroupOutcome,
    OptimizeReport,
    describe_failure,
    frontier,
)

FORMAT = "hotbench.optimize/1"
MARK = {"pass": "PASS", "fail": "FAIL", "skipped": "SKIP"}
STYLE = {"pass": "green", "fail": "red", "skipped": "yellow"}


def usd(value: float) -> str:
    return f"${value:,.2f}" if value >= 1 else f"${value:,.4f}"


def ranked(group: GroupOutcome, top: int) -> list[Evaluation]:
    """The passing configurations, cheapest first, then the closest failures, `top` in
    all, each once (the search may propose a configuration again: it is simulated once,
    and shown once, by the trial that first proposed it)."""
    passing = group.passing
    failing = sorted(
        (e for e in group.evaluations if not e.passed),
        key=lambda e: (e.violation, e.costs.month_usd),
    )
    seen: set[str] = set()
    out = []
    for e in passing + failing:
        if e.words not in seen:
            seen.add(e.words)
            out.append(e)
    return out[:top]


def criteria_legend(group: GroupOutcome) -> list[str]:
    """C1, C2, ...: the criteria the table's verdict columns stand for."""
    return [f"C{i}: {v.criterion.name}" for i, v in enumerate(group.written.verdicts, 1)]


def ranked_table(group: GroupOutcome, top: int = 10) -> Table:
    """One row per configuration: rank, configuration, monthly cost, run cost, throttle
    rate, each criterion's verdict (`~`: passes by less than the model's tolerance)."""
    table = Table(title=f"{', '.join(group.tables)}: configurations, cheapest passing first")
    for name, justify in (
        ("#", "right"),
        ("configuration", "left"),
        ("per month", "right"),
        ("run", "right"),
        ("throttled", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for i, _ in enumerate(group.written.verdicts, 1):
        table.add_column(f"C{i}", justify="center")
    table.add_column("from", justify="left")
    rows = [(str(i), e) for i, e in enumerate(ranked(group, top), 1)]
    rows += [("-", group.naive), ("-", group.written)]
    for rank, e in rows:
        table.add_row(
            rank,
            e.words or "as the playbook has it",
            usd(e.costs.month_usd),
            usd(e.costs.run_usd),
            f"{e.throttle_rate * 100:.2f} %",
            *[_verdict_cell(m.verdict, m.within_tolerance) for m in e.margins],
            e.label + (" (month short)" if e.month_short else ""),
        )
    return table


def _verdict_cell(v: Verdict, close: bool) -> str:
    mark = MARK[v.status] + ("~" if close else "")
    return f"[{STYLE[v.status]}]{mark}[/]"


def summary_lines(report: OptimizeReport) -> list[str]:
    """The recommendation against the naive fix and the playbook as written, the month
    rule, what the arithmetic proved, and every honest edge."""
    out = [f"month: {report.month.words()} (optimize.month; docs/optimize.md#the-month)"]
    for g in report.groups:
        out += [
            f"{g.tables[0] if len(g.tables) == 1 else ', '.join(g.tables)}: {n}" for n in g.notes
        ]
        if g.best is None:
            out += describe_failure(g)
            continue
        best = g.best
        out.append(
            f"recommended: {best.words} at {usd(best.costs.month_usd)} a month "
            f"({usd(best.costs.run_usd)} for the run)"
            + (
                f"; reserved capacity's upfront payment {usd(best.costs.upfront_usd)} once"
                if best.costs.upfront_usd
                else ""
            )
        )
        naive = g.naive
        verdict = "passes" if naive.passed else "fails"
        saving = ""
        if naive.passed and naive.costs.month_usd > 0:
            less = (1 - best.costs.month_usd / naive.costs.month_usd) * 100
            saving = f": the recommendation costs {less:.0f} % less"
        out.append(
            f"naive fix (provisioned for the peak at 70 % utilisation): {naive.words} at "
            f"{usd(naive.costs.month_usd)} a month, {verdict} "
            f"({naive.throttle_rate * 100:.2f} % throttled){saving}"
        )
        written = g.written
        out.append(
            f"as written: {written.words} at {usd(written.costs.month_usd)} a month, "
            f"{'passes' if written.passed else 'fails'} "
            f"({written.throttle_rate * 100:.2f} % throttled)"
        )
        for m in best.flagged:
            out.append(f"margin: {m.words()}")
        if best.flagged:
            robust = next((e for e in g.passing if not e.flagged), None)
            if robust is not None:
                out.append(
                    f"cheapest beyond the model's tolerance: {robust.words} at "
                    f"{usd(robust.costs.month_usd)} a month"
                )
        out += [f"note: {n}" for n in best.costs.notes if "warm throughput" in n]
    return out


def final_lines(report: OptimizeReport) -> list[str]:
    final = report.final
    if final is None:
        return []
    failed = [m for m in final.margins if not m.passed]
    status = (
        f"PASSED: {len(final.margins)} of {len(final.margins)} criteria hold"
        if final.passed
        else f"FAILED: {len(failed)} of {len(final.margins)} criteria: "
        + "; ".join(
            f"{m.verdict.criterion.name} (measured {m.verdict.measured_text})" for m in failed
        )
    )
    return [f"best playbook simulated whole, as `hotbench check` runs it: {status}"]


def stats_line(report: OptimizeReport) -> str:
    trials = sum(g.trials for g in report.groups)
    per_min = report.simulations / report.wall_s * 60 if report.wall_s else 0.0
    return (
        f"{trials} configurations searched, {report.simulations} simulations in "
        f"{report.wall_s:,.1f} s of wall time ({per_min:,.0f} a minute)"
    )


# --- the frontier ---------------------------------------------------------------------------


def _points(group: GroupOutcome) -> list[tuple[float, float, Evaluation]]:
    return [(e.throttle_rate * 100, e.costs.month_usd, e) for e in group.evaluations]


def frontier_text(group: GroupOutcome, width: int = 78, height: int = 18) -> str:
    """The cost-versus-throttle chart for a terminal (plotext, which the console's
    textual-plotext brings); a plain list of the frontier where it is not installed."""
    front = frontier(group.evaluations)
    try:
        import plotext as plt
    except ImportError:
        return "\n".join(
            f"  {e.throttle_rate * 100:6.2f} % throttled  {usd(e.costs.month_usd):>12}  {e.words}"
            for e in front
        )
    plt.clf()
    plt.theme("clear")
    plt.plot_size(width, height)
    points = _points(group)
    plt.scatter(
        [x for x, _, _ in points], [y for _, y, _ in points], marker="dot", label="simulated"
    )
    plt.plot(
        [e.throttle_rate * 100 for e in front],
        [e.costs.month_usd for e in front],
        marker="braille",
        label="frontier",
    )
    for e, marker, label in _marked(group):
        plt.scatter([e.throttle_rate * 100], [e.costs.month_usd], marker=marker, label=label)
    plt.xlabel("throttled (%)")
    plt.ylabel("$ per month")
    plt.title("cost against throttling")
    text: str = plt.uncolorize(plt.build())
    plt.clf()
    return text


def _marked(group: GroupOutcome) -> list[tuple[Evaluation, str, str]]:
    out = [(group.written, "W", "as written"), (group.naive, "N", "naive fix")]
    if group.best is not None:
        out.append((group.best, "B", "recommended"))
    return out


def frontier_svg(group: GroupOutcome) -> str:
    """The same chart as an SVG file (written by hand: matplotlib is not a dependency,
    and an SVG of points and a line is a few elements)."""
    w, h, left, right, top, bottom = 720, 440, 80, 170, 40, 56
    points = _points(group) + [
        (e.throttle_rate * 100, e.costs.month_usd, e) for e, _, _ in _marked(group)
    ]
    xs = [x for x, _, _ in points] or [0.0]
    ys = [max(y, 1e-6) for _, y, _ in points] or [1.0]
    x_max = max(1.0, max(xs) * 1.05)
    log = max(ys) / min(ys) > 20
    y_lo, y_hi = (min(ys) / 1.3, max(ys) * 1.3) if log else (0.0, max(ys) * 1.1)

    def px(x: float) -> float:
        return left + (w - left - right) * x / x_max

    def py(y: float) -> float:
        y = max(y, 1e-6)
        if log:
            f = (math.log10(y) - math.log10(y_lo)) / (math.log10(y_hi) - math.log10(y_lo))
        else:
            f = (y - y_lo) / (y_hi - y_lo) if y_hi > y_lo else 0.5
        return h - bottom - (h - top - bottom) * f

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        f'<text x="{left}" y="22" font-size="15">{escape(", ".join(group.tables))}: '
        "monthly cost against throttle rate</text>",
        f'<line x1="{left}" y1="{h - bottom}" x2="{w - right}" y2="{h - bottom}" stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{h - bottom}" stroke="black"/>',
        f'<text x="{(left + w - right) / 2}" y="{h - 14}" text-anchor="middle">'
        "throttled (%)</text>",
        f'<text x="18" y="{(top + h - bottom) / 2}" text-anchor="middle" '
        f'transform="rotate(-90 18 {(top + h - bottom) / 2})">$ per month</text>',
    ]
    for x in _ticks(0.0, x_max):
        parts.append(
            f'<line x1="{px(x):.1f}" y1="{h - bottom}" x2="{px(x):.1f}" y2="{h - bottom + 5}" '
            'stroke="black"/>'
            f'<text x="{px(x):.1f}" y="{h - bottom + 18}" text-anchor="middle">{x:g}</text>'
        )
    y_ticks = _log_ticks(y_lo, y_hi) if log else _ticks(y_lo, y_hi)
    for y in y_ticks:
        parts.append(
            f'<line x1="{left - 5}" y1="{py(y):.1f}" x2="{left}" y2="{py(y):.1f}" stroke="black"/>'
            f'<text x="{left - 8}" y="{py(y) + 4:.1f}" text-anchor="end">{usd(y)}</text>'
        )
    for x, y, e in _points(group):
        color = "#1f77b4" if e.passed else "#bbbbbb"
        parts.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{color}"/>')
    front = frontier(group.evaluations)
    if front:
        line = " ".join(
            f"{px(e.throttle_rate * 100):.1f},{py(e.costs.month_usd):.1f}" for e in front
        )
        parts.append(f'<polyline points="{line}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>')
    colors = {"W": "#9467bd", "N": "#ff7f0e", "B": "#2ca02c"}
    for e, mark, _ in _marked(group):
        x, y = px(e.throttle_rate * 100), py(e.costs.month_usd)
        parts.append(
            f'<rect x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" height="10" fill="{colors[mark]}"/>'
        )
    legend = [
        ("#1f77b4", "passes the criteria"),
        ("#bbbbbb", "fails them"),
        ("#2ca02c", "recommended"),
        ("#ff7f0e", "naive fix"),
        ("#9467bd", "as written"),
    ]
    for i, (color, label) in enumerate(legend):
        y = top + 10 + 20 * i
        parts.append(
            f'<rect x="{w - right + 16}" y="{y - 9}" width="10" height="10" fill="{color}"/>'
            f'<text x="{w - right + 32}" y="{y}">{escape(label)}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    if high <= low:
        return [low]
    raw = (high - low) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step) + 1)]


def _log_ticks(low: float, high: float) -> list[float]:
    out = []
    exp = math.floor(math.log10(low))
    while 10**exp <= high:
        for m in (1, 2, 5):
            v = m * 10**exp
            if low <= v <= high:
                out.append(float(v))
        exp += 1
    return out


# --- JSON -----------------------------------------------------------------------------------


def _evaluation_json(e: Evaluation) -> dict[str, Any]:
    return {
        "label": e.label,
        "configuration": e.words,
        "values": e.configs,
        "passed": e.passed,
        "month_usd": round(e.costs.month_usd, 6),
        "run_usd": round(e.costs.run_usd, 6),
        "upfront_usd": round(e.costs.upfront_usd, 2),
        "throttle_rate": round(e.throttle_rate, 6),
        "month_short": e.month_short,
        "criteria": [
            {
                "name": m.verdict.criterion.name,
                "status": m.verdict.status,
                "measured": m.verdict.measured,
                "expected": m.verdict.expected,
                "within_tolerance": m.within_tolerance,
            }
            for m in e.margins
        ],
        "month_lines": [{"what": w, "usd": round(u, 6)} for w, u in e.costs.lines],
    }


def report_json(report: OptimizeReport) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "playbook": report.playbook,
        "passed": report.passed,
        "month": report.month.model_dump(),
        "criteria_added": report.criteria_added,
        "simulations": report.simulations,
        "wall_s": round(report.wall_s, 3),
        "groups": [
            {
                "tables": g.tables,
                "trials": g.trials,
                "notes": g.notes,
                "best": _evaluation_json(g.best) if g.best else None,
                "naive_fix": _evaluation_json(g.naive),
                "as_written": _evaluation_json(g.written),
                "frontier": [_evaluation_json(e) for e in frontier(g.evaluations)],
                "evaluations": [_evaluation_json(e) for e in g.evaluations],
                "failure": describe_failure(g) if g.best is None else None,
            }
            for g in report.groups
        ],
        "final": _evaluation_json(report.final) if report.final else None,
    }
