"""The single-item operations: PutItem, DeleteItem, UpdateItem and GetItem."""

from __future__ import annotations

from typing import Any, Final

from emulator.server import lsi
from emulator.server.admission import location
from emulator.server.charging import (
    charge_read,
    charge_write,
    finish,
    refuse_unless_admitted,
    throttle_error,
)
from emulator.server.emulator_state import EmulatorState
from emulator.server.expr_eval import evaluate
from emulator.server.expr_parse import Node, Path, parse_update
from emulator.server.expr_project import project
from emulator.server.expr_update import apply_update
from emulator.server.legacy import attribute_updates, expected_condition, uses_expressions
from emulator.server.protocol import DynamoError, invalid_parameter, member, table_name, validation
from emulator.server.request_validators import (
    MAX_PARTITION_KEY_BYTES,
    MAX_SORT_KEY_BYTES,
    check_key_sizes,
    check_size,
    condition_of,
    consumed_mode,
    enum_of,
    item_member,
    placeholders_of,
    projection_of,
)
from emulator.server.stream_writes import record_write
from emulator.server.table import IndexDef, Table
from emulator.server.values import Item, kind_of, typed

# --- plain requests --------------------------------------------------------------------------
# Most single-item requests carry no condition, placeholders, projection or ReturnValues. For
# those (every member in the operation's PLAIN set) the checks of the absent members are
# skipped: each would find its member absent and pass, so a plain request is refused, charged
# and answered exactly as the full path would (tests/emulator/server/test_plain_requests.py
# runs both paths side by side). Any other member, even one set to its default, takes the
# full path.

PLAIN_PUT: Final = frozenset({"TableName", "Item", "ReturnConsumedCapacity"})
PLAIN_DELETE: Final = frozenset({"TableName", "Key", "ReturnConsumedCapacity"})
PLAIN_GET: Final = frozenset({"TableName", "Key", "ConsistentRead", "ReturnConsumedCapacity"})
_NO_WRITE_OPTIONS: Final[tuple[Node | None, str, str]] = (None, "NONE", "NONE")
"""What `_write_options` returns for a plain request."""


def key_member(table: Table, key: Item) -> Item:
    """A request's Key (its attribute values checked by `item_member`, before the table
    is looked up) as the table's key: its key attributes, of their types and sizes."""
    table.store.validate_key(key)
    check_key_sizes(table.schema, key)
    return key


def _is_plain(req: dict[str, Any], members: frozenset[str]) -> bool:
    """Whether a request has no member outside an operation's PLAIN set."""
    return members.issuperset(req)


def _condition(req: dict[str, Any]) -> Node | None:
    """A write's condition: its ConditionExpression (placeholders all used), or in a
    legacy request its Expected (+ ConditionalOperator)."""
    if not uses_expressions(req, "write"):
        return expected_condition(req)
    ph = placeholders_of(req)
    cond = condition_of(req, ph)
    ph.check_all_used()
    return cond


def _write_options(req: dict[str, Any]) -> tuple[Node | None, str, str]:
    """A PutItem's or DeleteItem's condition, ReturnValues and
    ReturnValuesOnConditionCheckFailure, checked in that order."""
    cond = _condition(req)
    returns = enum_of(req, "ReturnValues", ("NONE", "ALL_OLD"), "NONE")
    on_fail = enum_of(req, "ReturnValuesOnConditionCheckFailure", ("NONE", "ALL_OLD"), "NONE")
    return cond, returns, on_fail


# --- single-item writes ----------------------------------------------------------------------


def _write_one(
    state: EmulatorState,
    table: Table,
    key: Item,
    new: Item | None,
    new_size: int,
    options: tuple[Node | None, str, str],
    mode: str,
    collection_metrics: bool = False,
) -> dict[str, Any]:
    """A validated PutItem (`new` the item) or DeleteItem (`new` None): condition,
    capacity, refusal, store change and reply, in DynamoDB's order, for both.
    `collection_metrics`: ReturnItemCollectionMetrics SIZE (tables with LSIs)."""
    cond, returns, on_fail = options
    now = state.tick()
    store = table.store
    if state.transactions.held:
        state.transactions.check_plain_write(table, key, now)
    old, old_size = store.get_for_write(key)
    if old is None and new is not None:
        state.memory.admit_new_item(store.count)
    ok = cond is None or evaluate(cond, old)
    collection = (
        lsi.check_collection(table, key, old, old_size, new, new_size) if table.lsis and ok else -1
    )
    model_old = store.reconcile(key, old, new) if new is not None and table.gsis else old
    decision, charge = charge_write(state, table, key, model_old, new, now, ok, old_size, new_size)
    refuse_unless_admitted(decision, ok, old, on_fail, store)
    if new is not None:
        store.put(new, new_size)
    elif old is not None:
        store.delete(key)
    if table.stream is not None:
        record_write(state, table, key, old, new, (old_size, new_size), now)
    out: dict[str, Any] = {}
    if returns == "ALL_OLD" and old is not None:
        out["Attributes"] = store.answer(old)
    if collection_metrics and collection >= 0:
        out["ItemCollectionMetrics"] = lsi.collection_metrics(table, key, collection)
    return finish(out, mode, table, charge)


def wants_collection_metrics(req: dict[str, Any]) -> bool:
    """ReturnItemCollectionMetrics SIZE (checked): one check for every write that takes
    it (PutItem, DeleteItem, UpdateItem, BatchWriteItem, TransactWriteItems), so all
    refuse a bad value in the same words."""
    return enum_of(req, "ReturnItemCollectionMetrics", ("SIZE", "NONE"), "NONE") == "SIZE"


def checked_put(table: Table, item: Item) -> Item:
    """An item to put (PutItem, or a BatchWriteItem's PutRequest), its size checked
    already (`check_size`, before the table is looked up, as DynamoDB checks it): its
    table and index keys checked; its key."""
    table.store.validate_item_keys(item)
    check_key_sizes(table.schema, item)
    if table.gsis or table.lsis:
        check_index_keys(table, item)
    return table.schema.key_of(item)


# Each operation checks its request's own members (types, enums, expressions) before it
# looks its table up, and only then what needs the table (keys against its schema), as
# DynamoDB does: a malformed request to a missing table is a ValidationException.


def put_item(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    name = table_name(req)
    mode = consumed_mode(req)
    item = item_member(req, "Item")
    size = check_size(item)
    plain = _is_plain(req, PLAIN_PUT)
    options = _NO_WRITE_OPTIONS if plain else _write_options(req)
    table = state.table(name)
    key = checked_put(table, item)
    metrics = not plain and wants_collection_metrics(req)
    return _write_one(state, table, key, item, size, options, mode, metrics)


def delete_item(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    name = table_name(req)
    mode = consumed_mode(req)
    raw_key = item_member(req, "Key")
    plain = _is_plain(req, PLAIN_DELETE)
    options = _NO_WRITE_OPTIONS if plain else _write_options(req)
    table = state.table(name)
    key = key_member(table, raw_key)
    metrics = not plain and wants_collection_metrics(req)
    return _write_one(state, table, key, None, 0, options, mode, metrics)


def update_item(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    name = table_name(req)
    raw_key = item_member(req, "Key")
    actions: list[Node]
    legacy = not uses_expressions(req, "update")
    if legacy:
        actions = attribute_updates(req) if "AttributeUpdates" in req else []
        cond = expected_condition(req)
    else:
        ph = placeholders_of(req)
        text = member(req, "UpdateExpression", str)
        actions = parse_update(text, ph) if text is not None else []
        cond = condition_of(req, ph)
        ph.check_all_used()
    returns = enum_of(
        req, "ReturnValues", ("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"), "NONE"
    )
    on_fail = enum_of(req, "ReturnValuesOnConditionCheckFailure", ("NONE", "ALL_OLD"), "NONE")
    mode = consumed_mode(req)
    table = state.table(name)
    key = key_member(table, raw_key)
    now = state.tick()
    store = table.store
    if state.transactions.held:
        state.transactions.check_plain_write(table, key, now)
    old, old_size = store.get_for_write(key)
    ok = cond is None or evaluate(cond, old)
    new: Item | None = None
    # [AWS] an update that only removes (REMOVE, or DELETE from a set) creates no item
    # where there was none: there is nothing to remove from. One with no action at all
    # creates the key-only item (Alternator's test_update_item_non_existent, run on AWS).
    creates = old is not None or not actions or any(a[0] in ("set", "add") for a in actions)
    if old is None and creates:
        state.memory.admit_new_item(store.count)
    size = 0
    if ok:
        try:
            new = apply_update(actions, old, table.schema.names, key)
        except DynamoError as exc:
            if legacy and "Incorrect operand type" in exc.message:
                # The same engine; the legacy form's words for its refusal.
                raise invalid_parameter("Type mismatch for attribute to update") from None
            raise
        new.update(key)
        if table.gsis or table.lsis:
            check_index_keys(table, new, by_update=True)
        size = check_size(new)
    collection = -1
    if table.lsis and ok and creates:
        collection = lsi.check_collection(table, key, old, old_size, new, size)
    model_old = store.reconcile(key, old, new) if new is not None and table.gsis else old
    decision, charge = charge_write(
        state, table, key, model_old, new if ok and creates else None, now, ok, old_size, size
    )
    refuse_unless_admitted(decision, ok and new is not None, old, on_fail, store)
    assert new is not None  # refused above otherwise
    out: dict[str, Any] = {}
    if not creates:
        return finish(out, mode, table, charge)
    store.put(new, size)
    if table.stream is not None:
        record_write(state, table, key, old, new, (old_size, size), now)
    if returns == "ALL_OLD" and old is not None:
        out["Attributes"] = store.answer(old)
    elif returns == "ALL_NEW":
        out["Attributes"] = store.answer(new)
    elif returns in ("UPDATED_OLD", "UPDATED_NEW"):
        # Only the paths the update named, nested ones as nested parts of the item.
        source = old if returns == "UPDATED_OLD" else new
        paths = [a[1] for a in actions]
        attrs = project(store.answer(source), paths) if source is not None else {}
        if attrs:
            out["Attributes"] = attrs
    if collection >= 0 and wants_collection_metrics(req):
        out["ItemCollectionMetrics"] = lsi.collection_metrics(table, key, collection)
    return finish(out, mode, table, charge)


def check_index_keys(table: Table, item: Item, by_update: bool = False) -> None:
    """A written item's index key attributes, where present, of the index's key type, not
    empty and within the key sizes (an item without one of them is simply not in the
    index); `by_update`: the item an UpdateItem made, which DynamoDB words differently."""
    for index in (*table.gsis.values(), *table.lsis.values()):
        # The common case inline (no call per index: this runs on every write to a table
        # with GSIs): each key attribute absent, or of its type, not empty and a string
        # short enough to fit whatever it holds (4 UTF-8 bytes at most a character).
        fine = True
        rough = 0
        for attr in index.schema.keys:
            value = item.get(attr.name)
            if value is None:
                continue
            if attr.type not in value or value[attr.type] == "":
                fine = False
            elif attr.type != "N":
                rough += len(value[attr.type])
        if not fine or rough * 4 > MAX_SORT_KEY_BYTES:
            # DynamoDB names the alphabetically first index the item fails (observed).
            indexes = {**table.gsis, **table.lsis}
            for name in sorted(indexes):
                error = _index_key_error(indexes[name], item, by_update)
                if error is not None:
                    raise error


def _index_key_error(index: IndexDef, item: Item, by_update: bool) -> DynamoError | None:
    for attr in index.schema.keys:
        value = item.get(attr.name)
        if value is None:
            continue
        if attr.type not in value:
            return invalid_parameter(
                f"Type mismatch for Index Key {attr.name} Expected: {attr.type} "
                f"Actual: {kind_of(value)} IndexName: {index.name}"
            )
        if value[attr.type] == "":
            return validation(
                "One or more parameter values are not valid. "
                + (
                    "The update expression attempted to update a secondary index key to a "
                    "value that is not supported. "
                    if by_update
                    else "A value specified for a secondary index key is not supported. "
                )
                + "The AttributeValue for a key attribute cannot contain an empty "
                f"{'string' if attr.type == 'S' else 'binary'} value. "
                f"IndexName: {index.name}, IndexKey: {attr.name}"
            )
    return _index_key_size_error(index, item)


def _index_key_size_error(index: IndexDef, item: Item) -> DynamoError | None:
    """[AWS] an index key value is held to the table key's sizes, in the same words: a
    partition key of at most 2,048 bytes, a sort key of at most 1,024 (a write whose GSI
    key is too long is refused whole: dynalite's putItem tests, written against AWS, and
    users' reports of "Size of hashkey has exceeded ..." from GSI keys). A multi-attribute
    key is held to them in all its attributes together, as the sort key's words
    ("Aggregated size of all range keys") say; numbers always fit."""
    schema = index.schema
    for keys, limit in (
        (schema.hash_keys, MAX_PARTITION_KEY_BYTES),
        (schema.range_keys, MAX_SORT_KEY_BYTES),
    ):
        total = 0
        for attr in keys:
            value = item.get(attr.name)
            if value is None or attr.type == "N":
                continue
            total += len(typed(value) if attr.type == "B" else str(value["S"]).encode())
        if total > limit:
            return invalid_parameter(
                "Size of hashkey has exceeded the maximum size limit of2048 bytes"
                if limit == MAX_PARTITION_KEY_BYTES
                else "Aggregated size of all range keys has exceeded the size limit of 1024 bytes"
            )
    return None


# --- single-item read ------------------------------------------------------------------------


def _get_projection(req: dict[str, Any]) -> list[Path] | None:
    """A GetItem's projection (AttributesToGet in a legacy request), its placeholders
    all used."""
    if not uses_expressions(req, "get"):
        return projection_of(req, None)
    ph = placeholders_of(req)
    paths = projection_of(req, ph)
    ph.check_all_used()
    return paths


def get_item(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    name = table_name(req)
    consistent = member(req, "ConsistentRead", bool, default=False)
    mode = consumed_mode(req)
    raw_key = item_member(req, "Key")
    paths = None if _is_plain(req, PLAIN_GET) else _get_projection(req)
    table = state.table(name)
    key = key_member(table, raw_key)
    now = state.tick()
    item, size = table.store.get_sized(key)
    pk_hash, sk_pos = location(table.schema, key)
    decision, charge = charge_read(state, table, pk_hash, sk_pos, size, consistent, None, now)
    if decision.throttle is not None:
        raise throttle_error(decision.throttle)
    out: dict[str, Any] = {}
    if item is not None:
        out["Item"] = project(item, paths) if paths else item
    return finish(out, mode, table, charge)
