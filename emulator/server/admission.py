"""Turning a request into capacity-model calls: which key, how many units, which GSIs.

The endpoint adds no capacity rules of its own: units come from `emulator.units`, the
key's place from `emulator.keyspace`, and the decision from `CapacityModel.write/read`.
This module only works out the arguments, from the stored item before and after a write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from emulator.keyspace import sort_position
from emulator.model import CapacityModel, Decision, GsiWrite
from emulator.params import CapacityParams
from emulator.server.itemsize import item_size
from emulator.server.items import KeySchema, pk_hash_of
from emulator.server.table import IndexDef, Table
from emulator.server.values import Item, canonical, typed
from emulator.units import gsi_write_units, read_units, write_units

NO_SORT_KEY = 0.0
"""Sort position of a key without a sort key (the simulation uses the same)."""


@dataclass
class Charge:
    """What one request consumed (or asked for), per table and per GSI, for
    ReturnConsumedCapacity and the metrics."""

    table_units: float
    gsi_units: dict[str, float] = field(default_factory=dict)
    is_write: bool = True
    index: str | None = None

    @property
    def total(self) -> float:
        return self.table_units + sum(self.gsi_units.values())


def location(schema: KeySchema, item: Item) -> tuple[int, Any]:
    """(partition hash, sort position) of an item's key in a table or index."""
    pk_hash = pk_hash_of(item[schema.pk.name])
    sk_pos = sort_position(typed(item[schema.sk.name])) if schema.sk else NO_SORT_KEY
    return pk_hash, sk_pos


def _projected(index: IndexDef, table: Table, item: Item) -> Item:
    if index.projection == "ALL":
        return item
    keep = set(table.schema.names) | set(index.schema.names)
    if index.projection == "INCLUDE":
        keep |= set(index.non_key)
    return {k: v for k, v in item.items() if k in keep}


def _gsi_write(index: IndexDef, table: Table, old: Item | None, new: Item | None,
               params: CapacityParams) -> GsiWrite | None:
    old_in = old is not None and index.schema.in_index(old)
    new_in = new is not None and index.schema.in_index(new)
    if not old_in and not new_in:
        return None
    old_proj = _projected(index, table, old) if old_in and old is not None else None
    new_proj = _projected(index, table, new) if new_in and new is not None else None
    key_changed = False
    if old_proj is not None and new_proj is not None:
        key_changed = any(canonical(old_proj[n]) != canonical(new_proj[n])
                          for n in index.schema.names)
        if not key_changed and {k: canonical(v) for k, v in old_proj.items()} == {
                k: canonical(v) for k, v in new_proj.items()}:
            # [AWS] a table write that changes nothing the index holds writes nothing to it.
            return None
    sized = new_proj if new_proj is not None else old_proj
    assert sized is not None
    units = gsi_write_units(old_in, new_in, key_changed, item_size(sized), params)
    where = new if new_in else old
    assert where is not None
    pk_hash, sk_pos = location(index.schema, where)
    return GsiWrite(index.name, pk_hash, sk_pos, units)


def admit_write(model: CapacityModel, table: Table, old: Item | None, new: Item | None,
                key: Item, now: float, index_writes: bool = True) -> tuple[Decision, Charge]:
    """One table write (put, update or delete; `new` None for a delete). The cost is the
    larger of the old and new item [AWS]. A write whose condition fails still consumes
    table capacity but changes no index (`index_writes` False)."""
    params = model.params
    sizes = [item_size(i) for i in (old, new) if i is not None]
    units = write_units(max(sizes, default=0), params)
    gsi_writes = []
    for index in table.gsis.values() if index_writes else ():
        if index.name not in model.tables[table.name].gsis:
            continue
        gw = _gsi_write(index, table, old, new, params)
        if gw is not None:
            gsi_writes.append(gw)
    pk_hash, sk_pos = location(table.schema, key)
    decision = model.write(model.tables[table.name], pk_hash, sk_pos, units, gsi_writes,
                           1, now)
    charge = Charge(float(units), {gw.index: float(gw.units) for gw in gsi_writes})
    return decision, charge


def admit_read(model: CapacityModel, table: Table, pk_hash: int, sk_pos: Any, size: int,
               consistent: bool, index: str | None, now: float) -> tuple[Decision, Charge]:
    """One read of `size` bytes (a GetItem, or one Query/Scan page) at a key's place."""
    units = read_units(size, consistent, model.params)
    decision = model.read(model.tables[table.name], pk_hash, sk_pos, units, index, 1, now)
    return decision, Charge(units, is_write=False, index=index)
