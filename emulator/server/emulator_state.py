"""The state one emulator's operations share: tables, model, metrics, clock, lock, memory.

One object, passed to every operation, so that an operation reads what it needs here
and never the service that dispatches to it (`service.py`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from emulator.emulator_options import EmulatorOptions
from emulator.model import CapacityModel
from emulator.server.expiry import SWEEP_EVERY_S, Expiry
from emulator.server.inflight import TransactionLedger
from emulator.server.keystore import STORES
from emulator.server.memory import MemoryBound, default_max_memory
from emulator.server.metrics import Metrics
from emulator.server.protocol import check_name, not_found
from emulator.server.table import Table


class EmulatorState:
    """All tables of one emulator, their capacity model, metrics and clock, and the lock
    that every request holds while it touches them. The operations (`control`, the
    data-plane modules) receive it; `Service` owns one and dispatches to them."""

    def __init__(
        self,
        options: EmulatorOptions | None = None,
        region: str = "us-east-1",
        account: str = "000000000000",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        options = options or EmulatorOptions()
        store = options.store
        if store not in STORES:
            raise ValueError(f"unknown item store {store!r}: choose one of {', '.join(STORES)}")
        params = options.params.params
        if options.scale is not None:
            params = params.scaled(options.scale)
        self.params = params
        self.scale = params.scale
        delay = options.create_delay_s
        self.create_delay_s = params.create_table_s if delay is None else delay
        self.region = region
        self.account = account
        self._clock = clock
        self._t0 = clock()
        self._offset = 0.0
        self.lock = threading.RLock()
        self.model = CapacityModel(params, region, account, now=0.0)
        self.tables: dict[str, Table] = {}
        self.metrics = Metrics(self.scale)
        self.started_epoch = time.time()
        self.store_kind = store
        """Which item store new tables get: "full" or "keys" (docs/emulator.md, "Item
        stores and the memory bound")."""
        bound = options.max_memory
        self.memory = MemoryBound(default_max_memory() if bound is None else bound, store)
        """Past this bound writes of new items are refused (emulator/server/memory.py)."""
        self.transactions = TransactionLedger()
        """Items of transactions in flight and recent client request tokens (inflight.py)."""
        self.expiry = Expiry(SWEEP_EVERY_S)
        """The Time to Live sweep, due on the emulator's clock (expiry.py)."""

    # time ------------------------------------------------------------------------------
    def now(self) -> float:
        """Emulator time: seconds since start on a monotonic clock, plus skipped time."""
        return self._clock() - self._t0 + self._offset

    def tick(self) -> float:
        """Bring the model up to now (heat, splits, growth land) and return now."""
        now = self.now()
        self.model.advance(now)
        self.metrics.sample_partitions(self.model, now)
        if now >= self.expiry.due:
            self.expiry.sweep(self.tables, now, self.epoch(now))
        return now

    def skip(self, seconds: float) -> None:
        """Let `seconds` of emulator time pass at once, with no traffic (the pauses
        between repeats, which the physics must see but nobody need wait for)."""
        with self.lock:
            self._offset += seconds
            self.tick()

    def epoch(self, now: float) -> float:
        """Wall-clock time of an emulator instant, for CreationDateTime and the like."""
        return self.started_epoch + now

    # lookup ----------------------------------------------------------------------------
    def table(self, name: str, active: bool = True) -> Table:
        """A table by name or ARN; data-plane calls need it ACTIVE or UPDATING."""
        if name.startswith("arn:"):
            name = name.rsplit("/", 1)[-1] if ":table/" in name else ""
        table = self.tables.get(name)
        if table is None:
            check_name(name)
            raise not_found()
        if active and table.creating(self.now()):
            raise not_found()
        return table
