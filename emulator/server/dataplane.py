"""Data-plane operations: PutItem, GetItem, UpdateItem, DeleteItem, the batch
operations, Query and Scan.

Each operation validates everything first (so a client mistake is refused before it
costs capacity), then asks the model for capacity (`admission`), then, only if
admitted, reads or changes the store. A throttled request changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from emulator.itemsize import item_size
from emulator.model import Decision
from emulator.server.admission import Charge, admit_read, admit_write, location
from emulator.server.expressions import (
    Node,
    Path,
    Placeholders,
    apply_update,
    evaluate,
    parse_condition,
    parse_key_condition,
    parse_projection,
    parse_update,
    project,
)
from emulator.server.items import ItemStore, KeySchema, Sized, pk_hash_of, sort_value
from emulator.server.protocol import (
    ITEM_TOO_LARGE_MESSAGE,
    DynamoError,
    condition_failed,
    invalid_parameter,
    member,
    null_member,
    serialization,
    table_name,
    validation,
)
from emulator.server.table import Table
from emulator.server.values import Item, check_item, check_value, kind_of
from emulator.throttle import Throttle

if TYPE_CHECKING:
    from emulator.server.service import Service

PAGE_BYTES: Final = 1024 * 1024
"""[AWS] a Query or Scan page stops at 1 MB of items read."""
MAX_BATCH_WRITE: Final = 25
MAX_BATCH_GET: Final = 100
LEGACY: Final = (
    "Expected",
    "AttributeUpdates",
    "KeyConditions",
    "QueryFilter",
    "ScanFilter",
    "ConditionalOperator",
)


def throttle_error(throttle: Throttle) -> DynamoError:
    """The model's refusal as the wire error (body built by `Throttle.body`, and its
    members and bytes made once per throttle site, not per refusal)."""
    return DynamoError(
        throttle.exception, throttle.message, extra=throttle.extra, payload=throttle.payload
    )


# --- request members -------------------------------------------------------------------------


def _reject_legacy(req: dict[str, Any]) -> None:
    for name in LEGACY:
        if name in req:
            raise validation(
                f"The legacy parameter {name} is not supported by the hotbench "
                "emulator; use the expression parameters instead"
            )


def _placeholders(req: dict[str, Any]) -> Placeholders:
    names = member(req, "ExpressionAttributeNames", dict, default={})
    for key, value in names.items():
        if not key.startswith("#") or not isinstance(value, str) or not value:
            raise invalid_parameter(
                f"ExpressionAttributeNames must map #names to attribute names; got {key!r}"
            )
    values = member(req, "ExpressionAttributeValues", dict, default={})
    for key, value in values.items():
        if not key.startswith(":"):
            raise invalid_parameter(
                f"ExpressionAttributeValues keys must start with ':'; got {key!r}"
            )
        check_value(value)
    if "ExpressionAttributeValues" in req and not values:
        raise invalid_parameter("ExpressionAttributeValues must not be empty")
    if "ExpressionAttributeNames" in req and not names:
        raise invalid_parameter("ExpressionAttributeNames must not be empty")
    return Placeholders(names, values)


def _condition(
    req: dict[str, Any], ph: Placeholders, name: str = "ConditionExpression"
) -> Node | None:
    text = member(req, name, str)
    return None if text is None else parse_condition(text, ph, name)


def _projection(req: dict[str, Any], ph: Placeholders) -> list[Path] | None:
    text = member(req, "ProjectionExpression", str)
    if text is not None:
        if "AttributesToGet" in req:
            raise validation(
                "Can not use both expression and non-expression parameters in "
                "the same request: Non-expression parameters: {AttributesToGet} "
                "Expression parameters: {ProjectionExpression}"
            )
        return parse_projection(text, ph)
    attrs = member(req, "AttributesToGet", list)
    if attrs is None:
        return None
    if not attrs or not all(isinstance(a, str) for a in attrs):
        raise validation("AttributesToGet must be a non-empty list of attribute names")
    return [(a,) for a in attrs]


def _enum(req: dict[str, Any], name: str, allowed: tuple[str, ...], default: str) -> str:
    value: str = member(req, name, str, default=default)
    if value not in allowed:
        raise validation(
            f"1 validation error detected: Value '{value}' at "
            f"'{name[:1].lower() + name[1:]}' failed to satisfy constraint: "
            f"Member must satisfy enum value set: [{', '.join(allowed)}]"
        )
    return value


def _item_member(req: dict[str, Any], name: str) -> Item:
    value = req.get(name)
    if value is None:
        raise null_member(name[:1].lower() + name[1:])
    return check_item(value, name)


def _check_size(item: Item) -> int:
    size = item_size(item)
    if size > 400 * 1024:
        raise validation(ITEM_TOO_LARGE_MESSAGE)
    return size


def _consumed(mode: str, table: Table, charge: Charge | None) -> dict[str, Any] | None:
    if mode == "NONE" or charge is None:
        return None
    field = "WriteCapacityUnits" if charge.is_write else "ReadCapacityUnits"
    out: dict[str, Any] = {
        "TableName": table.name,
        "CapacityUnits": charge.total,
        field: charge.total,
    }
    if mode == "INDEXES":
        if charge.is_write or charge.index is None:
            out["Table"] = {"CapacityUnits": charge.table_units, field: charge.table_units}
        gsis = dict(charge.gsi_units)
        if not charge.is_write and charge.index is not None:
            gsis[charge.index] = charge.table_units
        if gsis:
            out["GlobalSecondaryIndexes"] = {
                n: {"CapacityUnits": u, field: u} for n, u in gsis.items()
            }
    return out


def _consumed_mode(req: dict[str, Any]) -> str:
    """The ReturnConsumedCapacity member, checked (read once per request)."""
    return _enum(req, "ReturnConsumedCapacity", ("INDEXES", "TOTAL", "NONE"), "NONE")


def _finish(out: dict[str, Any], mode: str, table: Table, charge: Charge | None) -> dict[str, Any]:
    consumed = _consumed(mode, table, charge)
    if consumed is not None:
        out["ConsumedCapacity"] = consumed
    return out


def _admit_write(
    svc: Service,
    table: Table,
    key: Item,
    old: Item | None,
    new: Item | None,
    now: float,
    applies: bool = True,
    old_size: int | None = None,
    new_size: int | None = None,
) -> tuple[Decision, Charge]:
    decision, charge = admit_write(
        svc.model, table, old, new, key, now, applies, old_size, new_size
    )
    svc.metrics.record(table.name, decision, charge, now)
    return decision, charge


def _refuse_unless_admitted(
    decision: Decision, ok: bool, old: Item | None, on_fail: str, store: ItemStore
) -> None:
    """A single-item write's refusals, in DynamoDB's order: a throttle first (the
    condition is not even reported), then a failed condition."""
    if decision.throttle is not None:
        raise throttle_error(decision.throttle)
    if not ok:
        shown = store.answer(old) if old is not None and on_fail == "ALL_OLD" else None
        raise condition_failed(shown)


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
    ph = _placeholders(req)
    cond = _condition(req, ph)
    ph.check_all_used()
    returns = _enum(req, "ReturnValues", ("NONE", "ALL_OLD"), "NONE")
    on_fail = _enum(req, "ReturnValuesOnConditionCheckFailure", ("NONE", "ALL_OLD"), "NONE")
    return cond, returns, on_fail


# --- single-item writes ----------------------------------------------------------------------


def _write_one(
    svc: Service,
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
    now = svc.tick()
    store = table.store
    old, old_size = store.get_for_write(key)
    if old is None and new is not None:
        svc.memory.admit_new_item(store.count)
    ok = cond is None or evaluate(cond, old)
    model_old = store.reconcile(key, old, new) if new is not None and table.gsis else old
    decision, charge = _admit_write(svc, table, key, model_old, new, now, ok, old_size, new_size)
    _refuse_unless_admitted(decision, ok, old, on_fail, store)
    if new is not None:
        store.put(new, new_size)
    elif old is not None:
        store.delete(key)
    out: dict[str, Any] = {}
    if returns == "ALL_OLD" and old is not None:
        out["Attributes"] = store.answer(old)
    return _finish(out, mode, table, charge)


def put_item(svc: Service, req: dict[str, Any]) -> dict[str, Any]:
    table = svc.table(table_name(req))
    plain = _is_plain(req, PLAIN_PUT)
    if not plain:
        _reject_legacy(req)
    item = _item_member(req, "Item")
    table.store.validate_item_keys(item)
    size = _check_size(item)
    options = _NO_WRITE_OPTIONS if plain else _write_options(req)
    return _write_one(
        svc, table, table.schema.key_of(item), item, size, options, _consumed_mode(req)
    )


def delete_item(svc: Service, req: dict[str, Any]) -> dict[str, Any]:
    table = svc.table(table_name(req))
    plain = _is_plain(req, PLAIN_DELETE)
    if not plain:
        _reject_legacy(req)
    key = table.store.validate_key(_item_member(req, "Key"))
    options = _NO_WRITE_OPTIONS if plain else _write_options(req)
    return _write_one(svc, table, key, None, 0, options, _consumed_mode(req))


def update_item(svc: Service, req: dict[str, Any]) -> dict[str, Any]:
    table = svc.table(table_name(req))
    _reject_legacy(req)
    key = table.store.validate_key(_item_member(req, "Key"))
    ph = _placeholders(req)
    text = member(req, "UpdateExpression", str)
    actions = parse_update(text, ph) if text is not None else []
    cond = _condition(req, ph)
    ph.check_all_used()
    returns = _enum(
        req, "ReturnValues", ("NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"), "NONE"
    )
    on_fail = _enum(req, "ReturnValuesOnConditionCheckFailure", ("NONE", "ALL_OLD"), "NONE")
    mode = _consumed_mode(req)
    now = svc.tick()
    store = table.store
    old, old_size = store.get_for_write(key)
    if old is None:
        svc.memory.admit_new_item(store.count)
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
        size = _check_size(new)
    model_old = store.reconcile(key, old, new) if new is not None and table.gsis else old
    decision, charge = _admit_write(
        svc, table, key, model_old, new if ok else None, now, ok, old_size, size
    )
    _refuse_unless_admitted(decision, ok and new is not None, old, on_fail, store)
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
    return _finish(out, mode, table, charge)


def _attr_type(schema: KeySchema, name: str) -> str:
    for key in (schema.pk, schema.sk):
        if key is not None and key.name == name:
            return key.type
    return ""


# --- single-item read ------------------------------------------------------------------------


def _get_projection(req: dict[str, Any]) -> list[Path] | None:
    """A GetItem's projection, its placeholders all used."""
    ph = _placeholders(req)
    paths = _projection(req, ph)
    ph.check_all_used()
    return paths


def get_item(svc: Service, req: dict[str, Any]) -> dict[str, Any]:
    table = svc.table(table_name(req))
    key = table.store.validate_key(_item_member(req, "Key"))
    paths = None if _is_plain(req, PLAIN_GET) else _get_projection(req)
    consistent = member(req, "ConsistentRead", bool, default=False)
    mode = _consumed_mode(req)
    now = svc.tick()
    item, size = table.store.get_sized(key)
    pk_hash, sk_pos = location(table.schema, key)
    decision, charge = admit_read(svc.model, table, pk_hash, sk_pos, size, consistent, None, now)
    svc.metrics.record(table.name, decision, charge, now)
    if decision.throttle is not None:
        raise throttle_error(decision.throttle)
    out: dict[str, Any] = {}
    if item is not None:
        out["Item"] = project(item, paths) if paths else item
    return _finish(out, mode, table, charge)


# --- batches ---------------------------------------------------------------------------------


def _request_items(req: dict[str, Any]) -> dict[str, Any]:
    items = member(req, "RequestItems", dict, required=True)
    if not items:
        raise validation(
            "1 validation error detected: Value at 'requestItems' failed to "
            "satisfy constraint: Member must have length greater than or equal "
            "to 1"
        )
    return items


def batch_write_item(svc: Service, req: dict[str, Any]) -> dict[str, Any]:
    mode = _consumed_mode(req)
    plan: list[tuple[Table, dict[str, Any], Item, Item | None]] = []
    total = 0
    for name, writes in _request_items(req).items():
        table = svc.table(name)
        if not isinstance(writes, list) or not writes:
            raise validation(
                f"The batch write request list for a table cannot be null or empty: {name}"
            )
        seen: set[Any] = set()
        for write in writes:
            total += 1
            if not isinstance(write, dict) or len(write) != 1:
                raise validation(
                    "Supplied AttributeValue has more than one datatypes set, must "
                    "contain exactly one of the supported datatypes"
                )
            ((kind, body),) = write.items()
            if kind == "PutRequest" and isinstance(body, dict):
                item = _item_member(body, "Item")
                table.store.validate_item_keys(item)
                _check_size(item)
                key, new = table.schema.key_of(item), item
            elif kind == "DeleteRequest" and isinstance(body, dict):
                key, new = table.store.validate_key(_item_member(body, "Key")), None
            else:
                raise validation("Each WriteRequest needs a PutRequest or a DeleteRequest")
            ident = tuple(repr(sort_value(key[n])) for n in table.schema.names)
            if ident in seen:
                raise validation("Provided list of item keys contains duplicates")
            seen.add(ident)
            plan.append((table, write, key, new))
    if total > MAX_BATCH_WRITE:
        raise validation(
            "1 validation error detected: Value at 'requestItems' failed to "
            "satisfy constraint: Map value must satisfy constraint: [Member must "
            "have length less than or equal to 25, Member must have length "
            "greater than or equal to 1]"
        )
    now = svc.tick()
    unprocessed: dict[str, list[Any]] = {}
    charges: dict[str, Charge] = {}
    first_throttle: Throttle | None = None
    # Past the memory bound, a batch that would add an item is refused whole, before it
    # costs anything (as a request that fails validation), never half written.
    memory = svc.memory
    memory.admit_new_items(
        sum(
            1
            for table, _w, key, new in plan
            if new is not None and memory.bounds(table.store.count) and not table.store.holds(key)
        )
    )
    for table, write, key, new in plan:
        store = table.store
        old, old_size = store.get_for_write(key)
        new_size = item_size(new) if new is not None else 0
        model_old = store.reconcile(key, old, new) if new is not None and table.gsis else old
        decision, charge = _admit_write(
            svc, table, key, model_old, new, now, True, old_size, new_size
        )
        if decision.throttle is not None:
            first_throttle = first_throttle or decision.throttle
            unprocessed.setdefault(table.name, []).append(write)
            continue
        if new is not None:
            store.put(new, new_size)
        elif old is not None:
            store.delete(key)
        _add_charge(charges, table.name, charge)
    if first_throttle is not None and sum(len(v) for v in unprocessed.values()) == len(plan):
        # [AWS] when no item at all could be written, the batch fails with the throttle.
        raise throttle_error(first_throttle)
    out: dict[str, Any] = {"UnprocessedItems": unprocessed}
    if mode != "NONE":
        out["ConsumedCapacity"] = [_consumed(mode, svc.tables[n], c) for n, c in charges.items()]
    return out


def _add_charge(charges: dict[str, Charge], name: str, charge: Charge) -> None:
    total = charges.get(name)
    if total is None:
        charges[name] = Charge(
            charge.table_units, dict(charge.gsi_units), charge.is_write, charge.index
        )
        return
    total.table_units += charge.table_units
    for index, units in charge.gsi_units.items():
        total.gsi_units[index] = total.gsi_units.get(index, 0.0) + units


def batch_get_item(svc: Service, req: dict[str, Any]) -> dict[str, Any]:
    mode = _consumed_mode(req)
    plan: list[tuple[Table, dict[str, Any], list[Item], list[Path] | None, bool]] = []
    total = 0
    for name, spec in _request_items(req).items():
        table = svc.table(name)
        if not isinstance(spec, dict):
            raise serialization_error("RequestItems")
        keys = member(spec, "Keys", list, required=True)
        if not keys:
            raise validation(
                "1 validation error detected: Value at 'requestItems.keys' failed "
                "to satisfy constraint: Member must have length greater than or "
                "equal to 1"
            )
        checked = [table.store.validate_key(check_item(k, "Keys")) for k in keys]
        idents = {tuple(repr(sort_value(k[n])) for n in table.schema.names) for k in checked}
        if len(idents) != len(checked):
            raise validation("Provided list of item keys contains duplicates")
        total += len(checked)
        ph = _placeholders(spec)
        paths = _projection(spec, ph)
        ph.check_all_used()
        plan.append(
            (table, spec, checked, paths, member(spec, "ConsistentRead", bool, default=False))
        )
    if total > MAX_BATCH_GET:
        raise validation("Too many items requested for the BatchGetItem call")
    now = svc.tick()
    responses: dict[str, list[Item]] = {}
    unprocessed: dict[str, Any] = {}
    charges: dict[str, Charge] = {}
    first_throttle: Throttle | None = None
    for table, spec, keys, paths, consistent in plan:
        found = responses.setdefault(table.name, [])
        for key in keys:
            item, size = table.store.get_sized(key)
            pk_hash, sk_pos = location(table.schema, key)
            decision, charge = admit_read(
                svc.model, table, pk_hash, sk_pos, size, consistent, None, now
            )
            svc.metrics.record(table.name, decision, charge, now)
            if decision.throttle is not None:
                first_throttle = first_throttle or decision.throttle
                entry = unprocessed.setdefault(
                    table.name, {k: v for k, v in spec.items() if k != "Keys"} | {"Keys": []}
                )
                entry["Keys"].append(key)
                continue
            _add_charge(charges, table.name, charge)
            if item is not None:
                found.append(project(item, paths) if paths else item)
    if first_throttle is not None and sum(len(v["Keys"]) for v in unprocessed.values()) == total:
        raise throttle_error(first_throttle)
    out: dict[str, Any] = {"Responses": responses, "UnprocessedKeys": unprocessed}
    if mode != "NONE":
        out["ConsumedCapacity"] = [_consumed(mode, svc.tables[n], c) for n, c in charges.items()]
    return out


def serialization_error(name: str) -> DynamoError:
    return serialization(f"Unexpected value type in payload for member {name}")


# --- Query and Scan --------------------------------------------------------------------------


@dataclass
class _Source:
    """What a Query or Scan reads: the table or one of its GSIs."""

    index: str | None
    schema: KeySchema
    key_names: tuple[str, ...]
    """Attributes of LastEvaluatedKey: the index keys plus the table keys."""


def _source(table: Table, req: dict[str, Any], consistent: bool) -> _Source:
    index = member(req, "IndexName", str)
    if index is None:
        return _Source(None, table.schema, table.schema.names)
    gsi = table.gsis.get(index)
    if gsi is None:
        raise validation(f"The table does not have the specified index: {index}")
    if consistent:
        raise validation("Consistent reads are not supported on global secondary indexes")
    names = tuple(dict.fromkeys((*gsi.schema.names, *table.schema.names)))
    return _Source(index, gsi.schema, names)


def _start_key(req: dict[str, Any], source: _Source) -> Item | None:
    raw = member(req, "ExclusiveStartKey", dict)
    if raw is None:
        return None
    start = check_item(raw, "ExclusiveStartKey")
    if set(start) != set(source.key_names):
        raise validation(
            "The provided starting key is invalid: The provided key element does "
            "not match the schema"
        )
    return start


def _limit(req: dict[str, Any]) -> int | None:
    limit = member(req, "Limit", int)
    if limit is not None and limit < 1:
        raise validation(
            f"1 validation error detected: Value '{limit}' at 'limit' failed to "
            "satisfy constraint: Member must have value greater than or equal to 1"
        )
    return limit


def _index_order(source: _Source, table: Table, item: Item) -> tuple[Any, ...]:
    parts: list[Any] = []
    if source.schema.sk is not None:
        parts.append(sort_value(item[source.schema.sk.name]))
    parts.append(pk_hash_of(item[table.schema.pk.name]))
    parts.append(repr(sort_value(item[table.schema.pk.name])))
    if table.schema.sk is not None:
        parts.append(sort_value(item[table.schema.sk.name]))
    return tuple(parts)


def _sk_matches(test: Node | None, item: Item) -> bool:
    return test is None or evaluate(test, item)


def _query_items(
    table: Table, source: _Source, pk_value: dict[str, Any], forward: bool, start: Item | None
) -> Iterator[Sized]:
    if source.index is None:
        sk = table.schema.sk
        after = sort_value(start[sk.name]) if start is not None and sk is not None else None
        if start is not None and sk is None:
            return
        yield from table.store.collection(pk_value, forward, after, start is not None)
        return
    pk_name = source.schema.pk.name
    wanted = sort_value(pk_value)
    matches = [
        (i, n)
        for i, n in table.store.all_items()
        if source.schema.in_index(i) and sort_value(i[pk_name]) == wanted
    ]
    matches.sort(key=lambda m: _index_order(source, table, m[0]), reverse=not forward)
    if start is not None:
        mark = _index_order(source, table, start)
        matches = [
            m
            for m in matches
            if (_index_order(source, table, m[0]) > mark) == forward
            and _index_order(source, table, m[0]) != mark
        ]
    yield from matches


def _page(
    svc: Service,
    req: dict[str, Any],
    table: Table,
    source: _Source,
    items: Iterator[Sized],
    where: tuple[int, Any] | None,
    consistent: bool,
    sk_test: Node | None,
    ph: Placeholders,
) -> dict[str, Any]:
    filt = _condition(req, ph, "FilterExpression")
    paths = _projection(req, ph)
    ph.check_all_used()
    select = _enum(
        req,
        "Select",
        ("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "SPECIFIC_ATTRIBUTES", "COUNT"),
        "SPECIFIC_ATTRIBUTES" if paths else "ALL_ATTRIBUTES",
    )
    limit = _limit(req)
    mode = _consumed_mode(req)
    now = svc.tick()
    scanned: list[Item] = []
    size = 0
    stopped = False
    for item, item_bytes in items:
        if not _sk_matches(sk_test, item):
            continue
        scanned.append(item)
        size += item_bytes  # the stored size: what DynamoDB reads, whatever the store keeps
        if (limit is not None and len(scanned) >= limit) or size >= PAGE_BYTES:
            stopped = True
            break
    if where is None:
        where = location(source.schema, scanned[0]) if scanned else (0, 0.0)
    decision, charge = admit_read(
        svc.model, table, where[0], where[1], size, consistent, source.index, now
    )
    svc.metrics.record(table.name, decision, charge, now)
    if decision.throttle is not None:
        raise throttle_error(decision.throttle)
    matched = [i for i in scanned if filt is None or evaluate(filt, i)]
    out: dict[str, Any] = {"Count": len(matched), "ScannedCount": len(scanned)}
    if select != "COUNT":
        out["Items"] = [project(i, paths) if paths else i for i in matched]
    if stopped and scanned:
        last = scanned[-1]
        out["LastEvaluatedKey"] = {n: last[n] for n in source.key_names}
    return _finish(out, mode, table, charge)


def query(svc: Service, req: dict[str, Any]) -> dict[str, Any]:
    table = svc.table(table_name(req))
    _reject_legacy(req)
    consistent = member(req, "ConsistentRead", bool, default=False)
    source = _source(table, req, consistent)
    ph = _placeholders(req)
    text = member(req, "KeyConditionExpression", str)
    if text is None:
        raise validation(
            "Either the KeyConditions or KeyConditionExpression parameter must be "
            "specified in the request."
        )
    pk, sk = source.schema.pk, source.schema.sk
    cond = parse_key_condition(text, ph, pk.name, sk.name if sk else None)
    if kind_of(cond.pk_value) != pk.type:
        raise validation(
            "One or more parameter values were invalid: Condition parameter type "
            "does not match schema type"
        )
    forward = member(req, "ScanIndexForward", bool, default=True)
    start = _start_key(req, source)
    items = _query_items(table, source, cond.pk_value, forward, start)
    where = (pk_hash_of(cond.pk_value), 0.0 if sk is None or sk.type == "N" else b"")
    return _page(
        svc, req, table, source, items, None if sk else where, consistent, cond.sk_test, ph
    )


def _in_segment(items: Iterator[Sized], pk_name: str, total: int, part: int) -> Iterator[Sized]:
    """The items of one parallel-Scan segment, lazily: a generator function, not a
    generator expression, which mypyc would turn into a list (a Scan page with a Limit
    must not walk the whole table)."""
    for sized in items:
        if pk_hash_of(sized[0][pk_name]) * total >> 64 == part:
            yield sized


def scan(svc: Service, req: dict[str, Any]) -> dict[str, Any]:
    table = svc.table(table_name(req))
    _reject_legacy(req)
    consistent = member(req, "ConsistentRead", bool, default=False)
    source = _source(table, req, consistent)
    ph = _placeholders(req)
    start = _start_key(req, source)
    segment = member(req, "Segment", int)
    segments = member(req, "TotalSegments", int)
    if (segment is None) != (segments is None):
        raise validation(
            "The Segment parameter is required but was not present in the request "
            "when parameter TotalSegments is present"
            if segment is None
            else "The TotalSegments parameter is required but was not present in the "
            "request when Segment parameter is present"
        )
    if segments is not None and segment is not None and not 0 <= segment < segments <= 1000000:
        raise validation(
            "The Segment parameter is zero-based and must be less than parameter "
            f"TotalSegments: Segment: {segment} is not less than TotalSegments: "
            f"{segments}"
        )
    items: Iterator[Sized]
    if source.index is None:
        items = table.store.scan(start)
    else:
        pk_name = source.schema.pk.name
        pool = sorted(
            (m for m in table.store.all_items() if source.schema.in_index(m[0])),
            key=lambda m: (pk_hash_of(m[0][pk_name]), _index_order(source, table, m[0])),
        )
        if start is not None:
            mark = (pk_hash_of(start[pk_name]), _index_order(source, table, start))
            pool = [
                m
                for m in pool
                if (pk_hash_of(m[0][pk_name]), _index_order(source, table, m[0])) > mark
            ]
        items = iter(pool)
    if segments is not None and segment is not None:
        items = _in_segment(items, table.schema.pk.name, segments, segment)
    return _page(svc, req, table, source, items, None, consistent, None, ph)
