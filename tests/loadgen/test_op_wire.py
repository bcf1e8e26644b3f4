"""A scenario operation's wire body and the meaning of its reply, against the emulator.

Each body goes through the emulator's in-process endpoint (`Service.handle`: the same
request check and handlers `hotbench run` serves over HTTP) on a virtual clock, so a
throttle happens because the test spent capacity, never because the machine was slow.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from emulator.emulator_options import EmulatorOptions
from emulator.server import Service
from loadgen.live.op_bodies import (
    BatchDelete,
    BatchPut,
    TransactCheck,
    WireRequest,
    WriteCondition,
    batch_get,
    batch_write,
    delete_item,
    get_item,
    put_item,
    query_collection,
    resend_batch_get,
    resend_batch_write,
    scan,
    transact_get,
    transact_write,
    update_item,
)
from loadgen.live.op_replies import (
    CONDITION_FAILED,
    OK,
    THROTTLED,
    TRANSACTION_CANCELLED,
    UNPROCESSED,
    OpReply,
    read_reply,
)
from loadgen.load.requests import tally
from loadgen.results.records import Counts


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _table(name: str, wcu: int | None = None, rcu: int | None = None) -> dict[str, object]:
    request: dict[str, object] = {
        "TableName": name,
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
        ],
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
    }
    if wcu is None:
        request["BillingMode"] = "PAY_PER_REQUEST"
    else:
        request["ProvisionedThroughput"] = {
            "ReadCapacityUnits": rcu or 1,
            "WriteCapacityUnits": wcu,
        }
    return request


class Endpoint:
    """The emulator's endpoint on a virtual clock; `send` returns both views."""

    def __init__(self) -> None:
        self.clock = Clock()
        self.service = Service(EmulatorOptions(scale=1.0, create_delay_s=0), clock=self.clock)

    def create(self, name: str, wcu: int | None = None, rcu: int | None = None) -> None:
        status, body = self.service.handle(
            "DynamoDB_20120810.CreateTable", json.dumps(_table(name, wcu, rcu)).encode()
        )
        assert status == 200, body

    def send(self, request: WireRequest) -> OpReply:
        status, body = self.service.handle(request.target, request.encode())
        assert status != 500, body
        return read_reply(request.operation, status, body)


@pytest.fixture()
def endpoint() -> Endpoint:
    e = Endpoint()
    e.create("tbl")
    return e


def _key(pk: str, sk: int) -> dict[str, str | Decimal]:
    return {"pk": pk, "sk": Decimal(sk)}


def test_conditional_put_creates_once_then_fails_and_is_counted_as_an_error(
    endpoint: Endpoint,
) -> None:
    lock = put_item("tbl", _key("lock", 0), 200, condition=WriteCondition("absent", "pk"))
    first, second = endpoint.send(lock), endpoint.send(lock)
    assert first.status == OK and first.attempt.consumed == 1.0
    assert second.status == CONDITION_FAILED
    counts = Counts()
    tally(counts, second.attempt, is_write=True)
    assert counts.errors == 1 and counts.errors_by_type == {"ConditionalCheckFailedException": 1}


def test_version_check_admits_the_read_version_and_refuses_a_stale_one(
    endpoint: Endpoint,
) -> None:
    key = _key("doc", 1)
    first = WriteCondition("absent", "ver")
    assert endpoint.send(update_item("tbl", key, {"ver": Decimal(1)}, first)).status == OK
    # someone else already made version 1: a second "create" is refused
    assert endpoint.send(update_item("tbl", key, {"ver": Decimal(1)}, first)).status == (
        CONDITION_FAILED
    )
    bump = WriteCondition("equals", "ver", Decimal(1))
    assert endpoint.send(update_item("tbl", key, {"ver": Decimal(2)}, bump)).status == OK
    assert endpoint.send(update_item("tbl", key, {"ver": Decimal(3)}, bump)).status == (
        CONDITION_FAILED
    )


def test_delete_removes_the_item(endpoint: Endpoint) -> None:
    endpoint.send(put_item("tbl", _key("a", 1), 1000))
    assert endpoint.send(get_item("tbl", _key("a", 1))).items == 1
    deleted = endpoint.send(delete_item("tbl", _key("a", 1)))
    assert deleted.status == OK and deleted.attempt.consumed == 1.0
    gone = endpoint.send(get_item("tbl", _key("a", 1)))
    assert gone.status == OK and gone.items == 0


def test_query_pages_a_collection_by_last_evaluated_key_and_a_watermark(
    endpoint: Endpoint,
) -> None:
    for sk in range(30):
        endpoint.send(put_item("tbl", _key("c", sk), 1000))
    endpoint.send(put_item("tbl", _key("other", 0), 1000))
    pages, items, size, start = 0, 0, 0, None
    while True:
        reply = endpoint.send(query_collection("tbl", ("pk", "c"), limit=12, start_key=start))
        pages, items, size = pages + 1, items + reply.items, size + reply.item_bytes
        start = reply.last_key
        if start is None:
            break
    # 12 + 12 + 6; DynamoDB answers a full last page with a key and then an empty page,
    # so the last page is short here to keep the count exact
    assert (pages, items, size) == (3, 30, 30 * 1000)
    newer = endpoint.send(query_collection("tbl", ("pk", "c"), after=("sk", Decimal(24))))
    assert newer.items == 5 and newer.last_key is None
    # eventually consistent: 30 KB summed, rounded up to 4 KB (32 KB = 8 units), halved
    whole = endpoint.send(query_collection("tbl", ("pk", "c")))
    assert whole.attempt.consumed == 4.0


def test_scan_segments_together_read_every_item_once(endpoint: Endpoint) -> None:
    for i in range(40):
        endpoint.send(put_item("tbl", _key(f"p{i}", i), 300))
    seen = 0
    for segment in range(3):
        start = None
        while True:
            reply = endpoint.send(scan("tbl", segment, 3, limit=7, start_key=start))
            assert reply.status == OK
            seen += reply.items
            start = reply.last_key
            if start is None:
                break
    assert seen == 40
    with pytest.raises(ValueError, match="segment 3"):
        scan("tbl", 3, 3)


def test_batch_write_and_get_round_trip(endpoint: Endpoint) -> None:
    puts = [BatchPut("tbl", _key("b", i), 1500) for i in range(10)]
    written = endpoint.send(batch_write([*puts, BatchDelete("tbl", _key("b", 99))]))
    # each item rounded up to 1 KB on its own: 10 x 2 + the delete's 1
    assert written.status == OK and written.attempt.consumed == 21.0
    got = endpoint.send(batch_get([("tbl", _key("b", i)) for i in range(12)]))
    assert got.status == OK and got.items == 10 and got.item_bytes == 10 * 1500


def test_batch_write_under_throttling_leaves_items_to_resend() -> None:
    endpoint = Endpoint()
    endpoint.create("slow", wcu=1, rcu=1)
    left, resent = 0, 0
    for n in range(200):  # all at t=0: the burst pool (300 s of 1 WCU) runs out
        reply = endpoint.send(
            batch_write([BatchPut("slow", _key(f"k{n}", i), 900) for i in range(5)])
        )
        if reply.status == UNPROCESSED:
            left = reply.unprocessed
            assert 0 < left < 5 and reply.attempt.kind == "ok"
            endpoint.clock.now += 10.0  # the application backs off, capacity refills
            again = endpoint.send(resend_batch_write(reply.leftover))
            assert again.status == OK
            resent = left
            break
        if reply.status == THROTTLED:
            # none written: the batch fails as a whole; let part of a batch's units refill
            endpoint.clock.now += 2.5
    assert resent and left == resent


def test_batch_get_under_throttling_leaves_keys_to_resend() -> None:
    endpoint = Endpoint()
    endpoint.create("slowread", wcu=1000, rcu=1)
    for i in range(20):
        endpoint.send(put_item("slowread", _key("g", i), 4000))
    for _ in range(400):
        reply = endpoint.send(batch_get([("slowread", _key("g", i)) for i in range(20)]))
        if reply.status == THROTTLED:
            endpoint.clock.now += 2.5  # refused whole: let a part of the batch's units refill
        if reply.status == UNPROCESSED:
            assert reply.items + reply.unprocessed == 20 and reply.items > 0
            endpoint.clock.now += 60.0
            again = endpoint.send(resend_batch_get(reply.leftover))
            assert again.status == OK and again.items == reply.unprocessed
            return
    pytest.fail("no batch get was left unprocessed")


def test_transact_write_is_charged_twice_and_cancels_with_reasons(endpoint: Endpoint) -> None:
    order = BatchPut("tbl", _key("order", 1), 1000)
    stock = BatchPut("tbl", _key("stock", 1), 1000)
    done = endpoint.send(transact_write([order, stock]))
    assert done.status == OK and done.attempt.consumed == 4.0  # 2 items x 1 WCU x 2
    new_only = WriteCondition("absent", "pk")
    again = endpoint.send(
        transact_write(
            [
                BatchPut("tbl", _key("order", 2), 1000),
                stock,
                TransactCheck("tbl", _key("x", 0), new_only),
            ],
            [None, new_only, None],
        )
    )
    assert again.status == TRANSACTION_CANCELLED
    assert again.reasons == ("None", "ConditionalCheckFailed", "None")
    assert again.attempt.kind == "error" and again.attempt.name == "TransactionCanceledException"
    assert not again.is_throttle


def test_transact_get_returns_the_items(endpoint: Endpoint) -> None:
    endpoint.send(put_item("tbl", _key("r", 1), 2000))
    reply = endpoint.send(transact_get([("tbl", _key("r", 1)), ("tbl", _key("r", 2))]))
    assert reply.status == OK and reply.items == 1 and reply.item_bytes == 2000
    # each key read transactionally costs 2 units per 4 KB, the absent one its minimum too
    assert reply.attempt.consumed == 4.0


def test_a_throttled_transaction_counts_as_a_throttle_the_sdk_does_not_retry() -> None:
    endpoint = Endpoint()
    endpoint.create("tiny", wcu=1, rcu=1)
    for n in range(400):
        reply = endpoint.send(transact_write([BatchPut("tiny", _key(f"t{n}", 0), 1000)]))
        if reply.status == TRANSACTION_CANCELLED:
            assert reply.attempt.kind == THROTTLED and reply.attempt.reason in reply.reasons
            assert not reply.is_throttle
            return
    pytest.fail("no transaction was throttled")


def test_unreadable_and_plain_throttles_keep_their_attempt_view() -> None:
    assert read_reply("GetItem", 200, b"not json").attempt.name == "UnreadableBody"
    body = json.dumps(
        {
            "__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
            "ThrottlingReasons": [{"reason": "TableReadProvisionedThroughputExceeded"}],
        }
    ).encode()
    reply = read_reply("Query", 400, body)
    assert reply.status == THROTTLED and reply.is_throttle
    assert reply.attempt.reason == "TableReadProvisionedThroughputExceeded"


def test_a_lock_is_taken_when_free_or_expired_and_renewed_by_its_owner(
    endpoint: Endpoint,
) -> None:
    def take(owner: str, now: int) -> OpReply:
        values = {**_key("lock", 0), "owner": owner, "expiresAt": Decimal(now + 10)}
        free = WriteCondition("absent_or_below", "expiresAt", Decimal(now))
        return endpoint.send(put_item("tbl", values, 100, condition=free))

    assert take("a", 0).status == OK
    assert take("b", 5).status == CONDITION_FAILED  # held until 10
    renew = WriteCondition("equals", "owner", "a")
    beat = update_item("tbl", _key("lock", 0), {"expiresAt": Decimal(30)}, renew)
    assert endpoint.send(beat).status == OK
    assert take("b", 20).status == CONDITION_FAILED  # renewed to 30
    assert take("b", 31).status == OK  # expired: b takes it
    assert endpoint.send(beat).status == CONDITION_FAILED  # a no longer owns it
