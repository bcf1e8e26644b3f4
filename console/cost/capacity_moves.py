"""How a table's provisioned capacity moved, as the cost record holds it.

Every source of a capacity series speaks one shape, the emulator's capacity record as JSON
(`CapacityRecord.as_dict`: per table (`$table` or None) and GSI, `series` points
`{t, kind, read, write}` in full-scale units): the model's records of a simulated or
predicted run, the endpoint's `/_hotbench/capacity` view, and a result's capacity block.
This turns it into `CapacityMove`s on the table's own clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from console.cost.record import CapacityMove
from emulator.capacity_record import PROVISIONED_SERIES

if TYPE_CHECKING:
    from emulator.capacity_record import CapacityRecord

TABLE_KEY = "$table"


def moves_from_series(
    indexes: Mapping[Any, Mapping[str, Any]], offset_s: float = 0.0
) -> tuple[CapacityMove, ...]:
    """The provisioned steps of each index's `series` after its first point (the first
    is the capacity the table was created with, the TableUse's own), each at
    `offset_s` + its time: `offset_s` places the series' 0 on the table's clock."""
    moves = provisioned_points(indexes, offset_s, with_first=False)
    return tuple(sorted(moves, key=lambda m: (m.at_s, m.index or "")))


def provisioned_points(
    indexes: Mapping[Any, Mapping[str, Any]], offset_s: float, with_first: bool
) -> list[CapacityMove]:
    """Each index's provisioned points of its `series` as moves at `offset_s` + its
    time, index by index in time order (`with_first`: also each index's first point,
    the capacity it was created with). The one reader of a result's `capacity` series
    for the cost (console.cost.month_usage repeats a run's points, the first included)."""
    moves: list[CapacityMove] = []
    for key, entry in indexes.items():
        index = None if key in (None, TABLE_KEY) else str(key)
        points = [p for p in entry.get("series") or [] if p.get("kind") == PROVISIONED_SERIES]
        for point in points if with_first else points[1:]:
            moves.append(
                CapacityMove(
                    offset_s + float(point["t"]),
                    index,
                    float(point["read"]),
                    float(point["write"]),
                )
            )
    return moves


def moves_from_records(
    records: Mapping[str | None, CapacityRecord], offset_s: float = 0.0
) -> tuple[CapacityMove, ...]:
    """`moves_from_series` of the model's own records (`CapacityModel.capacity_records`)."""
    return moves_from_series({k: r.as_dict() for k, r in records.items()}, offset_s)
