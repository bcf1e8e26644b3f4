"""The single-item operations: PutItem, DeleteItem, UpdateItem and GetItem."""

from __future__ import annotations

from typing import Any, Final

from emulator.server.admission import location
from emulator.server.charging import (
    charge_read,
    charge_write,
    finish,
    refuse_unless_admitted,
    throttle_error,
)
from emulator.server.expr_eval import evaluate
from emulator.server.expr_parse import Node, Path, parse_update
from emulator.server.expr_project import project
from emulator.server.expr_update import apply_update
from emulator.server.items import KeySchema
from emulator.server.members import (
    check_size,
    condition_of,
    consumed_mode,
    enum_of,
    item_member,
    placeholders_of,
    projection_of,
    reject_legacy,
)
from emulator.server.protocol import invalid_parameter, member, table_name
from emulator.server.state import EmulatorState
from emulator.server.table import Table
from emulator.server.values import Item, kind_of

# --- plain requests --------------------------------------------------------------------------
# Most single-item requests carry no condition, placeholders, projection or ReturnValues. For
# those (every member in the operation's PLAIN set) the checks of the absent members are
# skipped: each would find its member absent and pass, so a plain request is refused, charged
# and answered exactly as the full path would (tests/emulator_endpoint/test_plain_requests.py
# runs both paths side by side). Any other member, even one set to its default, takes the
# full path.

PLAIN_PUT: Final = frozenset({"TableName", "Item", "ReturnConsumedCapacity"})
PLAIN_DELETE: Final = frozenset({"TableName", "Key", "ReturnConsumedCapacity"})
PLAIN_GET: Final = frozenset({"TableName", "Key", "ConsistentRead", "ReturnConsumedCapacity"})
_NO_WRITE_OPTIONS: Final[tuple[Node | None, str, str]] = (None, "NONE", "NONE")
"""What `_write_options` returns for a plain request."""


def _is_plain(req: dict[str, Any], members: frozenset[str]) -> bool:
    """Whether a request has no member outside an operation's PLAIN set."""
    return members.issuperset(req)


def _write_options(req: dict[str, Any]) -> tuple[Node | None, str, str]:
    """A PutItem's or DeleteItem's condition (placeholders all used), ReturnValues and
    ReturnValuesOnConditionCheckFailure, checked in that order."""
    ph = placeholders_of(req)
    cond = condition_of(req, ph)
    ph.check_all_used()
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
) -> dict[str, Any]:
    """A validated PutItem (`new` the item) or DeleteItem (`new` None): condition,
    capacity, refusal, store change and reply, in DynamoDB's order, for both."""
    cond, returns, on_fail = options
    now = state.tick()
    store = table.store
    old, old_size = store.get_for_write(key)
    if old is None and new is not None:
        state.memory.admit_new_item(store.count)
    ok = cond is None or evaluate(cond, old)
    model_old = store.reconcile(key, old, new) if new is not None and table.gsis else old
    decision, charge = charge_write(state, table, key, model_old, new, now, ok, old_size, new_size)
    refuse_unless_admitted(decision, ok, old, on_fail, store)
    if new is not None:
        store.put(new, new_size)
    elif old is not None:
        store.delete(key)
    out: dict[str, Any] = {}
    if returns == "ALL_OLD" and old is not None:
        out["Attributes"] = store.answer(old)
    return finish(out, mode, table, charge)


def put_item(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    table = state.table(table_name(req))
    plain = _is_plain(req, PLAIN_PUT)
    if not plain:
        reject_legacy(req)
    item = item_member(req, "Item")
    table.store.validate_item_keys(item)
    size = check_size(item)
    options = _NO_WRITE_OPTIONS if plain else _write_options(req)
    return _write_one(
        state, table, table.schema.key_of(item), item, size, options, consumed_mode(req)
    )


def delete_item(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    table = state.table(table_name(req))
    plain = _is_plain(req, PLAIN_DELETE)
    if not plain:
        reject_legacy(req)
    key = table.store.validate_key(item_member(req, "Key"))
    options = _NO_WRITE_OPTIONS if plain else _write_options(req)
    return _write_one(state, table, key, None, 0, options, consumed_mode(req))


def update_item(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    table = state.table(table_name(req))
    reject_legacy(req)
    key = table.store.validate_key(item_member(req, "Key"))
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
    now = state.tick()
    store = table.store
    old, old_size = store.get_for_write(key)
    if old is None:
        state.memory.admit_new_item(store.count)
    ok = cond is None or evaluate(cond, old)
    new: Item | None = None
    size = 0
    if ok:
        new = apply_update(actions, old, table.schema.names)
        new.update(key)
        for index in table.gsis.values():
            for attr in index.schema.names:
                value = new.get(attr)
                if value is not None and kind_of(value) != _attr_type(index.schema, attr):
                    raise invalid_parameter(
                        f"Type mismatch for Index Key {attr} Expected: "
                        f"{_attr_type(index.schema, attr)} Actual: {kind_of(value)} "
                        f"IndexName: {index.name}"
                    )
        size = check_size(new)
    model_old = store.reconcile(key, old, new) if new is not None and table.gsis else old
    decision, charge = charge_write(
        state, table, key, model_old, new if ok else None, now, ok, old_size, size
    )
    refuse_unless_admitted(decision, ok and new is not None, old, on_fail, store)
    assert new is not None  # refused above otherwise
    store.put(new, size)
    out: dict[str, Any] = {}
    touched = {str(a[1][0]) for a in actions}
    if returns == "ALL_OLD" and old is not None:
        out["Attributes"] = store.answer(old)
    elif returns == "ALL_NEW":
        out["Attributes"] = store.answer(new)
    elif returns == "UPDATED_OLD" and old is not None:
        attrs = {k: v for k, v in store.answer(old).items() if k in touched}
        if attrs:
            out["Attributes"] = attrs
    elif returns == "UPDATED_NEW":
        attrs = {k: v for k, v in store.answer(new).items() if k in touched}
        if attrs:
            out["Attributes"] = attrs
    return finish(out, mode, table, charge)


def _attr_type(schema: KeySchema, name: str) -> str:
    for key in (schema.pk, schema.sk):
        if key is not None and key.name == name:
            return key.type
    return ""


# --- single-item read ------------------------------------------------------------------------


def _get_projection(req: dict[str, Any]) -> list[Path] | None:
    """A GetItem's projection, its placeholders all used."""
    ph = placeholders_of(req)
    paths = projection_of(req, ph)
    ph.check_all_used()
    return paths


def get_item(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    table = state.table(table_name(req))
    key = table.store.validate_key(item_member(req, "Key"))
    paths = None if _is_plain(req, PLAIN_GET) else _get_projection(req)
    consistent = member(req, "ConsistentRead", bool, default=False)
    mode = consumed_mode(req)
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
