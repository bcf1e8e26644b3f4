"""`hotbench emulator serve --data-dir DIR`: tables and items kept across restarts in
SQLite (the standard library's sqlite3: a real embedded store, nothing to install).

What is kept: each table's definition (its CreateTable request as UpdateTable left it),
identity, tags, TTL and settings, and every item in its wire form. What is not: the
capacity model's state (partitions, heat, burst and on-demand growth) starts fresh on
each start, as if each table had just been created; restored tables are ACTIVE at once.

Durability: every request's changes are written and committed (WAL journal,
synchronous=FULL) before its reply leaves, under the service's lock, so a crash loses at
most the request whose reply was never sent. The item stores note what they change
(`ItemStore.journal`); `commit` writes those notes, and after a control-plane request
the table definitions, in one transaction.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Final

import orjson

from emulator.itemsize import item_size
from emulator.server import control
from emulator.server.emulator_state import EmulatorState
from emulator.server.table import Table
from emulator.wire import TARGET_PREFIX

DB_NAME: Final = "hotbench-emulator.sqlite3"
CONTROL_WRITES: Final = frozenset(
    TARGET_PREFIX + name
    for name in (
        "CreateTable",
        "UpdateTable",
        "DeleteTable",
        "TagResource",
        "UntagResource",
        "UpdateTimeToLive",
        "UpdateContinuousBackups",
        "UpdateContributorInsights",
    )
)
"""Requests that may change a table's definition (the others change only items)."""
SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS tables (
    name TEXT PRIMARY KEY, request BLOB NOT NULL, meta BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS items (
    table_name TEXT NOT NULL, key BLOB NOT NULL, item BLOB NOT NULL,
    PRIMARY KEY (table_name, key)
) WITHOUT ROWID;
"""


class PersistenceError(Exception):
    """The data directory cannot be used (the message names it and why)."""


def _key_bytes(table: Table, item: dict[str, Any]) -> bytes:
    return orjson.dumps(table.schema.key_of(item), option=orjson.OPT_SORT_KEYS)


class Persistence:
    """One emulator's SQLite file: loaded once at start, written after every request."""

    def __init__(self, directory: Path) -> None:
        try:
            directory.mkdir(parents=True, exist_ok=True)
            self.path = directory / DB_NAME
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise PersistenceError(f"cannot keep data in {directory}: {exc}") from None

    # start -----------------------------------------------------------------------------
    def load(self, state: EmulatorState) -> int:
        """Recreate the stored tables and items in `state` (fresh capacity); returns the
        number of items loaded."""
        loaded = 0
        rows = self.db.execute("SELECT name, request, meta FROM tables ORDER BY name").fetchall()
        for name, request, meta in rows:
            create_delay = state.create_delay_s
            state.create_delay_s = 0.0  # restored tables are ACTIVE at once
            try:
                control.create_table(state, orjson.loads(request))
            finally:
                state.create_delay_s = create_delay
            table = state.tables[name]
            _restore_meta(table, orjson.loads(meta))
            store = table.store
            for (raw,) in self.db.execute(
                "SELECT item FROM items WHERE table_name = ? ORDER BY key", (name,)
            ):
                item = orjson.loads(raw)
                store.put(item, item_size(item))
                loaded += 1
        for table in state.tables.values():
            table.store.journal = []
        return loaded

    # after each request ----------------------------------------------------------------
    def commit(self, state: EmulatorState, target: str | None) -> None:
        """Write what the request changed, in one transaction, before it is answered."""
        control_write = target in CONTROL_WRITES
        changes = [(t, t.store.journal) for t in state.tables.values() if t.store.journal]
        if not changes and not control_write:
            return
        db = self.db
        db.execute("BEGIN")
        try:
            if control_write:
                self._write_tables(state)
            for table, journal in changes:
                for kind, item in journal:
                    key = _key_bytes(table, item)
                    if kind:
                        db.execute(
                            "INSERT OR REPLACE INTO items VALUES (?, ?, ?)",
                            (table.name, key, orjson.dumps(item)),
                        )
                    else:
                        db.execute(
                            "DELETE FROM items WHERE table_name = ? AND key = ?",
                            (table.name, key),
                        )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        finally:
            for _table, journal in changes:
                journal.clear()

    def _write_tables(self, state: EmulatorState) -> None:
        db = self.db
        stored = {name for (name,) in db.execute("SELECT name FROM tables")}
        for gone in stored - set(state.tables):
            db.execute("DELETE FROM tables WHERE name = ?", (gone,))
            db.execute("DELETE FROM items WHERE table_name = ?", (gone,))
        for name, table in state.tables.items():
            if table.store.journal is None:
                table.store.journal = []  # a new table: its items are written from now on
            if name not in stored:
                db.execute("DELETE FROM items WHERE table_name = ?", (name,))
            db.execute(
                "INSERT OR REPLACE INTO tables VALUES (?, ?, ?)",
                (name, orjson.dumps(table.request), orjson.dumps(_meta(table))),
            )

    def close(self) -> None:
        self.db.close()


def _meta(table: Table) -> dict[str, Any]:
    """What a table keeps beside its definition and items."""
    settings = table.settings
    return {
        "table_id": table.table_id,
        "created_epoch": table.created_epoch,
        "tags": table.tags,
        "ttl_attribute": table.ttl_attribute,
        "billing_switched_epoch": table.billing_switched_epoch,
        "pitr_since": settings.pitr_since,
        "pitr_days": settings.pitr_days,
        "insights": [[index, mode, since] for index, (mode, since) in settings.insights.items()],
    }


def _restore_meta(table: Table, meta: dict[str, Any]) -> None:
    table.table_id = meta["table_id"]
    table.created_epoch = meta["created_epoch"]
    table.tags = meta["tags"]
    table.ttl_attribute = meta["ttl_attribute"]
    table.billing_switched_epoch = meta["billing_switched_epoch"]
    table.settings.pitr_since = meta["pitr_since"]
    table.settings.pitr_days = meta["pitr_days"]
    table.settings.insights = {index: (mode, since) for index, mode, since in meta["insights"]}
    for index in table.gsis.values():
        index.ready_at = 0.0
