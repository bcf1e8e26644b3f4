"""What a measured request says and what its answer means.

`RequestFactory` turns the playbook's key distributions (through loadgen.load.keys.
ItemGenerator, the same generator the simulation draws from) into DynamoDB JSON bodies
for put/update/get/query, padding written items with a filler attribute so their
DynamoDB size is `item_size_bytes` (the size decides the write units, so a careless
"1 KB" item that is really 1.1 KB would double the cost being measured).

`classify` turns a reply into the outcome that is counted: success with consumed
capacity, a throttle with its exception class and reason, or an error by type.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np

from emulator.itemsize import item_size as wire_item_size
from emulator.wire import TARGET_PREFIX
from loadgen.format.playbook import Phase, Playbook, TableSpec
from loadgen.load.keys import ItemGenerator, Value
from loadgen.results.records import Counts

TARGETS = {"put": "PutItem", "update": "UpdateItem", "get": "GetItem", "query": "Query"}
FILLER = "hbpad"
"""Name of the filler attribute that brings an item to `item_size_bytes`."""
THROTTLE_EXCEPTIONS = frozenset(
    {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}
)
UNREADABLE = "UnreadableBody"
"""Error type of an HTTP 200 whose body is not a DynamoDB JSON object."""
BLOCK = 1024
"""Keys are drawn in blocks of this many requests (numpy is fast in bulk)."""


def wire_value(value: Value) -> dict[str, str]:
    """A rendered value as a DynamoDB AttributeValue."""
    return {"N": str(value)} if isinstance(value, Decimal) else {"S": value}


def padded_item(
    values: dict[str, Value], size_bytes: int, stamp: str = ""
) -> dict[str, dict[str, str]]:
    """The wire item of `values` plus a filler attribute that brings its DynamoDB size
    (emulator.itemsize, the one size rule) to `size_bytes`; the filler starts with
    `stamp`. Used by the measured writes and by the seeder alike."""
    item = {name: wire_value(v) for name, v in values.items()}
    room = size_bytes - wire_item_size(item) - len(FILLER)
    if room > 0:
        stamp = stamp[:room]
        item[FILLER] = {"S": stamp + "x" * (room - len(stamp))}
    return item


@dataclass(frozen=True)
class AttemptOutcome:
    """The counted meaning of one reply."""

    kind: str
    """'ok', 'throttled' or 'error'."""
    name: str = ""
    """Exception class (throttles, errors)."""
    reason: str | None = None
    """First throttle reason, e.g. TableWriteKeyRangeThroughputExceeded."""
    consumed: float = 0.0
    """Capacity units the base table consumed, when the reply says."""
    index_consumed: tuple[tuple[str, float], ...] = ()
    """Capacity units each GSI consumed (ConsumedCapacity.GlobalSecondaryIndexes, with
    ReturnConsumedCapacity INDEXES): on-demand bills them on top of the table's."""
    counted: float = 0.0
    """Write units charged but not reported (a failed conditional write), counted by
    the charging rule (loadgen.live.counted_units); added to the consumed units and
    kept apart as counted."""


def _exception_name(raw: str) -> str:
    return raw.rsplit("#", 1)[-1].rsplit(".", 1)[-1] if raw else ""


def parse_reply(body: bytes) -> dict[str, Any] | None:
    """A reply's JSON object, or None when it is not one (truncated, garbled, empty)."""
    try:
        data = json.loads(body) if body else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def classify(status: int, body: bytes) -> AttemptOutcome:
    """The outcome of an HTTP reply from DynamoDB (or the emulator)."""
    return classify_parsed(status, parse_reply(body))


def _units(used: Any) -> tuple[float, list[tuple[str, float]]]:
    """(base table units, [(GSI, units)]) of one ConsumedCapacity entry."""
    table = used.get("Table") or {}
    if not isinstance(table, dict):
        raise TypeError("ConsumedCapacity.Table is not an object")
    units = float(table.get("CapacityUnits", used.get("CapacityUnits", 0.0)) or 0.0)
    gsis = used.get("GlobalSecondaryIndexes")
    index = [
        (str(name), float((u or {}).get("CapacityUnits") or 0.0))
        for name, u in (gsis.items() if isinstance(gsis, dict) else ())
    ]
    return units, index


def classify_parsed(status: int, data: dict[str, Any] | None) -> AttemptOutcome:
    """The outcome of a reply whose body `parse_reply` read (None: not a JSON object)."""
    if status == 200:
        # DynamoDB answers every success with a JSON object ("{}" at least); anything else
        # (truncated, garbled, empty) is not known to have succeeded, so it is an error.
        if data is None:
            return AttemptOutcome("error", UNREADABLE)
        cc = data.get("ConsumedCapacity") or {}
        # A batch or transaction reports a list, one entry per table: their sum.
        entries = cc if isinstance(cc, list) else [cc]
        try:
            consumed = 0.0
            by_index: dict[str, float] = {}
            for used in entries:
                units, index = _units(used)
                consumed += units
                for name, u in index:
                    by_index[name] = by_index.get(name, 0.0) + u
        except (TypeError, ValueError, AttributeError):
            return AttemptOutcome("error", UNREADABLE)
        return AttemptOutcome("ok", consumed=consumed, index_consumed=tuple(by_index.items()))
    data = data or {}
    name = _exception_name(str(data.get("__type", ""))) or f"HTTP{status}"
    if name in THROTTLE_EXCEPTIONS:
        reasons = data.get("ThrottlingReasons") or data.get("throttlingReasons") or []
        reason = None
        if reasons and isinstance(reasons[0], dict):
            reason = reasons[0].get("reason")
        return AttemptOutcome("throttled", name, reason)
    return AttemptOutcome("error", name)


def tally(counts: Counts, outcome: AttemptOutcome, is_write: bool) -> None:
    """Count one attempt's outcome into its second (the worker's one counting rule, for
    phases and scenario steps alike)."""
    if outcome.kind == "ok":
        counts.succeeded += 1
        if is_write:
            counts.consumed_wcu += outcome.consumed
            counts.add_index_units(outcome.index_consumed)
        else:
            counts.consumed_rcu += outcome.consumed
    elif outcome.kind == "throttled":
        counts.throttled += 1
        counts.by_exception[outcome.name] += 1
        if outcome.reason:
            counts.by_reason[outcome.reason] += 1
    else:
        counts.errors += 1
        counts.errors_by_type[outcome.name] += 1
    if outcome.counted:  # charged, never reported: counted, and said to be
        counts.consumed_wcu += outcome.counted
        counts.counted_wcu += outcome.counted


class RequestFactory:
    """Bodies of one phase's requests against one physical table, drawn in blocks."""

    def __init__(
        self,
        playbook: Playbook,
        spec: TableSpec,
        phase: Phase,
        table_name: str,
        rng: np.random.Generator,
        worker: int = 0,
        workers: int = 1,
    ) -> None:
        self.spec = spec
        self.phase = phase
        self.operation = phase.operation
        self.target = TARGET_PREFIX + TARGETS[phase.operation]
        attributes = {**playbook.load.attributes, **phase.attributes}
        key_names = [k.name for k in spec.key_attributes()]
        self.primary = spec.primary_key_names()
        for key in spec.key_attributes():
            if key.type == "B":
                raise ValueError(
                    f"table {spec.name}: binary key {key.name} is not supported "
                    "by the load generator"
                )
        self.generator = ItemGenerator(attributes, key_names, self.primary)
        self.rng = rng
        self.worker, self.workers = worker, workers
        self.table = table_name
        self.monotonic = [n for n, s in self.generator.samplers.items() if s.monotonic]
        self._block: dict[str, np.ndarray] = {}
        self._row = BLOCK
        self._drawn = 0
        self._writes = 0

    def _next_values(self) -> dict[str, Value]:
        if self._row >= BLOCK:
            self._block = self.generator.draw(self.rng, BLOCK, self._drawn)
            # Monotonic values must rise across the whole fleet: this worker's requests
            # are k = worker, worker + W, ... of the schedule, so use k itself.
            for name in self.monotonic:
                local = np.arange(self._drawn, self._drawn + BLOCK, dtype=np.int64)
                self._block[name] = local * self.workers + self.worker
            self._drawn += BLOCK
            self._row = 0
        values = self.generator.render(self._block, self._row)
        self._row += 1
        return values

    def _padded(self, values: dict[str, Value]) -> dict[str, dict[str, str]]:
        """The item with its filler. The filler starts with this write's own stamp: a
        real write changes the item, and a write that changes nothing an index holds is
        not written to that index (so an identical rewrite would hide GSI pressure)."""
        self._writes += 1
        return padded_item(values, self.spec.item_size_bytes, f"{self.worker:x}.{self._writes:x}.")

    def next_body(self) -> bytes:
        """The JSON body of the next request."""
        values = self._next_values()
        op = self.operation
        if op == "put":
            return json.dumps(
                {
                    "TableName": self.table,
                    "Item": self._padded(values),
                    "ReturnConsumedCapacity": "INDEXES",
                }
            ).encode()
        key = {n: wire_value(values[n]) for n in self.primary}
        if op == "update":
            # Padded with the key counted, then the key left out of the SET: the item the
            # update leaves is `item_size_bytes`, the size a put of it writes (the size
            # decides the units, and the simulation charges both alike).
            padded = self._padded(values)
            item = {n: v for n, v in padded.items() if n not in self.primary}
            names = {f"#a{i}": n for i, n in enumerate(item)}
            vals = {f":v{i}": item[n] for i, n in enumerate(item)}
            expr = "SET " + ", ".join(f"#a{i} = :v{i}" for i in range(len(item)))
            return json.dumps(
                {
                    "TableName": self.table,
                    "Key": key,
                    "UpdateExpression": expr,
                    "ExpressionAttributeNames": names,
                    "ExpressionAttributeValues": vals,
                    "ReturnConsumedCapacity": "INDEXES",
                }
            ).encode()
        if op == "get":
            return json.dumps(
                {
                    "TableName": self.table,
                    "Key": key,
                    "ConsistentRead": self.phase.consistent_read,
                    "ReturnConsumedCapacity": "INDEXES",
                }
            ).encode()
        # query: exactly the one item the simulation reads (pk, and sk when there is one)
        names = {f"#k{i}": n for i, n in enumerate(self.primary)}
        vals = {f":k{i}": key[n] for i, n in enumerate(self.primary)}
        cond = " AND ".join(f"#k{i} = :k{i}" for i in range(len(self.primary)))
        return json.dumps(
            {
                "TableName": self.table,
                "KeyConditionExpression": cond,
                "ExpressionAttributeNames": names,
                "ExpressionAttributeValues": vals,
                "Limit": 1,
                "ConsistentRead": self.phase.consistent_read,
                "ReturnConsumedCapacity": "INDEXES",
            }
        ).encode()
