"""What transactions leave behind between requests: the items of a write transaction
still in flight, and the client request tokens of the last 10 minutes.

Why "in flight" needs a definition here: the endpoint runs every request under one lock,
so no request ever sees another one half done. On DynamoDB a transaction is in flight
until its reply reaches the client; the emulator models that reply's travel with
`--latency`, so a committed transaction's items stay held for the latency's mean after it
is applied, on the emulator's clock. A plain write to a held item is answered
TransactionConflictException, and a transaction that touches one is cancelled with
TransactionConflict, as DynamoDB answers a request that meets an ongoing transaction.
With `--latency none` (the default) a transaction is instant and never meets another.

Kept here, apart from `transactions`, because the single-item and batch writes check it
on every write (one dict look-up when nothing is held).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Final

import orjson

from emulator.server.items import sort_value
from emulator.server.protocol import DynamoError
from emulator.server.table import Table
from emulator.server.values import Item

TOKEN_WINDOW_S: Final = 600.0
"""[AWS] a ClientRequestToken is valid for 10 minutes after the first request that used it
completes (API_TransactWriteItems, ClientRequestToken)."""

CONFLICT_MESSAGE: Final = "Transaction is ongoing for the item"

ItemId = tuple[str, tuple[str, ...]]
"""An item's identity across tables: (table name, its key values in DynamoDB's order)."""


def item_id(table: Table, key: Item) -> ItemId:
    """The identity of the item at `key` (numbers are canonical on the wire already, so
    one number is one identity, as BatchWriteItem's duplicate check reads it)."""
    return table.name, tuple(repr(sort_value(key[n])) for n in table.schema.names)


def conflict_error() -> DynamoError:
    return DynamoError("TransactionConflictException", CONFLICT_MESSAGE)


@dataclass
class ClientToken:
    """A client request token's first use: what it asked for and which items it wrote."""

    digest: bytes
    expires: float
    items: list[tuple[str, Item]]
    """(table name, key) of each item the transaction touched, for a replay's read charge."""


class TransactionLedger:
    """Items held by transactions in flight, and the tokens still within their window.

    Both are ordered by expiry (the clock never goes back and the window is one length),
    so pruning pops from the front and never walks what is still live."""

    def __init__(self, window_s: float = 0.0) -> None:
        self.window_s = window_s
        """How long a committed transaction's items stay in flight (the --latency mean)."""
        self.held: OrderedDict[ItemId, float] = OrderedDict()
        self._tokens: OrderedDict[str, ClientToken] = OrderedDict()

    # items in flight -----------------------------------------------------------------
    def hold(self, ids: list[ItemId], now: float) -> None:
        if self.window_s <= 0:
            return
        until = now + self.window_s
        for ident in ids:
            self.held.pop(ident, None)
            self.held[ident] = until

    def is_held(self, ident: ItemId, now: float) -> bool:
        held = self.held
        while held:
            first = next(iter(held))
            if held[first] > now:
                break
            del held[first]
        until = held.get(ident)
        return until is not None and until > now

    def check_plain_write(self, table: Table, key: Item, now: float) -> None:
        """A PutItem, UpdateItem, DeleteItem or BatchWriteItem write of `key`: refused
        while a transaction holding that item is in flight."""
        if self.held and self.is_held(item_id(table, key), now):
            raise conflict_error()

    # client request tokens -------------------------------------------------------------
    def _prune_tokens(self, now: float) -> None:
        tokens = self._tokens
        while tokens:
            first = next(iter(tokens))
            if tokens[first].expires > now:
                break
            del tokens[first]

    def token(self, token: str, request: bytes, now: float) -> ClientToken | None:
        """The first use of `token` within its window, if any; a reuse with other
        parameters is IdempotentParameterMismatchException."""
        self._prune_tokens(now)
        found = self._tokens.get(token)
        if found is None:
            return None
        if found.digest != _digest(request):
            raise DynamoError(
                "IdempotentParameterMismatchException",
                "Request parameters do not match the parameters of the earlier request "
                "made with this ClientRequestToken",
            )
        return found

    def remember(
        self, token: str, request: bytes, items: list[tuple[str, Item]], now: float
    ) -> None:
        self._tokens[token] = ClientToken(_digest(request), now + TOKEN_WINDOW_S, items)


def _digest(request: bytes) -> bytes:
    """A request's parameters in 32 bytes: tokens are kept for 10 minutes, and boto3 sends
    a new one with every transaction, so the whole request is not kept."""
    return hashlib.sha256(request).digest()


def request_fingerprint(req: dict[str, Any]) -> bytes:
    """A request's parameters other than its token, in one canonical form."""
    return orjson.dumps(
        {k: v for k, v in req.items() if k != "ClientRequestToken"},
        option=orjson.OPT_SORT_KEYS,
    )
