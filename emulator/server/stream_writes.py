"""The stream record of each write: called by every write path (PutItem, UpdateItem,
DeleteItem, BatchWriteItem, TransactWriteItems, PartiQL through them, and Time to Live)
once the write is applied, so a stream holds exactly what the table became."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emulator.server.admission import changes_anything, location
from emulator.server.table import Table
from emulator.server.values import Item

if TYPE_CHECKING:  # the state calls here on a Time to Live deletion: no import at run time
    from emulator.server.emulator_state import EmulatorState


def record_write(
    state: EmulatorState,
    table: Table,
    key: Item,
    old: Item | None,
    new: Item | None,
    sizes: tuple[int, int],
    now: float,
    service: bool = False,
) -> None:
    """Add the record of a write from `old` to `new` (None: no item) to the table's stream,
    if it has one, on the shard of the partition the key is on. [AWS] a write that changes
    no attribute writes no record ("If you perform a PutItem or UpdateItem operation that
    does not change any data in an item, DynamoDB Streams does not write a stream record
    for that operation", developer guide, Streams.html), nor does a delete of nothing.
    `service`: a deletion by Time to Live."""
    stream = table.stream
    if stream is None or (old is None and new is None):
        return
    if old is not None and new is not None and not changes_anything(old, new):
        return
    keyspace = state.model.tables[table.name].base.keyspace
    pk_hash, sk_pos = location(table.schema, key)
    shard = stream.shard_for(keyspace, keyspace.locate(pk_hash, sk_pos), now)
    store = table.store
    stream.add(
        shard,
        key,  # the write's key: exactly the table's key attributes, made for this write
        store.answer(old) if old is not None else None,
        store.answer(new) if new is not None else None,
        sizes,
        now,
        state.epoch(now),
        service,
    )
