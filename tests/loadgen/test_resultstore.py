"""The results table's two consistency edges: a start claim whose reply was lost, and a
split report rewritten while it is read."""

from __future__ import annotations

import os
from typing import Any

import pytest
from botocore.exceptions import ReadTimeoutError

from loadgen.live.barrier import BarrierRefused, claim_worker
from loadgen.live.resultstore import ResultStore, make_client

from .conftest import CREDS


def drop_first_reply(client: Any, match: bytes) -> list[int]:
    """Make the client's HTTP layer deliver the first PutItem whose body contains `match`
    and then lose its reply (a read timeout), so botocore's own retry repeats it."""
    session = client._endpoint.http_session
    real_send = session.send
    sends: list[int] = []

    def send(request: Any) -> Any:
        response = real_send(request)
        target = request.headers.get("X-Amz-Target", b"")
        if b"PutItem" in target and match in (request.body or b""):
            sends.append(response.status_code)
            if len(sends) == 1:
                raise ReadTimeoutError(endpoint_url=request.url)
        return response

    session.send = send
    return sends


def test_a_start_claim_whose_reply_was_lost_is_still_ours(store: ResultStore) -> None:
    sends = drop_first_reply(store.client, b"start#3")
    assert claim_worker(store, [3]) == 3
    # The write went through twice: the first took the claim, the retry hit the condition.
    assert sends == [200, 400]
    assert store.get("start#3")["token"] == store.token  # type: ignore[index]
    # Any other process is still refused.
    other = ResultStore(store.client, store.table, store.run_id)
    with pytest.raises(BarrierRefused, match="already started"):
        claim_worker(other, [3])


def test_a_claim_held_by_another_process_is_refused(moto_endpoint: str, store: ResultStore) -> None:
    first = ResultStore(make_client(moto_endpoint, "us-east-1", CREDS), store.table, store.run_id)
    assert first.claim_start(0)
    assert not store.claim_start(0)


def test_a_rewritten_split_report_is_never_read_half_old_half_new(store: ResultStore) -> None:
    old_payload = {"worker": 0, "blob": os.urandom(400_000).hex()}  # ~2 parts compressed
    new_payload = {"worker": 0, "blob": os.urandom(400_000).hex()}
    store.put("progress#0", old_payload)
    old_head = store._get_raw("progress#0")
    assert old_head is not None and int(old_head["parts"]["N"]) >= 2
    store.put("progress#0", new_payload)
    # A reader that read the old head before the rewrite gets the new body whole.
    assert store._decode(old_head) == new_payload
    assert store.get("progress#0") == new_payload
    # Only the current version's parts are left.
    parts = store.client.query(
        TableName=store.table,
        KeyConditionExpression="run_id = :r AND begins_with(#i, :p)",
        ExpressionAttributeNames={"#i": "item"},
        ExpressionAttributeValues={":r": {"S": store.run_id}, ":p": {"S": "progress#0#part#"}},
    )["Items"]
    new_head = store._get_raw("progress#0")
    assert new_head is not None
    assert len(parts) == int(new_head["parts"]["N"])
    assert {p["item"]["S"].split("#")[3] for p in parts} == {new_head["version"]["S"]}


def test_a_report_rewritten_between_two_part_reads_is_read_whole(
    moto_endpoint: str, store: ResultStore
) -> None:
    writer = ResultStore(make_client(moto_endpoint, "us-east-1", CREDS), store.table, store.run_id)
    old_payload = {"worker": 1, "blob": os.urandom(400_000).hex()}
    new_payload = {"worker": 1, "blob": os.urandom(400_000).hex()}
    writer.put("progress#1", old_payload)
    real_get_raw = store._get_raw
    rewrites: list[str] = []

    def get_raw(sk: str) -> Any:
        item = real_get_raw(sk)
        if "#part#" in sk and not rewrites:  # the writer rewrites after our first part
            rewrites.append(sk)
            writer.put("progress#1", new_payload)
        return item

    store._get_raw = get_raw  # type: ignore[method-assign]
    assert store.get("progress#1") == new_payload
    assert rewrites
