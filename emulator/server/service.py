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

from emulator.autoscaling import AutoScalingSpec
from emulator.emulator_options import EmulatorOptions
from emulator.model import ModelError
from emulator.server import (
    batch_items,
    control,
    partiql,
    query_scan,
    single_item,
    streams_api,
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
from emulator.server.regions import Regions
from emulator.server.shapes import RequestCheck, request_check
from emulator.server.signatures import SignatureCheck
from emulator.wire import STREAMS_TARGET_PREFIX, TARGET_PREFIX

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

STREAM_OPERATIONS: Final[dict[str, OperationHandler]] = {
    "ListStreams": streams_api.list_streams,
    "DescribeStream": streams_api.describe_stream,
    "GetShardIterator": streams_api.get_shard_iterator,
    "GetRecords": streams_api.get_records,
}
"""The DynamoDB Streams API, served on the same endpoint under its own target prefix."""

HANDLERS: Final[dict[str, OperationHandler]] = {
    **{TARGET_PREFIX + name: op for name, op in OPERATIONS.items()},
    **{STREAMS_TARGET_PREFIX + name: op for name, op in STREAM_OPERATIONS.items()},
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
        signatures: SignatureCheck | None = None,
    ) -> None:
        self.state = EmulatorState(options, region, account, clock)
        """The default region's and account's state (requests without credentials, and
        every one whose credential scope names them)."""
        self.regions = Regions(self.state)
        """Every region's and account's state, made at its first request (regions.py)."""
        if signatures is None and self.state.options.check_signatures:
            signatures = SignatureCheck.from_environment()
        self.checks: dict[str, RequestCheck] = {
            **{TARGET_PREFIX + name: request_check(name) for name in OPERATIONS},
            **{
                STREAMS_TARGET_PREFIX + name: request_check(name, "dynamodbstreams")
                for name in STREAM_OPERATIONS
            },
        }
        """Each supported target's shape check (shapes.py), keyed as HANDLERS is."""
        self.signatures = signatures
        """Verify each request's SigV4 signature against these keys (signatures.py):
        `signatures`, or with EmulatorOptions.check_signatures the environment's; None:
        any credentials are taken (the default)."""
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
        self.regions.skip(seconds)

    # dispatch --------------------------------------------------------------------------
    def handle(
        self, target: str | None, body: bytes, authorization: bytes | None = None
    ) -> tuple[int, bytes]:
        """One DynamoDB request: (HTTP status, JSON body), shown to `tap` if one is set;
        `authorization` its Authorization header, whose credential scope names the region
        (and, for a 12-digit access key, the account) whose tables it reaches. One method
        with one exit, not a wrapper around the answer: this runs for every request, and a
        second call would cost each of them its frame."""
        answer: tuple[int, bytes]
        try:
            # The body first, the operation after: DynamoDB answers a body that is not JSON
            # with a bare SerializationException whatever the target (dynalite's
            # test/connection.js, run against AWS).
            try:
                # orjson: a well-kept parser, 3-4x faster than json on this hot path.
                request = _loads(body)
            except (ValueError, UnicodeDecodeError):
                if body:
                    raise serialization("") from None
                # [AWS] no body at all: the target is judged first, then the missing body
                # is a SerializationException (dynalite's test/connection.js and
                # test/listTables.js, run against AWS).
                if target is None or target not in HANDLERS:
                    self._operation(target)
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
            state = self.state if authorization is None else self.regions.of(authorization)
            plain = PLAIN_REQUESTS.get(target)  # type: ignore[arg-type]
            name = request.get("TableName")
            checked = (
                plain is None
                or not plain.issuperset(request)
                or type(name) is not str
                or name not in state.tables
            )
            if checked:
                self.checks[target](request)  # type: ignore[index]
            # acquire/release rather than `with`: the same for an RLock, and compiled, two
            # method calls instead of looking up and calling __enter__ and __exit__.
            lock = state.lock
            lock.acquire()
            try:
                result = handler(state, request)
            except DynamoError as exc:
                if not checked and exc.name in _REQUEST_ERRORS:
                    self.checks[target](request)  # type: ignore[index]
                raise
            finally:
                if self.persistence is not None and state is self.state:
                    # Written before the reply leaves: a crash loses no acknowledged write.
                    # (--data-dir keeps the default region's tables: docs/emulator.md.)
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
        if target and target.startswith(STREAMS_TARGET_PREFIX):
            raise unknown_operation()  # the Streams API's four are in HANDLERS
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
    def metrics_view(
        self, seconds: int = 60, table: str | None = None, region: str | None = None
    ) -> dict[str, Any]:
        """The JSON of /_hotbench/metrics (documented in docs/emulator.md); `region`: of
        that region's tables (default account), else the default region's."""
        state = self.state if region is None else self.regions.named(region)
        with state.lock:
            now = state.tick()
            names = [table] if table is not None else sorted(state.tables)
            out: dict[str, Any] = {}
            for name in names:
                found = state.table(name, active=False)
                out[name] = state.metrics.table_view(
                    state.model, name, control.table_status(state, found, now), max(1, seconds)
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
            view["items"] = sum(
                t.store.count for s in self.regions.states.values() for t in s.tables.values()
            )
            budget = state.stream_budget
            view["stream_records"] = len(budget.records)
            view["stream_bytes"] = budget.bytes
            view["stream_bytes_limit"] = budget.limit_bytes
            view["stream_records_trimmed_for_memory"] = budget.trimmed_for_memory
            return view

    def capacity_view(self, table: str) -> dict[str, Any]:
        """The JSON of /_hotbench/capacity?table=T: each index's capacity over time (in
        full-scale units, emulator seconds), the changes asked for, and auto scaling."""
        state = self.state
        with state.lock:
            now = state.tick()
            found = state.table(table, active=False)
            view = state.model.capacity_view(found.name)
            view["status"] = control.table_status(state, found, now)
            view["now_s"] = round(now, 3)
            return view

    def set_auto_scaling(
        self, table: str, index: str | None, body: dict[str, Any] | None
    ) -> dict[str, Any]:
        """PUT (a body) or DELETE (None) /_hotbench/tables/T/auto-scaling[?index=G]: put
        target tracking on a table or GSI, as Application Auto Scaling's
        RegisterScalableTarget and PutScalingPolicy do on AWS. Raises AutoScalingError
        for a body the model cannot take, DynamoError for an unknown table or index."""
        state = self.state
        with state.lock:
            now = state.tick()
            found = state.table(table, active=False)
            spec = None if body is None else AutoScalingSpec.from_request(body)
            try:
                state.model.set_auto_scaling(found.name, index, spec, now)
            except ModelError as exc:
                raise DynamoError("ResourceNotFoundException", str(exc)) from None
        return self.auto_scaling_view(table, index)

    def auto_scaling_view(self, table: str, index: str | None) -> dict[str, Any]:
        """GET /_hotbench/tables/T/auto-scaling[?index=G]: the policies in force."""
        state = self.state
        with state.lock:
            state.tick()
            found = state.table(table, active=False)
            view = state.model.capacity_view(found.name)
            key = index or "$table"
            if key not in view["indexes"]:
                raise DynamoError(
                    "ResourceNotFoundException",
                    f"Requested resource not found: Index: {index} of table {table}",
                )
            return {
                "table": found.name,
                "index": index,
                "auto_scaling": view["indexes"][key]["auto_scaling"],
            }

    def partitions_view(self, table: str, region: str | None = None) -> dict[str, Any]:
        """The JSON of /_hotbench/partitions?table=T: the model's partition map."""
        state = self.state if region is None else self.regions.named(region)
        with state.lock:
            state.tick()
            state.table(table, active=False)
            view = state.model.partition_map(table)
            view["scale"] = state.scale
            return view
