"""A scenario's actions on the wire: the interpreter's `OpAction` as a DynamoDB request,
and a reply as the `Outcome` the interpreter is sent back.

The interpreter (loadgen.load.scenario) is the same for simulation and live runs; this module
is the live side of its protocol, and only translates: the bodies are
`loadgen.live.op_bodies`', the meaning of a reply `loadgen.live.op_replies`'. What a condition
means on the item is written once here, for the wire, as the simulation engine evaluates
it on the item it holds: `version` is the item's `version` attribute (0 = absent; a
versioned write stores the next one), a lock is free when absent or its `expiresAt` is
below the user's now, and it is the user's own when its `owner` is.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, cast

from loadgen.format.playbook import TableSpec
from loadgen.live.op_bodies import (
    BatchDelete,
    BatchPut,
    TransactCheck,
    TransactUpdate,
    WireRequest,
    WriteCondition,
    batch_get,
    batch_write,
    delete_item,
    get_item,
    put_item,
    query_collection,
    scan,
    transact_get,
    transact_write,
    update_item,
)
from loadgen.live.op_replies import OpReply
from loadgen.load.keys import Value
from loadgen.load.requests import wire_value
from loadgen.load.scenario import ActionOutcome, Condition, Member, OpAction, Status

VERSION = "version"
"""The attribute a versioned write checks and advances."""
LOCK_EXPIRY, LOCK_OWNER = "expiresAt", "owner"


class ActionWire:
    """The requests of one worker's actions against one physical table."""

    def __init__(self, spec: TableSpec, table_name: str, worker: int = 0) -> None:
        self.spec = spec
        self.table = table_name
        self.primary = spec.primary_key_names()
        self.worker = worker
        self._writes = 0
        self._types = {k.name: k.type for k in spec.key_attributes()}
        self._sort_keys: dict[str | None, str | None] = {
            None: spec.sort_key.name if spec.sort_key else None,
            # (a step cannot query a multi-attribute GSI: workload_checks refuses it)
            **{g.name: g.sort_keys[0].name if g.sort_keys else None for g in spec.gsis},
        }

    def _stamp(self) -> str:
        """A filler that differs on every write: an identical rewrite would hide GSI
        pressure (a write that changes nothing an index holds is not written to it)."""
        self._writes += 1
        return f"{self.worker:x}.{self._writes:x}."

    def _condition(
        self, condition: Condition | None
    ) -> tuple[WriteCondition | None, dict[str, Value]]:
        """The wire condition and what the write must store with it."""
        if condition is None:
            return None, {}
        if condition.kind == "attribute_not_exists":
            return WriteCondition("absent", self.primary[0]), {}
        if condition.kind == "version":
            seen = condition.version or 0
            check = (
                WriteCondition("absent", VERSION)
                if seen == 0
                else WriteCondition("equals", VERSION, Decimal(seen))
            )
            return check, {VERSION: Decimal(seen + 1)}
        if condition.kind == "lock_free":
            now = Decimal(str(round(condition.now or 0.0, 3)))
            return WriteCondition("absent_or_below", LOCK_EXPIRY, now), {}
        return WriteCondition("equals", LOCK_OWNER, condition.owner or ""), {}

    def request(self, action: OpAction) -> WireRequest:
        """The request of `action` (a batch's unprocessed members come back from the
        interpreter as an action of their own)."""
        op, table = action.operation, self.table
        cond, stored = self._condition(action.condition)
        values = {**action.key, **action.attributes, **stored}
        if op == "put":
            return put_item(table, values, action.size_bytes, self._stamp(), cond)
        if op == "update":
            return update_item(
                table,
                action.key,
                {**action.attributes, **stored},
                cond,
                action.size_bytes,
                self._stamp(),
            )
        if op == "delete":
            return delete_item(table, action.key, cond)
        if op == "get":
            return get_item(table, action.key, action.consistent_read)
        start = action.exclusive_start_key
        if op == "query":
            return self._query(action, start)
        if op == "scan":
            return scan(
                table,
                action.segment or 0,
                action.total_segments or 1,
                action.index,
                action.limit,
                start,
            )
        if op == "batch_write":
            return batch_write([self._batch_member(m) for m in action.members])
        if op == "batch_get":
            return batch_get([(table, m.key) for m in action.members], action.consistent_read)
        if op == "transact_write":
            members = [self._transact_member(m) for m in action.members]
            return transact_write([m for m, _ in members], [c for _, c in members])
        if op == "transact_get":
            return transact_get([(table, m.key) for m in action.members])
        raise ValueError(f"no request for operation {op!r}")

    def _query(self, action: OpAction, start: Any) -> WireRequest:
        (name, value), *_ = action.key.items()
        after = None
        sort = self._sort_keys.get(action.index)
        if action.since is not None and sort is not None:
            # the watermark in the unit `{now}` templates write: milliseconds of run time
            ms = int(action.since * 1000)
            after = (sort, Decimal(ms) if self._types.get(sort) == "N" else str(ms))
        if action.collection:
            return query_collection(
                self.table,
                (name, value),
                action.index,
                after,
                action.limit,
                start,
                action.consistent_read,
            )
        # one item, as a single-operation query phase reads (the key's first item)
        return query_collection(
            self.table, (name, value), action.index, after, 1, None, action.consistent_read
        )

    def _batch_member(self, m: Member) -> BatchPut | BatchDelete:
        if m.action == "delete":
            return BatchDelete(self.table, m.key)
        return BatchPut(self.table, {**m.key, **m.attributes}, m.size_bytes, self._stamp())

    def _transact_member(
        self, m: Member
    ) -> tuple[BatchPut | BatchDelete | TransactUpdate | TransactCheck, WriteCondition | None]:
        cond, stored = self._condition(m.condition)
        if m.action == "put":
            return BatchPut(
                self.table, {**m.key, **m.attributes, **stored}, m.size_bytes, self._stamp()
            ), cond
        if m.action == "update":
            values = {**m.attributes, **stored}
            return TransactUpdate(self.table, m.key, values, m.size_bytes, self._stamp()), cond
        if m.action == "delete":
            return BatchDelete(self.table, m.key), cond
        if cond is None:
            raise ValueError("a transaction's condition_check needs a condition")
        return TransactCheck(self.table, m.key, cond), None

    def unprocessed_members(self, action: OpAction, reply: OpReply) -> tuple[int, ...]:
        """Indices (into the action's members) of what the batch left unprocessed."""
        if not reply.unprocessed:
            return ()
        left: set[tuple[Any, ...]] = set()
        for entry in reply.leftover.values():
            if isinstance(entry, list):  # UnprocessedItems
                for r in entry:
                    wire = (r.get("PutRequest") or {}).get("Item") or (
                        r.get("DeleteRequest") or {}
                    ).get("Key")
                    left.add(self._key_of(wire or {}))
            elif isinstance(entry, dict):  # UnprocessedKeys
                left.update(self._key_of(k) for k in entry.get("Keys") or [])
        return tuple(
            i
            for i, m in enumerate(action.members)
            if self._key_of({n: wire_value(m.key[n]) for n in self.primary if n in m.key}) in left
        )

    def _key_of(self, wire: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(tuple(sorted((wire.get(n) or {}).items())) for n in self.primary)

    def outcome(
        self,
        action: OpAction,
        reply: OpReply,
        attempts: int,
        latency_s: float,
        consumed: float,
    ) -> ActionOutcome:
        """The interpreter's view of the final reply, after `attempts`."""
        reasons = reply.reasons or (
            (reply.attempt.name,) if reply.status in ("error", "throttled") else ()
        )
        return ActionOutcome(
            cast(Status, reply.status),  # op_replies' statuses are the protocol's
            latency_s=latency_s,
            attempts=attempts,
            items=reply.items,
            bytes=reply.item_bytes,
            consumed=consumed,
            last_evaluated_key=reply.last_key,
            reasons=reasons,
            unprocessed=self.unprocessed_members(action, reply),
            version=self._version_after(action, reply),
        )

    def _version_after(self, action: OpAction, reply: OpReply) -> int | None:
        cond = action.condition
        if reply.status == "ok" and cond is not None and cond.kind == "version":
            return (cond.version or 0) + 1
        if action.operation == "get":
            return item_version(reply.item)
        return None


def item_version(item: Mapping[str, Any] | None) -> int | None:
    """The `version` of an item a get returned (wire form), None when it has none."""
    raw = (item or {}).get(VERSION)
    try:
        return int(raw["N"]) if isinstance(raw, dict) and "N" in raw else None
    except ValueError:
        return None
