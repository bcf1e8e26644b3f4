"""A finished table run kept losslessly in the run folder, so a resumed `run` can add up
the playbook's result from runs finished before the crash.

The published result format (docs/results.md) keeps 10-second series, not the per-second
counts that peaks are computed from; this record keeps the per-second counts and the
latency histogram, and rebuilds the same RunResult.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loadgen.results.histogram import LatencyHistogram
from loadgen.results.records import Counts, PhaseResult, RunResult


def dump_run(run: RunResult) -> dict[str, Any]:
    return {
        "table": run.table,
        "repeat": run.repeat,
        "duration_s": run.duration_s,
        "seconds": {str(t): c.to_json() for t, c in sorted(run.seconds.items())},
        "phases": [
            {
                "name": p.name,
                "operation": p.operation,
                "start_s": p.start_s,
                "duration_s": p.duration_s,
                "offered": p.offered,
                "counts": p.counts.to_json(),
                "first_throttle_s": p.first_throttle_s,
            }
            for p in run.phases
        ],
        "first_throttle_s": run.first_throttle_s,
        "partial": run.partial,
        "notes": list(run.notes),
        "workers": run.workers,
        "latency": run.latency.to_json() if run.latency is not None else None,
        "restart": run.restart,
    }


def load_run(data: dict[str, Any]) -> RunResult:
    return RunResult(
        table=str(data["table"]),
        repeat=int(data["repeat"]),
        duration_s=float(data["duration_s"]),
        seconds={int(t): Counts.from_json(c) for t, c in data["seconds"].items()},
        phases=[
            PhaseResult(
                p["name"],
                p["operation"],
                float(p["start_s"]),
                float(p["duration_s"]),
                offered=int(p["offered"]),
                counts=Counts.from_json(p["counts"]),
                first_throttle_s=p["first_throttle_s"],
            )
            for p in data["phases"]
        ],
        first_throttle_s=data["first_throttle_s"],
        partial=bool(data["partial"]),
        notes=list(data["notes"]),
        workers=int(data["workers"]),
        latency=LatencyHistogram.from_json(data["latency"]) if data["latency"] else None,
        restart=data.get("restart"),
    )


def save_run(path: Path, run: RunResult) -> None:
    """Atomic, like the state: a record exists whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(dump_run(run)), encoding="utf-8")
    tmp.replace(path)


def read_run(path: Path) -> RunResult:
    return load_run(json.loads(path.read_text(encoding="utf-8")))
