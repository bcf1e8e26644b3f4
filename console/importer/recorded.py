"""What the account recorded per minute for one table, kept beside an imported playbook
(`<playbook>.recorded.json`) so that `hotbench backtest` can set a replay beside it
without the snapshot: requests per operation, consumed capacity of the table and each
GSI, throttle events by DynamoDB reason, all per minute from the window's start.

Pure: an import result in, a JSON-ready mapping out (and back)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from console.importer.import_result import ImportResult, TableImport

FORMAT = "hotbench-recorded"
VERSION = 1
CONSUMED = ("ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits")
PROVISIONED = ("ProvisionedReadCapacityUnits", "ProvisionedWriteCapacityUnits")


@dataclass(frozen=True)
class Recorded:
    """One table's recorded minutes (every list one value per period from `start`)."""

    table: str
    region: str
    start: str
    period_s: int
    requests: dict[str, list[float]]
    """By DynamoDB operation: succeeded + throttled requests."""
    throttled_requests: dict[str, list[float]]
    consumed: dict[str, list[float]]
    """`read`, `write` (the table's), `read:INDEX`, `write:INDEX` (each GSI's): units."""
    throttles: dict[str, list[float]]
    """Throttle events by DynamoDB reason (TableWriteKeyRangeThroughputExceeded, ...)."""
    source: str
    provisioned: dict[str, list[float]] = field(default_factory=dict)
    """Provisioned capacity (Maximum; CloudWatch publishes it every five minutes, 0 between),
    keyed as `consumed`: where a backtest of later minutes starts each side."""
    what_if: str = "as recorded"
    """The playbook's launch what-if: a backtest compares only a playbook as recorded."""
    notes: list[str] = field(default_factory=list)

    @property
    def periods(self) -> int:
        return max((len(v) for v in self.requests.values()), default=0)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, **self.__dict__}

    @classmethod
    def from_json(cls, data: Any, name: str) -> Recorded:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(
                f"{name} is not a recording of hotbench import (format {FORMAT!r}): write one "
                "with `hotbench import ... --out PLAYBOOK`, which puts it beside the playbook"
            )
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        try:
            return cls(**fields)
        except TypeError as exc:
            raise ValueError(f"{name}: incomplete recording ({exc})") from None


def recorded(result: ImportResult, table: TableImport, what_if: str = "as recorded") -> Recorded:
    """The table's recorded minutes, from the import's CloudWatch series."""
    consumed: dict[str, list[float]] = {}
    provisioned: dict[str, list[float]] = {}
    for index in (None, *(g.name for g in table.definition.gsis)):
        for metrics, into in ((CONSUMED, consumed), (PROVISIONED, provisioned)):
            for metric, side in zip(metrics, ("read", "write"), strict=True):
                series = table.series_of(metric, index)
                if series is not None and series.returned:
                    into[side if index is None else f"{side}:{index}"] = list(series.values)
    throttles: dict[str, list[float]] = {}
    for t in table.throttles:
        # Two GSIs throttled for one reason (IndexWriteKeyRange...) add up: the model
        # counts by reason, not by index.
        old = throttles.get(t.reason)
        values = list(t.per_period)
        throttles[t.reason] = (
            values if old is None else [a + b for a, b in zip(old, values, strict=True)]
        )
    return Recorded(
        table=table.definition.name,
        region=result.region,
        start=result.window.start.isoformat(),
        period_s=result.window.period_s,
        requests={o.operation: list(o.requests) for o in table.operations},
        throttled_requests={o.operation: list(o.throttled) for o in table.operations},
        consumed=consumed,
        throttles=throttles,
        provisioned=provisioned,
        source=result.source,
        what_if=what_if,
        notes=[m.line() for m in table.missing],
    )


def capacity_at(recorded: Recorded, minute: int) -> dict[str, int]:
    """Each provisioned side's capacity in force at `minute` (the last datapoint at or
    before it), keyed as `provisioned`: a backtest that starts later starts there."""
    per = max(1, recorded.period_s // 60)
    out = {}
    for key, values in recorded.provisioned.items():
        seen = [v for v in values[: minute // per + 1] if v > 0]
        if seen:
            out[key] = int(seen[-1])
    return out
