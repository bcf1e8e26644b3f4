"""DynamoDB JSON bodies of a scenario's operations, as a live worker sends them.

`loadgen.requests` writes the bodies of today's one-operation phases from the key
distributions; a scenario step instead names its keys and items itself (templates the
interpreter filled), so these builders take the rendered values and only know the wire:
the X-Amz-Target, the AttributeValue encoding (`requests.wire_value`), the filler that
brings an item to its size (`requests.padded_item`, the one size rule) and the
expressions of a condition. Every body asks for ConsumedCapacity INDEXES, so a reply
says what DynamoDB charged, table and GSIs.

Conditions are the two an application's writes use (issue 26): `attribute_not_exists`
on the key (create only if absent: a lock, an idempotent insert) and a version check
(the item's version attribute equals what the application read, or the item is absent
when it read none).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from emulator.wire import TARGET_PREFIX
from loadgen.keys import Value
from loadgen.requests import padded_item, wire_value

WireItem = dict[str, dict[str, Any]]
"""An item or key as DynamoDB JSON: attribute name -> AttributeValue."""

CONSUMED = {"ReturnConsumedCapacity": "INDEXES"}


@dataclass(frozen=True)
class WriteCondition:
    """The condition of a conditional write: absent key, or a version that must match."""

    absent: str | None = None
    """Attribute that must not exist (the partition key: the item must not exist)."""
    version_attr: str | None = None
    """Attribute holding the item's version, checked against `expected`."""
    expected: Value | None = None
    """The version the application read; None: the item must not have one yet."""

    def expression(self) -> tuple[str, dict[str, str], dict[str, dict[str, str]]]:
        """(ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues)."""
        if self.absent is not None:
            return "attribute_not_exists(#c0)", {"#c0": self.absent}, {}
        if self.version_attr is None:
            raise ValueError("a write condition needs `absent` or `version_attr`")
        names = {"#cv": self.version_attr}
        if self.expected is None:
            return "attribute_not_exists(#cv)", names, {}
        return "#cv = :cv", names, {":cv": wire_value(self.expected)}


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


def put_item(
    table: str,
    values: Mapping[str, Value],
    size_bytes: int,
    stamp: str = "",
    condition: WriteCondition | None = None,
) -> WireRequest:
    """PutItem of `values` padded to `size_bytes`, optionally conditional."""
    body = {"TableName": table, "Item": padded_item(dict(values), size_bytes, stamp), **CONSUMED}
    return WireRequest("PutItem", _with_condition(body, condition))


def update_item(
    table: str,
    key: Mapping[str, Value],
    values: Mapping[str, Value],
    condition: WriteCondition | None = None,
) -> WireRequest:
    """UpdateItem that SETs `values` (the key's attributes left out), optionally
    conditional: a version check sets the new version among `values`."""
    sets = {n: v for n, v in values.items() if n not in key}
    if not sets:
        raise ValueError(f"update of {table}: nothing to set besides the key")
    names = {f"#u{i}": n for i, n in enumerate(sets)}
    vals = {f":u{i}": wire_value(v) for i, v in enumerate(sets.values())}
    body = {
        "TableName": table,
        "Key": wire_key(key),
        "UpdateExpression": "SET " + ", ".join(f"#u{i} = :u{i}" for i in range(len(sets))),
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": vals,
        **CONSUMED,
    }
    return WireRequest("UpdateItem", _with_condition(body, condition))


def delete_item(
    table: str, key: Mapping[str, Value], condition: WriteCondition | None = None
) -> WireRequest:
    body = {"TableName": table, "Key": wire_key(key), **CONSUMED}
    return WireRequest("DeleteItem", _with_condition(body, condition))


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
class TransactCheck:
    """A ConditionCheck of a transaction: the item's condition, nothing written."""

    table: str
    key: Mapping[str, Value]
    condition: WriteCondition


def transact_write(
    members: Sequence[BatchPut | BatchDelete | TransactCheck],
    conditions: Sequence[WriteCondition | None] | None = None,
) -> WireRequest:
    """TransactWriteItems of puts, deletes and condition checks (up to 100), each
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
        else:
            body = {"TableName": m.table, "Key": wire_key(m.key)}
            actions.append({"ConditionCheck": _with_condition(body, m.condition)})
    return WireRequest("TransactWriteItems", {"TransactItems": actions, **CONSUMED})


def transact_get(keys: Sequence[tuple[str, Mapping[str, Value]]]) -> WireRequest:
    """TransactGetItems of up to 100 (table, key) pairs."""
    actions = [{"Get": {"TableName": t, "Key": wire_key(k)}} for t, k in keys]
    return WireRequest("TransactGetItems", {"TransactItems": actions, **CONSUMED})
