"""DynamoDB JSON bodies of a scenario's operations, as a live worker sends them.

`loadgen.load.requests` writes the bodies of today's one-operation phases from the key
distributions; a scenario step instead names its keys and items itself (templates the
interpreter filled), so these builders take the rendered values and only know the wire:
the X-Amz-Target, the AttributeValue encoding (`requests.wire_value`), the filler that
brings an item to its size (`requests.padded_item`, the one size rule) and the
expressions of a condition. Every body asks for ConsumedCapacity INDEXES, so a reply
says what DynamoDB charged, table and GSIs.

Conditions are what an application's writes use (issue 26): `attribute_not_exists`
on the key (create only if absent: an idempotent insert), a version check (the item's
version attribute equals what the application read, or is absent when it read none), a
lock that is free or expired, and a lock's owner.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from emulator.wire import TARGET_PREFIX
from loadgen.load.keys import Value
from loadgen.load.requests import padded_item, wire_value

WireItem = dict[str, dict[str, Any]]
"""An item or key as DynamoDB JSON: attribute name -> AttributeValue."""

CONSUMED = {"ReturnConsumedCapacity": "INDEXES"}


@dataclass(frozen=True)
class WriteCondition:
    """The condition of a conditional write, on one attribute of the item as stored."""

    kind: Literal["absent", "equals", "absent_or_below"]
    """absent: the attribute does not exist (on the partition key: the item does not);
    equals: it holds `value`; absent_or_below: it does not exist or is below `value`
    (a lock free or expired)."""
    attr: str
    value: Value | None = None

    def expression(self) -> tuple[str, dict[str, str], dict[str, dict[str, str]]]:
        """(ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues)."""
        names = {"#c0": self.attr}
        if self.kind == "absent":
            return "attribute_not_exists(#c0)", names, {}
        if self.value is None:
            raise ValueError(f"a write condition {self.kind} on {self.attr} needs a value")
        values = {":c0": wire_value(self.value)}
        if self.kind == "equals":
            return "#c0 = :c0", names, values
        return "attribute_not_exists(#c0) OR #c0 < :c0", names, values


@dataclass(frozen=True)
class WireRequest:
    """One request: the operation's X-Amz-Target and its JSON body."""

    operation: str
    """DynamoDB's name of it, e.g. BatchWriteItem."""
    body: dict[str, Any]

    @property
    def target(self) -> str:
        return TARGET_PREFIX + self.operation

    def encode(self) -> bytes:
        return json.dumps(self.body, separators=(",", ":")).encode()


def wire_key(values: Mapping[str, Value]) -> WireItem:
    return {name: wire_value(v) for name, v in values.items()}


def _with_condition(body: dict[str, Any], condition: WriteCondition | None) -> dict[str, Any]:
    if condition is None:
        return body
    expr, names, values = condition.expression()
    body["ConditionExpression"] = expr
    body.setdefault("ExpressionAttributeNames", {}).update(names)
    if values:
        body.setdefault("ExpressionAttributeValues", {}).update(values)
    return body


def _single_conditional(body: dict[str, Any], condition: WriteCondition | None) -> dict[str, Any]:
    """A single-item write's condition, asking for the item a failure finds: DynamoDB
    charges a failed conditional write without reporting it, and the worker counts
    those units from that item's size (loadgen.live.counted_units)."""
    if condition is None:
        return body
    body["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    return _with_condition(body, condition)


def put_item(
    table: str,
    values: Mapping[str, Value],
    size_bytes: int,
    stamp: str = "",
    condition: WriteCondition | None = None,
) -> WireRequest:
    """PutItem of `values` padded to `size_bytes`, optionally conditional."""
    body = {"TableName": table, "Item": padded_item(dict(values), size_bytes, stamp), **CONSUMED}
    return WireRequest("PutItem", _single_conditional(body, condition))


def _set_expression(
    key: Mapping[str, Value], values: Mapping[str, Value], size_bytes: int, stamp: str
) -> dict[str, Any]:
    """UpdateExpression and its names and values that SET `values` (the key's attributes
    left out). With `size_bytes`, padded with the key counted, then the key left out of
    the SET: the item the update leaves is `size_bytes`, what a put of it writes (the
    size decides the units, and the simulation charges both alike)."""
    if size_bytes:
        whole = padded_item({**key, **values}, size_bytes, stamp)
    else:
        whole = {n: wire_value(v) for n, v in values.items()}
    sets = {n: v for n, v in whole.items() if n not in key}
    if not sets:
        raise ValueError("an update needs an attribute to set besides the key")
    return {
        "UpdateExpression": "SET " + ", ".join(f"#u{i} = :u{i}" for i in range(len(sets))),
        "ExpressionAttributeNames": {f"#u{i}": n for i, n in enumerate(sets)},
        "ExpressionAttributeValues": {f":u{i}": v for i, v in enumerate(sets.values())},
    }


def update_item(
    table: str,
    key: Mapping[str, Value],
    values: Mapping[str, Value],
    condition: WriteCondition | None = None,
    size_bytes: int = 0,
    stamp: str = "",
) -> WireRequest:
    """UpdateItem that SETs `values`, optionally conditional and padded to `size_bytes`."""
    body = {
        "TableName": table,
        "Key": wire_key(key),
        **_set_expression(key, values, size_bytes, stamp),
        **CONSUMED,
    }
    return WireRequest("UpdateItem", _single_conditional(body, condition))


def delete_item(
    table: str, key: Mapping[str, Value], condition: WriteCondition | None = None
) -> WireRequest:
    body = {"TableName": table, "Key": wire_key(key), **CONSUMED}
    return WireRequest("DeleteItem", _single_conditional(body, condition))


def get_item(table: str, key: Mapping[str, Value], consistent: bool = False) -> WireRequest:
    body = {"TableName": table, "Key": wire_key(key), "ConsistentRead": consistent, **CONSUMED}
    return WireRequest("GetItem", body)


def query_collection(
    table: str,
    partition: tuple[str, Value],
    index: str | None = None,
    after: tuple[str, Value] | None = None,
    limit: int | None = None,
    start_key: WireItem | None = None,
    consistent: bool = False,
) -> WireRequest:
    """One page of the item collection under `partition` (name, value) on the table or
    `index`; `after` (sort key name, watermark) keeps only items newer than what the
    user captured; `start_key` is the previous page's LastEvaluatedKey."""
    names = {"#p": partition[0]}
    values = {":p": wire_value(partition[1])}
    condition = "#p = :p"
    if after is not None:
        names["#s"] = after[0]
        values[":s"] = wire_value(after[1])
        condition += " AND #s > :s"
    body: dict[str, Any] = {
        "TableName": table,
        "KeyConditionExpression": condition,
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": values,
        **CONSUMED,
    }
    if index is not None:
        body["IndexName"] = index
    else:
        body["ConsistentRead"] = consistent  # a GSI refuses ConsistentRead true
    return WireRequest("Query", _paged(body, limit, start_key))


def scan(
    table: str,
    segment: int = 0,
    segments: int = 1,
    index: str | None = None,
    limit: int | None = None,
    start_key: WireItem | None = None,
) -> WireRequest:
    """One page of one segment of a parallel Scan."""
    if not 0 <= segment < segments:
        raise ValueError(f"scan segment {segment} is outside 0..{segments - 1}")
    body: dict[str, Any] = {"TableName": table, **CONSUMED}
    if segments > 1:
        body["Segment"], body["TotalSegments"] = segment, segments
    if index is not None:
        body["IndexName"] = index
    return WireRequest("Scan", _paged(body, limit, start_key))


def _paged(body: dict[str, Any], limit: int | None, start_key: WireItem | None) -> dict[str, Any]:
    if limit is not None:
        body["Limit"] = limit
    if start_key:
        body["ExclusiveStartKey"] = start_key
    return body


@dataclass(frozen=True)
class BatchPut:
    """One PutRequest of a BatchWriteItem (or Put of a transaction)."""

    table: str
    values: Mapping[str, Value]
    size_bytes: int
    stamp: str = ""


@dataclass(frozen=True)
class BatchDelete:
    """One DeleteRequest of a BatchWriteItem (or Delete of a transaction)."""

    table: str
    key: Mapping[str, Value]


def batch_write(members: Sequence[BatchPut | BatchDelete]) -> WireRequest:
    """BatchWriteItem of up to 25 puts and deletes, grouped by table."""
    items: dict[str, list[dict[str, Any]]] = {}
    for m in members:
        if isinstance(m, BatchPut):
            entry = {"PutRequest": {"Item": padded_item(dict(m.values), m.size_bytes, m.stamp)}}
        else:
            entry = {"DeleteRequest": {"Key": wire_key(m.key)}}
        items.setdefault(m.table, []).append(entry)
    return resend_batch_write(items)


def resend_batch_write(request_items: Mapping[str, list[dict[str, Any]]]) -> WireRequest:
    """BatchWriteItem of the given RequestItems: a reply's UnprocessedItems, resent as
    the application's policy says (the same items, nothing redrawn)."""
    return WireRequest("BatchWriteItem", {"RequestItems": dict(request_items), **CONSUMED})


def batch_get(
    keys: Sequence[tuple[str, Mapping[str, Value]]], consistent: bool = False
) -> WireRequest:
    """BatchGetItem of up to 100 (table, key) pairs."""
    items: dict[str, dict[str, Any]] = {}
    for table, key in keys:
        entry = items.setdefault(table, {"Keys": [], "ConsistentRead": consistent})
        entry["Keys"].append(wire_key(key))
    return resend_batch_get(items)


def resend_batch_get(request_items: Mapping[str, dict[str, Any]]) -> WireRequest:
    """BatchGetItem of a reply's UnprocessedKeys."""
    return WireRequest("BatchGetItem", {"RequestItems": dict(request_items), **CONSUMED})


@dataclass(frozen=True)
class TransactUpdate:
    """An Update of a transaction: SET `values` on the item, padded to `size_bytes`."""

    table: str
    key: Mapping[str, Value]
    values: Mapping[str, Value]
    size_bytes: int = 0
    stamp: str = ""


@dataclass(frozen=True)
class TransactCheck:
    """A ConditionCheck of a transaction: the item's condition, nothing written."""

    table: str
    key: Mapping[str, Value]
    condition: WriteCondition


def transact_write(
    members: Sequence[BatchPut | BatchDelete | TransactUpdate | TransactCheck],
    conditions: Sequence[WriteCondition | None] | None = None,
) -> WireRequest:
    """TransactWriteItems of puts, updates, deletes and condition checks (up to 100), each
    optionally with its own condition (`conditions`, in member order)."""
    conds = list(conditions) if conditions is not None else [None] * len(members)
    if len(conds) != len(members):
        raise ValueError("transact_write: one condition (or None) per member")
    actions: list[dict[str, Any]] = []
    for m, cond in zip(members, conds, strict=True):
        if isinstance(m, BatchPut):
            body: dict[str, Any] = {
                "TableName": m.table,
                "Item": padded_item(dict(m.values), m.size_bytes, m.stamp),
            }
            actions.append({"Put": _with_condition(body, cond)})
        elif isinstance(m, BatchDelete):
            body = {"TableName": m.table, "Key": wire_key(m.key)}
            actions.append({"Delete": _with_condition(body, cond)})
        elif isinstance(m, TransactUpdate):
            body = {
                "TableName": m.table,
                "Key": wire_key(m.key),
                **_set_expression(m.key, m.values, m.size_bytes, m.stamp),
            }
            actions.append({"Update": _with_condition(body, cond)})
        else:
            body = {"TableName": m.table, "Key": wire_key(m.key)}
            actions.append({"ConditionCheck": _with_condition(body, m.condition)})
    return WireRequest("TransactWriteItems", {"TransactItems": actions, **CONSUMED})


def transact_get(keys: Sequence[tuple[str, Mapping[str, Value]]]) -> WireRequest:
    """TransactGetItems of up to 100 (table, key) pairs."""
    actions = [{"Get": {"TableName": t, "Key": wire_key(k)}} for t, k in keys]
    return WireRequest("TransactGetItems", {"TransactItems": actions, **CONSUMED})
