"""Full-scale conversion keeps counts consistent; bodies and replies mean what they say."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from loadgen.load.requests import FILLER, RequestFactory, classify
from loadgen.results.records import Counts, PhaseResult, RunResult, scale_counts, to_full_scale

from .conftest import tiny_playbook


def test_scaled_counts_still_add_up() -> None:
    c = Counts(
        sent=397,
        succeeded=181,
        throttled=201,
        errors=7,
        timeouts=8,
        late=3,
        consumed_wcu=181.0,
        by_exception=Counter({"A": 150, "B": 51}),
        by_reason=Counter({"R1": 120, "R2": 81}),
        errors_by_type=Counter({"X": 7}),
    )
    s = scale_counts(c, 1 / 0.15)
    assert s.sent == s.succeeded + s.throttled + s.errors + s.timeouts
    assert s.throttled == sum(s.by_exception.values())
    assert s.errors == sum(s.errors_by_type.values())
    assert abs(s.sent - 397 / 0.15) <= 3 and s.consumed_wcu == pytest.approx(181 / 0.15)


def test_to_full_scale_divides_counts_not_times() -> None:
    run = RunResult("t", 1, 2.0, first_throttle_s=0.4)
    run.seconds = {0: Counts(sent=10, succeeded=10), 1: Counts(sent=10, throttled=10)}
    run.phases = [PhaseResult("p", "put", 0.0, 2.0, offered=20)]
    full = to_full_scale(run, 0.1)
    assert full.totals().sent == 200 and full.offered == 200
    assert full.phases[0].counts.throttled == 100 and full.first_throttle_s == 0.4


def test_classify() -> None:
    body = json.dumps(
        {
            "__type": "com.amazonaws.dynamodb.v20120810#ThrottlingException",
            "message": "m",
            "throttlingReasons": [
                {"reason": "TableWriteMaxOnDemandThroughputExceeded", "resource": "arn"}
            ],
        }
    ).encode()
    out = classify(400, body)
    assert (out.kind, out.name, out.reason) == (
        "throttled",
        "ThrottlingException",
        "TableWriteMaxOnDemandThroughputExceeded",
    )
    assert classify(400, b'{"__type":"x#ValidationException"}').name == "ValidationException"
    assert classify(503, b"<html>").name == "HTTP503"
    ok = classify(200, b'{"ConsumedCapacity":{"CapacityUnits":4.0,"Table":{"CapacityUnits":1.0}}}')
    assert ok.kind == "ok" and ok.consumed == 1.0


@pytest.mark.parametrize("size", [200, 1000, 1024, 4000])
def test_written_items_have_the_declared_dynamodb_size(size: int) -> None:
    from emulator import itemsize

    pb = tiny_playbook(item_size=size)
    factory = RequestFactory(pb, pb.tables[0], pb.load.phases[0], "tbl", np.random.default_rng(0))
    for _ in range(20):
        item = json.loads(factory.next_body())["Item"]
        assert itemsize.item_size(item) == size  # the emulator's own size function
        assert item[FILLER]["S"] != "x" * len(item[FILLER]["S"])  # each write changes it


@pytest.mark.parametrize("operation", ["update", "get", "query"])
def test_other_operations_address_the_primary_key(operation: str) -> None:
    pb = tiny_playbook(operation=operation)
    factory = RequestFactory(pb, pb.tables[0], pb.load.phases[0], "tbl", np.random.default_rng(0))
    body = json.loads(factory.next_body())
    assert body["TableName"] == "tbl"
    if operation == "query":
        assert body["KeyConditionExpression"] == "#k0 = :k0 AND #k1 = :k1"
        assert body["Limit"] == 1
    else:
        assert set(body["Key"]) == {"pk", "sk"}


def test_seed_items_are_the_first_combinations_and_agree_with_the_load() -> None:
    from pathlib import Path

    from loadgen.format.playbook import load_playbook
    from loadgen.load.seed import seed_items

    pb = load_playbook(Path(__file__).resolve().parents[2] / "playbooks" / "hot-partition.yaml")
    spec = pb.table("goodGsi")
    items = list(seed_items(pb, spec))
    keys = {(i["itemId"]["S"], i["warehouseId"]["S"]) for i in items}
    assert len(items) == len(keys) == 15_000  # 5,000 SKUs x 3 warehouses, each once
    first = items[:300]  # well mixed: every warehouse (a GSI partition key) takes a share
    assert min(Counter(i["warehouseId"]["S"] for i in first).values()) > 80
    # per_item attributes (shelf, price) match what the load writes for the same key.
    factory = RequestFactory(pb, spec, pb.load.phases[0], "t", np.random.default_rng(3))
    seeded = {
        (i["itemId"]["S"], i["warehouseId"]["S"]): (i["shelfNumber"], i["unitPrice"]) for i in items
    }
    for _ in range(200):
        item = json.loads(factory.next_body())["Item"]
        key = (item["itemId"]["S"], item["warehouseId"]["S"])
        assert seeded[key] == (item["shelfNumber"], item["unitPrice"])
