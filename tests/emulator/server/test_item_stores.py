"""The `keys` store keeps only keys, index attributes and sizes; every capacity figure must
be what the `full` store gives. The same random sequence of writes and reads (puts of new
items, overwrites of other sizes, identical rewrites, updates, deletes, items moving in and
out of GSIs, gets, queries, scans, batches) goes to two services on one fake clock, one per
store, and every answer's consumed capacity, every throttle, the metrics and the partition
maps must agree; reads under `keys` answer with the kept attributes of the same item."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from emulator.emulator_options import EmulatorOptions
from emulator.server import Service
from emulator.server.protocol import DynamoError

TARGET = "DynamoDB_20120810."
KEPT = {"pk", "sk", "g1", "g2", "g3", "n"}
"""What `keys` keeps of the test table's items: its keys, the GSIs' keys, INCLUDE's n."""


def _table_request(name: str = "tbl", sort_key: bool = True) -> dict[str, Any]:
    def gsi(index: str, key: str, projection: dict[str, Any]) -> dict[str, Any]:
        return {
            "IndexName": index,
            "KeySchema": [{"AttributeName": key, "KeyType": "HASH"}],
            "Projection": projection,
            "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 4},
        }

    keys = ("pk", "sk") if sort_key else ("pk",)
    return {
        "TableName": name,
        "KeySchema": [
            {"AttributeName": n, "KeyType": kind}
            for n, kind in zip(keys, ("HASH", "RANGE")[: len(keys)], strict=True)
        ],
        "AttributeDefinitions": [
            {"AttributeName": n, "AttributeType": "S"} for n in (*keys, "g1", "g2", "g3")
        ],
        "BillingMode": "PROVISIONED",
        "ProvisionedThroughput": {"ReadCapacityUnits": 8, "WriteCapacityUnits": 12},
        "GlobalSecondaryIndexes": [
            gsi("all", "g1", {"ProjectionType": "ALL"}),
            gsi("keys", "g2", {"ProjectionType": "KEYS_ONLY"}),
            gsi("incl", "g3", {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n"]}),
        ],
    }


def _key(rng: random.Random, sort_key: bool) -> dict[str, Any]:
    if not sort_key:
        return {"pk": {"S": f"p{rng.randint(0, 40)}"}}
    return {"pk": {"S": f"p{rng.randint(0, 6)}"}, "sk": {"S": f"s{rng.randint(0, 5)}"}}


def _other(rng: random.Random) -> dict[str, Any]:
    return rng.choice(
        [
            {"S": "v" * rng.choice([1, 40, 900, 2500, 5000])},
            {"N": rng.choice(["7", "7.0", "00120", str(rng.randint(0, 99))])},
            {"SS": rng.choice([["a", "b"], ["b", "a"], ["c"]])},
            {"M": {"a": {"S": "b" * rng.randint(0, 30)}}},
            {"BOOL": True},
        ]
    )


def _item(rng: random.Random, key: dict[str, Any]) -> dict[str, Any]:
    item = dict(key)
    for name in ("g1", "g2", "g3"):
        if rng.random() < 0.6:
            item[name] = {"S": rng.choice(["A", "B", "C"])}
    for name in ("n", "payload", "extra"):
        if rng.random() < 0.7:
            item[name] = _other(rng)
    return item


def _update(rng: random.Random, key: dict[str, Any]) -> dict[str, Any]:
    names = rng.sample(["g1", "g2", "g3", "n", "payload", "extra"], rng.randint(1, 3))
    sets, removes, values = [], [], {}
    for i, name in enumerate(names):
        if rng.random() < 0.3:
            removes.append(name)
        else:
            sets.append(f"{name} = :v{i}")
            values[f":v{i}"] = {"S": rng.choice("AB")} if name[0] == "g" else _other(rng)
    expr = " ".join(
        part
        for part in (
            "SET " + ", ".join(sets) if sets else "",
            "REMOVE " + ", ".join(removes) if removes else "",
        )
        if part
    )
    req: dict[str, Any] = {"TableName": "tbl", "Key": key, "UpdateExpression": expr}
    if values:
        req["ExpressionAttributeValues"] = values
    if rng.random() < 0.3:
        req["ReturnValues"] = rng.choice(["ALL_OLD", "ALL_NEW", "UPDATED_OLD", "UPDATED_NEW"])
    return req


def _request(
    rng: random.Random, rewrites: list[dict[str, Any]], sort_key: bool
) -> tuple[str, dict[str, Any]]:
    key = _key(rng, sort_key)
    roll = rng.random()
    req: dict[str, Any]
    if roll < 0.3:
        if rewrites and rng.random() < 0.3:
            item = rng.choice(rewrites)  # an identical rewrite: no GSI write for ALL
        else:
            item = _item(rng, key)
            rewrites.append(item)
        op, req = "PutItem", {"TableName": "tbl", "Item": item}
        if rng.random() < 0.2:
            req["ConditionExpression"] = rng.choice(
                ["attribute_not_exists(pk)", "attribute_exists(payload)"]
            )
        if rng.random() < 0.2:
            req["ReturnValues"] = "ALL_OLD"
    elif roll < 0.45:
        op, req = "UpdateItem", _update(rng, key)
    elif roll < 0.52:
        op, req = "DeleteItem", {"TableName": "tbl", "Key": key}
    elif roll < 0.65:
        op, req = "GetItem", {"TableName": "tbl", "Key": key}
        req["ConsistentRead"] = rng.random() < 0.5
    elif roll < 0.78:
        index = rng.choice([None, "all", "keys", "incl"])
        attr = {None: "pk", "all": "g1", "keys": "g2", "incl": "g3"}[index]
        value = key["pk"] if index is None else {"S": rng.choice("ABC")}
        op, req = (
            "Query",
            {
                "TableName": "tbl",
                "KeyConditionExpression": f"{attr} = :v",
                "ExpressionAttributeValues": {":v": value},
            },
        )
        if index is not None:
            req["IndexName"] = index
        if rng.random() < 0.3:
            req["Limit"] = rng.randint(1, 3)
    elif roll < 0.83:
        op, req = "Scan", {"TableName": "tbl", "Limit": rng.randint(1, 30)}
        if rng.random() < 0.3:
            req["IndexName"] = rng.choice(["all", "keys", "incl"])
    elif roll < 0.93:
        writes: list[Any] = []
        seen = set()
        for _ in range(rng.randint(1, 6)):
            k = _key(rng, sort_key)
            ident = tuple(v["S"] for v in k.values())
            if ident in seen:
                continue
            seen.add(ident)
            if rng.random() < 0.8:
                writes.append({"PutRequest": {"Item": _item(rng, k)}})
            else:
                writes.append({"DeleteRequest": {"Key": k}})
        op, req = "BatchWriteItem", {"RequestItems": {"tbl": writes}}
    else:
        keys = {
            tuple(v["S"] for v in k.values()): k for k in (_key(rng, sort_key) for _ in range(5))
        }
        op, req = "BatchGetItem", {"RequestItems": {"tbl": {"Keys": list(keys.values())}}}
    req["ReturnConsumedCapacity"] = "INDEXES"
    return op, req


def _kept(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k in KEPT}


def _text(item: dict[str, Any]) -> bytes:
    return orjson.dumps(item, option=orjson.OPT_SORT_KEYS)


def _same_answer(op: str, full: tuple[int, bytes], keys: tuple[int, bytes]) -> None:
    """Equal but for the attribute values `keys` does not keep."""
    assert full[0] == keys[0], (op, full, keys)
    want, got = orjson.loads(full[1]), orjson.loads(keys[1])
    if full[0] != 200:
        assert want == got, op  # the same refusal: throttle (and its reason) or validation
        return
    for member in ("Item", "Attributes"):
        if member in want:
            assert _kept(want.pop(member)) == got.pop(member, {}), op
    if "Items" in want:
        assert [_kept(i) for i in want.pop("Items")] == got.pop("Items"), op
    if "Responses" in want:
        for table, items in want.pop("Responses").items():
            assert sorted(map(_text, map(_kept, items))) == sorted(
                map(_text, got["Responses"].pop(table))
            )
        got.pop("Responses")
    if op == "UpdateItem" and "Attributes" in got and not got["Attributes"]:
        got.pop("Attributes")
    assert want == got, op  # ConsumedCapacity, counts, LastEvaluatedKey, unprocessed


@pytest.mark.parametrize("sort_key", [True, False], ids=["pk-sk", "pk"])
def test_keys_store_charges_exactly_as_full(sort_key: bool) -> None:
    rng = random.Random(17)
    clock = [100.0]
    full, keys = (
        Service(EmulatorOptions(create_delay_s=0.0, store=s), clock=lambda: clock[0])
        for s in ("full", "keys")
    )
    create = orjson.dumps(_table_request(sort_key=sort_key))
    for svc in (full, keys):
        assert svc.handle(TARGET + "CreateTable", create)[0] == 200
    rewrites: list[dict[str, Any]] = []
    seen: dict[str, set[int]] = {}
    for _ in range(5000):
        clock[0] += rng.choice([0.0, 0.0, 0.001, 0.01, 0.3])
        op, req = _request(rng, rewrites, sort_key)
        body = orjson.dumps(req)
        want = full.handle(TARGET + op, body)
        _same_answer(op, want, keys.handle(TARGET + op, body))
        seen.setdefault(op, set()).add(want[0])
    assert all(200 in statuses for statuses in seen.values()), seen
    assert any(400 in statuses for statuses in seen.values()), seen  # throttles ran too
    assert full.metrics_view(900) == keys.metrics_view(900)
    assert full.partitions_view("tbl") == keys.partitions_view("tbl")
    describe = orjson.dumps({"TableName": "tbl"})
    a = orjson.loads(full.handle(TARGET + "DescribeTable", describe)[1])["Table"]
    b = orjson.loads(keys.handle(TARGET + "DescribeTable", describe)[1])["Table"]
    assert a["ItemCount"] == b["ItemCount"] > 0
    assert a["TableSizeBytes"] == b["TableSizeBytes"]
    assert full.internal_errors == keys.internal_errors == 0


def test_keys_store_refuses_an_index_it_cannot_build() -> None:
    svc = Service(EmulatorOptions(create_delay_s=0.0, store="keys"))
    request = _table_request()
    request.pop("GlobalSecondaryIndexes")
    request["AttributeDefinitions"] = request["AttributeDefinitions"][:2]
    assert svc.handle(TARGET + "CreateTable", orjson.dumps(request))[0] == 200
    item = {"pk": {"S": "a"}, "sk": {"S": "b"}, "g1": {"S": "x"}}
    svc.handle(TARGET + "PutItem", orjson.dumps({"TableName": "tbl", "Item": item}))
    update = {
        "TableName": "tbl",
        "AttributeDefinitions": [{"AttributeName": "g1", "AttributeType": "S"}],
        "GlobalSecondaryIndexUpdates": [
            {
                "Create": {
                    "IndexName": "late",
                    "KeySchema": [{"AttributeName": "g1", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"},
                    "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
                }
            }
        ],
    }
    status, body = svc.handle(TARGET + "UpdateTable", orjson.dumps(update))
    assert status == 400
    message = orjson.loads(body)["message"]
    assert "--store keys" in message and "--store full" in message and "1 items" in message


def test_unknown_store_is_refused() -> None:
    with pytest.raises(ValueError, match="choose one of full, keys"):
        Service(EmulatorOptions(store="values"))
    assert issubclass(DynamoError, Exception)


def test_unchanged_values_stay_unchanged_through_updates() -> None:
    """An update leaves `payload` as it was (a stand-in, under `keys`); a rewrite of the
    item as it now is changes nothing, so the ALL index is not written, in both stores."""
    answers = []
    for store in ("full", "keys"):
        svc = Service(EmulatorOptions(create_delay_s=0.0, store=store))
        assert svc.handle(TARGET + "CreateTable", orjson.dumps(_table_request()))[0] == 200
        item = {
            "pk": {"S": "a"},
            "sk": {"S": "b"},
            "g1": {"S": "A"},
            "g2": {"S": "A"},
            "payload": {"S": "p" * 3000},
        }
        steps = [
            ("PutItem", {"TableName": "tbl", "Item": item}),
            (
                "UpdateItem",
                {
                    "TableName": "tbl",
                    "Key": {"pk": item["pk"], "sk": item["sk"]},
                    "UpdateExpression": "SET g2 = :b, n = :n",
                    "ExpressionAttributeValues": {":b": {"S": "B"}, ":n": {"N": "1"}},
                },
            ),
            ("PutItem", {"TableName": "tbl", "Item": item | {"g2": {"S": "B"}, "n": {"N": "1.0"}}}),
            (
                "UpdateItem",
                {
                    "TableName": "tbl",
                    "Key": {"pk": item["pk"], "sk": item["sk"]},
                    "UpdateExpression": "SET payload = :p",
                    "ExpressionAttributeValues": {":p": item["payload"]},
                },
            ),
        ]
        consumed = []
        for op, req in steps:
            req["ReturnConsumedCapacity"] = "INDEXES"
            status, body = svc.handle(TARGET + op, orjson.dumps(req))
            assert status == 200, body
            consumed.append(orjson.loads(body)["ConsumedCapacity"])
        answers.append(consumed)
    assert answers[0] == answers[1]
    assert "all" in answers[0][1]["GlobalSecondaryIndexes"]  # g2 and n changed
    assert "GlobalSecondaryIndexes" not in answers[0][2]  # nothing changed
    assert "GlobalSecondaryIndexes" not in answers[0][3]  # the same payload again
