"""Turning a request into capacity-model calls: which key, how many units, which GSIs.

The endpoint adds no capacity rules of its own: units come from `emulator.units`, the
key's place from `emulator.keyspace`, and the decision from `CapacityModel.write/read`.
This module only works out the arguments, from the stored item before and after a write.
"""

from __future__ import annotations

from typing import Any, Final, cast

from emulator.itemsize import item_size
from emulator.keyspace import sort_position
from emulator.model import CapacityModel, Decision, GsiWrite
from emulator.params import CapacityParams
from emulator.server.items import KeySchema, key_hash, key_sort_position, pk_hash_of
from emulator.server.table import IndexDef, Table
from emulator.server.values import (
    AttributeValue,
    Item,
    canonical,
    is_plain_integer,
    typed,
)
from emulator.units import (
    IndexChange,
    TableWrite,
    index_write_units,
    page_read_units,
    table_write_units,
    transactional_read_units,
)

NO_SORT_KEY: Final[Any] = float("0")
"""Sort position of a key without a sort key (the simulation uses the same). One shared
object, not the literal 0.0: compiled, a Final literal is boxed anew at each use, and
every such float kept in a partition's key samples would be freed cold on its eviction."""


class Charge:
    """What one request consumed (or asked for), per table and per GSI, for
    ReturnConsumedCapacity and the metrics.

    A plain class, not a dataclass: mypyc compiles this __init__ (a dataclass's is
    interpreted), and one Charge is made per request."""

    __slots__ = ("gsi_units", "index", "is_write", "lsi_units", "table_units")

    def __init__(
        self,
        table_units: float,
        gsi_units: dict[str, float] | None = None,
        is_write: bool = True,
        index: str | None = None,
    ) -> None:
        self.table_units = table_units
        self.gsi_units: dict[str, float] = {} if gsi_units is None else gsi_units
        self.is_write = is_write
        self.index = index
        self.lsi_units: dict[str, float] = {}
        """The LSIs' share of `table_units` (an LSI is charged on the table), by index."""

    def __repr__(self) -> str:
        return (
            f"Charge(table_units={self.table_units!r}, gsi_units={self.gsi_units!r}, "
            f"is_write={self.is_write!r}, index={self.index!r})"
        )

    @property
    def total(self) -> float:
        return self.table_units + sum(self.gsi_units.values())


def location(schema: KeySchema, item: Item) -> tuple[int, Any]:
    """(partition hash, sort position) of an item's key in a table or index; a GSI with a
    multi-attribute key is placed by all its key attributes together."""
    if schema.composite:
        pk_hash = key_hash(schema, item)
        if schema.sk is None:
            return pk_hash, NO_SORT_KEY
        return pk_hash, key_sort_position(schema, item)
    pk_hash = pk_hash_of(item[schema.pk.name])
    if schema.sk is None:
        return pk_hash, NO_SORT_KEY
    return pk_hash, sort_position(typed(item[schema.sk.name]))


def projected(index: IndexDef, item: Item) -> Item:
    """The part of an item a GSI holds: its projection (the index and table keys, and
    for INCLUDE the named attributes), what a write to it and a read of it are sized on."""
    if index.projection == "ALL":
        return item
    keep = index.kept
    return {k: v for k, v in item.items() if k in keep}


def _same(a: AttributeValue | None, b: AttributeValue | None) -> bool:
    """DynamoDB equality of two values; the wire comparison first, as it nearly always
    decides (1 and 1.0 differ on the wire and are one number)."""
    if a == b:
        return True
    if a is None or b is None or "S" in a:
        return False
    n: Any = a.get("N")
    m: Any = b.get("N")
    if is_plain_integer(n) and is_plain_integer(m):
        # Two plain integers (a version, a counter): one number exactly when their
        # digits are, leading zeros aside; no Decimal needed. (Cast: typed as str,
        # mypyc strips and compares natively.)
        return cast(str, n).lstrip("0") == cast(str, m).lstrip("0")
    return bool(canonical(a) == canonical(b))


def changes_anything(old: Item, new: Item) -> bool:
    """Whether a write from `old` to `new` changes any attribute: `changed_attributes`,
    stopping at the first change (a stream asks it of every write)."""
    if len(old) != len(new):
        return True
    for name, after in new.items():
        before = old.get(name)
        if before != after and not _same(before, after):
            return True
    return False


def changed_attributes(old: Item, new: Item) -> set[str]:
    """Names of the attributes a write changes (added, removed or given a new value).

    Equal wire forms are the same value, so an unchanged attribute is settled without
    `_same`'s slower comparison. There is no whole-item `old == new` test first: on an
    overwrite that changes something, it would compare the unchanged attributes twice."""
    changed = set()
    for name, after in new.items():
        before = old.get(name)
        if before != after and not _same(before, after):
            changed.add(name)
    for name in old:
        if name not in new:  # removed (an absent value is never the same as a present one)
            changed.add(name)
    return changed


def _index_units(
    index: IndexDef,
    old: Item | None,
    new: Item | None,
    old_size: int,
    new_size: int,
    changed: set[str] | None,
    params: CapacityParams,
) -> tuple[int, int] | None:
    """The write's request description for one index (GSI or LSI, from the stored item
    before and after it), charged by the one rule, `emulator.units.index_write_units`:
    (units of the delete at the old entry, units of the put at the new one); None when
    the index holds the item in neither version or nothing it holds changed."""
    schema = index.schema
    old_in = old is not None and schema.in_index(old)
    new_in = new is not None and schema.in_index(new)
    if not old_in and not new_in:
        return None
    everything = index.projection == "ALL"
    key_changed = False
    touched = True
    if old_in and new_in and changed is not None:
        touched = bool(changed) if everything else not changed.isdisjoint(index.kept)
        if not touched:
            # [AWS] a table write that changes nothing the index holds writes nothing to it.
            return None
        # A loop, not `not changed.isdisjoint(schema.names)`: compiled, the set method is
        # a generic call, and this runs per index per overwrite.
        for name in schema.names:
            if name in changed:
                key_changed = True
                break
    old_bytes = 0
    new_bytes = 0
    if everything:
        old_bytes = old_size if old_in else 0
        new_bytes = new_size if new_in else 0
    else:
        if old_in:
            assert old is not None
            old_bytes = item_size(projected(index, old))
        if new_in:
            assert new is not None
            new_bytes = item_size(projected(index, new))
    change = IndexChange(old_in, new_in, key_changed, touched, old_bytes, new_bytes)
    return index_write_units(change, params)


def _gsi_write(
    index: IndexDef, old: Item | None, new: Item | None, units: tuple[int, int]
) -> GsiWrite:
    """The write's units on one GSI (`_index_units`), placed: the put at the new entry's
    key, the delete (of an entry that moved or went) at the old one's (an LSI's units
    need no place: they fall on the table's partition)."""
    old_units, new_units = units
    schema = index.schema
    pk_hash: int = 0
    sk_pos: Any = NO_SORT_KEY
    if new_units > 0:
        assert new is not None
        pk_hash, sk_pos = location(schema, new)
    old_pk: int = 0
    old_sk: Any = None
    if old_units > 0:
        assert old is not None
        old_pk, old_sk = location(schema, old)
    return GsiWrite(index.name, pk_hash, sk_pos, new_units, old_pk, old_sk, old_units)


class WritePlan:
    """What one write asks of the model (`CapacityModel.write`'s arguments: its key's
    place, units and GSI writes) and what it is charged, worked out before it is
    admitted, alone (`admit_write`) or with the other actions of its transaction."""

    __slots__ = ("charge", "gsi_writes", "pk_hash", "sk_pos", "units")

    def __init__(
        self, pk_hash: int, sk_pos: Any, units: int, gsi_writes: list[GsiWrite], charge: Charge
    ) -> None:
        self.pk_hash = pk_hash
        self.sk_pos = sk_pos
        self.units = units
        self.gsi_writes = gsi_writes
        self.charge = charge


def plan_write(
    model: CapacityModel,
    table: Table,
    old: Item | None,
    new: Item | None,
    key: Item,
    index_writes: bool = True,
    old_size: int | None = None,
    new_size: int | None = None,
    transactional: bool = False,
) -> WritePlan:
    """The model's arguments and the charge of one table write (see `admit_write`)."""
    params = model.params
    if old_size is None:
        old_size = item_size(old) if old is not None else 0
    if new_size is None:
        new_size = item_size(new) if new is not None else 0
    units = table_write_units(TableWrite(old_size, new_size, transactional), params)
    gsi_writes = []
    capacity = model.tables[table.name]
    lsi_units: dict[str, float] | None = None
    if index_writes and (table.gsis or table.lsis):
        # Once for every index, GSIs and LSIs alike.
        changed = changed_attributes(old, new) if old is not None and new is not None else None
        for index in table.gsis.values():
            if index.name not in capacity.gsis:
                continue
            gu = _index_units(index, old, new, old_size, new_size, changed, params)
            if gu is not None:
                gsi_writes.append(_gsi_write(index, old, new, gu))
        if table.lsis:
            # [AWS] an LSI write consumes the table's write capacity, on the table's partition.
            lsi_units = {}
            for index in table.lsis.values():
                lw = _index_units(index, old, new, old_size, new_size, changed, params)
                if lw is not None:
                    # Both entries on the table's one partition: the delete and the put.
                    lsi_units[index.name] = float(lw[0] + lw[1])
                    units += lw[0] + lw[1]
    pk_hash, sk_pos = location(table.schema, key)
    charge = Charge(float(units), {gw.index: float(gw.units + gw.old_units) for gw in gsi_writes})
    if lsi_units:
        charge.lsi_units = lsi_units
    return WritePlan(pk_hash, sk_pos, units, gsi_writes, charge)


def admit_write(
    model: CapacityModel,
    table: Table,
    old: Item | None,
    new: Item | None,
    key: Item,
    now: float,
    index_writes: bool = True,
    old_size: int | None = None,
    new_size: int | None = None,
    transactional: bool = False,
) -> tuple[Decision, Charge]:
    """One table write (put, update or delete; `new` None for a delete). The cost is the
    larger of the old and new item [AWS]. A write whose condition fails still consumes
    table capacity but changes no index (`index_writes` False). Sizes may be passed by a
    caller that computed them already. `transactional`: an action of TransactWriteItems,
    charged twice on the table (prepare and commit, `units.transactional_write_units`)."""
    plan = plan_write(model, table, old, new, key, index_writes, old_size, new_size, transactional)
    capacity = model.tables[table.name]
    decision = model.write(
        capacity, plan.pk_hash, plan.sk_pos, plan.units, plan.gsi_writes, 1, now=now
    )
    return decision, plan.charge


def admit_read(
    model: CapacityModel,
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
    """One read of `size` bytes (a GetItem, or one Query/Scan page) at a key's place;
    a Scan page that walked `partitions` partitions costs at least one read's minimum
    (1 RCU consistent, 0.5 eventually consistent) in each. `transactional`: an item of
    TransactGetItems (`units.transactional_read_units`)."""
    if transactional:
        units = transactional_read_units(size, model.params)
    else:
        units = page_read_units(size, consistent, model.params, partitions)
    # A transactional read is served as a strongly consistent one, by the leader.
    decision = model.read(
        model.tables[table.name],
        pk_hash,
        sk_pos,
        units,
        index,
        1,
        now=now,
        consistent=consistent or transactional,
    )
    return decision, Charge(units, is_write=False, index=index)
