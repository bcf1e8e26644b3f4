"""Charging a data-plane request: capacity asked of the model, the answer recorded in the
metrics, a refusal turned into its wire error, and the ConsumedCapacity of the reply.

Each operation validates everything first (so a client mistake is refused before it
costs capacity), then asks the model for capacity through `charge_write` or
`charge_read` (one place records every decision in the metrics), then, only if admitted,
reads or changes the store. A throttled request changes nothing.
"""

from __future__ import annotations

from typing import Any

from emulator.model import Decision
from emulator.server.admission import Charge, admit_read, admit_write
from emulator.server.emulator_state import EmulatorState
from emulator.server.items import ItemStore
from emulator.server.protocol import DynamoError, condition_failed
from emulator.server.table import Table
from emulator.server.values import Item
from emulator.throttle import Throttle


def throttle_error(throttle: Throttle) -> DynamoError:
    """The model's refusal as the wire error (body built by `Throttle.body`, and its
    members and bytes made once per throttle site, not per refusal)."""
    return DynamoError(
        throttle.exception, throttle.message, extra=throttle.extra, payload=throttle.payload
    )


def charge_write(
    state: EmulatorState,
    table: Table,
    key: Item,
    old: Item | None,
    new: Item | None,
    now: float,
    applies: bool = True,
    old_size: int | None = None,
    new_size: int | None = None,
    transactional: bool = False,
) -> tuple[Decision, Charge]:
    """Admit a write of `key` from `old` to `new` (the GSI writes it causes with it), and
    record it. `applies` False: its condition failed (it still consumes table capacity).
    `transactional`: an action of a write transaction (charged as two writes)."""
    decision, charge = admit_write(
        state.model, table, old, new, key, now, applies, old_size, new_size, transactional
    )
    state.metrics.record(table.name, decision, charge, now)
    return decision, charge


def charge_read(
    state: EmulatorState,
    table: Table,
    pk_hash: int,
    sk_pos: Any,
    size: int,
    consistent: bool,
    index: str | None,
    now: float,
    partitions: int = 1,
    transactional: bool = False,
) -> tuple[Decision, Charge]:
    """Admit a read of `size` bytes at one key of the table or `index` (a Scan page:
    over `partitions` partitions), and record it; `transactional`: an item of a read
    transaction (charged as two strongly consistent reads)."""
    decision, charge = admit_read(
        state.model,
        table,
        pk_hash,
        sk_pos,
        size,
        consistent,
        index,
        now,
        partitions,
        transactional,
    )
    state.metrics.record(table.name, decision, charge, now)
    return decision, charge


def refuse_unless_admitted(
    decision: Decision, ok: bool, old: Item | None, on_fail: str, store: ItemStore
) -> None:
    """A single-item write's refusals, in DynamoDB's order: a throttle first (the
    condition is not even reported), then a failed condition (its item as the store
    answers it)."""
    if decision.throttle is not None:
        raise throttle_error(decision.throttle)
    if not ok:
        shown = store.answer(old) if old is not None and on_fail == "ALL_OLD" else None
        raise condition_failed(shown)


def consumed_capacity(mode: str, table: Table, charge: Charge | None) -> dict[str, Any] | None:
    """The reply's ConsumedCapacity for ReturnConsumedCapacity `mode`, or None to leave it
    out (NONE, or nothing charged)."""
    if mode == "NONE" or charge is None:
        return None
    field = "WriteCapacityUnits" if charge.is_write else "ReadCapacityUnits"
    out: dict[str, Any] = {
        "TableName": table.name,
        "CapacityUnits": charge.total,
        field: charge.total,
    }
    if mode == "INDEXES":
        lsis = charge.lsi_units
        if charge.is_write or (charge.index is None and not lsis):
            own = charge.table_units - sum(lsis.values()) if charge.is_write else charge.table_units
            out["Table"] = {"CapacityUnits": own, field: own}
        if lsis:
            out["LocalSecondaryIndexes"] = {
                n: {"CapacityUnits": u, field: u} for n, u in lsis.items()
            }
        gsis = dict(charge.gsi_units)
        if not charge.is_write and charge.index is not None:
            gsis[charge.index] = charge.table_units
        if gsis:
            out["GlobalSecondaryIndexes"] = {
                n: {"CapacityUnits": u, field: u} for n, u in gsis.items()
            }
    return out


def finish(out: dict[str, Any], mode: str, table: Table, charge: Charge | None) -> dict[str, Any]:
    """A single-item, Query or Scan reply, with its ConsumedCapacity if asked for."""
    consumed = consumed_capacity(mode, table, charge)
    if consumed is not None:
        out["ConsumedCapacity"] = consumed
    return out
