"""The results screen's comparison of the live run with its simulation, and its export.

The figures are the results' own (`RunResult.to_json()`, the format of docs/results.md);
the only arithmetic is the difference between two of them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from console.output import write_json
from console.render.results_table import short_reason
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


def compare(live: PlaybookResult, simulated: PlaybookResult | None) -> list[ComparedRun]:
    sims = {(r.table, r.repeat): r.to_json() for r in (simulated.runs if simulated else [])}
    out: list[ComparedRun] = []
    for run in live.runs:
        data = run.to_json()
        sim = sims.get((run.table, run.repeat))
        latency = data.get("latency_ms") or {}
        out.append(
            ComparedRun(
                table=run.table,
                repeat=run.repeat,
                offered=data["offered"],
                succeeded=data["succeeded"],
                throttled=data["throttled"],
                rate_live=data["throttle_rate"],
                rate_simulated=sim["throttle_rate"] if sim else None,
                wcu_peak_1s_live=data["consumed_wcu_peak_1s"],
                wcu_peak_1s_simulated=sim["consumed_wcu_peak_1s"] if sim else None,
                first_throttle_s_live=data["first_throttle_s"],
                first_throttle_s_simulated=sim["first_throttle_s"] if sim else None,
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
    return out


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f} %"


def points(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:+.1f} pp"


def ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}"


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f} s"


def to_markdown(run_id: str, rows: list[ComparedRun]) -> str:
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
        for r in rows
    )
    return f"# {run_id}: live beside simulated\n\n{head}{body}"


def export(
    folder: Path,
    run_id: str,
    live: PlaybookResult,
    simulated: PlaybookResult | None,
    kind: str,
) -> Path:
    """Write `console-results.json` or `.md` into the run's folder; returns its path."""
    rows = compare(live, simulated)
    if kind == "json":
        path = folder / "console-results.json"
        payload: dict[str, Any] = {
            "run_id": run_id,
            "compared": [asdict(r) | {"rate_difference": r.rate_difference} for r in rows],
            "live": live.to_json(),
            "simulated": simulated.to_json() if simulated else None,
        }
        write_json(path, payload)
        return path
    path = folder / "console-results.md"
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(to_markdown(run_id, rows), encoding="utf-8")
    tmp.replace(path)
    return path
