"""A live run beside its simulation: one comparison, drawn three ways.

`hotbench check --mode live` prints its verdict and the figures furthest apart, the TUI's
results screen shows it run by run, and the TUI's export writes both to JSON or
Markdown. The figures are the results' own (`RunResult.to_json()`, the format of
docs/results.md), compared figure by figure against their tolerances by
loadgen.analysis.compare, the comparison `hotbench compare` makes of two result files;
the only arithmetic here is the difference between two of them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from console.output import write_json
from console.render.cells import Cells
from console.render.comparison import figure_value
from console.render.results_table import short_reason
from loadgen.analysis.compare import CompareError, Comparison, compare
from loadgen.analysis.figures import Figure, run_label
from loadgen.results.records import PlaybookResult


@dataclass(frozen=True)
class ComparedRun:
    """One table run, live beside simulated."""

    table: str
    repeat: int
    offered: int
    succeeded: int
    throttled: int
    rate_live: float
    rate_simulated: float | None
    wcu_peak_1s_live: float
    wcu_peak_1s_simulated: float | None
    first_throttle_s_live: float | None
    first_throttle_s_simulated: float | None
    reasons: str
    partial: bool
    p50_ms: float | None
    p90_ms: float | None
    p99_ms: float | None
    max_ms: float | None

    @property
    def rate_difference(self) -> float | None:
        """Live minus simulated throttle rate (a fraction; x100 for points)."""
        return None if self.rate_simulated is None else self.rate_live - self.rate_simulated


@dataclass(frozen=True)
class LiveVsSimulated:
    """The live result against its simulation: figure by figure, and run by run."""

    figures: Comparison | None
    """Every figure both carry, with its tolerance and the verdict (None: no simulation
    of this playbook to compare with)."""
    runs: list[ComparedRun]
    """Each live table run with the simulated figures of the same run beside its own."""

    def verdict(self) -> str | None:
        return None if self.figures is None else self.figures.verdict()


def live_vs_simulated(live: PlaybookResult, simulated: PlaybookResult | None) -> LiveVsSimulated:
    live_doc = live.to_json()
    figures = None
    if simulated is not None:
        try:
            figures = compare(live_doc, simulated.to_json(), "live", "simulated")
        except CompareError:  # a simulation of another playbook: nothing to set beside
            figures = None
    beside = {row.a.key: row.b.value for row in figures.rows} if figures else {}
    runs: list[ComparedRun] = []
    for run, data in zip(live.runs, live_doc["runs"], strict=True):
        label = run_label(data)

        def simulated_figure(name: str, label: str = label) -> float | None:
            return beside.get(Figure(label, "run", name, None).key)

        latency = data.get("latency_ms") or {}
        runs.append(
            ComparedRun(
                table=run.table,
                repeat=run.repeat,
                offered=data["offered"],
                succeeded=data["succeeded"],
                throttled=data["throttled"],
                rate_live=data["throttle_rate"],
                rate_simulated=simulated_figure("throttle_rate"),
                wcu_peak_1s_live=data["consumed_wcu_peak_1s"],
                wcu_peak_1s_simulated=simulated_figure("consumed_wcu_peak_1s"),
                first_throttle_s_live=data["first_throttle_s"],
                first_throttle_s_simulated=simulated_figure("first_throttle_s"),
                reasons=", ".join(
                    f"{short_reason(r)} {n:,.0f}" for r, n in data["throttles_by_reason"].items()
                ),
                partial=run.partial,
                p50_ms=latency.get("p50"),
                p90_ms=latency.get("p90"),
                p99_ms=latency.get("p99"),
                max_ms=latency.get("max"),
            )
        )
    return LiveVsSimulated(figures, runs)


def print_live_vs_simulated(compared: LiveVsSimulated, console: Console) -> None:
    """The verdict, then the three figures furthest outside their tolerance: after a
    live check, where the model and the tables differ (`hotbench calibrate` can close
    the gap)."""
    result = compared.figures
    if result is None:
        return
    style = "green" if result.agree else "yellow"
    console.print(f"[{style}]live vs simulated: {result.verdict()}[/]", highlight=False)
    for row in sorted(result.outside, key=lambda r: -abs(r.residual))[:3]:
        console.print(
            f"  {row.a.key}: live {figure_value(row.a.value, row.a.name)}, simulated "
            f"{figure_value(row.b.value, row.a.name)}",
            highlight=False,
        )


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f} %"


def points(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.1f} pp"


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"


def run_name(run: ComparedRun) -> str:
    """variant#repeat in one column: M1's badOnDemand#2 then fits 80."""
    return f"{run.table}#{run.repeat}"


def compared_cells(runs: list[ComparedRun], with_reasons: bool) -> Cells:
    """Run by run, what compares live with simulated: throttle rates and their difference,
    first throttles; the reasons, which are long, only `with_reasons`."""
    columns = ("run", "offered", "throttled", "live", "sim", "diff", "1st thr", "sim 1st")
    rows = [
        (
            run_name(r) + (" (partial)" if r.partial else ""),
            f"{r.offered:,}",
            f"{r.throttled:,}",
            pct(r.rate_live),
            pct(r.rate_simulated),
            points(r.rate_difference),
            seconds(r.first_throttle_s_live),
            seconds(r.first_throttle_s_simulated),
            *([r.reasons or "-"] if with_reasons else []),
        )
        for r in runs
    ]
    return (*columns, *(["reasons"] if with_reasons else [])), rows


def latency_cells(runs: list[ComparedRun]) -> Cells:
    """The live runs' latency percentiles (a simulation measures none)."""
    return (
        ("latency ms", "p50", "p90", "p99", "max"),
        [(run_name(r), ms(r.p50_ms), ms(r.p90_ms), ms(r.p99_ms), ms(r.max_ms)) for r in runs],
    )


def to_markdown(run_id: str, compared: LiveVsSimulated) -> str:
    head = (
        "| table | run | offered | throttled | rate live | rate simulated | difference "
        "| first throttle live | simulated | p50 ms | p99 ms |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    )
    body = "".join(
        f"| {r.table}{' (partial)' if r.partial else ''} | {r.repeat} | {r.offered:,} "
        f"| {r.throttled:,} | {pct(r.rate_live)} | {pct(r.rate_simulated)} "
        f"| {points(r.rate_difference)} | {seconds(r.first_throttle_s_live)} "
        f"| {seconds(r.first_throttle_s_simulated)} | {ms(r.p50_ms)} | {ms(r.p99_ms)} |\n"
        for r in compared.runs
    )
    verdict = compared.verdict()
    said = f"live vs simulated: {verdict}\n\n" if verdict else ""
    return f"# {run_id}: live beside simulated\n\n{said}{head}{body}"


def export(
    folder: Path,
    run_id: str,
    live: PlaybookResult,
    simulated: PlaybookResult | None,
    kind: str,
) -> Path:
    """Write `console-results.json` or `.md` into the run's folder; returns its path."""
    compared = live_vs_simulated(live, simulated)
    if kind == "json":
        path = folder / "console-results.json"
        payload: dict[str, Any] = {
            "run_id": run_id,
            "compared": [asdict(r) | {"rate_difference": r.rate_difference} for r in compared.runs],
            "verdict": compared.verdict(),
            "live": live.to_json(),
            "simulated": simulated.to_json() if simulated else None,
        }
        write_json(path, payload)
        return path
    path = folder / "console-results.md"
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(to_markdown(run_id, compared), encoding="utf-8")
    tmp.replace(path)
    return path
