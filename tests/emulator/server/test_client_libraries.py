"""An ORM written against DynamoDB, run against the endpoint (issue 25): PynamoDB's
models, conditional writes, transactions (its TransactWrite and TransactGet context
managers), TTL attribute and LSI queries, as an application would use them."""

from __future__ import annotations

from typing import Any

import pytest

from emulator.server import EmulatorServer

pynamodb = pytest.importorskip("pynamodb")

from pynamodb.attributes import NumberAttribute, TTLAttribute, UnicodeAttribute  # noqa: E402
from pynamodb.exceptions import TransactWriteError  # noqa: E402
from pynamodb.indexes import AllProjection, LocalSecondaryIndex  # noqa: E402
from pynamodb.models import Model  # noqa: E402
from pynamodb.transactions import TransactGet, TransactWrite  # noqa: E402


def _models(url: str) -> tuple[Any, Any]:
    class ByScore(LocalSecondaryIndex):  # type: ignore[misc]
        class Meta:
            index_name = "byScore"
            projection = AllProjection()

        owner = UnicodeAttribute(hash_key=True)
        score = NumberAttribute(range_key=True)

    class Account(Model):  # type: ignore[misc]
        class Meta:
            table_name = "accounts"
            host = url
            region = "us-east-1"
            aws_access_key_id = "x"
            aws_secret_access_key = "x"
            billing_mode = "PAY_PER_REQUEST"
            max_retry_attempts = 0

        owner = UnicodeAttribute(hash_key=True)
        name = UnicodeAttribute(range_key=True)
        balance = NumberAttribute(default=0)
        score = NumberAttribute(default=0)
        expires = TTLAttribute(null=True)
        by_score = ByScore()

    return Account, ByScore


def test_pynamodb_transactions_ttl_and_lsi(emu: EmulatorServer) -> None:
    account, _ = _models(emu.endpoint_url)
    account.create_table(wait=True)  # PynamoDB enables TTL on its TTLAttribute here
    ttl = account._get_connection().connection.client.describe_time_to_live(TableName="accounts")
    assert ttl["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED",
        "AttributeName": "expires",
    }
    alice = account("o", "alice", balance=100, score=3)
    bob = account("o", "bob", balance=0, score=1)
    alice.save()
    bob.save()
    connection = account._get_connection().connection  # the model's, with its credentials
    with TransactWrite(connection=connection) as tx:
        tx.update(alice, actions=[account.balance.add(-40)], condition=account.balance >= 40)
        tx.update(bob, actions=[account.balance.add(40)])
    alice.refresh()
    bob.refresh()
    assert (alice.balance, bob.balance) == (60, 40)
    with (
        pytest.raises(TransactWriteError) as excinfo,
        TransactWrite(connection=connection) as tx,
    ):
        tx.update(alice, actions=[account.balance.add(-100)], condition=account.balance >= 100)
        tx.update(bob, actions=[account.balance.add(100)])
    assert excinfo.value.cause_response_code == "TransactionCanceledException"
    reasons = excinfo.value.cancellation_reasons
    assert reasons[0] is not None and reasons[0].code == "ConditionalCheckFailed"
    with TransactGet(connection=connection) as get:
        got_alice = get.get(account, "o", "alice")
        got_bob = get.get(account, "o", "bob")
    assert (got_alice.get().balance, got_bob.get().balance) == (60, 40)
    ranked = [a.name for a in account.by_score.query("o", scan_index_forward=False)]
    assert ranked == ["alice", "bob"]
