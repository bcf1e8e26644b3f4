"""The DynamoDB service behind the HTTP front: state, clock, and operation dispatch.

HTTP-free on purpose: `handle(target, body)` takes the X-Amz-Target and the raw body and
returns (status, JSON bytes), so the protocol is testable without sockets and the HTTP
layer stays a thin shell. Every call runs under one lock, so the model is never touched
concurrently whichever thread asks (the event loop, or the Python API from a test).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Final

import orjson

from emulator.model import CapacityModel
from emulator.params import DEFAULT_PARAMS, CapacityParams
from emulator.server import control, dataplane
from emulator.server.keystore import STORES
from emulator.server.memory import MemoryBound, default_max_memory
from emulator.server.metrics import Metrics
from emulator.server.protocol import (
    TARGET_PREFIX,
    DynamoError,
    internal,
    not_found,
    serialization,
    unknown_operation,
    validation,
)
from emulator.server.table import Table

log: Final = logging.getLogger("hotbench.emulator")

Handler = Callable[["Service", dict[str, Any]], dict[str, Any]]

OPERATIONS: Final[dict[str, Handler]] = {
    "CreateTable": control.create_table,
    "DescribeTable": control.describe_table,
    "UpdateTable": control.update_table,
    "DeleteTable": control.delete_table,
    "ListTables": control.list_tables,
    "TagResource": control.tag_resource,
    "UntagResource": control.untag_resource,
    "ListTagsOfResource": control.list_tags,
    "DescribeLimits": control.describe_limits,
    "PutItem": dataplane.put_item,
    "GetItem": dataplane.get_item,
    "DeleteItem": dataplane.delete_item,
    "UpdateItem": dataplane.update_item,
    "BatchWriteItem": dataplane.batch_write_item,
    "BatchGetItem": dataplane.batch_get_item,
    "Query": dataplane.query,
    "Scan": dataplane.scan,
}
"""Every supported operation; any other DynamoDB operation is a ValidationException
naming it, and a target that is not DynamoDB's is an UnknownOperationException."""

HANDLERS: Final[dict[str, Handler]] = {TARGET_PREFIX + name: op for name, op in OPERATIONS.items()}
"""The handler of each supported X-Amz-Target, found in one look-up per request; any
other target goes through `Service._operation` for its error."""

_loads: Final = orjson.loads
_dumps: Final = orjson.dumps
"""orjson's functions bound once (compiled, C statics instead of a module attribute
look-up per request)."""

KNOWN_UNSUPPORTED: Final = frozenset(
    {
        "BatchExecuteStatement",
        "CreateBackup",
        "CreateGlobalTable",
        "DeleteBackup",
        "DeleteResourcePolicy",
        "DescribeBackup",
        "DescribeContinuousBackups",
        "DescribeContributorInsights",
        "DescribeEndpoints",
        "DescribeExport",
        "DescribeGlobalTable",
        "DescribeGlobalTableSettings",
        "DescribeImport",
        "DescribeKinesisStreamingDestination",
        "DescribeTableReplicaAutoScaling",
        "DescribeTimeToLive",
        "DisableKinesisStreamingDestination",
        "EnableKinesisStreamingDestination",
        "ExecuteStatement",
        "ExecuteTransaction",
        "ExportTableToPointInTime",
        "GetResourcePolicy",
        "ImportTable",
        "ListBackups",
        "ListContributorInsights",
        "ListExports",
        "ListGlobalTables",
        "ListImports",
        "PutResourcePolicy",
        "RestoreTableFromBackup",
        "RestoreTableToPointInTime",
        "SearchVectors",
        "TransactGetItems",
        "TransactWriteItems",
        "UpdateContinuousBackups",
        "UpdateContributorInsights",
        "UpdateGlobalTable",
        "UpdateGlobalTableSettings",
        "UpdateKinesisStreamingDestination",
        "UpdateTableReplicaAutoScaling",
        "UpdateTimeToLive",
    }
)


class Service:
    """All tables of one emulator, their capacity model and their clock."""

    def __init__(
        self,
        params: CapacityParams = DEFAULT_PARAMS,
        scale: float | None = None,
        create_delay_s: float | None = None,
        region: str = "us-east-1",
        account: str = "000000000000",
        clock: Callable[[], float] = time.monotonic,
        store: str = "full",
        max_memory: int | None = None,
    ) -> None:
        if store not in STORES:
            raise ValueError(f"unknown item store {store!r}: choose one of {', '.join(STORES)}")
        if scale is not None:
            params = params.scaled(scale)
        self.params = params
        self.scale = params.scale
        self.create_delay_s = params.create_table_s if create_delay_s is None else create_delay_s
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
        self.internal_errors = 0
        """Requests that hit the catch-all (bugs); tests assert it stays 0."""
        self.store_kind = store
        """Which item store new tables get: "full" or "keys" (docs/emulator.md, "Item
        stores and the memory bound")."""
        self.memory = MemoryBound(default_max_memory() if max_memory is None else max_memory, store)
        """Past this bound writes of new items are refused (emulator/server/memory.py)."""

    # time ------------------------------------------------------------------------------
    def now(self) -> float:
        """Emulator time: seconds since start on a monotonic clock, plus skipped time."""
        return self._clock() - self._t0 + self._offset

    def tick(self) -> float:
        """Bring the model up to now (heat, splits, growth land) and return now."""
        now = self.now()
        self.model.advance(now)
        self.metrics.sample_partitions(self.model, now)
        return now

    def skip(self, seconds: float) -> None:
        """Let `seconds` of emulator time pass at once, with no traffic (tests only: the
        badOnDemand repeats need 10-minute pauses)."""
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
        if table is None or (active and table.creating(self.now())):
            raise not_found()
        return table

    # dispatch --------------------------------------------------------------------------
    def handle(self, target: str | None, body: bytes) -> tuple[int, bytes]:
        """One DynamoDB request: (HTTP status, JSON body)."""
        try:
            handler = HANDLERS.get(target) if target is not None else None
            if handler is None:
                handler = OPERATIONS[self._operation(target)]
            try:
                # orjson: a well-kept parser, 3-4x faster than json on this hot path.
                request = _loads(body) if body else {}
            except (ValueError, UnicodeDecodeError):
                raise serialization("Start of structure or map found where not expected") from None
            if not isinstance(request, dict):
                raise serialization("Start of structure or map found where not expected")
            # acquire/release rather than `with`: the same for an RLock, and compiled, two
            # method calls instead of looking up and calling __enter__ and __exit__.
            lock = self.lock
            lock.acquire()
            try:
                result = handler(self, request)
            finally:
                lock.release()
            return 200, _dumps(result)
        except DynamoError as exc:
            return exc.status, exc.payload()
        except RecursionError:
            return 400, validation("Nesting Levels have exceeded supported limits").payload()
        except Exception:  # a bug must still get a DynamoDB-shaped reply
            self.internal_errors += 1
            log.exception("internal error handling %s", target)
            return 500, internal().payload()

    @staticmethod
    def _operation(target: str | None) -> str:
        if not target or not target.startswith(TARGET_PREFIX):
            raise unknown_operation(target or "")
        operation = target[len(TARGET_PREFIX) :]
        if operation in OPERATIONS:
            return operation
        if operation in KNOWN_UNSUPPORTED:
            raise validation(
                f"Operation {operation} is not supported by the hotbench emulator "
                f"(supported: {', '.join(sorted(OPERATIONS))})"
            )
        raise unknown_operation(target)

    # observation -----------------------------------------------------------------------
    def metrics_view(self, seconds: int = 60, table: str | None = None) -> dict[str, Any]:
        """The JSON of /_hotbench/metrics (documented in docs/emulator.md)."""
        with self.lock:
            now = self.tick()
            names = [table] if table is not None else sorted(self.tables)
            out: dict[str, Any] = {}
            for name in names:
                state = self.table(name, active=False)
                out[name] = self.metrics.table_view(
                    self.model, name, state.status(now), max(1, seconds)
                )
            return {
                "now_s": round(now, 3),
                "scale": self.scale,
                "units": "full-scale (counts and units divided by scale)",
                "tables": out,
            }

    def memory_view(self) -> dict[str, Any]:
        """The JSON of /_hotbench/memory: the item store, the bound and what it refused."""
        with self.lock:
            view = self.memory.status()
            view["items"] = sum(t.store.count for t in self.tables.values())
            return view

    def partitions_view(self, table: str) -> dict[str, Any]:
        """The JSON of /_hotbench/partitions?table=T: the model's partition map."""
        with self.lock:
            self.tick()
            self.table(table, active=False)
            view = self.model.partition_map(table)
            view["scale"] = self.scale
            return view
