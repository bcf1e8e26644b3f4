"""The simulation's knowledge of its items (loadgen.load.writes): whether each existed and its
index key values before a write, which decides the class the one charging rule charges."""

from __future__ import annotations

import numpy as np
import pytest

from emulator.params import DEFAULT_PARAMS as P
from loadgen.format.playbook import parse_playbook
from loadgen.load.keys import ItemGenerator
from loadgen.load.writes import (
    DENSE_LIMIT,
    MOVED,
    NEW,
    REWRITTEN,
    UNCHANGED,
    ItemStates,
    classes,
    previous,
    record,
    table_plan,
)


def _states(dense: bool) -> ItemStates:
    radix = 10 if dense else DENSE_LIMIT * 4
    return ItemStates([radix], ["g"])


@pytest.mark.parametrize("dense", [True, False], ids=["dense", "sparse"])
def test_a_write_sees_what_the_admitted_writes_before_it_left(dense: bool) -> None:
    states = _states(dense)
    h = {"g": (np.array([7, 8, 9], dtype=np.uint64), np.zeros(3))}
    rows = states.rows_of(states.ids({"pk": np.array([3, 3, 4])}, ["pk"]))
    existed, before = previous(states, rows, h)
    # Item 3 is new to its first write; its second write (same tick) sees the first.
    assert existed.tolist() == [False, True, False]
    assert int(before["g"][0][1]) == 7
    # The second write to item 3 was throttled: the item keeps the first write's value.
    record(states, rows, np.array([True, False, True]), h)
    later = states.rows_of(states.ids({"pk": np.array([3, 4, 5])}, ["pk"]))
    now = {"g": (np.array([7, 1, 1], dtype=np.uint64), np.zeros(3))}
    existed, before = previous(states, later, now)
    assert existed.tolist() == [True, True, False]
    assert before["g"][0][:2].tolist() == [7, 9]


def test_each_class_is_charged_by_the_rule() -> None:
    playbook = parse_playbook(
        {
            "name": "p",
            "tables": [
                {
                    "name": "tbl",
                    "partition_key": {"name": "pk"},
                    "billing_mode": "PAY_PER_REQUEST",
                    "item_size_bytes": 1500,
                    "gsis": [
                        {"name": "all", "partition_key": {"name": "g"}},
                        {"name": "keys", "partition_key": {"name": "g"}, "projection": "KEYS_ONLY"},
                    ],
                }
            ],
            "load": {
                "attributes": {
                    "pk": {"dist": "uniform", "count": 10},
                    "g": {"dist": "uniform", "count": 4},
                },
                "phases": [{"operation": "update", "rate": 1, "duration_s": 1}],
            },
        }
    )
    spec = playbook.tables[0]
    attrs = playbook.load.attributes
    gen = ItemGenerator(attrs, [k.name for k in spec.key_attributes()], ["pk"])
    plan = table_plan(spec, gen, attrs, False, True, P)
    everything, keys = plan.indexes
    assert everything.units == ((0, 2), (2, 2), (0, 2), (0, 2))  # 1.5 KB entries
    assert keys.units == ((0, 1), (1, 1), (0, 1), (0, 0))  # a rewrite in place costs nothing
    assert plan.needs_state and plan.tracked == ("g",)
    existed = np.array([False, True, True])
    changed = {"g": np.array([True, True, False])}
    assert classes(everything, existed, changed).tolist() == [NEW, MOVED, REWRITTEN]
    assert classes(keys, existed, changed).tolist() == [NEW, MOVED, UNCHANGED]


def test_seeding_stays_under_an_on_demand_maximum() -> None:
    """The seeder paces at half of the smallest write limit, on-demand maximums included
    (found by the differential test: seeding throttled at a GSI's maximum)."""
    from loadgen.load.seed import seed_rate

    playbook = parse_playbook(
        {
            "name": "p",
            "tables": [
                {
                    "name": "tbl",
                    "partition_key": {"name": "pk"},
                    "billing_mode": "PAY_PER_REQUEST",
                    "gsis": [
                        {
                            "name": "g",
                            "partition_key": {"name": "g"},
                            "on_demand_max": {"write": 300},
                        }
                    ],
                }
            ],
            "load": {
                "attributes": {
                    "pk": {"dist": "uniform", "count": 10},
                    "g": {"dist": "uniform", "count": 4},
                },
                "phases": [{"rate": 1, "duration_s": 1}],
            },
        }
    )
    assert seed_rate(playbook, playbook.tables[0], 1.0) == pytest.approx(150)
