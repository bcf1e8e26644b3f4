"""Results items expire: every item the worker and the coordinator write carries
`expires_at`, the results table's TTL attribute (terraform/modules/results-table)."""

from __future__ import annotations

import time
from typing import Any

from loadgen.live import resultstore
from loadgen.live.resultstore import ITEM_TTL_S, ResultStore
from loadgen.live.worker import EXIT_REFUSED, parse_config, run_worker

from .conftest import make_plan
from .test_fleet_local import env_for


def raw_items(store: ResultStore) -> list[dict[str, Any]]:
    """Every item of the run as stored, split parts included (no decoding)."""
    out: list[dict[str, Any]] = []
    kwargs: dict[str, Any] = {
        "TableName": store.table,
        "KeyConditionExpression": "run_id = :r",
        "ExpressionAttributeValues": {":r": {"S": store.run_id}},
    }
    while True:
        page = store.client.query(**kwargs)
        out += page["Items"]
        if "LastEvaluatedKey" not in page:
            return out
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def assert_expiring(items: list[dict[str, Any]], before: float, after: float) -> None:
    for item in items:
        assert "expires_at" in item, item["item"]["S"]
        expires = item["expires_at"]["N"]
        assert expires.isdigit(), expires  # whole epoch seconds, as TTL requires
        assert before + ITEM_TTL_S - 1 <= int(expires) <= after + ITEM_TTL_S


def test_items_written_by_the_worker_carry_expires_at(
    store: ResultStore, moto_endpoint: str
) -> None:
    before = time.time()
    store.put_plan(make_plan("http://127.0.0.1:9", store.run_id, workers=2))
    store.put_go(time.time() - 5.0, [0, 1])  # T0 passed: the worker claims, then refuses
    config = parse_config([], env_for(store, moto_endpoint) | {"HOTBENCH_WORKER": "1"})
    assert run_worker(config) == EXIT_REFUSED
    items = raw_items(store)
    kinds = {item["item"]["S"] for item in items}
    assert {"plan", "go", "start#1", "final#1"} <= kinds  # the worker wrote start and final
    assert_expiring(items, before, time.time())


def test_split_parts_expire_with_their_head(store: ResultStore, monkeypatch: Any) -> None:
    monkeypatch.setattr(resultstore, "PART_BYTES", 64)
    before = time.time()
    store.put("big", {"blob": [f"{i:08x}" for i in range(400)]})
    items = raw_items(store)
    assert len(items) > 2 and any("#part#" in i["item"]["S"] for i in items)
    assert_expiring(items, before, time.time())
    assert store.get("big") == {"blob": [f"{i:08x}" for i in range(400)]}


def test_ttl_is_configurable(store: ResultStore) -> None:
    short = ResultStore(store.client, store.table, store.run_id, ttl_s=60)
    short.put_ready(3)
    (item,) = [i for i in raw_items(store) if i["item"]["S"] == "ready#3"]
    assert abs(int(item["expires_at"]["N"]) - (time.time() + 60)) <= 2
