"""The one charging rule (emulator.units): what a table write costs the table and each
GSI, case by case as DynamoDB documents it (GSI.html, "Write capacity units";
CapacityUnitCalculations.html), and which partition each index write lands on."""

from __future__ import annotations

import pytest

from emulator.params import DEFAULT_PARAMS as P
from emulator.units import (
    PAGE_BYTES,
    CollectionRead,
    IndexChange,
    PagedReadCost,
    TableWrite,
    batch_get_units,
    batch_write_units,
    collection_read_cost,
    index_write_units,
    items_per_page,
    page_read_units,
    read_units,
    scan_read_cost,
    table_write_units,
    transact_get_units,
    transactional_write_units,
)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        # new item with the index key: one put, on the new entry's partition
        (IndexChange(False, True, False, True, 0, 900), (0, 1)),
        # index key changed: delete on the OLD key's partition, put on the new
        (IndexChange(True, True, True, True, 900, 900), (1, 1)),
        # the delete is sized on the old entry, the put on the new
        (IndexChange(True, True, True, True, 2500, 900), (3, 1)),
        # index key attribute removed: one delete, on the old key's partition
        (IndexChange(True, False, False, False, 900, 0), (1, 0)),
        # only a projected attribute changed: one write, in place
        (IndexChange(True, True, False, True, 1500, 1500), (0, 2)),
        # nothing the index holds changed: nothing
        (IndexChange(True, True, False, False, 900, 900), (0, 0)),
        # in neither version (sparse index): nothing
        (IndexChange(False, False, False, False, 0, 0), (0, 0)),
    ],
    ids=["added", "key-changed", "delete-sized-on-old", "removed", "projected", "same", "sparse"],
)
def test_index_write_units_follow_the_documented_cases(
    change: IndexChange, expected: tuple[int, int]
) -> None:
    assert index_write_units(change, P) == expected


def test_a_table_write_costs_the_larger_of_before_and_after() -> None:
    assert table_write_units(TableWrite(0, 1000), P) == 1
    assert table_write_units(TableWrite(3000, 1000), P) == 3  # shrinking a 3 KB item
    assert table_write_units(TableWrite(1025, 0), P) == 2  # a delete of a 1.0 KB+ item
    assert table_write_units(TableWrite(0, 0), P) == 1  # at least one unit


def test_reads_round_up_to_4_kb_and_halve_when_eventually_consistent() -> None:
    assert read_units(4096, True, P) == 1.0
    assert read_units(4097, True, P) == 2.0
    assert read_units(4097, False, P) == 1.0
    assert read_units(0, False, P) == 0.5  # a miss still costs the minimum


# --- the new operations, against DynamoDB's documented arithmetic ------------------------
# (transaction-apis.html "Capacity management for transactions", BatchWriteItem /
# BatchGetItem API references, Query.html / Scan.html "Capacity unit consumption",
# WorkingWithItems.html conditional writes; reference.md#what-each-operation-costs)


def test_transactions_cost_two_units_per_item() -> None:
    # 1.5 KB written in a transaction: 2 x ceil(1.5) = 4 WCU; a plain write: 2
    assert table_write_units(TableWrite(0, 1536, transactional=True), P) == 4
    assert table_write_units(TableWrite(0, 1536), P) == 2
    assert transactional_write_units(1536, P) == 4
    # TransactGetItems: 2 strongly consistent reads per item: 5 KB -> 2 x 2, 100 B -> 2 x 1
    assert transact_get_units([5 * 1024, 100], P) == 6.0


def test_batch_items_are_rounded_up_each_on_its_own() -> None:
    # 25 puts of 100 bytes: 25 WCU (2,500 bytes summed would be 3)
    assert batch_write_units([TableWrite(0, 100)] * 25, P) == 25
    # a delete in a batch costs the deleted item; a put over a bigger item, the bigger
    assert batch_write_units([TableWrite(2048, 0), TableWrite(3000, 500)], P) == 2 + 3
    # 3 gets of 1 KB: 3 RCU strongly consistent (summed, 3 KB would be 1), 1.5 eventually
    assert batch_get_units([1024] * 3, True, P) == 3.0
    assert batch_get_units([1024] * 3, False, P) == 1.5
    # a key that finds nothing still costs the minimum
    assert batch_get_units([0], True, P) == 1.0


def test_a_query_page_sums_its_items_then_rounds_up_to_4_kb() -> None:
    # AWS's example: items totalling 40.8 KB -> 44 KB: 11 RCU, 5.5 eventually consistent
    page = 41_779  # 40.8 x 1024
    assert page_read_units(page, True, P) == 11.0
    assert page_read_units(page, False, P) == 5.5
    # the same 40.8 KB as 100 items of 418 bytes: one page, 11 RCU (100 if rounded per item)
    cost = collection_read_cost(CollectionRead(100, 41_800, True), P)
    assert cost == PagedReadCost(pages=1, units=11.0)


def test_a_collection_read_pages_at_1_mb() -> None:
    # 3,000 items of 1 KB: pages of 1,024 items (1 MB), 1,024 and 952: 256 + 256 + 238 RCU
    read = CollectionRead(3000, 3000 * 1024, True)
    assert PAGE_BYTES == 1024 * 1024
    assert items_per_page(read) == 1024
    assert collection_read_cost(read, P) == PagedReadCost(pages=3, units=750.0)
    # the item that reaches 1 MB is read on the page: 1,000-byte items, 1,049 per page
    assert items_per_page(CollectionRead(5000, 5_000_000, True)) == 1049
    # a Limit ends the page first: 10 items a page, each page rounded on its own
    limited = CollectionRead(25, 25 * 1000, False, limit=10)
    assert collection_read_cost(limited, P) == PagedReadCost(pages=3, units=1.5 + 1.5 + 1.0)
    # an empty collection: one page, the minimum
    assert collection_read_cost(CollectionRead(0, 0, True), P) == PagedReadCost(1, 1.0)


def test_a_scan_page_costs_its_bytes_but_at_least_the_minimum_per_partition() -> None:
    assert page_read_units(100, True, P, partitions=4) == 4.0
    assert page_read_units(100, False, P, partitions=4) == 2.0
    assert page_read_units(40 * 4096, True, P, partitions=4) == 40.0


def test_a_failed_conditional_write_is_charged_as_the_write_it_attempted() -> None:
    # put of 1 KB over an existing 2.5 KB item whose condition fails: 3 WCU (the larger)
    assert table_write_units(TableWrite(2560, 1024), P) == 3
    # a failed conditional delete of an absent item: the minimum, 1 WCU
    assert table_write_units(TableWrite(0, 0), P) == 1


def test_a_scan_is_charged_on_the_items_evaluated_with_a_minimum_per_partition() -> None:
    # a one-item Scan of a table of 4 partitions: 4 RCU consistent, 2 eventually
    # (the endpoint's rule, measured against DynamoDB: query_scan._partitions_between)
    assert scan_read_cost(CollectionRead(1, 100, True), 4, P) == PagedReadCost(1, 4.0)
    assert scan_read_cost(CollectionRead(1, 100, False), 4, P) == PagedReadCost(1, 2.0)
    # 3,000 items of 1 KB over 4 partitions: the bytes decide (256 + 256 + 238)
    big = CollectionRead(3000, 3000 * 1024, True)
    assert scan_read_cost(big, 4, P) == collection_read_cost(big, P)
    # 3 tiny pages (Limit 1) over 6 partitions: each page walks 2, so 2 RCU each
    tiny = CollectionRead(3, 300, True, limit=1)
    assert scan_read_cost(tiny, 6, P) == PagedReadCost(3, 6.0)
