"""Per-second traffic of every table and GSI as the endpoint served it, in full scale.

The model decides; this only counts, per second of emulator time: accepted and
throttled requests, throttles by reason, consumed RCU/WCU, and each partition's share
of its capacity used. Counts are divided by the scale on the way out, so a run at
--scale 0.1 reports the figures the full-size table would see.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any, Final

from emulator.model import CapacityModel, Decision
from emulator.server.admission import Charge

HISTORY_S: Final = 900
PARTITION_HISTORY_S: Final = 60


@dataclass
class Second:
    """One second of one table or index."""

    t: int
    accepted: int = 0
    throttled: int = 0
    consumed_wcu: float = 0.0
    consumed_rcu: float = 0.0
    reasons: Counter[str] = field(default_factory=Counter)

    def as_dict(self, scale: float) -> dict[str, Any]:
        return {
            "t": self.t,
            "accepted": round(self.accepted / scale, 3),
            "throttled": round(self.throttled / scale, 3),
            "consumed_wcu": round(self.consumed_wcu / scale, 3),
            "consumed_rcu": round(self.consumed_rcu / scale, 3),
            "throttles_by_reason": {
                k: round(v / scale, 3) for k, v in sorted(self.reasons.items())
            },
        }


class Series:
    """The per-second history of one table or index."""

    def __init__(self) -> None:
        self.seconds: deque[Second] = deque(maxlen=HISTORY_S)
        self.totals = Second(-1)
        self._current: Second | None = None
        """The newest of `seconds` (kept: a deque's [-1] is a generic call once compiled)."""

    def at(self, t: int) -> Second:
        current = self._current
        if current is None or current.t != t:
            current = self._current = Second(t)
            self.seconds.append(current)
        return current


class Metrics:
    """Counters of all tables; fed by the service after every model decision."""

    def __init__(self, scale: float) -> None:
        self.scale = scale
        self.series: dict[str, dict[str | None, Series]] = {}
        """By table, then index (None for the table itself): found per request without
        building a (table, index) tuple to hash."""
        self.partitions: dict[tuple[str, str | None], deque[tuple[int, dict[int, float]]]] = {}
        self._last_second = -1

    def forget(self, table: str) -> None:
        self.series.pop(table, None)
        for key in [k for k in self.partitions if k[0] == table]:
            del self.partitions[key]

    def record(self, table: str, decision: Decision, charge: Charge, now: float) -> None:
        # Runs once per request: the decision's and charge's fields are read once, and
        # each target is counted by a call rather than through a list of (index, units)
        # tuples (compiled, the calls are native and the tuples would not be).
        t = int(now)
        accepted, refused, throttle = decision.accepted, decision.refused, decision.throttle
        reason: str | None = None
        throttled_index: str | None = None
        if throttle is not None and refused:
            reason = throttle.reason
            if "/index/" in throttle.resource:
                throttled_index = throttle.resource.rsplit("/index/", 1)[1]
        if charge.is_write:
            self._count(table, None, t, accepted, charge.table_units, True, refused, reason)
            for index, units in charge.gsi_units.items():
                self._count(
                    table,
                    index,
                    t,
                    accepted,
                    units,
                    True,
                    refused,
                    reason if index == throttled_index else None,
                )
        else:
            self._count(
                table, charge.index, t, accepted, charge.table_units, False, refused, reason
            )

    def _count(
        self,
        table: str,
        index: str | None,
        t: int,
        accepted: int,
        units: float,
        is_write: bool,
        refused: int,
        reason: str | None,
    ) -> None:
        """Count one request in one table's or GSI's second and totals; `reason` is None
        unless its refusals are counted here (a write's throttle counts on the table
        and on the GSI that refused it)."""
        by_index = self.series.get(table)
        if by_index is None:
            by_index = self.series[table] = {}
        series = by_index.get(index)
        if series is None:
            series = by_index[index] = Series()
        _tally(series.at(t), accepted, units, is_write, refused, reason)
        _tally(series.totals, accepted, units, is_write, refused, reason)

    def sample_partitions(self, model: CapacityModel, now: float) -> None:
        """Once a second: each partition's cumulative use, for per-second utilisation."""
        t = int(now)
        if t == self._last_second:
            return
        self._last_second = t
        for name, table in model.tables.items():
            for index in table.indexes():
                key = (name, index.index_name)
                ring = self.partitions.get(key)
                if ring is None:
                    ring = self.partitions[key] = deque(maxlen=PARTITION_HISTORY_S)
                ring.append((t, {p.pid: p.taken for p in index.keyspace.serving()}))

    def partition_use(self, table: str, index: str | None) -> dict[int, float]:
        """Fraction of each partition's capacity used over the last sampled second."""
        ring = self.partitions.get((table, index))
        if not ring or len(ring) < 2:
            return {}
        (t0, before), (t1, after) = ring[-2], ring[-1]
        span = max(1, t1 - t0)
        return {
            pid: round((taken - before.get(pid, 0.0)) / span, 4) for pid, taken in after.items()
        }

    def table_view(
        self, model: CapacityModel, name: str, status: str, seconds: int
    ) -> dict[str, Any]:
        """The metrics of one table and its GSIs, as served at /_hotbench/metrics."""
        table = model.tables[name]
        s = self.scale
        indexes: dict[str, Any] = {}
        table_series = self.series.get(name, {})
        newest = float(self._last_second)
        for index in table.indexes():
            key = index.index_name
            series = table_series.get(key)
            read, write = index.warm_values()
            lim = index.limits
            use = self.partition_use(name, key)
            indexes[key or "$table"] = {
                "index": key,
                "partition_count": index.keyspace.count,
                "splits": index.keyspace.splits,
                "partitions": [
                    {"id": p.pid, "utilisation": use.get(p.pid, 0.0)}
                    for p in index.keyspace.serving()
                ],
                "provisioned": {"read": lim.rcu, "write": lim.wcu} if lim.provisioned else None,
                "on_demand_ceiling": None
                if lim.provisioned
                else {"read": index.ceiling_read, "write": index.ceiling_write},
                "on_demand_max": None
                if lim.provisioned
                else {"read": lim.max_read, "write": lim.max_write},
                "warm_throughput": {"read": read, "write": write, "status": index.warm_status},
                "capacity_status": "UPDATING" if index.pending_limits is not None else "ACTIVE",
                "capacity_events": [
                    e.as_dict() for e in index.record.events if e.t >= newest - seconds
                ],
                "totals": series.totals.as_dict(s) if series else Second(-1).as_dict(s),
                "seconds": [x.as_dict(s) for x in list(series.seconds)[-seconds:]]
                if series
                else [],
            }
        return {
            "status": status,
            "billing_mode": table.config.billing,
            "auto_scaling": bool(table.scalers),
            "indexes": indexes,
        }


def _tally(
    second: Second, accepted: int, units: float, is_write: bool, refused: int, reason: str | None
) -> None:
    second.accepted += accepted
    if is_write:
        second.consumed_wcu += accepted * units
    else:
        second.consumed_rcu += accepted * units
    if reason is not None:
        second.throttled += refused
        second.reasons[reason] += refused
