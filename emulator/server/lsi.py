"""Local secondary indexes: defined with the table, described, read through Query and
Scan, charged on the base table, and their item collections bounded at 10 GB
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html).

An LSI shares the table's partition key, so its reads and writes land on the table's own
partition and consume the table's capacity (the model is asked for the table, never for
an index); an index entry is a projection of the table's item computed on read, as for
GSIs (`items.ItemStore`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from emulator.itemsize import item_size
from emulator.server.admission import projected
from emulator.server.items import KeySchema, sort_value
from emulator.server.protocol import DynamoError, invalid_parameter, validation
from emulator.server.table import IndexDef, Table, index_defs
from emulator.server.values import Item

MAX_LSIS: Final = 5
"""[AWS] at most 5 local secondary indexes per table, defined when it is created."""
COLLECTION_LIMIT_BYTES = 10 * 1024**3
"""[AWS] an item collection (a partition-key value's items in the table and its LSIs) of a
table with LSIs holds at most 10 GB. Not Final: a test lowers it rather than write 10 GB."""
INDEX_ENTRY_OVERHEAD: Final = 100
"""[AWS] an index entry is sized as its projected attributes plus 100 bytes
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html#LSI.StorageConsiderations)."""
GB: Final = 1024**3

WrittenCollections = dict[tuple[str, Any], tuple[Table, Item]]
"""The item collections a multi-item write (BatchWriteItem, TransactWriteItems) wrote, by
(table name, partition-key value), each with a key in it, in the order of their first
write: what `metrics_by_table` reports."""


def local_index_defs(
    request: dict[str, Any], types: dict[str, str], schema: KeySchema
) -> dict[str, IndexDef]:
    """The LSIs of a CreateTable request, checked (parsed as GSIs are: names, key schema,
    projection), each on the table's partition key with a sort key of its own."""
    raw = request.get("LocalSecondaryIndexes")
    if raw is None:
        return {}
    if not isinstance(raw, list) or not raw:
        raise validation(
            "One or more parameter values were invalid: List of LocalSecondaryIndexes is empty"
        )
    if len(raw) > MAX_LSIS:
        raise invalid_parameter(
            f"Number of LocalSecondaryIndexes exceeds per-table limit of {MAX_LSIS}"
        )
    if schema.sk is None:
        raise invalid_parameter(
            "Table KeySchema does not have a range key, which is required when specifying "
            "a LocalSecondaryIndex"
        )
    lsis = index_defs({"GlobalSecondaryIndexes": raw}, types, 0.0, schema.names, multi=False)
    for name, index in lsis.items():
        if index.schema.pk.name != schema.pk.name:
            raise invalid_parameter(
                "Index KeySchema does not have the same leading hash key as table KeySchema "
                f"for index: {name}. index hash key: {index.schema.pk.name}, table hash key: "
                f"{schema.pk.name}"
            )
        if index.schema.sk is None:
            raise invalid_parameter(f"Index KeySchema does not have a range key for index: {name}")
    for gsi in request.get("GlobalSecondaryIndexes") or []:
        if isinstance(gsi, dict) and gsi.get("IndexName") in lsis:
            raise invalid_parameter(f"Duplicate index name: {gsi['IndexName']}")
    return lsis


def describe(table: Table) -> list[dict[str, Any]]:
    """The LocalSecondaryIndexes of a TableDescription, in their request's order."""
    out = []
    for raw in table.request.get("LocalSecondaryIndexes") or []:
        name = raw["IndexName"]
        index = table.lsis[name]
        count = size = 0
        for item, _size in table.store.all_items():
            if index.schema.in_index(item):
                count += 1
                size += entry_size(index, item)
        out.append(
            {
                "IndexName": name,
                "KeySchema": raw["KeySchema"],
                "Projection": raw.get("Projection") or {"ProjectionType": "ALL"},
                "IndexSizeBytes": size,
                "ItemCount": count,
                "IndexArn": f"{table.arn}/index/{name}",
            }
        )
    return out


def entry_size(index: IndexDef, item: Item) -> int:
    """The bytes an item's entry takes in an LSI."""
    return item_size(projected(index, item)) + INDEX_ENTRY_OVERHEAD


def weigher(lsis: dict[str, IndexDef]) -> Callable[[Item, int], int]:
    """What one item (of `size` bytes) adds to its item collection in a table with these
    LSIs: itself and its entry in each LSI it appears in. The table's store keeps each
    collection's running size with it (`ItemStore.weigh`), so no write walks its
    collection to check the 10 GB limit."""
    indexes = tuple(lsis.values())

    def weigh(item: Item, size: int) -> int:
        total = size
        for index in indexes:
            if index.schema.in_index(item):
                total += entry_size(index, item)
        return total

    return weigh


def _contribution(table: Table, item: Item | None, size: int) -> int:
    """What one item adds to its item collection: itself and its LSI entries."""
    if item is None:
        return 0
    weigh = table.store.weigh
    assert weigh is not None  # set at CreateTable for every table with LSIs
    return weigh(item, size)


def collection_bytes(table: Table, key: Item) -> int:
    """The size of the item collection of `key`'s partition-key value, now: the running
    size the table's store keeps (constant time; only tables with LSIs ask)."""
    return table.store.collection_bytes(key[table.schema.pk.name])


def check_collection(
    table: Table,
    key: Item,
    old: Item | None,
    old_size: int,
    new: Item | None,
    new_size: int,
    pending: int = 0,
) -> int:
    """The collection's size after a write of `key` from `old` to `new` (and `pending`
    bytes earlier actions of the same transaction add to it); a write that grows it past
    10 GB is ItemCollectionSizeLimitExceededException, as DynamoDB words it."""
    before = collection_bytes(table, key) + pending
    change = _contribution(table, new, new_size) - _contribution(table, old, old_size)
    after = before + change
    if change > 0 and after > COLLECTION_LIMIT_BYTES:
        raise DynamoError("ItemCollectionSizeLimitExceededException", "Collection size exceeded.")
    return after


def collection_metrics(table: Table, key: Item, size: int) -> dict[str, Any]:
    """[AWS] ItemCollectionMetrics: the collection's key and an estimate of its size in
    GB as a range (here the exact size, rounded down and up to the GB's thousandth)."""
    gb = size / GB
    low = int(gb * 1000) / 1000
    return {
        "ItemCollectionKey": {table.schema.pk.name: key[table.schema.pk.name]},
        "SizeEstimateRangeGB": [low, low + 1.0],
    }


def note_written(written: WrittenCollections, table: Table, key: Item) -> None:
    """Record that a write of a multi-item request reached `key`'s item collection (a
    table without LSIs has none: nothing is recorded). Keyed by the partition-key value as
    the store keys its collection sizes, so two writes to one collection are one entry."""
    if table.lsis:
        written.setdefault((table.name, sort_value(key[table.schema.pk.name])), (table, key))


def metrics_by_table(written: WrittenCollections) -> dict[str, list[dict[str, Any]]]:
    """[AWS] the ItemCollectionMetrics of BatchWriteItem and TransactWriteItems: by table,
    an ItemCollectionKey and SizeEstimateRangeGB for each item collection the request's
    puts, updates and deletes affected
    (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchWriteItem.html,
    https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html),
    each as PutItem reports one (`collection_metrics`). One rule for both, so a batch and a
    transaction writing the same collections report the same figures.

    One entry per collection, sized after the whole request, however many of its writes
    went to it: the references do not say whether two writes to a collection give two
    entries, and one with the collection's size now is what a client reads the metrics
    for. A table without LSIs has no item collections (PutItem reports none), and a reply
    with nothing to report has no ItemCollectionMetrics, as PutItem's has none: the
    caller leaves the member out when this is empty."""
    out: dict[str, list[dict[str, Any]]] = {}
    for table, key in written.values():
        size = collection_bytes(table, key)
        out.setdefault(table.name, []).append(collection_metrics(table, key, size))
    return out
