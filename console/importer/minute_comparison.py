"""A replay of an imported playbook set beside what the account recorded, minute by
minute: requests, consumed read and write capacity (table and each GSI), throttled
requests and throttle events by DynamoDB reason, one agreement line, and the recording
as a result document (`hotbench.result/1`) that `hotbench calibrate` fits the model to.

Pure: a recording and a simulated result in, rows and numbers out (console/commands/
backtest.py runs the simulation and prints)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from console.importer.recorded import Recorded
from loadgen.format.playbook import Playbook
from loadgen.results.records import PhaseResult, PlaybookResult, RunResult

MINUTE_S = 60


@dataclass
class Minutes:
    """One side (recorded or simulated) per minute, over the same minutes."""

    requests: np.ndarray
    throttled: np.ndarray
    read_units: np.ndarray
    write_units: np.ndarray
    index_write_units: dict[str, np.ndarray]
    by_reason: dict[str, np.ndarray]

    @property
    def throttled_pct(self) -> float:
        total = float(self.requests.sum())
        return 100.0 * float(self.throttled.sum()) / total if total else 0.0


def _zeros(n: int) -> np.ndarray:
    return np.zeros(n, dtype=np.float64)


def recorded_minutes(recorded: Recorded, first: int, last: int) -> Minutes:
    """The recording's minutes [first, last); a recording read at 300 or 3600 s spread
    evenly over its minutes (as the playbook's curve is)."""
    per = max(1, recorded.period_s // MINUTE_S)

    def cut(values: list[float]) -> np.ndarray:
        minutes = np.repeat(np.asarray(values, dtype=np.float64) / per, per)
        out = _zeros(last - first)
        part = minutes[first:last]
        out[: len(part)] = part
        return out

    n = last - first
    requests = sum((cut(v) for v in recorded.requests.values()), _zeros(n))
    throttled = sum((cut(v) for v in recorded.throttled_requests.values()), _zeros(n))
    consumed = {k: cut(v) for k, v in recorded.consumed.items()}
    return Minutes(
        requests=requests,
        throttled=throttled,
        read_units=consumed.get("read", _zeros(n)),
        write_units=consumed.get("write", _zeros(n)),
        index_write_units={
            k.split(":", 1)[1]: v for k, v in consumed.items() if k.startswith("write:")
        },
        by_reason={k: cut(v) for k, v in recorded.throttles.items()},
    )


def simulated_minutes(run: RunResult, minutes: int) -> Minutes:
    """A simulated run's seconds added up per minute (minute 0 from the run's start)."""
    requests, throttled = _zeros(minutes), _zeros(minutes)
    read, write = _zeros(minutes), _zeros(minutes)
    index: dict[str, np.ndarray] = {}
    reasons: dict[str, np.ndarray] = {}
    for t, c in run.seconds.items():
        m = t // MINUTE_S
        if not 0 <= m < minutes:
            continue
        requests[m] += c.sent
        throttled[m] += c.throttled
        read[m] += c.consumed_rcu
        write[m] += c.consumed_wcu
        for name, units in c.consumed_wcu_by_index.items():
            index.setdefault(name, _zeros(minutes))[m] += units
        for reason, count in c.by_reason.items():
            reasons.setdefault(reason, _zeros(minutes))[m] += count
    return Minutes(requests, throttled, read, write, index, reasons)


def correlation(a: np.ndarray, b: np.ndarray) -> float | None:
    """Pearson's r of two per-minute series; None where either is flat (r says nothing)."""
    if len(a) < 3 or float(np.std(a)) == 0.0 or float(np.std(b)) == 0.0:
        return None
    return float(np.corrcoef(a, b)[0, 1])


@dataclass
class Backtest:
    """Recorded and simulated over the same minutes, and how well they agree."""

    first: int
    recorded: Minutes
    simulated: Minutes
    notes: list[str] = field(default_factory=list)

    @property
    def minutes(self) -> int:
        return len(self.recorded.requests)

    def throttle_correlation(self) -> float | None:
        return correlation(self.recorded.throttled, self.simulated.throttled)

    def units_error_pct(self, side: str) -> float | None:
        """The simulated total of `read` or `write` units against the recorded, in per cent."""
        rec = getattr(self.recorded, f"{side}_units").sum()
        sim = getattr(self.simulated, f"{side}_units").sum()
        return None if rec <= 0 else 100.0 * float(sim - rec) / float(rec)

    def agreement(self) -> str:
        """The one line: throttled shares, their per-minute correlation, the units."""
        r = self.throttle_correlation()
        shown = f"{r:.2f}" if r is not None else "n/a (a flat series)"
        parts = [
            f"recorded {self.recorded.throttled_pct:.2f} % throttled, simulated "
            f"{self.simulated.throttled_pct:.2f} %; per-minute correlation {shown}"
        ]
        for side, name in (("write", "WCU"), ("read", "RCU")):
            err = self.units_error_pct(side)
            if err is not None:
                parts.append(f"consumed {name} {err:+.1f} %")
        return "; ".join(parts) + f" (minutes {self.first}-{self.first + self.minutes})"

    def reasons(self) -> list[str]:
        return sorted(set(self.recorded.by_reason) | set(self.simulated.by_reason))

    def rows(self, start_label: list[str], most: int = 48) -> list[list[str]]:
        """Per-minute rows (at most `most`: longer windows in equal groups of minutes),
        each: the minute, requests, RCU, WCU, throttled, then each reason, as
        `recorded / simulated` (units per second, counts per row)."""
        step = max(1, math.ceil(self.minutes / most))
        n = self.minutes
        rec, sim = self.recorded, self.simulated
        out = []
        for lo in range(0, n, step):
            hi = min(n, lo + step)
            span = (hi - lo) * MINUTE_S
            pairs = [
                (rec.requests, sim.requests, span),
                (rec.read_units, sim.read_units, span),
                (rec.write_units, sim.write_units, span),
                (rec.throttled, sim.throttled, 1),
                *(
                    (rec.by_reason.get(r, _zeros(n)), sim.by_reason.get(r, _zeros(n)), 1)
                    for r in self.reasons()
                ),
            ]
            row = [start_label[lo]]
            for a, b, per in pairs:
                row.append(
                    f"{float(a[lo:hi].sum()) / per:,.0f} / {float(b[lo:hi].sum()) / per:,.0f}"
                )
            out.append(row)
        return out


def as_result(recorded: Recorded, playbook: Playbook, first: int, last: int) -> PlaybookResult:
    """The recording over minutes [first, last) as a result document of `playbook` (its
    phases' names and times), in the format `hotbench calibrate` fits to: each minute's
    counts spread evenly over its seconds (CloudWatch has no finer grain)."""
    minutes = recorded_minutes(recorded, first, last)
    run = RunResult(recorded.table, 1, float((last - first) * MINUTE_S))
    for m in range(last - first):
        share = _spread(round(float(minutes.requests[m])))
        refused = _spread(round(float(minutes.throttled[m])))
        reasons = {k: _spread(round(float(v[m]))) for k, v in minutes.by_reason.items()}
        for s in range(MINUTE_S):
            c = run.second(m * MINUTE_S + s)
            c.sent = share[s]
            c.throttled = min(refused[s], c.sent)
            c.succeeded = c.sent - c.throttled
            c.consumed_rcu = float(minutes.read_units[m]) / MINUTE_S
            c.consumed_wcu = float(minutes.write_units[m]) / MINUTE_S
            c.add_index_units(
                (k, float(v[m]) / MINUTE_S) for k, v in minutes.index_write_units.items()
            )
            c.by_reason = Counter({k: v[s] for k, v in reasons.items() if v[s]})
            if c.throttled and run.first_throttle_s is None:
                run.first_throttle_s = float(m * MINUTE_S + s)
    offset = 0.0
    for phase in playbook.load.phases:
        out = PhaseResult(phase.name, phase.kind.iterations.label, offset, phase.duration_s)
        out.counts = run.totals_between(offset, phase.duration_s)
        out.offered = out.counts.sent
        run.phases.append(out)
        offset += phase.duration_s
    return PlaybookResult(playbook.name, "recorded", 1.0, [run], target="aws")


def _spread(total: int) -> list[int]:
    """`total` over 60 seconds as whole counts that add up to it."""
    base, extra = divmod(max(0, total), MINUTE_S)
    return [base + (1 if s < extra else 0) for s in range(MINUTE_S)]
