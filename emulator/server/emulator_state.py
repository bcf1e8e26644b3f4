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
from emulator.server.stream_writes import record_write
from emulator.server.streams import DEFAULT_BUDGET_BYTES, RETENTION_S, RecordBudget, Stream
from emulator.server.table import Table
from emulator.server.values import Item


class EmulatorClock:
    """Emulator time, one for every region of one emulator: seconds since start on a
    monotonic clock, plus the time skipped (`skip`), and the wall-clock epoch it started at."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.t0 = clock()
        self.offset = 0.0
        self.started_epoch = time.time()

    def now(self) -> float:
        return self.clock() - self.t0 + self.offset


class EmulatorState:
    """All tables of one account in one region, their capacity model, metrics and clock,
    and the lock that every request holds while it touches them. The operations
    (`control`, the data-plane modules) receive it; `Service` owns one per account and
    region that a request's credentials name (`sibling`), all sharing the clock, the lock,
    the memory bound and the stream records' budget."""

    def __init__(
        self,
        options: EmulatorOptions | None = None,
        region: str = "us-east-1",
        account: str = "000000000000",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        options = options or EmulatorOptions()
        self.options = options
        """What the emulator was started with (its other regions are made with it too)."""
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
        self.time = EmulatorClock(clock)
        self.lock = threading.RLock()
        # Model time 0 is the server's start: DynamoDB's daily limits count by UTC days.
        self.model = CapacityModel(params, region, account, now=0.0, epoch_s=self.started_epoch)
        self.tables: dict[str, Table] = {}
        self.metrics = Metrics(self.scale)
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
        self.streams: dict[str, Stream] = {}
        """This region's streams by ARN, enabled or disabled (streams.py)."""
        stream_bytes = options.stream_bytes
        self.stream_budget = RecordBudget(
            DEFAULT_BUDGET_BYTES if stream_bytes is None else stream_bytes
        )
        """What the stream records of all regions may take before the oldest are trimmed."""

    def sibling(self, region: str, account: str) -> EmulatorState:
        """The state of another region or account of the same emulator: its own tables,
        model (ARNs name the region and account), metrics and streams; the same clock,
        lock, settings, memory bound and stream budget."""
        other = EmulatorState(self.options, region, account, self.time.clock)
        other.create_delay_s = self.create_delay_s
        other.time = self.time
        other.lock = self.lock
        other.memory = self.memory
        other.stream_budget = self.stream_budget
        other.model = CapacityModel(
            self.params, region, account, now=self.now(), epoch_s=self.started_epoch
        )
        other.transactions.window_s = self.transactions.window_s
        other.expiry = Expiry(self.now() + SWEEP_EVERY_S)
        return other

    @property
    def started_epoch(self) -> float:
        return self.time.started_epoch

    @started_epoch.setter
    def started_epoch(self, epoch: float) -> None:
        # A test pins the calendar (the daily limits count by UTC days) for every region.
        self.time.started_epoch = epoch

    # time ------------------------------------------------------------------------------
    def now(self) -> float:
        """Emulator time: seconds since start on a monotonic clock, plus skipped time
        (`EmulatorClock.now`, spelled out: every request reads it twice)."""
        clock = self.time
        return clock.clock() - clock.t0 + clock.offset

    def tick(self) -> float:
        """Bring the model up to now (heat, splits, growth land) and return now."""
        now = self.now()
        self.model.advance(now)
        self.metrics.sample_partitions(self.model, now)
        if now >= self.expiry.due:
            self.expiry.sweep(self.tables, now, self.epoch(now), self._expired)
        budget = self.stream_budget
        if budget.records and budget.records[0].at <= now - RETENTION_S:
            budget.trim(now)
        return now

    def _expired(self, table: Table, key: Item, item: Item, size: int, now: float) -> None:
        """An item Time to Live deleted: its stream's REMOVE record, by the service."""
        if table.stream is not None:
            record_write(self, table, key, item, None, (size, 0), now, service=True)

    def skip(self, seconds: float) -> None:
        """Let `seconds` of emulator time pass at once, with no traffic (the pauses
        between repeats, which the physics must see but nobody need wait for)."""
        with self.lock:
            self.time.offset += seconds
            self.tick()

    def epoch(self, now: float) -> float:
        """Wall-clock time of an emulator instant, for CreationDateTime and the like."""
        return self.time.started_epoch + now

    # lookup ----------------------------------------------------------------------------
    def table(self, name: str, active: bool = True) -> Table:
        """A table by name or ARN (of this region and account); data-plane calls need it
        ACTIVE or UPDATING."""
        arn = ""
        if name.startswith("arn:"):
            arn = name
            name = name.rsplit("/", 1)[-1] if ":table/" in name else ""
        table = self.tables.get(name)
        if table is None or (arn and table.arn != arn):
            check_name(name)
            raise not_found()
        if active and table.creating(self.now()):
            raise not_found()
        return table
