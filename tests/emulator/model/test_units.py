"""The one charging rule (emulator.units): what a table write costs the table and each
GSI, case by case as DynamoDB documents it (GSI.html, "Write capacity units";
CapacityUnitCalculations.html), and which partition each index write lands on."""

from __future__ import annotations

import pytest

from emulator.params import DEFAULT_PARAMS as P
from emulator.units import (
    IndexChange,
    TableWrite,
    index_write_units,
    read_units,
    table_write_units,
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
