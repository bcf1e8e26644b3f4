"""The in-memory item store of one table: items by primary key, in DynamoDB's order.

Items are kept in their wire form. Each partition-key value owns an item collection
whose sort keys are kept sorted (bisect), so Query walks a range without sorting;
collections are ordered by partition hash, so Scan pages are stable while writes go on.
Index queries filter the table's items (GSIs are projections of it, computed on read:
the store never has to keep a second copy consistent).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sortedcontainers import SortedList

from emulator.compositekey import composite_partition_hash, composite_sort_position
from emulator.keyspace import key_bytes, partition_hash, sort_position
from emulator.server.protocol import invalid_parameter, validation
from emulator.server.values import AttributeValue, Item, kind_of, typed


@dataclass(frozen=True)
class KeyDef:
    """One key attribute: its name and scalar type."""

    name: str
    type: str


@dataclass(frozen=True)
class KeySchema:
    """A table's or index's key attributes.

    `pk` and `sk` are the first partition-key and sort-key attributes; a GSI may have up
    to three more of each (multi-attribute keys, `more_pk` and `more_sk`), which a table
    and an LSI never have."""

    pk: KeyDef
    sk: KeyDef | None
    more_pk: tuple[KeyDef, ...] = ()
    more_sk: tuple[KeyDef, ...] = ()
    hash_keys: tuple[KeyDef, ...] = field(init=False, repr=False, compare=False)
    """The partition-key attributes, in key-schema order."""
    range_keys: tuple[KeyDef, ...] = field(init=False, repr=False, compare=False)
    """The sort-key attributes, in key-schema order (none: no sort key)."""
    composite: bool = field(init=False, repr=False, compare=False)
    """Whether the partition key or the sort key has several attributes."""
    keys: tuple[KeyDef, ...] = field(init=False, repr=False, compare=False)
    """The key attributes, partition key first (derived once: read per request)."""
    names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    """Their names."""
    typed_names: tuple[tuple[str, str], ...] = field(init=False, repr=False, compare=False)
    """(name, type) of each key attribute, for `in_index`."""

    def __post_init__(self) -> None:
        hash_keys = (self.pk, *self.more_pk)
        range_keys = (self.sk, *self.more_sk) if self.sk else ()
        keys = hash_keys + range_keys
        object.__setattr__(self, "hash_keys", hash_keys)
        object.__setattr__(self, "range_keys", range_keys)
        object.__setattr__(self, "composite", bool(self.more_pk or self.more_sk))
        object.__setattr__(self, "keys", keys)
        object.__setattr__(self, "names", tuple(k.name for k in keys))
        object.__setattr__(self, "typed_names", tuple((k.name, k.type) for k in keys))

    def in_index(self, item: Item) -> bool:
        """Whether an item appears in an index with this schema (sparse indexes: an item
        missing any one of its key attributes is not in it)."""
        for name, kind in self.typed_names:
            value = item.get(name)
            # Stored and written values are validated to hold exactly one type key, so
            # membership is `kind_of(value) == kind`, without next(iter()) (a generic
            # call once compiled; this runs twice per GSI per write).
            if value is None or kind not in value:
                return False
        return True

    def key_of(self, item: Item) -> Item:
        return {name: item[name] for name in self.names}


sort_value: Callable[[AttributeValue], Any] = typed
"""DynamoDB order for a key value: str (code-point order equals UTF-8 byte order),
Decimal, or bytes. The typed value itself (bound, not wrapped: the store calls it for
every request)."""


def pk_hash_of(value: AttributeValue) -> int:
    """Where a partition-key value lands in the model's hash space (the bytes are
    `keyspace.key_bytes` of the value; a string, the common case, is handed over as it
    is: partition_hash hashes its UTF-8, which key_bytes would give)."""
    text = value.get("S")
    if text is not None:
        return partition_hash(text)
    return partition_hash(key_bytes(typed(value)))


def key_hash(schema: KeySchema, item: Item) -> int:
    """Where an item's partition key lands for a table or index with `schema`: its one
    partition-key value's hash, or for a multi-attribute key the hash of its values
    together (`emulator.compositekey`)."""
    if not schema.more_pk:
        return pk_hash_of(item[schema.pk.name])
    return composite_partition_hash([typed(item[k.name]) for k in schema.hash_keys])


def key_sort_position(schema: KeySchema, item: Item) -> Any:
    """The sort position of an item's sort key for `schema` (a tuple for a
    multi-attribute sort key); the schema must have a sort key."""
    if not schema.more_sk:
        assert schema.sk is not None
        return sort_position(typed(item[schema.sk.name]))
    return composite_sort_position([typed(item[k.name]) for k in schema.range_keys])


def check_key_value(key: KeyDef, value: AttributeValue | None, member: str) -> None:
    """A key attribute present, of the schema's type, not empty."""
    if value is None:
        raise invalid_parameter(f"Missing the key {key.name} in the {member.lower()}")
    kind = kind_of(value)
    if kind != key.type:
        raise invalid_parameter(
            f"Type mismatch for key {key.name} expected: {key.type} actual: {kind}"
        )
    # A number is never empty (and its Decimal, made here, would be thrown away: this
    # runs for every key of every request).
    if kind != "N" and typed(value) in ("", b""):
        raise invalid_parameter(
            f"The AttributeValue for a key attribute cannot contain an "
            f"empty {'string' if key.type == 'S' else 'binary'} value. "
            f"Key: {key.name}"
        )


class _Collection:
    """The items of one partition-key value, sorted by sort key.

    A plain class, not a dataclass: one is made per new partition-key value, and under
    mypyc a dataclass __init__ (with its default factories) is interpreted."""

    __slots__ = ("items", "order", "sizes")

    def __init__(self) -> None:
        self.order: list[Any] = []
        self.items: dict[Any, Any] = {}
        """Each sort key's entry: the item (`full`) or its record (`keys`)."""
        self.sizes: dict[Any, int] = {}
        """Each item's size, kept so a rewrite need not measure the old item again."""


Sized = tuple[Item, int]
"""An item as the store answers it, with its stored size (what a read is charged on)."""


class ItemStore:
    """One table's items, kept whole (`hotbench emulator serve --store full`).

    The interface the data plane uses, shared with `keystore.KeysStore` (which keeps
    only what the capacity model needs): `get_sized` answers a read, `get_for_write`
    gives the item a write replaces (conditions, update expressions, the GSI charges),
    `reconcile` settles which of its attributes a write leaves unchanged, `answer` is
    what a reply may show of a stored item, and the iterators give (item, size) pairs so
    a Query or Scan page is charged on stored sizes. Entries are stored through `_entry`
    and shown through `_view`: here the item itself both ways."""

    kind = "full"

    def __init__(self, schema: KeySchema) -> None:
        self.schema = schema
        self._collections: dict[Any, _Collection] = {}
        """Item collections by partition-key value (tables with a sort key)."""
        self._flat = schema.sk is None
        """A table without a sort key keeps its items in `_items` and `_sizes`, by
        partition-key value, and no collections: a collection per item would be four
        more objects for the garbage collector to traverse for as long as the item
        lives (the item itself stops being traversed after its first full collections),
        a cost paid again on every collection while a load writes new keys."""
        self._items: dict[Any, Any] = {}
        self._sizes: dict[Any, int] = {}
        # SortedList, not a list kept with insort: inserting a new key must not cost a
        # memmove of every key (millions of them after a long uuid-keyed run).
        self._pk_order: SortedList = SortedList()
        self._unordered: list[Any] = []
        """New partition-key values not yet in `_pk_order`: only Scan and the removal of
        a key's last item read the order, so a put only appends the value here, and its
        order key (hash and all) is made when the order is next read (SortedList is pure
        Python, interpreted even when the store is compiled: its add would be the dearest
        step of a PutItem of a new key; and an order key is memory, per item, that a load
        test which never scans need not keep)."""
        self.count = 0
        self.bytes = 0
        self.weigh: Callable[[Item, int], int] | None = None
        """For a table with LSIs, what an item adds to its item collection (itself and its
        LSI entries: `lsi.weigher`); the running size of each collection is then kept in
        `_collection_bytes`, so a write's 10 GB check does not walk its collection."""
        self._collection_bytes: dict[Any, int] = {}
        """Each partition-key value's item collection size (kept only with `weigh`)."""
        self._weights: dict[tuple[Any, Any], int] = {}
        """What `weigh` gave each stored item, by (pk, sk): what its removal takes off."""
        self.journal: list[tuple[bool, Item]] | None = None
        """With --data-dir, what the current request changed, (True, item) put or (False,
        key) deleted, for `persistence.Persistence.commit` to write; None: not kept."""

    # what is kept ----------------------------------------------------------------------
    def _entry(self, item: Item, size: int) -> Any:
        """What is stored for `item`: the item itself."""
        return item

    def _flat_size(self, pk: Any, entry: Any) -> int:
        """The size of a stored entry of a table without a sort key."""
        return self._sizes.get(pk, 0)

    def _view(self, pk: Any, sk: Any, entry: Any) -> Item:
        """A stored entry as an item (pk and sk: the typed key values)."""
        result: Item = entry
        return result

    def set_indexes(self, keep: frozenset[str], compare_all: bool) -> None:
        """The table's GSIs changed: `keep` names their key and INCLUDE attributes,
        `compare_all` says whether one projects ALL. A whole item holds everything."""

    def answer(self, item: Item) -> Item:
        """What a reply (ReturnValues, a failed condition's item) shows of `item`."""
        return item

    # keys ------------------------------------------------------------------------------
    def validate_key(self, key: Any) -> Item:
        """A Key member: exactly the schema's attributes, right types."""
        if not isinstance(key, dict):
            raise validation("The provided key element does not match the schema")
        for name in key:
            if name not in self.schema.names:
                raise validation("The provided key element does not match the schema")
        for attr in (self.schema.pk, self.schema.sk):
            if attr is None:
                continue
            value = key.get(attr.name)
            if value is None or kind_of(value) != attr.type:
                raise validation("The provided key element does not match the schema")
            check_key_value(attr, value, "Key")
        return key

    def validate_item_keys(self, item: Item) -> None:
        for attr in self.schema.keys:
            check_key_value(attr, item.get(attr.name), "Item")

    def _ids(self, key: Item) -> tuple[Any, Any]:
        # `typed` called by name, not through the `sort_value` alias: compiled, a call
        # through a module-level variable is a generic call (this runs per request).
        schema = self.schema
        pk = typed(key[schema.pk.name])
        sk = typed(key[schema.sk.name]) if schema.sk is not None else None
        return pk, sk

    # access ----------------------------------------------------------------------------
    def _find(self, key: Item) -> tuple[Any, int]:
        """The entry at `key` and its size ((None, 0) when absent)."""
        pk, sk = self._ids(key)
        if self._flat:
            entry = self._items.get(pk)
            return entry, (self._flat_size(pk, entry) if entry is not None else 0)
        coll = self._collections.get(pk)
        if coll is None:
            return None, 0
        entry = coll.items.get(sk)
        return entry, (coll.sizes.get(sk, 0) if entry is not None else 0)

    def holds(self, key: Item) -> bool:
        """Whether an item is stored at `key`."""
        return self._find(key)[0] is not None

    def get_sized(self, key: Item) -> tuple[Item | None, int]:
        """The item at `key` as a read answers it, and its size in bytes (0 if absent)."""
        entry, size = self._find(key)
        return entry, size

    def get_for_write(self, key: Item) -> tuple[Item | None, int]:
        """The item at `key` as a write sees it (its condition, its update expression,
        what the model compares), and its size: here the stored item itself."""
        entry, size = self._find(key)
        return entry, size

    def reconcile(self, key: Item, old: Item | None, new: Item) -> Item | None:
        """`old` (from `get_for_write`) made fit to compare with `new` attribute by
        attribute, as the GSI charges do: a whole item already is."""
        return old

    def put(self, item: Item, size: int) -> None:
        """Store `item` (of `size` bytes); the replaced item's size is known here."""
        if self.journal is not None:
            self.journal.append((True, item))
        pk, sk = self._ids(item)
        entry = self._entry(item, size)
        if self._flat:
            self._put_flat(pk, entry, size)
            return
        coll = self._collections.get(pk)
        if coll is None:
            coll = self._collections[pk] = _Collection()
            self._unordered.append(pk)
        if sk not in coll.items:
            bisect.insort(coll.order, sk)
            self.count += 1
        self.bytes += size - coll.sizes.get(sk, 0)
        coll.items[sk] = entry
        coll.sizes[sk] = size
        if self.weigh is not None:
            weight = self.weigh(item, size)
            ident = (pk, sk)
            change = weight - self._weights.get(ident, 0)
            self._weights[ident] = weight
            self._collection_bytes[pk] = self._collection_bytes.get(pk, 0) + change

    def _put_flat(self, pk: Any, entry: Any, size: int) -> None:
        """`put` in a table without a sort key."""
        items = self._items
        if pk not in items:
            self._unordered.append(pk)
            self.count += 1
        self.bytes += size - self._sizes.get(pk, 0)
        items[pk] = entry
        self._sizes[pk] = size

    def delete(self, key: Item) -> None:
        if self.journal is not None:
            self.journal.append((False, key))
        pk, sk = self._ids(key)
        if self._flat:
            entry = self._items.pop(pk, None)
            if entry is None:
                return
            self.bytes -= self._flat_size(pk, entry)
            self._sizes.pop(pk, None)
        else:
            coll = self._collections.get(pk)
            if coll is None or sk not in coll.items:
                return
            del coll.items[sk]
            coll.order.pop(bisect.bisect_left(coll.order, sk))
            self.bytes -= coll.sizes.pop(sk, 0)
            if self.weigh is not None:
                left = self._collection_bytes.get(pk, 0) - self._weights.pop((pk, sk), 0)
                if coll.items:
                    self._collection_bytes[pk] = left
                else:
                    self._collection_bytes.pop(pk, None)
            if coll.items:
                self.count -= 1
                return
            del self._collections[pk]
        self.count -= 1
        self._order_all()
        self._pk_order.discard(_order_key(pk_hash_of(key[self.schema.pk.name]), pk))

    def collection_bytes(self, pk_value: AttributeValue) -> int:
        """The size of a partition-key value's item collection as `weigh` measures it
        (0 without `weigh`): kept as items are written, read in constant time."""
        return self._collection_bytes.get(sort_value(pk_value), 0)

    def _collection_of(self, pk: Any) -> _Collection | None:
        """The collection of a partition-key value; in a table without a sort key, a
        one-item view made for the caller (Query reads one per request)."""
        if not self._flat:
            return self._collections.get(pk)
        entry = self._items.get(pk)
        if entry is None:
            return None
        coll = _Collection()
        coll.order.append(None)
        coll.items[None] = entry
        coll.sizes[None] = self._flat_size(pk, entry)
        return coll

    def collection(
        self,
        pk_value: AttributeValue,
        forward: bool = True,
        after: Any = None,
        has_after: bool = False,
    ) -> Iterator[Sized]:
        """Items of one partition-key value in sort-key order, after a sort key if given."""
        pk = sort_value(pk_value)
        coll = self._collection_of(pk)
        if coll is None:
            return
        order = coll.order
        if forward:
            start = 0
            if has_after:
                start = bisect.bisect_right(order, after)
            sks = order[start:]
        else:
            stop = len(order)
            if has_after:
                stop = bisect.bisect_left(order, after)
            sks = order[:stop]
            sks.reverse()
        for sk in sks:
            yield self._view(pk, sk, coll.items[sk]), coll.sizes[sk]

    def scan(self, after: Item | None = None) -> Iterator[Sized]:
        """Every item, in partition-hash then sort-key order, after a key if given."""
        self._order_all()
        start = 0
        after_sk: Any = None
        has_after = False
        if after is not None:
            pk_val = after[self.schema.pk.name]
            entry = _order_key(pk_hash_of(pk_val), sort_value(pk_val))
            start = self._pk_order.bisect_left(entry)
            if start < len(self._pk_order) and self._pk_order[start] == entry:
                if self.schema.sk is not None:
                    after_sk, has_after = sort_value(after[self.schema.sk.name]), True
                else:
                    start += 1
        for i in range(start, len(self._pk_order)):
            pk = self._pk_order[i][2]
            if self._flat:
                found = self._items.get(pk)
                if found is not None:
                    yield self._view(pk, None, found), self._flat_size(pk, found)
                continue
            coll = self._collections.get(pk)
            if coll is None:
                continue
            if has_after and i == start:
                begin = bisect.bisect_right(coll.order, after_sk)
                sks = coll.order[begin:]
            else:
                sks = list(coll.order)
            for sk in sks:
                yield self._view(pk, sk, coll.items[sk]), coll.sizes[sk]

    def _order_all(self) -> None:
        """Bring the new collections' order keys into `_pk_order` (in one update: the
        same contents as adding each when it was made)."""
        if self._unordered:
            self._pk_order.update([_order_key(_typed_hash(pk), pk) for pk in self._unordered])
            self._unordered.clear()

    def all_items(self) -> Iterator[Sized]:
        """Every item with its size, in no particular order (GSI reads sort them)."""
        if self._flat:
            for pk, entry in self._items.items():
                yield self._view(pk, None, entry), self._flat_size(pk, entry)
            return
        for pk, coll in self._collections.items():
            for sk, entry in coll.items.items():
                yield self._view(pk, sk, entry), coll.sizes[sk]


def _typed_hash(pk: Any) -> int:
    """`pk_hash_of` from the typed value (str, Decimal or bytes) the store keys by."""
    if isinstance(pk, str):
        return partition_hash(pk)
    return partition_hash(key_bytes(pk))


def _order_key(pk_hash: int, pk: Any) -> tuple[int, str, Any]:
    # Partition keys of one table share a type, but keep the comparison total anyway.
    return pk_hash, type(pk).__name__, pk
