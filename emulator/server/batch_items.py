"""The batch operations: BatchWriteItem and BatchGetItem. Each item is charged on its
own; the items the model refuses come back unprocessed, and only a batch of which
nothing could be done fails with the throttle."""

from __future__ import annotations

from typing import Any, Final

from emulator.server import lsi
from emulator.server.admission import Charge, location
from emulator.server.charging import charge_read, charge_write, consumed_capacity, throttle_error
from emulator.server.emulator_state import EmulatorState
from emulator.server.expr_parse import Path
from emulator.server.expr_project import project
from emulator.server.items import sort_value
from emulator.server.legacy import uses_expressions
from emulator.server.protocol import DynamoError, member, serialization, validation
from emulator.server.request_validators import (
    check_key_sizes,
    check_size,
    consumed_mode,
    item_member,
    placeholders_of,
    projection_of,
)
from emulator.server.single_item import checked_put, key_member, wants_collection_metrics
from emulator.server.stream_writes import record_write
from emulator.server.table import Table
from emulator.server.values import Item, check_item
from emulator.throttle import Throttle

MAX_BATCH_WRITE: Final = 25
MAX_BATCH_GET: Final = 100


def _request_items(req: dict[str, Any]) -> dict[str, Any]:
    items = member(req, "RequestItems", dict, required=True)
    if not items:
        raise validation(
            "1 validation error detected: Value at 'requestItems' failed to "
            "satisfy constraint: Member must have length greater than or equal "
            "to 1"
        )
    return items


def _write_requests(req: dict[str, Any]) -> list[tuple[str, dict[str, Any], Item, int]]:
    """A BatchWriteItem's writes as its request gives them, checked before any table is
    looked up, as DynamoDB checks them: (table name, the write, its Item or Key with
    values checked, a put's item size or -1 for a delete)."""
    asked: list[tuple[str, dict[str, Any], Item, int]] = []
    for name, writes in _request_items(req).items():
        if not isinstance(writes, list) or not writes:
            raise validation(
                f"The batch write request list for a table cannot be null or empty: {name}"
            )
        for write in writes:
            if not isinstance(write, dict) or len(write) != 1:
                raise validation(
                    "Supplied AttributeValue has more than one datatypes set, must "
                    "contain exactly one of the supported datatypes"
                )
            ((kind, body),) = write.items()
            if kind == "PutRequest" and isinstance(body, dict):
                item = item_member(body, "Item")
                asked.append((name, write, item, check_size(item)))
            elif kind == "DeleteRequest" and isinstance(body, dict):
                asked.append((name, write, item_member(body, "Key"), -1))
            else:
                raise validation("Each WriteRequest needs a PutRequest or a DeleteRequest")
    if len(asked) > MAX_BATCH_WRITE:
        raise validation(
            "1 validation error detected: Value at 'requestItems' failed to "
            "satisfy constraint: Map value must satisfy constraint: [Member must "
            "have length less than or equal to 25, Member must have length "
            "greater than or equal to 1]"
        )
    return asked


def batch_write_item(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    mode = consumed_mode(req)
    # Checked with the request's other members, before any table is looked up.
    metrics = wants_collection_metrics(req)
    plan: list[tuple[Table, dict[str, Any], Item, Item | None, int]] = []
    seen: set[Any] = set()
    tables: dict[str, Table] = {}
    for name, write, values, put_size in _write_requests(req):
        # Each table looked up once, at its first write (as before the writes were
        # checked first): a look-up reads the emulator's clock, and a batch has 25 writes.
        table = tables.get(name)
        if table is None:
            table = tables[name] = state.table(name)
        new: Item | None
        if put_size >= 0:
            new, new_size = values, put_size
            key = checked_put(table, new)
        else:
            key, new, new_size = key_member(table, values), None, 0
        ident = (name, *(repr(sort_value(key[n])) for n in table.schema.names))
        if ident in seen:
            raise validation("Provided list of item keys contains duplicates")
        seen.add(ident)
        plan.append((table, write, key, new, new_size))
    now = state.tick()
    unprocessed: dict[str, list[Any]] = {}
    charges: dict[str, Charge] = {}
    first_throttle: Throttle | None = None
    # The item collections the batch wrote, by (table, partition-key value), in the
    # order of their first write (kept only for ReturnItemCollectionMetrics SIZE).
    written: lsi.WrittenCollections = {}
    # Past the memory bound, a batch that would add an item is refused whole, before it
    # costs anything (as a request that fails validation), never half written.
    memory = state.memory
    memory.admit_new_items(
        sum(
            1
            for table, _w, key, new, _size in plan
            if new is not None and memory.bounds(table.store.count) and not table.store.holds(key)
        )
    )
    _check_collections(plan)
    for table, write, key, new, new_size in plan:
        store = table.store
        state.transactions.check_plain_write(table, key, now)
        old, old_size = store.get_for_write(key)
        model_old = store.reconcile(key, old, new) if new is not None and table.gsis else old
        decision, charge = charge_write(
            state, table, key, model_old, new, now, True, old_size, new_size
        )
        if decision.throttle is not None:
            # An unprocessed write is not recorded in `written`: it changed no collection
            # (the client sends it again, and that batch reports it), so a collection only
            # throttled writes reached is not in ItemCollectionMetrics.
            first_throttle = first_throttle or decision.throttle
            unprocessed.setdefault(table.name, []).append(write)
            continue
        if new is not None:
            store.put(new, new_size)
        elif old is not None:
            store.delete(key)
        if table.stream is not None:
            record_write(state, table, key, old, new, (old_size, new_size), now)
        add_charge(charges, table.name, charge)
        if metrics:
            lsi.note_written(written, table, key)
    if first_throttle is not None and sum(len(v) for v in unprocessed.values()) == len(plan):
        # [AWS] when no item at all could be written, the batch fails with the throttle.
        raise throttle_error(first_throttle)
    out: dict[str, Any] = {"UnprocessedItems": unprocessed}
    if mode != "NONE":
        out["ConsumedCapacity"] = [
            consumed_capacity(mode, state.tables[n], c) for n, c in charges.items()
        ]
    if written:
        out["ItemCollectionMetrics"] = lsi.metrics_by_table(written)
    return out


def _check_collections(plan: list[tuple[Table, dict[str, Any], Item, Item | None, int]]) -> None:
    """[AWS] a batch whose puts grow an LSI item collection past 10 GB is refused whole
    (ItemCollectionSizeLimitExceededException, one of BatchWriteItem's errors), before
    any of it is written; earlier writes of the batch to a collection count."""
    growth: dict[tuple[str, Any], int] = {}
    for table, _write, key, new, new_size in plan:
        if not table.lsis:
            continue
        old, old_size = table.store.get_for_write(key)
        where = (table.name, sort_value(key[table.schema.pk.name]))
        pending = growth.get(where, 0)
        after = lsi.check_collection(table, key, old, old_size, new, new_size, pending)
        growth[where] = after - lsi.collection_bytes(table, key)


def add_charge(charges: dict[str, Charge], name: str, charge: Charge) -> None:
    """Add one item's charge to its table's total (a batch's or a transaction's reply)."""
    total = charges.get(name)
    if total is None:
        charges[name] = Charge(
            charge.table_units, dict(charge.gsi_units), charge.is_write, charge.index
        )
        return
    total.table_units += charge.table_units
    for index, units in charge.gsi_units.items():
        total.gsi_units[index] = total.gsi_units.get(index, 0.0) + units


def _get_requests(
    req: dict[str, Any],
) -> list[tuple[str, dict[str, Any], list[Item], list[Path] | None, bool]]:
    """A BatchGetItem's reads as its request gives them, checked before any table is
    looked up, as DynamoDB checks them: (table name, its request, its keys with values
    checked, its projection, whether consistent)."""
    asked: list[tuple[str, dict[str, Any], list[Item], list[Path] | None, bool]] = []
    total = 0
    for name, spec in _request_items(req).items():
        if not isinstance(spec, dict):
            raise serialization_error("RequestItems")
        if not uses_expressions(spec, "get"):
            paths = projection_of(spec, None)
        else:
            ph = placeholders_of(spec)
            paths = projection_of(spec, ph)
            ph.check_all_used()
        keys = member(spec, "Keys", list, required=True)
        if not keys:
            raise validation(
                "1 validation error detected: Value at 'requestItems.keys' failed "
                "to satisfy constraint: Member must have length greater than or "
                "equal to 1"
            )
        checked = [check_item(k, "Keys") for k in keys]
        # Compared as dynalite, tested against DynamoDB, compares them: every attribute
        # a key names, by name (the table's key schema is not known yet).
        idents = {tuple(sorted((n, repr(sort_value(v))) for n, v in k.items())) for k in checked}
        if len(idents) != len(checked):
            raise validation("Provided list of item keys contains duplicates")
        total += len(checked)
        if total > MAX_BATCH_GET:
            raise validation("Too many items requested for the BatchGetItem call")
        consistent = member(spec, "ConsistentRead", bool, default=False)
        asked.append((name, spec, checked, paths, consistent))
    return asked


def batch_get_item(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    mode = consumed_mode(req)
    plan: list[tuple[Table, dict[str, Any], list[Item], list[Path] | None, bool]] = []
    total = 0
    for name, spec, keys, paths, consistent in _get_requests(req):
        table = state.table(name)
        for key in keys:
            table.store.validate_key(key)
            check_key_sizes(table.schema, key)
        total += len(keys)
        plan.append((table, spec, keys, paths, consistent))
    now = state.tick()
    responses: dict[str, list[Item]] = {}
    unprocessed: dict[str, Any] = {}
    charges: dict[str, Charge] = {}
    first_throttle: Throttle | None = None
    for table, spec, keys, paths, consistent in plan:
        found = responses.setdefault(table.name, [])
        for key in keys:
            item, size = table.store.get_sized(key)
            pk_hash, sk_pos = location(table.schema, key)
            decision, charge = charge_read(
                state, table, pk_hash, sk_pos, size, consistent, None, now
            )
            if decision.throttle is not None:
                first_throttle = first_throttle or decision.throttle
                entry = unprocessed.setdefault(
                    table.name, {k: v for k, v in spec.items() if k != "Keys"} | {"Keys": []}
                )
                entry["Keys"].append(key)
                continue
            add_charge(charges, table.name, charge)
            if item is not None:
                found.append(project(item, paths) if paths else item)
    if first_throttle is not None and sum(len(v["Keys"]) for v in unprocessed.values()) == total:
        raise throttle_error(first_throttle)
    out: dict[str, Any] = {"Responses": responses, "UnprocessedKeys": unprocessed}
    if mode != "NONE":
        out["ConsumedCapacity"] = [
            consumed_capacity(mode, state.tables[n], c) for n, c in charges.items()
        ]
    return out


def serialization_error(name: str) -> DynamoError:
    return serialization(f"Unexpected value type in payload for member {name}")
