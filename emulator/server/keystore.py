"""The `keys` item store: per item only what the capacity model needs.

A load test's items are synthetic and never read back for their values, yet the `full`
store keeps every byte of them (about 1.9 KB of server memory per 1 KB item): a long
launch rehearsal with fresh keys outgrows the machine. Every charge depends only on an
item's key attributes (table and index keys), its size, the size of what each index
projects, and whether a write changes what an index holds. So this store keeps, per
item: its size, the name and size of each other attribute (a "shape", shared between
items that have the same one), the values of the attributes an index needs (its keys and
its INCLUDE attributes), and, when an index projects ALL, a hash of each other value (to
tell a rewrite that changes nothing from one that changes something). The figures of
docs/emulator.md#item-stores-and-the-memory-bound are measured by benchmarks/memory.py.

What differs from `full` is only what a client sees: a read answers with the key and
index attributes alone, and a write's condition or update expression sees each other
attribute as a stand-in string of its size (so `attribute_exists` and a SET or REMOVE of
it are exact, while a comparison with its value or `a + :n` is not).
"""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any, Final

from emulator.itemsize import value_size
from emulator.server.items import ItemStore, KeySchema
from emulator.server.protocol import validation
from emulator.server.values import (
    AttributeValue,
    Item,
    canonical,
    format_number,
    is_plain_integer,
)

INTERN_LIMIT: Final = 65536
"""Distinct shapes (and key-name tuples) shared between items: a bound, so items of ever
new sizes cannot grow the table of shared ones without end (they are kept unshared)."""

STANDIN_CHAR: Final = "\x00"
"""A stand-in for an attribute whose value is not kept: this character times its size
(one UTF-8 byte each, so the item's size is unchanged)."""


def value_token(value: AttributeValue) -> int:
    """A hash equal for values DynamoDB treats as equal (1 and 1.0, sets in any order).
    A string or a number, the common values, without `canonical`: a number's hash is
    its value's (hash(Decimal("7.0")) == hash(7)), as canonical's normalised Decimal's."""
    if len(value) == 1:
        text = value.get("S")
        if text is not None:
            return hash(text)  # a str's hash, cached in the str; other kinds hash tuples
        number = value.get("N")
        if isinstance(number, str):
            return hash(("N", int(number) if is_plain_integer(number) else Decimal(number)))
    return hash(canonical(value))


def _wire(kind: str, value: Any) -> AttributeValue:
    """A key value back in wire form from the typed value the store is keyed by."""
    if kind == "S":
        return {"S": value}
    if kind == "N":
        return {"N": format_number(value)}
    return {"B": base64.b64encode(value).decode("ascii")}


def _is_standin(value: AttributeValue) -> bool:
    """Whether a value is one of `get_for_write`'s stand-ins (first character first: a
    real value nearly never starts with it)."""
    text = value.get("S")
    return (
        isinstance(text, str)
        and text[:1] == STANDIN_CHAR
        and text == STANDIN_CHAR * len(text)
        and len(value) == 1
    )


class KeysStore(ItemStore):
    """One table's items as keys, index attributes and sizes (`--store keys`).

    An entry is a tuple (size, shape, kept names, kept values, tokens): kept strings as
    the str alone, other kept values as sent; shape the (name, size) of each attribute not
    kept, tokens None or the `value_token` of each of them
    (only while an index projects ALL). Entries without kept values or tokens, the common
    case of a table without indexes, are shared between items of the same size and shape,
    and a table without a sort key reads its sizes from them (no `_sizes` entry an item):
    what is left per item is its key and its slot in the table's dict."""

    kind = "keys"

    def __init__(self, schema: KeySchema) -> None:
        super().__init__(schema)
        self._keep: frozenset[str] = frozenset()
        """Non-key attributes whose values are kept: the GSIs' keys and INCLUDE names."""
        self._compare = False
        """Whether a GSI projects ALL (entries then carry value tokens)."""
        self._shared: dict[Any, Any] = {}
        """Shapes, name tuples and entries, shared (up to INTERN_LIMIT of them)."""
        self._shared_strings: dict[str, str] = {}
        """Kept string values, shared apart (up to INTERN_LIMIT of them)."""

    # what is kept ----------------------------------------------------------------------
    def set_indexes(self, keep: frozenset[str], compare_all: bool) -> None:
        """Keep what the table's GSIs need. An index added while the table holds items
        would need values this store did not keep: refused, naming the fix."""
        keep = keep.difference(self.schema.names)
        if self.count == 0:
            self._keep, self._compare = keep, compare_all
            return
        if keep.issubset(self._keep) and (self._compare or not compare_all):
            return  # kept values of a deleted index are harmless: kept, not forgotten
        raise validation(
            "The hotbench emulator runs with --store keys, which keeps only the key "
            f"attributes of the indexes a table had when its items were written; it "
            f"cannot build this index over the {self.count:,} items the table holds. "
            "Create the index with the table, or run the emulator with --store full"
        )

    def _kept_value(self, value: AttributeValue) -> Any:
        """A kept value as stored: a string (the common GSI key) as the str alone,
        shared between items (index keys repeat: a status, a warehouse), else as sent."""
        text = value.get("S")
        if text is None or len(value) != 1:
            return value
        shared = self._shared_strings
        found = shared.get(text)
        if found is not None:
            return found
        if len(shared) < INTERN_LIMIT:  # a uuid-like key fills it: then kept unshared
            shared[text] = text
        return text

    def _share(self, value: Any) -> Any:
        found = self._shared.get(value)
        if found is not None:
            return found
        if len(self._shared) < INTERN_LIMIT:
            self._shared[value] = value
        return value

    def _entry(self, item: Item, size: int) -> Any:
        keys = self.schema.names
        keep = self._keep
        compare = self._compare
        shape: list[tuple[str, int]] = []
        names: list[str] = []
        values: list[Any] = []
        tokens: list[int] = []
        for name, value in item.items():
            if name in keys:
                continue
            if name in keep:
                names.append(name)
                values.append(self._kept_value(value))
                continue
            vsize = value_size(value)
            shape.append((name, vsize))
            if compare:
                token = value_token(value)
                if _is_standin(value):
                    token = self._stood_for(item, name, vsize, token)
                tokens.append(token)
        record_shape = self._share(tuple(shape))
        if not values and not compare:
            return self._share((size, record_shape, (), (), None))
        return (size, record_shape, self._share(tuple(names)), tuple(values), tuple(tokens))

    def _flat_size(self, pk: Any, entry: Any) -> int:
        """The size is the entry's first member: no `_sizes` entry (and its int) an item."""
        size: int = entry[0]
        return size

    def _put_flat(self, pk: Any, entry: Any, size: int) -> None:
        items = self._items
        old = items.get(pk)
        if old is None:
            self._unordered.append(pk)
            self.count += 1
            self.bytes += size
        else:
            self.bytes += size - old[0]
        items[pk] = entry

    def _stood_for(self, item: Item, name: str, size: int, token: int) -> int:
        """The token of the value a stand-in stands for (an update left the attribute as
        it was), from the entry being replaced; `token` if there is none."""
        previous = self._find(item)[0]
        if previous is not None and previous[4]:
            for (old_name, old_size), old_token in zip(previous[1], previous[4], strict=True):
                if old_name == name and old_size == size:
                    result: int = old_token
                    return result
        return token

    def _view(self, pk: Any, sk: Any, entry: Any) -> Item:
        schema = self.schema
        item: Item = {schema.pk.name: _wire(schema.pk.type, pk)}
        if schema.sk is not None:
            item[schema.sk.name] = _wire(schema.sk.type, sk)
        for name, value in zip(entry[2], entry[3], strict=True):
            item[name] = {"S": value} if isinstance(value, str) else value
        return item

    def answer(self, item: Item) -> Item:
        """Only the attributes this store keeps: the keys and the index attributes."""
        keys = self.schema.names
        keep = self._keep
        return {k: v for k, v in item.items() if k in keys or k in keep}

    # access ----------------------------------------------------------------------------
    def _known(self, key: Item, entry: Any) -> Item:
        """The key attributes as given, and the kept values of an entry."""
        item: Item = {name: key[name] for name in self.schema.names}
        for name, value in zip(entry[2], entry[3], strict=True):
            item[name] = {"S": value} if isinstance(value, str) else value
        return item

    def get_sized(self, key: Item) -> tuple[Item | None, int]:
        entry, size = self._find(key)
        if entry is None:
            return None, 0
        return self._known(key, entry), size

    def get_for_write(self, key: Item) -> tuple[Item | None, int]:
        """The kept attributes plus a stand-in of the right size for each other one, so
        the item measures its stored size and an update keeps the sizes it leaves."""
        entry, size = self._find(key)
        if entry is None:
            return None, 0
        item = self._known(key, entry)
        for name, vsize in entry[1]:
            item[name] = {"S": STANDIN_CHAR * vsize}
        return item, size

    def reconcile(self, key: Item, old: Item | None, new: Item) -> Item | None:
        """Put back, in `old`, each value `new` writes unchanged (same token), so the GSI
        charges see exactly the attributes a write changes, as with whole items."""
        if old is None or not self._compare:
            return old
        entry = self._find(key)[0]
        tokens = entry[4] if entry is not None else None
        if not tokens:
            return old
        for (name, _size), token in zip(entry[1], tokens, strict=True):
            after = new.get(name)
            if after is not None and after is not old.get(name) and value_token(after) == token:
                old[name] = after
        return old


STORES: Final = ("full", "keys")
"""The item stores `--store` chooses between (docs/emulator.md, "Item stores and the
memory bound")."""


def make_store(kind: str, schema: KeySchema) -> ItemStore:
    """A new table's store of the given kind."""
    if kind == "keys":
        return KeysStore(schema)
    if kind == "full":
        return ItemStore(schema)
    raise ValueError(f"unknown item store {kind!r}: choose one of {', '.join(STORES)}")
