"""TransactWriteItems and TransactGetItems, as DynamoDB documents them
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html).

Every action is validated as its single-item operation validates it (the same member
checks, `single_item.checked_put` and `key_member`, the same expression parser; what the
request alone can refuse is refused before any table is looked up), then the
transaction runs under the service's one lock, so it is atomic by construction: each
action's condition is evaluated and its new item made, the items' capacity is asked of
the same capacity model as one request (`CapacityModel.write_together/read_together`: two
underlying operations per item, `units.transactional_*`), and only when no action has a
reason to cancel are the changes applied. A cancelled transaction changes nothing and
answers TransactionCanceledException with one CancellationReason per action, in action
order.

A transaction is admitted as DynamoDB admits one request: whole, when every partition and
table limit it touches has capacity left, and charged in full even when that is more
than the limit holds (a 3 MB transaction costs ~6,000 WCU, more than a new on-demand
table's 4,000 a second: DynamoDB runs it; `buckets.admit_on_credit` gives the source).
Refused, it is charged nothing, and the first action whose partition or limit had no
capacity left gets the throttle as its reason (ThrottlingError on demand,
ProvisionedThroughputExceeded provisioned). What DynamoDB charges a cancelled
transaction is not documented: one cancelled by a condition is charged as it would have
been committed (a failed single-item condition still consumes write units, too).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from emulator.itemsize import item_size
from emulator.model import Decision, ReadRequest
from emulator.server import lsi
from emulator.server.admission import Charge, WritePlan, location, plan_write
from emulator.server.batch_items import add_charge
from emulator.server.charging import charge_read, consumed_capacity
from emulator.server.emulator_state import EmulatorState
from emulator.server.expr_eval import evaluate
from emulator.server.expr_parse import Node, Path, parse_update
from emulator.server.expr_project import project
from emulator.server.expr_update import apply_update
from emulator.server.inflight import (
    CONFLICT_MESSAGE,
    ItemId,
    item_id,
    request_fingerprint,
)
from emulator.server.protocol import (
    CONDITION_FAILED_MESSAGE,
    DynamoError,
    member,
    null_member,
    table_name,
    validation,
)
from emulator.server.request_validators import (
    check_measured_size,
    check_size,
    condition_of,
    consumed_mode,
    enum_of,
    item_member,
    placeholders_of,
    projection_of,
)
from emulator.server.single_item import (
    check_index_keys,
    checked_put,
    key_member,
    wants_collection_metrics,
)
from emulator.server.stream_writes import record_write
from emulator.server.table import Table
from emulator.server.values import Item
from emulator.throttle import Throttle
from emulator.units import transactional_read_units

MAX_TRANSACTION_BYTES: Final = 4 * 1024 * 1024
"""[AWS] the items of one transaction total at most 4 MB."""
WRITE_KINDS: Final = ("ConditionCheck", "Put", "Delete", "Update")
ADMITTED: Final = Decision(1, 0, None)
"""What the metrics record of each action of an admitted transaction."""
THROTTLE_CODES: Final = {
    "ThrottlingException": "ThrottlingError",
    "ProvisionedThroughputExceededException": "ProvisionedThroughputExceeded",
}
"""A throttle exception's name as a CancellationReason code (BatchStatementErrorCodeEnum)."""


@dataclass
class _Write:
    """One validated action of a TransactWriteItems."""

    kind: str
    table: Table
    key: Item
    cond: Node | None
    on_fail: str
    item: Item | None = None
    """A Put's item."""
    size: int = 0
    """A Put's size."""
    updates: list[Node] = field(default_factory=list)
    """An Update's actions."""


@dataclass
class _Outcome:
    """What evaluating one action found: the item it replaces, what it writes, and its
    reason to cancel the transaction (None: none)."""

    old: Item | None
    old_size: int
    new: Item | None
    new_size: int
    reason: dict[str, Any] | None = None


def _actions(req: dict[str, Any]) -> list[Any]:
    """The request's actions; their count (1 to 100) was checked with the request's
    shape (shapes.py, in the words DynamoDB uses for it)."""
    raw: list[Any] = member(req, "TransactItems", list, required=True)
    return raw


def _where(number: int, kind: str, name: str) -> str:
    """The member path DynamoDB names in a validation message about one action."""
    return f"transactItems.{number}.member.{kind[:1].lower() + kind[1:]}.{name}"


@dataclass
class _WriteRequest:
    """One action of a TransactWriteItems as its request gives it, checked as far as the
    request alone allows (before any table is looked up, as DynamoDB checks a request)."""

    kind: str
    table_name: str
    values: Item
    """A Put's Item, or the Key of the other actions (attribute values checked)."""
    cond: Node | None
    on_fail: str
    updates: list[Node]
    size: int
    """A Put's item size in bytes, measured once (0 for the other actions)."""


def _write_request(number: int, raw: Any) -> _WriteRequest:
    if not isinstance(raw, dict):
        raise validation("TransactItems can only contain one of Check, Put, Update or Delete")
    kinds = [k for k in WRITE_KINDS if raw.get(k) is not None]
    if len(kinds) != 1 or not isinstance(raw[kinds[0]], dict):
        raise validation("TransactItems can only contain one of Check, Put, Update or Delete")
    kind = kinds[0]
    body: dict[str, Any] = raw[kind]
    name = table_name(body)
    ph = placeholders_of(body)
    cond = condition_of(body, ph)
    if kind == "ConditionCheck" and cond is None:
        raise null_member(_where(number, kind, "conditionExpression"))
    on_fail = enum_of(body, "ReturnValuesOnConditionCheckFailure", ("NONE", "ALL_OLD"), "NONE")
    values = item_member(body, "Item" if kind == "Put" else "Key")
    updates: list[Node] = []
    if kind == "Update":
        text = member(body, "UpdateExpression", str)
        if text is None:
            raise null_member(_where(number, kind, "updateExpression"))
        updates = parse_update(text, ph)
    ph.check_all_used()
    size = item_size(values) if kind == "Put" else 0
    return _WriteRequest(kind, name, values, cond, on_fail, updates, size)


def _write_action(state: EmulatorState, asked: _WriteRequest) -> _Write:
    """An action checked against its table (keys against the key schema, a Put's item
    against its indexes and the size limit)."""
    table = state.table(asked.table_name)
    if asked.kind == "Put":
        key = checked_put(table, asked.values)
        size = check_measured_size(asked.size)
        return _Write(asked.kind, table, key, asked.cond, asked.on_fail, asked.values, size)
    key = key_member(table, asked.values)
    return _Write(asked.kind, table, key, asked.cond, asked.on_fail, updates=asked.updates)


def _check_distinct(ids: list[ItemId]) -> None:
    if len(set(ids)) != len(ids):
        raise validation("Transaction request cannot include multiple operations on one item")


def _condition_failed(old: Item | None, on_fail: str, table: Table) -> dict[str, Any]:
    reason: dict[str, Any] = {"Code": "ConditionalCheckFailed", "Message": CONDITION_FAILED_MESSAGE}
    if on_fail == "ALL_OLD" and old is not None:
        reason["Item"] = table.store.answer(old)
    return reason


def _conflict() -> dict[str, Any]:
    return {"Code": "TransactionConflict", "Message": CONFLICT_MESSAGE}


def _throttled(throttle: Throttle) -> dict[str, Any]:
    code = THROTTLE_CODES.get(throttle.exception, "ThrottlingError")
    return {"Code": code, "Message": throttle.message}


def cancelled(reasons: list[dict[str, Any] | None]) -> DynamoError:
    """TransactionCanceledException with its reasons in action order."""
    shown = [r if r is not None else {"Code": "None"} for r in reasons]
    codes = ", ".join(r["Code"] for r in shown)
    return DynamoError(
        "TransactionCanceledException",
        f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]",
        extra={"CancellationReasons": shown},
    )


def _evaluate(
    state: EmulatorState, action: _Write, ident: ItemId, now: float, growth: dict[Any, int]
) -> _Outcome:
    """One action's condition and new item, against the item as it is now; `growth`: the
    bytes earlier actions add to each LSI item collection."""
    table = action.table
    old, old_size = table.store.get_for_write(action.key)
    outcome = _Outcome(old, old_size, None, 0)
    if state.transactions.is_held(ident, now):
        outcome.reason = _conflict()
        return outcome
    if action.cond is not None and not evaluate(action.cond, old):
        outcome.reason = _condition_failed(old, action.on_fail, table)
        return outcome
    if action.kind == "Put":
        outcome.new, outcome.new_size = action.item, action.size
    elif action.kind == "Update":
        removes_only = all(a[0] not in ("set", "add") for a in action.updates)
        if old is None and action.updates and removes_only:
            # [AWS] as UpdateItem: an update that only removes makes no item where there was
            # none (single_item.update_item).
            return outcome
        try:
            new = apply_update(action.updates, old, table.schema.names, action.key)
            new.update(action.key)
            if table.gsis or table.lsis:
                check_index_keys(table, new, by_update=True)
            outcome.new, outcome.new_size = new, check_size(new)
        except DynamoError as exc:
            # [AWS] an item the transaction would make invalid cancels it (ValidationError).
            outcome.reason = {"Code": "ValidationError", "Message": exc.message}
            return outcome
    if table.lsis and outcome.new is not None:
        where = (table.name, ident[1][0])
        pending = growth.get(where, 0)
        try:
            after = lsi.check_collection(
                table, action.key, old, old_size, outcome.new, outcome.new_size, pending
            )
        except DynamoError as exc:
            outcome.reason = {"Code": "ItemCollectionSizeLimitExceeded", "Message": exc.message}
        else:
            growth[where] = after - lsi.collection_bytes(table, action.key)
    return outcome


def _writes(action: _Write) -> bool:
    return action.kind != "ConditionCheck"


def transact_write_items(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    raw = _actions(req)
    token = member(req, "ClientRequestToken", str)  # 1 to 36 characters: shapes.py
    mode = consumed_mode(req)
    # PutItem's check (the same enum, in the same words), in the same place as before:
    # with the request's other members, before any action or table is looked at.
    metrics = wants_collection_metrics(req)
    asked = [_write_request(n, a) for n, a in enumerate(raw, 1)]
    put_bytes = sum(a.size for a in asked)
    if put_bytes > MAX_TRANSACTION_BYTES:
        raise validation("Transaction request size has exceeded the maximum allowed size of 4 MB")
    plan = [_write_action(state, a) for a in asked]
    ids = [item_id(a.table, a.key) for a in plan]
    _check_distinct(ids)
    now = state.tick()
    ledger = state.transactions
    fingerprint = request_fingerprint(req) if token is not None else b""
    if token is not None:
        first = ledger.token(token, fingerprint, now)
        if first is not None:
            # A repeat writes nothing, so it reports no ItemCollectionMetrics either.
            return _replay(state, first.items, mode, now)
    growth: dict[Any, int] = {}
    outcomes = [_evaluate(state, a, i, now, growth) for a, i in zip(plan, ids, strict=True)]
    committing = all(o.reason is None for o in outcomes)
    memory = state.memory
    if committing:
        memory.admit_new_items(
            sum(
                1
                for a, o in zip(plan, outcomes, strict=True)
                if o.old is None and o.new is not None and memory.bounds(a.table.store.count)
            )
        )
    # Every action's capacity asked of the model together, as one request
    # (`CapacityModel.write_together`): admitted whole when every resource it touches has
    # capacity left, however much it costs, or refused whole, charging nothing.
    model = state.model
    planned: list[tuple[_Write, _Outcome, WritePlan]] = []
    for action, outcome in zip(plan, outcomes, strict=True):
        if outcome.reason is not None and outcome.reason["Code"] == "TransactionConflict":
            continue  # never reached the item: nothing prepared on it
        table = action.table
        store = table.store
        new = outcome.new if committing else None
        model_old = (
            store.reconcile(action.key, outcome.old, new)
            if new is not None and table.gsis
            else outcome.old
        )
        planned_write = plan_write(
            model,
            table,
            model_old,
            new,
            action.key,
            committing and _writes(action),
            outcome.old_size,
            outcome.new_size if committing else action.size,
            transactional=True,
        )
        planned.append((action, outcome, planned_write))
    refused, throttle = model.write_together(
        [
            (model.tables[a.table.name], p.pk_hash, p.sk_pos, p.units, p.gsi_writes)
            for a, _o, p in planned
        ],
        now=now,
    )
    charges: dict[str, Charge] = {}
    for number, (action, outcome, charged) in enumerate(planned):
        if refused < 0:
            state.metrics.record(action.table.name, ADMITTED, charged.charge, now)
            add_charge(charges, action.table.name, charged.charge)
        elif number == refused:
            assert throttle is not None
            state.metrics.record(action.table.name, Decision(0, 1, throttle), charged.charge, now)
            outcome.reason = _throttled(throttle)
            committing = False
    if not committing:
        # Nothing was written, so no item collection changed: a cancelled transaction has
        # no ItemCollectionMetrics (an error reply has no such member anyway).
        raise cancelled([o.reason for o in outcomes])
    # The item collections the transaction wrote (kept only for SIZE), in action order.
    written: lsi.WrittenCollections = {}
    for action, outcome in zip(plan, outcomes, strict=True):
        store = action.table.store
        if action.kind in ("Put", "Update") and outcome.new is not None:
            store.put(outcome.new, outcome.new_size)
        elif action.kind == "Delete" and outcome.old is not None:
            store.delete(action.key)
        if action.table.stream is not None and action.kind != "ConditionCheck":
            new = outcome.new if action.kind != "Delete" else None
            sizes = (outcome.old_size, outcome.new_size)
            record_write(state, action.table, action.key, outcome.old, new, sizes, now)
        if metrics and _affects_collection(action, outcome):
            lsi.note_written(written, action.table, action.key)
    ledger.hold(ids, now)
    if token is not None:
        ledger.remember(token, fingerprint, [(a.table.name, a.key) for a in plan], now)
    out: dict[str, Any] = {}
    if mode != "NONE":
        out["ConsumedCapacity"] = [
            consumed_capacity(mode, state.tables[n], c) for n, c in charges.items()
        ]
    if written:
        # Sized after every action is applied, as BatchWriteItem sizes its collections.
        # Nothing to report (no Put, Update or Delete on a table with LSIs, or NONE):
        # the member is left out, as BatchWriteItem and PutItem leave it out; DynamoDB's
        # reference says only that it lists the collections affected, and documents no
        # empty map (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/
        # API_TransactWriteItems.html; PutItem's: "If the table does not have any local
        # secondary indexes, this information is not returned in the response").
        out["ItemCollectionMetrics"] = lsi.metrics_by_table(written)
    return out


def _affects_collection(action: _Write, outcome: _Outcome) -> bool:
    """Whether a committed action is one ItemCollectionMetrics reports, as its single-item
    operation would: a Put or a Delete always (DeleteItem reports a collection even when
    no item was there), an Update when it made an item (UpdateItem reports none for an
    update that only removes from an item that is not there: it writes nothing), and a
    ConditionCheck never (it writes nothing; the reference names only UpdateItem, PutItem
    and DeleteItem). The table's LSIs are checked by `lsi.note_written`."""
    if action.kind == "Update":
        return outcome.new is not None
    return action.kind in ("Put", "Delete")


def _replay(
    state: EmulatorState, items: list[tuple[str, Item]], mode: str, now: float
) -> dict[str, Any]:
    """[AWS] a repeat of a transaction within its token's window changes nothing and
    returns the read units of reading its items (charged as consistent reads)."""
    charges: dict[str, Charge] = {}
    for name, key in items:
        table = state.tables.get(name)
        if table is None:
            continue
        _item, size = table.store.get_sized(key)
        pk_hash, sk_pos = location(table.schema, key)
        decision, charge = charge_read(state, table, pk_hash, sk_pos, size, True, None, now)
        if decision.throttle is None:
            add_charge(charges, name, charge)
    out: dict[str, Any] = {}
    if mode != "NONE":
        out["ConsumedCapacity"] = [
            consumed_capacity(mode, state.tables[n], c) for n, c in charges.items()
        ]
    return out


# --- TransactGetItems ------------------------------------------------------------------------


@dataclass
class _Get:
    table: Table
    key: Item
    paths: list[Path] | None


@dataclass
class _GetRequest:
    """One Get as its request gives it, checked before any table is looked up."""

    table_name: str
    key: Item
    paths: list[Path] | None


def _get_request(raw: Any) -> _GetRequest:
    if not isinstance(raw, dict) or not isinstance(raw.get("Get"), dict) or len(raw) != 1:
        raise validation(
            "1 validation error detected: Value null at 'transactItems.member.get' failed to "
            "satisfy constraint: Member must not be null"
        )
    body: dict[str, Any] = raw["Get"]
    name = table_name(body)
    key = item_member(body, "Key")
    ph = placeholders_of(body)
    paths = projection_of(body, ph)
    ph.check_all_used()
    return _GetRequest(name, key, paths)


def _get_action(state: EmulatorState, asked: _GetRequest) -> _Get:
    """A Get's key checked against its table's schema."""
    table = state.table(asked.table_name)
    return _Get(table, key_member(table, asked.key), asked.paths)


def transact_get_items(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    raw = _actions(req)
    mode = consumed_mode(req)
    asked = [_get_request(a) for a in raw]
    plan = [_get_action(state, a) for a in asked]
    ids = [item_id(g.table, g.key) for g in plan]
    _check_distinct(ids)
    now = state.tick()
    reasons: list[dict[str, Any] | None] = [
        _conflict() if state.transactions.is_held(i, now) else None for i in ids
    ]
    found: list[Item | None] = []
    reads: list[tuple[int, _Get, float, ReadRequest]] = []
    model = state.model
    for number, get in enumerate(plan):
        item, size = get.table.store.get_sized(get.key)
        found.append(item)
        if reasons[number] is not None:
            continue
        pk_hash, sk_pos = location(get.table.schema, get.key)
        units = transactional_read_units(size, model.params)
        reads.append(
            (number, get, units, (model.tables[get.table.name], pk_hash, sk_pos, units, None))
        )
    # All the items' reads admitted together, as one request (see transact_write_items).
    refused, throttle = model.read_together([r[3] for r in reads], now=now)
    charges: dict[str, Charge] = {}
    for position, (number, get, units, _asked) in enumerate(reads):
        charge = Charge(units, is_write=False)
        if refused < 0:
            state.metrics.record(get.table.name, ADMITTED, charge, now)
            add_charge(charges, get.table.name, charge)
        elif position == refused:
            assert throttle is not None
            state.metrics.record(get.table.name, Decision(0, 1, throttle), charge, now)
            reasons[number] = _throttled(throttle)
    if any(r is not None for r in reasons):
        raise cancelled(reasons)
    responses: list[dict[str, Any]] = []
    for get, item in zip(plan, found, strict=True):
        if item is None:
            responses.append({})
        else:
            responses.append({"Item": project(item, get.paths) if get.paths else item})
    out: dict[str, Any] = {"Responses": responses}
    if mode != "NONE":
        out["ConsumedCapacity"] = [
            consumed_capacity(mode, state.tables[n], c) for n, c in charges.items()
        ]
    return out
