"""TransactWriteItems and TransactGetItems as DynamoDB documents them (issue 25, item 2):
results, CancellationReasons in action order, idempotency tokens, conflicts with a
transaction in flight, and two underlying operations charged per item."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from tests.emulator.server.conftest import client, key_table

CANCELLED = "Transaction cancelled, please refer cancellation reasons for specific reasons"


def _key(pk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}}


@pytest.fixture
def table(ddb: Any) -> Any:
    key_table(ddb, sk_type=None)
    ddb.put_item(TableName="tbl", Item={**_key("a"), "n": {"N": "1"}})
    ddb.put_item(TableName="tbl", Item={**_key("b"), "n": {"N": "2"}})
    return ddb


def test_write_transaction_applies_every_action_and_charges_two_writes_per_item(
    table: Any, emu: EmulatorServer
) -> None:
    reply = table.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": "tbl", "Item": {**_key("c"), "n": {"N": "3"}}}},
            {
                "Update": {
                    "TableName": "tbl",
                    "Key": _key("a"),
                    "UpdateExpression": "SET n = n + :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}},
                }
            },
            {"Delete": {"TableName": "tbl", "Key": _key("b")}},
            {
                "ConditionCheck": {
                    "TableName": "tbl",
                    "Key": _key("zz"),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
        ],
        ReturnConsumedCapacity="TOTAL",
    )
    # [AWS] 2 WCU per 1 KB of each item (prepare + commit): four small items, 8 WCU.
    assert reply["ConsumedCapacity"] == [
        {"TableName": "tbl", "CapacityUnits": 8.0, "WriteCapacityUnits": 8.0}
    ]
    items = {i["pk"]["S"]: i["n"]["N"] for i in table.scan(TableName="tbl")["Items"]}
    assert items == {"a": "2", "c": "3"}
    totals = emu.metrics(table="tbl")["tables"]["tbl"]["indexes"]["$table"]["totals"]
    assert totals["consumed_wcu"] == pytest.approx(2 + 8)  # the two setup puts, then 8


def test_a_failed_condition_cancels_everything_with_reasons_in_action_order(table: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "tbl", "Item": {**_key("c"), "n": {"N": "3"}}}},
                {
                    "Delete": {
                        "TableName": "tbl",
                        "Key": _key("a"),
                        "ConditionExpression": "n = :two",
                        "ExpressionAttributeValues": {":two": {"N": "2"}},
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD",
                    }
                },
                {
                    "ConditionCheck": {
                        "TableName": "tbl",
                        "Key": _key("b"),
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
            ]
        )
    error = excinfo.value.response
    assert error["Error"]["Code"] == "TransactionCanceledException"
    assert error["Error"]["Message"] == (
        f"{CANCELLED} [None, ConditionalCheckFailed, ConditionalCheckFailed]"
    )
    assert error["CancellationReasons"] == [
        {"Code": "None"},
        {
            "Code": "ConditionalCheckFailed",
            "Message": "The conditional request failed",
            "Item": {**_key("a"), "n": {"N": "1"}},
        },
        {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"},
    ]
    # Nothing applied: the Put of c did not happen, a is still there.
    assert "Item" not in table.get_item(TableName="tbl", Key=_key("c"))
    assert table.get_item(TableName="tbl", Key=_key("a"))["Item"]["n"] == {"N": "1"}


def test_transaction_requests_dynamodb_refuses(table: Any) -> None:
    put = {"Put": {"TableName": "tbl", "Item": _key("a")}}
    cases = [
        (
            [put, {"Delete": {"TableName": "tbl", "Key": _key("a")}}],
            "Transaction request cannot include multiple operations on one item",
        ),
        (
            [{"Put": {"TableName": "tbl", "Item": _key(f"k{i}")}} for i in range(101)],
            # The list itself is quoted (Java's rendering of it), as DynamoDB does.
            re.compile(
                r"1 validation error detected: Value '\[\{Put=.*\}\]' at 'transactItems' "
                "failed to satisfy constraint: Member must have length less than or equal to 100"
            ),
        ),
        (
            [{**put, "Delete": {"TableName": "tbl", "Key": _key("b")}}],
            "TransactItems can only contain one of Check, Put, Update or Delete",
        ),
    ]
    for actions, message in cases:
        with pytest.raises(ClientError) as excinfo:
            table.transact_write_items(TransactItems=actions)
        assert excinfo.value.response["Error"]["Code"] == "ValidationException"
        actual = excinfo.value.response["Error"]["Message"]
        if isinstance(message, re.Pattern):
            assert message.fullmatch(actual), actual
        else:
            assert actual == message
    # A missing table anywhere in it: the whole transaction is refused.
    with pytest.raises(ClientError) as excinfo:
        table.transact_write_items(
            TransactItems=[put, {"Put": {"TableName": "nope", "Item": _key("a")}}]
        )
    assert excinfo.value.response["Error"]["Code"] == "ResourceNotFoundException"
    assert table.get_item(TableName="tbl", Key=_key("a"))["Item"]["n"] == {"N": "1"}


def test_an_update_that_fails_on_the_item_cancels_with_a_validation_error(table: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": "tbl",
                        "Key": _key("a"),
                        "UpdateExpression": "SET n = n + :s",
                        "ExpressionAttributeValues": {":s": {"S": "x"}},
                    }
                }
            ]
        )
    reasons = excinfo.value.response["CancellationReasons"]
    assert [r["Code"] for r in reasons] == ["ValidationError"]
    assert "Incorrect operand type" in reasons[0]["Message"]


def test_read_transaction_returns_items_in_order_and_charges_two_reads_each(table: Any) -> None:
    reply = table.transact_get_items(
        TransactItems=[
            {"Get": {"TableName": "tbl", "Key": _key("b")}},
            {"Get": {"TableName": "tbl", "Key": _key("missing")}},
            {
                "Get": {
                    "TableName": "tbl",
                    "Key": _key("a"),
                    "ProjectionExpression": "#n",
                    "ExpressionAttributeNames": {"#n": "n"},
                }
            },
        ],
        ReturnConsumedCapacity="TOTAL",
    )
    assert reply["Responses"] == [
        {"Item": {**_key("b"), "n": {"N": "2"}}},
        {},
        {"Item": {"n": {"N": "1"}}},
    ]
    # [AWS] 2 RCU per 4 KB of each item read (a missing item still costs its read).
    assert reply["ConsumedCapacity"] == [
        {"TableName": "tbl", "CapacityUnits": 6.0, "ReadCapacityUnits": 6.0}
    ]


def _increment_actions(by: str) -> list[dict[str, Any]]:
    return [
        {
            "Update": {
                "TableName": "tbl",
                "Key": _key("a"),
                "UpdateExpression": "ADD n :by",
                "ExpressionAttributeValues": {":by": {"N": by}},
            }
        }
    ]


def _increment(ddb: Any, token: str, by: str = "1") -> dict[str, Any]:
    reply: dict[str, Any] = ddb.transact_write_items(
        TransactItems=_increment_actions(by),
        ClientRequestToken=token,
        ReturnConsumedCapacity="TOTAL",
    )
    return reply


def test_a_client_request_token_makes_a_transaction_idempotent_for_ten_minutes(
    table: Any, emu: EmulatorServer
) -> None:
    first = table.transact_write_items(
        TransactItems=_increment_actions("1"),
        ClientRequestToken="token-1",
        ReturnConsumedCapacity="TOTAL",
    )
    assert first["ConsumedCapacity"][0]["WriteCapacityUnits"] == 2.0
    again = _increment(table, "token-1")
    # [AWS] a repeat changes nothing and returns the read units of reading the item.
    assert again["ConsumedCapacity"] == [
        {"TableName": "tbl", "CapacityUnits": 1.0, "ReadCapacityUnits": 1.0}
    ]
    assert table.get_item(TableName="tbl", Key=_key("a"))["Item"]["n"] == {"N": "2"}
    with pytest.raises(ClientError) as excinfo:
        _increment(table, "token-1", by="5")
    assert excinfo.value.response["Error"]["Code"] == "IdempotentParameterMismatchException"
    emu.skip(601)  # past the 10 minutes: the same token is a new request
    _increment(table, "token-1")
    assert table.get_item(TableName="tbl", Key=_key("a"))["Item"]["n"] == {"N": "3"}


class _Clock:
    """A clock the test moves (the emulator's time then moves only when told)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def held() -> Iterator[tuple[EmulatorServer, _Clock]]:
    clock = _Clock()
    with EmulatorServer(
        EmulatorOptions(create_delay_s=0), latency="fixed:1ms", clock=clock
    ) as server:
        yield server, clock
        assert server.service.internal_errors == 0


def test_a_write_meeting_a_transaction_in_flight_gets_a_conflict(
    held: tuple[EmulatorServer, _Clock],
) -> None:
    server, clock = held
    ddb = client(server.endpoint_url)
    key_table(ddb, sk_type=None)
    ddb.transact_write_items(TransactItems=[{"Put": {"TableName": "tbl", "Item": _key("a")}}])
    # The emulator's clock has not moved: the transaction's reply is still on its way.
    with pytest.raises(ClientError) as excinfo:
        ddb.put_item(TableName="tbl", Item=_key("a"))
    assert excinfo.value.response["Error"] == {
        "Code": "TransactionConflictException",
        "Message": "Transaction is ongoing for the item",
    }
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "tbl", "Item": _key("b")}},
                {"Delete": {"TableName": "tbl", "Key": _key("a")}},
            ]
        )
    assert excinfo.value.response["CancellationReasons"] == [
        {"Code": "None"},
        {"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"},
    ]
    ddb.put_item(TableName="tbl", Item=_key("other"))  # another item is not held
    clock.now += 0.002  # past the 1 ms the reply takes: no longer in flight
    ddb.put_item(TableName="tbl", Item={**_key("a"), "x": {"S": "y"}})
    assert ddb.get_item(TableName="tbl", Key=_key("a"))["Item"]["x"] == {"S": "y"}


def test_a_transaction_over_capacity_is_cancelled_with_the_throttle() -> None:
    clock = _Clock()
    with EmulatorServer(EmulatorOptions(scale=0.01, create_delay_s=0), clock=clock) as server:
        ddb = client(server.endpoint_url)
        key_table(ddb, sk_type=None)
        reasons: list[dict[str, Any]] = []
        for i in range(200):
            try:
                ddb.transact_write_items(
                    TransactItems=[
                        {"Put": {"TableName": "tbl", "Item": _key(f"k{i}")}},
                        {"Put": {"TableName": "tbl", "Item": _key(f"j{i}")}},
                    ]
                )
            except ClientError as exc:
                assert exc.response["Error"]["Code"] == "TransactionCanceledException"
                reasons = exc.response["CancellationReasons"]
                break
        assert reasons, "no throttle in 200 transactions"
        codes = [r["Code"] for r in reasons]
        assert "ThrottlingError" in codes  # an on-demand table: ThrottlingException's code
        refused = codes.index("ThrottlingError")
        assert reasons[refused]["Message"].startswith("Throughput exceeds")
        # Nothing of the cancelled transaction was written. Read a second later: the
        # writes left the partition's capacity (which reads share) spent for this one.
        clock.now += 1.0
        assert "Item" not in ddb.get_item(TableName="tbl", Key=_key(f"k{i}"))
        assert "Item" not in ddb.get_item(TableName="tbl", Key=_key(f"j{i}"))
        assert server.service.internal_errors == 0


def test_an_update_that_only_removes_makes_no_item(table: Any) -> None:
    table.transact_write_items(
        TransactItems=[
            {"Update": {"TableName": "tbl", "Key": _key("new"), "UpdateExpression": "REMOVE x"}},
            {
                "Update": {
                    "TableName": "tbl",
                    "Key": _key("made"),
                    "UpdateExpression": "SET x = :v",
                    "ExpressionAttributeValues": {":v": {"S": "v"}},
                }
            },
        ]
    )
    assert "Item" not in table.get_item(TableName="tbl", Key=_key("new"))
    assert table.get_item(TableName="tbl", Key=_key("made"))["Item"]["x"] == {"S": "v"}


def test_a_large_transaction_is_admitted_whole_as_dynamodb_admits_it(
    emu: EmulatorServer, ddb: Any
) -> None:
    """30 puts of ~100 KB (~5,900 WCU as transaction writes) on a new on-demand table:
    more than the 4,000 WCU a second the table serves, and DynamoDB takes it (issue 41).
    The request is admitted whole while the table has capacity left and charged in full;
    the table's limit is then in debt, so the next write is throttled until the refill
    repays it."""
    key_table(ddb, sk_type=None)
    big = "x" * 100_000
    reply = ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": "tbl", "Item": {**_key(f"k{n}"), "d": {"S": big}}}}
            for n in range(30)
        ],
        ReturnConsumedCapacity="TOTAL",
    )
    assert reply["ConsumedCapacity"][0]["CapacityUnits"] == 30 * 2 * 98
    with pytest.raises(ClientError) as caught:
        ddb.put_item(TableName="tbl", Item=_key("next"))
    assert caught.value.response["Error"]["Code"] == "ThrottlingException"
    # Refused now, a transaction is refused whole and charges nothing.
    with pytest.raises(ClientError) as caught:
        ddb.transact_write_items(
            TransactItems=[{"Put": {"TableName": "tbl", "Item": _key(f"j{n}")}} for n in range(2)]
        )
    reasons = [r["Code"] for r in caught.value.response["CancellationReasons"]]
    assert reasons == ["ThrottlingError", "None"]
    consumed = emu.metrics(table="tbl")["tables"]["tbl"]["indexes"]["$table"]["totals"]
    assert consumed["consumed_wcu"] == 30 * 2 * 98
    emu.skip(2)  # the refill repays the debt
    ddb.put_item(TableName="tbl", Item=_key("next"))
    assert ddb.describe_table(TableName="tbl")["Table"]["ItemCount"] == 31
