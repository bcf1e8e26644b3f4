"""Keys of several attributes: where one lands in the hash space, and its sort position.

Since November 2025 a global secondary index may key on up to four partition-key and
four sort-key attributes ("multi-attribute keys": DynamoDB hashes the partition-key
attributes together, and orders items by the sort-key attributes left to right,
https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.DesignPattern.MultiAttributeKeys.html).
The capacity model needs of such a key what it needs of any key: one partition hash and
one comparable sort position, so an index keyed on (tournament, region) is partitioned
and charged by the pair, and a hot pair throttles as a hot single key does.

A key of one attribute gives exactly what `keyspace.partition_hash(key_bytes(v))` and
`keyspace.sort_position(v)` give, so a single-attribute index is unchanged. The endpoint
computes these from an item's values; the simulation can compute the same from drawn
values, so both charge a composite key alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from emulator.keyspace import key_bytes, partition_hash, sort_position

KeyPart = str | bytes | Decimal | int | float
"""One attribute's typed value: str for S, bytes for B, a number for N."""


def composite_key_bytes(parts: Sequence[bytes]) -> bytes:
    """The bytes several key values are hashed as: each value's canonical bytes with its
    length in front, so ("ab", "c") and ("a", "bc") are different keys."""
    return b"".join(len(part).to_bytes(4, "big") + part for part in parts)


def composite_partition_hash(values: Sequence[KeyPart]) -> int:
    """Where a partition key of these attribute values (in key-schema order) lands."""
    if len(values) == 1:
        value = values[0]
        return partition_hash(value if isinstance(value, str) else key_bytes(value))
    return partition_hash(composite_key_bytes([key_bytes(v) for v in values]))


def composite_sort_position(values: Sequence[KeyPart]) -> Any:
    """A comparable stand-in for a sort key of these attribute values: the tuple of each
    one's sort position, which orders as DynamoDB orders such a key (by the first
    attribute, then the second, ...); a single value's position as it is."""
    if len(values) == 1:
        return sort_position(values[0])
    return tuple(sort_position(v) for v in values)
