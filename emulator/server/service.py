"""The DynamoDB service behind the HTTP front: operation dispatch over the shared state.

HTTP-free on purpose: `handle(target, body)` takes the X-Amz-Target and the raw body and
returns (status, JSON bytes), so the protocol is testable without sockets and the HTTP
layer stays a thin shell. Every call runs under one lock, so the model is never touched
concurrently whichever thread asks (the event loop, or the Python API from a test).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import orjson

from emulator.emulator_options import EmulatorOptions
from emulator.server import (
    batch_items,
    control,
    partiql,
    query_scan,
    single_item,
    table_settings,
    transactions,
    ttl,
)
from emulator.server.emulator_state import EmulatorState
from emulator.server.persistence import Persistence
from emulator.server.protocol import (
    CORAL_SERVICE,
    DynamoError,
    internal,
    serialization,
    unknown_operation,
    validation,
)
from emulator.server.shapes import RequestCheck, request_check
from emulator.wire import TARGET_PREFIX

log: Final = logging.getLogger("hotbench.emulator")

OperationHandler = Callable[[EmulatorState, dict[str, Any]], dict[str, Any]]
"""operation(state, request) -> reply: one DynamoDB operation, request and reply as JSON
objects; a refusal is a raised DynamoError."""

OPERATIONS: Final[dict[str, OperationHandler]] = {
    "CreateTable": control.create_table,
    "DescribeTable": control.describe_table,
    "UpdateTable": control.update_table,
    "DeleteTable": control.delete_table,
    "ListTables": control.list_tables,
    "DescribeLimits": control.describe_limits,
    "TagResource": table_settings.tag_resource,
    "UntagResource": table_settings.untag_resource,
    "ListTagsOfResource": table_settings.list_tags,
    "DescribeContinuousBackups": table_settings.describe_continuous_backups,
    "UpdateContinuousBackups": table_settings.update_continuous_backups,
    "DescribeContributorInsights": table_settings.describe_contributor_insights,
    "UpdateContributorInsights": table_settings.update_contributor_insights,
    "DescribeKinesisStreamingDestination": table_settings.describe_kinesis_streaming_destination,
    "PutItem": single_item.put_item,
    "GetItem": single_item.get_item,
    "DeleteItem": single_item.delete_item,
    "UpdateItem": single_item.update_item,
    "BatchWriteItem": batch_items.batch_write_item,
    "BatchGetItem": batch_items.batch_get_item,
    "Query": query_scan.query,
    "Scan": query_scan.scan,
    "TransactWriteItems": transactions.transact_write_items,
    "TransactGetItems": transactions.transact_get_items,
    "UpdateTimeToLive": ttl.update_time_to_live,
    "DescribeTimeToLive": ttl.describe_time_to_live,
    "ExecuteStatement": partiql.execute_statement,
    "BatchExecuteStatement": partiql.batch_execute_statement,
    "ExecuteTransaction": partiql.execute_transaction,
}
"""Every supported operation; any other target, a DynamoDB operation the emulator does
not have included, is an UnknownOperationException."""

HANDLERS: Final[dict[str, OperationHandler]] = {
    TARGET_PREFIX + name: op for name, op in OPERATIONS.items()
}
"""The handler of each supported X-Amz-Target, found in one look-up per request; any
other target goes through `Service._operation` for its error."""

PLAIN_REQUESTS: Final[dict[str, frozenset[str]]] = {
    TARGET_PREFIX + "PutItem": single_item.PLAIN_PUT,
    TARGET_PREFIX + "GetItem": single_item.PLAIN_GET,
    TARGET_PREFIX + "DeleteItem": single_item.PLAIN_DELETE,
}
"""The requests whose members their operation checks itself (single_item.py's plain path)."""
_REQUEST_ERRORS: Final = frozenset({"ValidationException", "SerializationException"})

_loads: Final = orjson.loads
_dumps: Final = orjson.dumps
"""orjson's functions bound once (compiled, C statics instead of a module attribute
look-up per request)."""

KNOWN_UNSUPPORTED: Final = frozenset(
    {
        "CreateBackup",
        "CreateGlobalTable",
        "DeleteBackup",
        "DeleteResourcePolicy",
        "DescribeBackup",
        "DescribeEndpoints",
        "DescribeExport",
        "DescribeGlobalTable",
        "DescribeGlobalTableSettings",
        "DescribeImport",
        "DescribeTableReplicaAutoScaling",
        "DisableKinesisStreamingDestination",
        "EnableKinesisStreamingDestination",
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
        "UpdateGlobalTable",
        "UpdateGlobalTableSettings",
        "UpdateKinesisStreamingDestination",
        "UpdateTableReplicaAutoScaling",
    }
)


class Service:
    """One emulator: its shared state, and the dispatch of each request to an operation."""

    def __init__(
        self,
        options: EmulatorOptions | None = None,
        region: str = "us-east-1",
        account: str = "000000000000",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.state = EmulatorState(options, region, account, clock)
        self.checks: dict[str, RequestCheck] = {
            TARGET_PREFIX + name: request_check(name) for name in OPERATIONS
        }
        """Each supported target's shape check (shapes.py), keyed as HANDLERS is."""
        self.internal_errors = 0
        """Requests that hit the catch-all (bugs); tests assert it stays 0."""
        self.persistence: Persistence | None = None
        """The SQLite store of --data-dir (persistence.py); None: items in memory only."""
        self.tap: Callable[[str | None, int, bytes, bytes], None] | None = None
        """Sees every request's target, status, request body and answer body after its
        answer (a test counting what the endpoint answered, and which error it named). An
        attribute, not a wrapper of `handle`: compiled, the method cannot be replaced."""

    def persist_to(self, directory: Path) -> int:
        """Keep tables and items in `directory` from now on, loading what it holds
        (`hotbench emulator serve --data-dir`); returns the number of items loaded.
        Raises PersistenceError naming the directory when it cannot be used."""
        persistence = Persistence(directory)
        with self.state.lock:
            loaded = persistence.load(self.state)
            self.persistence = persistence
        return loaded

    def skip(self, seconds: float) -> None:
        """Let `seconds` of emulator time pass at once, with no traffic (a pause between
        repeats not waited out: EmulatorServer.skip, POST /_hotbench/skip)."""
        self.state.skip(seconds)

    # dispatch --------------------------------------------------------------------------
    def handle(self, target: str | None, body: bytes) -> tuple[int, bytes]:
        """One DynamoDB request: (HTTP status, JSON body), shown to `tap` if one is set.
        One method with one exit, not a wrapper around the answer: this runs for every
        request, and a second call would cost each of them its frame."""
        answer: tuple[int, bytes]
        try:
            # The body first, the operation after: DynamoDB answers a body that is not JSON
            # with a bare SerializationException whatever the target (dynalite's
            # test/connection.js, run against AWS).
            try:
                # orjson: a well-kept parser, 3-4x faster than json on this hot path.
                request = _loads(body) if body else {}
            except (ValueError, UnicodeDecodeError):
                raise serialization("") from None
            handler = HANDLERS.get(target) if target is not None else None
            if handler is None:
                handler = OPERATIONS[self._operation(target)]
            if not isinstance(request, dict):
                raise serialization("Start of structure or map found where not expected")
            # Bound to the operation's shape before any table is looked up: type errors,
            # then every violated constraint in one message (shapes.py). A plain request
            # to a table that exists skips it: its operation checks each of its members
            # (the same refusals), and the walk would cost it a quarter of its time.
            # A refused plain request is bound again below, for DynamoDB's whole answer.
            plain = PLAIN_REQUESTS.get(target)  # type: ignore[arg-type]
            name = request.get("TableName")
            checked = (
                plain is None
                or not plain.issuperset(request)
                or type(name) is not str
                or name not in self.state.tables
            )
            if checked:
                self.checks[target](request)  # type: ignore[index]
            # acquire/release rather than `with`: the same for an RLock, and compiled, two
            # method calls instead of looking up and calling __enter__ and __exit__.
            state = self.state
            lock = state.lock
            lock.acquire()
            try:
                result = handler(state, request)
            except DynamoError as exc:
                if not checked and exc.name in _REQUEST_ERRORS:
                    self.checks[target](request)  # type: ignore[index]
                raise
            finally:
                if self.persistence is not None:
                    # Written before the reply leaves: a crash loses no acknowledged write.
                    self.persistence.commit(state, target)
                lock.release()
            answer = (200, _dumps(result))
        except DynamoError as exc:
            answer = (exc.status, exc.payload())
        except RecursionError:
            answer = (400, validation("Nesting Levels have exceeded supported limits").payload())
        except Exception:  # a bug must still get a DynamoDB-shaped reply
            self.internal_errors += 1
            log.exception("internal error handling %s", target)
            answer = (500, internal().payload())
        tap = self.tap
        if tap is not None:
            tap(target, answer[0], body, answer[1])
        return answer

    @staticmethod
    def _operation(target: str | None) -> str:
        if not target or not target.startswith(TARGET_PREFIX):
            raise unknown_operation()
        operation = target[len(TARGET_PREFIX) :]
        if operation in OPERATIONS:
            return operation
        if operation in KNOWN_UNSUPPORTED:
            # [AWS] UnknownOperationException, as DynamoDB answers an operation it does not
            # have: clients probing for a feature (transactions, TTL) skip on exactly this.
            raise DynamoError(
                "UnknownOperationException",
                f"Unknown operation: {operation} is not supported by the hotbench emulator",
                CORAL_SERVICE,
            )
        raise unknown_operation()

    # observation -----------------------------------------------------------------------
    def metrics_view(self, seconds: int = 60, table: str | None = None) -> dict[str, Any]:
        """The JSON of /_hotbench/metrics (documented in docs/emulator.md)."""
        state = self.state
        with state.lock:
            now = state.tick()
            names = [table] if table is not None else sorted(state.tables)
            out: dict[str, Any] = {}
            for name in names:
                found = state.table(name, active=False)
                out[name] = state.metrics.table_view(
                    state.model, name, found.status(now), max(1, seconds)
                )
            return {
                "now_s": round(now, 3),
                "scale": state.scale,
                "units": "full-scale (counts and units divided by scale)",
                "tables": out,
            }

    def memory_view(self) -> dict[str, Any]:
        """The JSON of /_hotbench/memory: the item store, the bound and what it refused."""
        state = self.state
        with state.lock:
            view = state.memory.status()
            view["items"] = sum(t.store.count for t in state.tables.values())
            return view

    def partitions_view(self, table: str) -> dict[str, Any]:
        """The JSON of /_hotbench/partitions?table=T: the model's partition map."""
        state = self.state
        with state.lock:
            state.tick()
            state.table(table, active=False)
            view = state.model.partition_map(table)
            view["scale"] = state.scale
            return view
