"""One index's partitions as the emulator reports them: key range, heat against the
partition's limit, pending splits, item collections split for heat."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from console.tui.widgets.fitted_table import Cell, FittedTable
from emulator.keyspace import partition_hash

HEAT_BAR = 10


def serving_keys(index: dict[str, Any], hot_values: list[str]) -> dict[str, int]:
    """How many partitions serve each hot key: the partitions of its item collection once
    split for heat, else the one whose hash range holds it. Without named hot keys, every
    item collection (by hash) and the hottest partition."""
    parts = index.get("partitions", [])
    collections: dict[str, int] = {}
    for part in parts:
        owner = part.get("item_collection_of_hash")
        if owner is not None:
            collections[owner] = collections.get(owner, 0) + 1
    out: dict[str, int] = {}
    for value in hot_values:
        key = f"{partition_hash(value):016x}"
        out[value] = collections.get(key, 1)
    if not hot_values:
        for owner, count in collections.items():
            out[f"#{owner[:8]}"] = count
        if not out and parts:
            out["hottest partition's key"] = 1
    return out


def heat_bar(utilisation: float | None) -> Text:
    """The partition's use of its limit over the last second (1.0 = 1,000 WCU/s)."""
    if utilisation is None:
        return Text("-", style="dim")
    filled = round(HEAT_BAR * min(1.0, max(0.0, utilisation)))
    style = "green" if utilisation < 0.8 else ("yellow" if utilisation < 1.0 else "bold red")
    return Text("█" * filled + "░" * (HEAT_BAR - filled) + f" {utilisation * 100:4.0f}%", style)


def busy_words(total: float | None) -> str:
    """A partition's use so far: the emulator's `utilisation_total` is the seconds of its
    limit it has taken (a second at its full limit is 1), not units; shown as units it read
    `used 2` for a partition that took 2 seconds of its limit."""
    if total is None:
        return "-"
    return f"{total:,.1f} s" if total < 100 else f"{total:,.0f} s"


WIDE = 110
"""From this terminal width the map also shows each partition's hash range and item
collection (at 80 columns the columns that say where the heat is come first; the hot
keys' collections are in the line above the map)."""


class PartitionMap(FittedTable):
    def show(self, pmap: dict[str, Any] | None) -> None:
        wide = self.app.size.width >= WIDE
        labels = (
            "index",
            "id",
            *(["hash range"] if wide else []),
            "heat vs limit",
            "busy",
            "hot since",
            "split at",
            *(["collection"] if wide else []),
        )
        rows: list[tuple[Cell, ...]] = []
        for index in (pmap or {}).get("indexes", []):
            name = index.get("index") or "(table)"
            parts = sorted(
                index.get("partitions", []), key=lambda p: -(p.get("utilisation") or 0.0)
            )
            for part in parts:
                lo, hi = part.get("hash_range", ["", ""])
                hot = part.get("hot_since")
                split = part.get("split_at")
                collection = (part.get("item_collection_of_hash") or "")[:8] or "-"
                rows.append(
                    (
                        name,
                        str(part.get("id")),
                        *([f"{lo[:6]}…{hi[:6]}"] if wide else []),
                        heat_bar(part.get("utilisation")),
                        busy_words(part.get("utilisation_total")),
                        "-" if hot is None else f"{hot:,.0f} s",
                        "-" if split is None else f"{split:,.0f} s",
                        *([collection] if wide else []),
                    )
                )
        self.show_rows(labels, rows)
