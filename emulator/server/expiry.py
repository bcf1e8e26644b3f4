"""The background deletion of expired items (Time to Live) on the emulator's clock.

An item expires when its TTL attribute is a Number of epoch seconds at or before now.
DynamoDB deletes expired items in the background, "typically within a few days", free of
capacity (no write units, on the table or its GSIs), and they stay readable until deleted
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/howitworks-ttl.html).
Here a sweep runs once a minute of emulator time (`skip` moves it like any other time),
walking at most SWEEP_ITEMS items per sweep and carrying on where it stopped, so one
request never pays for a whole large table. It deletes through the item store only: the
capacity model and the metrics never see it, as DynamoDB charges it to nobody.

Apart from `ttl` (the operations) because `EmulatorState.tick` runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from emulator.server.table import Table
from emulator.server.values import Item

SWEEP_EVERY_S: Final = 60.0
"""Emulator seconds between sweeps: an expired item stays readable for up to this long
(DynamoDB: up to a few days)."""
SWEEP_ITEMS: Final = 100_000
"""Items one sweep may examine in all; the next sweep carries on from there."""
Removed = Callable[[Table, Item, Item, int, float], None]
"""removed(table, key, item, size, now): an item the sweep deleted."""
FIVE_YEARS_S: Final = 5 * 365 * 86_400
"""[AWS] an expiry more than five years in the past is not acted on (a value in
milliseconds or microseconds would otherwise delete every item at once)."""


class Expiry:
    """When the next sweep is due, and where each table's sweep stopped."""

    def __init__(self, first_due: float) -> None:
        self.due = first_due
        self._cursor: dict[str, Item | None] = {}

    def sweep(
        self,
        tables: dict[str, Table],
        now: float,
        epoch_now: float,
        removed: Removed | None = None,
    ) -> int:
        """Delete expired items of the tables with TTL enabled; returns how many.
        `removed` is told of each deletion (its stream's record: stream_writes.py)."""
        self.due = now + SWEEP_EVERY_S
        budget = SWEEP_ITEMS
        deleted = 0
        # The window of expiry times acted on, as Decimals once per sweep: comparing a
        # Decimal to a float converts the float each time (exactly, so the same answer),
        # which made up most of the walk's cost per item.
        window = (Decimal(epoch_now - FIVE_YEARS_S), Decimal(epoch_now))
        for name, table in tables.items():
            attribute = table.ttl_attribute
            if attribute is None or budget <= 0:
                continue
            expired: list[tuple[Item, Item, int]] = []
            last: Item | None = None
            walked = 0
            for item, size in table.store.scan(self._cursor.get(name)):
                walked += 1
                last = item
                if expired_at(item.get(attribute), window):
                    expired.append((table.schema.key_of(item), item, size))
                if walked >= budget:
                    break
            budget -= walked
            # Where to start next time: after the last item seen, or the beginning once
            # the sweep has walked to the end.
            self._cursor[name] = table.schema.key_of(last) if last and budget <= 0 else None
            for key, item, size in expired:
                table.store.delete(key)
                if removed is not None:
                    removed(table, key, item, size, now)
            deleted += len(expired)
        return deleted


def expired_at(value: Any, window: tuple[Decimal, Decimal]) -> bool:
    """Whether a TTL attribute's value says the item has expired: an expiry time within
    `window`, (now less five years, now) in epoch seconds."""
    if not isinstance(value, dict) or "N" not in value:
        return False  # [AWS] only a Number is an expiry time; any other type never expires
    try:
        when = Decimal(value["N"])
    except (InvalidOperation, TypeError):
        return False
    return window[0] <= when <= window[1]
