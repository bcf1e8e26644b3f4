"""What one worker tells the coordinator: its plan in, its counts out.

Both travel through the run's results table as JSON, never only through a connection or a
process's memory, so a run can be finished (or labelled partial) from the table alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from loadgen.format.playbook import Playbook, parse_playbook
from loadgen.live.windows import Window, split
from loadgen.results.histogram import LatencyHistogram
from loadgen.results.iteration_results import IterationCounts, IterationSeconds
from loadgen.results.records import Counts, PerSecond

COMPLETE = "complete"
WATCHDOG = "watchdog"
OP_CAP = "op-cap"
REFUSED = "refused"
FAILED = "failed"
STOPPED = "stopped"
"""The coordinator stopped the run early (its abort item, seen while measuring)."""
RUNNING = "running"


TIMEOUT_S = 8.0
"""Default seconds a measured request may take before it counts as an error."""
CONCURRENCY = 256
"""Default cap on requests in flight per worker."""
DRAIN_S = 10.0
"""Default seconds after the last scheduled send before the watchdog stops a worker."""


@dataclass
class RunPlan:
    """One run (one table, one repeat) as every worker of the fleet executes it."""

    run_id: str
    playbook: Playbook
    table: str
    """Variant name in the playbook."""
    table_name: str
    """Physical table name."""
    repeat: int = 1
    scale: float = 1.0
    workers: int = 1
    endpoint: str | None = None
    """Data-plane URL for measured requests; None means the region's AWS endpoint."""
    region: str = "us-east-1"
    timeout_s: float = TIMEOUT_S
    concurrency: int = CONCURRENCY
    """Cap on requests in flight per worker."""
    drain_s: float = DRAIN_S
    """Time after the last scheduled send before the watchdog stops the worker."""
    max_ops: int | None = None
    """Hard cap on requests per worker; default: its share of the schedule + 5 % + 100."""
    late_s: float = 0.010
    progress_s: float = 3.0
    window_s: float | None = None
    """Longest stretch of the run one worker process may measure (a Lambda invocation's
    15 minutes, less its waits); None: the whole run. A longer run is split into windows
    measured by successive invocations (loadgen.live.windows)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            # only what the playbook set: a default written out (a phase's `operation`
            # beside its `scenario`) would read back as set, and two load models refuse
            "playbook": self.playbook.model_dump(mode="json", exclude_unset=True),
            "table": self.table,
            "table_name": self.table_name,
            "repeat": self.repeat,
            "scale": self.scale,
            "workers": self.workers,
            "endpoint": self.endpoint,
            "region": self.region,
            "timeout_s": self.timeout_s,
            "concurrency": self.concurrency,
            "drain_s": self.drain_s,
            "max_ops": self.max_ops,
            "late_s": self.late_s,
            "progress_s": self.progress_s,
            # only when split: a plan of an unsplit run keeps its form
            **({"window_s": self.window_s} if self.window_s is not None else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunPlan:
        fields = dict(data)
        fields["playbook"] = parse_playbook(fields["playbook"], "run plan")
        return cls(**fields)

    @property
    def duration_s(self) -> float:
        return sum(p.duration_s for p in self.playbook.load.phases)

    @property
    def windows(self) -> list[Window]:
        """The run's windows (one, unless `window_s` splits it): loadgen.live.windows."""
        return split(self.playbook.load.phases, self.window_s)


@dataclass
class PhaseShare:
    """One phase as one worker saw it."""

    name: str
    operation: str
    start_s: float
    duration_s: float
    offered: int = 0
    """This worker's share of the phase's requests that were due before it stopped."""
    first_throttle_s: float | None = None


@dataclass
class WorkerReport(PerSecond):
    """Counts of one worker for one run: progress while running, final at the end."""

    worker: int
    status: str = RUNNING
    seconds: dict[int, Counts] = field(default_factory=dict)
    phases: list[PhaseShare] = field(default_factory=list)
    first_throttle_s: float | None = None
    latency: LatencyHistogram = field(default_factory=LatencyHistogram)
    snapshot: dict[str, Any] | None = None
    """Where the worker was when the watchdog or the op cap stopped it."""
    notes: list[str] = field(default_factory=list)
    written_at: float = 0.0
    progress_write_failures: int = 0
    """Progress items this worker failed to write (its counts stay exact; only the
    coordinator's view of a worker that later dies is older)."""
    iterations: IterationSeconds = field(default_factory=dict)
    """How the iterations of mix and scenario phases started and ended, by second."""
    window: int = 0
    """Which window of a split run these counts are (loadgen.live.windows); 0 unsplit."""

    def to_json(self) -> dict[str, Any]:
        return {
            "worker": self.worker,
            "status": self.status,
            "seconds": {str(t): c.to_json() for t, c in sorted(self.seconds.items())},
            "phases": [vars(p) for p in self.phases],
            "first_throttle_s": self.first_throttle_s,
            "latency": self.latency.to_json(),
            "snapshot": self.snapshot,
            "notes": list(self.notes),
            "written_at": self.written_at,
            "progress_write_failures": self.progress_write_failures,
            # only with mix or scenario phases: a report of today's phases keeps its form
            **(
                {"iterations": {str(t): c.to_json() for t, c in sorted(self.iterations.items())}}
                if self.iterations
                else {}
            ),
            **({"window": self.window} if self.window else {}),
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> WorkerReport:
        return cls(
            worker=int(data["worker"]),
            status=str(data.get("status", RUNNING)),
            seconds={int(t): Counts.from_json(c) for t, c in data.get("seconds", {}).items()},
            phases=[PhaseShare(**p) for p in data.get("phases", [])],
            first_throttle_s=data.get("first_throttle_s"),
            latency=LatencyHistogram.from_json(data.get("latency")),
            snapshot=data.get("snapshot"),
            notes=list(data.get("notes", [])),
            written_at=float(data.get("written_at", 0.0)),
            progress_write_failures=int(data.get("progress_write_failures", 0)),
            iterations={
                int(t): IterationCounts.from_json(c)
                for t, c in (data.get("iterations") or {}).items()
            },
            window=int(data.get("window", 0)),
        )
