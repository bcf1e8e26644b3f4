"""What a scenario operation's reply means, in two views.

The attempt view is what DynamoDB saw, counted as every measured request is
(`requests.classify_parsed` and `requests.tally`: succeeded, throttled with exception
and reason, or an error by type), so a scenario's attempts reconcile as a phase's do.

The application view is what the program sees and decides on: a conditional write that
failed (ConditionalCheckFailedException), a cancelled transaction and each action's
reason (TransactionCanceledException's CancellationReasons), a batch that left items or
keys unprocessed (HTTP 200 with UnprocessedItems/UnprocessedKeys: the request succeeded,
the application must resend them), the items a read returned (count and DynamoDB bytes)
and the page's LastEvaluatedKey.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from emulator.itemsize import item_size
from loadgen.load.requests import AttemptOutcome, classify_parsed, parse_reply

OK = "ok"
THROTTLED = "throttled"
CONDITION_FAILED = "condition_failed"
TRANSACTION_CANCELLED = "transaction_cancelled"
UNPROCESSED = "unprocessed"
ERROR = "error"

CONDITION_EXCEPTION = "ConditionalCheckFailedException"
CANCELLED_EXCEPTION = "TransactionCanceledException"
APPLICATION_ANSWERS = frozenset({CONDITION_EXCEPTION, CANCELLED_EXCEPTION})
"""Error answers an application's logic expects and acts on (a lock already held, a
stale version, a transaction that lost): counted with the errors, as DynamoDB answers
them with HTTP 400, but not a fault of the run (`hotbench run`'s exit code)."""
THROTTLE_CODES = frozenset(
    {"ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded"}
)
"""[AWS] CancellationReasons codes that mean the action was throttled
(BatchStatementErrorCodeEnum / TransactWriteItems "Error codes")."""
READS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})


@dataclass(frozen=True)
class OpReply:
    """One reply in both views."""

    status: str
    """The application's view: ok, throttled, condition_failed, transaction_cancelled,
    unprocessed or error."""
    attempt: AttemptOutcome
    """The attempt as counted (kind ok / throttled / error)."""
    reasons: tuple[str, ...] = ()
    """A cancelled transaction's CancellationReasons codes, in action order."""
    items: int = 0
    """Items the read returned (a batch get's or transaction's summed over tables)."""
    item_bytes: int = 0
    """Their DynamoDB size (emulator.itemsize, the size rule units are charged on)."""
    last_key: dict[str, Any] | None = None
    """The page's LastEvaluatedKey: None when the read reached the end."""
    unprocessed: int = 0
    """Items (BatchWriteItem) or keys (BatchGetItem) the batch left for the caller."""
    leftover: dict[str, Any] = field(default_factory=dict)
    """Those unprocessed RequestItems, to resend as they are."""
    item: dict[str, Any] | None = None
    """The item a GetItem returned (wire form): the application reads its version; of a
    failed conditional write, the item its condition found (loadgen.live.counted_units)."""

    @property
    def is_throttle(self) -> bool:
        """A throttle the SDK's retry handler would see (a cancelled transaction is not:
        botocore does not retry TransactionCanceledException)."""
        return self.attempt.kind == THROTTLED and self.status == THROTTLED


def read_reply(operation: str, status: int, body: bytes) -> OpReply:
    """Both views of the reply to `operation` (DynamoDB's name, e.g. Query)."""
    data = parse_reply(body)
    outcome = classify_parsed(status, data)
    if outcome.kind == "error" and data is not None and status != 200:
        if outcome.name == CONDITION_EXCEPTION:
            # the item the condition found (ALL_OLD): what the failed write is charged on
            found = data.get("Item")
            return OpReply(
                CONDITION_FAILED, outcome, item=found if isinstance(found, dict) else None
            )
        if outcome.name == CANCELLED_EXCEPTION:
            return _cancelled(outcome, data)
    if outcome.kind != "ok":
        return OpReply(THROTTLED if outcome.kind == "throttled" else ERROR, outcome)
    assert data is not None  # an ok outcome was read from a JSON object
    items, size = _returned(data)
    last = data.get("LastEvaluatedKey")
    left = data.get("UnprocessedItems") or data.get("UnprocessedKeys") or {}
    unprocessed = _unprocessed_count(left) if isinstance(left, dict) else 0
    return OpReply(
        UNPROCESSED if unprocessed else OK,
        outcome,
        items=items,
        item_bytes=size,
        last_key=last if isinstance(last, dict) and last else None,
        unprocessed=unprocessed,
        leftover=left if unprocessed else {},
        item=data["Item"] if isinstance(data.get("Item"), dict) else None,
    )


def _cancelled(outcome: AttemptOutcome, data: dict[str, Any]) -> OpReply:
    raw = data.get("CancellationReasons") or []
    codes = tuple(
        str(r.get("Code", "None")) if isinstance(r, dict) else "None"
        for r in (raw if isinstance(raw, list) else [])
    )
    throttle = next((c for c in codes if c in THROTTLE_CODES), None)
    if throttle is not None:
        # DynamoDB refused an action for capacity: counted with the throttles it saw,
        # by the exception the client got and the action's code as the reason.
        outcome = AttemptOutcome(THROTTLED, CANCELLED_EXCEPTION, throttle)
    return OpReply(TRANSACTION_CANCELLED, outcome, reasons=codes)


def _returned(data: dict[str, Any]) -> tuple[int, int]:
    """(items, bytes) of what a read returned: Item, Items, or Responses (a batch get's
    by table, a transaction's list of {Item})."""
    found: list[Any] = []
    if isinstance(data.get("Item"), dict):
        found.append(data["Item"])
    if isinstance(data.get("Items"), list):
        found.extend(data["Items"])
    responses = data.get("Responses")
    if isinstance(responses, dict):
        for table_items in responses.values():
            if isinstance(table_items, list):
                found.extend(table_items)
    elif isinstance(responses, list):
        found.extend(r["Item"] for r in responses if isinstance(r, dict) and r.get("Item"))
    items = [i for i in found if isinstance(i, dict)]
    if "Items" not in data and "Count" in data and not items:
        # Select COUNT: no items on the wire, only their number
        return int(data.get("Count") or 0), 0
    return len(items), sum(item_size(i) for i in items)


def _unprocessed_count(left: dict[str, Any]) -> int:
    total = 0
    for entry in left.values():
        if isinstance(entry, list):  # UnprocessedItems: table -> [PutRequest/DeleteRequest]
            total += len(entry)
        elif isinstance(entry, dict):  # UnprocessedKeys: table -> {"Keys": [...]}
            total += len(entry.get("Keys") or [])
    return total
