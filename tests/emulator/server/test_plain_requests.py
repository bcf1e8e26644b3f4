"""Plain single-item requests (no condition, placeholders, projection or ReturnValues) skip
the parsing of the members they lack; they must be answered, charged and counted exactly as
the full path would. Each request is sent to two services on one fake clock: as is (plain
path) and with a member that changes nothing but forces the full path."""

from __future__ import annotations

import decimal
import random
from decimal import Decimal, InvalidOperation
from typing import Any

import orjson

from emulator.emulator_options import EmulatorOptions
from emulator.itemsize import value_size
from emulator.server import Service
from emulator.server.admission import changed_attributes
from emulator.server.protocol import DynamoError
from emulator.server.values import canonical, check_value, is_plain_integer, parse_number

TARGET = "DynamoDB_20120810."
WIDE = decimal.Context(prec=200)
"""A context that rounds nothing here: the oracle for significant digits."""


def _table_request() -> dict[str, Any]:
    def gsi(name: str, key: str, projection: dict[str, Any]) -> dict[str, Any]:
        return {
            "IndexName": name,
            "KeySchema": [{"AttributeName": key, "KeyType": "HASH"}],
            "Projection": projection,
            "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 3},
        }

    return {
        "TableName": "tbl",
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": n, "AttributeType": "S"} for n in ("pk", "sk", "g1", "g2", "g3")
        ],
        "BillingMode": "PROVISIONED",
        "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 5},
        "GlobalSecondaryIndexes": [
            gsi("all", "g1", {"ProjectionType": "ALL"}),
            gsi("keys", "g2", {"ProjectionType": "KEYS_ONLY"}),
            gsi("incl", "g3", {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["n"]}),
        ],
    }


def _value(rng: random.Random) -> Any:
    return rng.choice(
        [
            {"S": "x" * rng.choice([0, 1, 50, 900, 3000])},
            {"S": "é✓"},
            {"N": "7"},
            {"N": str(rng.randint(0, 10**6))},
            {"N": "-1.50"},
            {"N": "00120"},
            {"N": "0"},
            {"N": "1" * 39},
            {"N": "x"},
            {"N": 5},
            {"S": 5},
            {"BOOL": True},
            {"NULL": True},
            {"SS": ["a", "b"]},
            {"SS": []},
            {"L": [{"N": "1"}]},
            {"M": {"a": {"S": "b"}}},
            {"B": "AAEC"},
            {},
            {"S": "a", "N": "1"},
            {"Q": "1"},
            "flat",
        ]
    )


def _item(rng: random.Random) -> Any:
    item: dict[str, Any] = {
        "pk": {"S": f"p{rng.randint(0, 6)}"},
        "sk": {"S": f"s{rng.randint(0, 3)}"},
    }
    for name in ("g1", "g2", "g3", "n", "other"):
        if rng.random() < 0.7:
            item[name] = {"S": f"v{rng.randint(0, 2)}"}
    if rng.random() < 0.3:
        item[rng.choice(["n", "other", "g1", "deep"])] = _value(rng)
    roll = rng.random()
    if roll < 0.03:
        del item["pk"]
    elif roll < 0.06:
        item["sk"] = {"S": ""}
    elif roll < 0.09:
        item["pk"] = {"N": "1"}
    elif roll < 0.11:
        item["big"] = {"S": "z" * 410_000}
    elif roll < 0.12:
        item[""] = {"S": "empty name"}
    elif roll < 0.13:
        return rng.choice([None, [], "item"])
    return item


def _request(rng: random.Random) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """(operation, plain request, the same request forced onto the full path)."""
    op = rng.choice(["PutItem"] * 6 + ["DeleteItem", "GetItem", "GetItem"])
    req: dict[str, Any] = {"TableName": rng.choice(["tbl"] * 20 + ["missing"])}
    if op == "PutItem":
        req["Item"] = _item(rng)
    else:
        item = _item(rng)
        req["Key"] = (
            {k: v for k, v in item.items() if k in ("pk", "sk")} if isinstance(item, dict) else item
        )
        if op == "GetItem" and rng.random() < 0.5:
            req["ConsistentRead"] = rng.choice([True, False, "yes"])
    if rng.random() < 0.6:
        req["ReturnConsumedCapacity"] = rng.choice(["TOTAL", "INDEXES", "NONE"] * 6 + ["BAD", 3])
    full = dict(req)
    if op == "GetItem":
        full["UnknownMember"] = "ignored"
    else:
        full["ReturnValuesOnConditionCheckFailure"] = "NONE"
    return op, req, full


def test_plain_and_full_paths_agree() -> None:
    rng = random.Random(20260)
    clock = [100.0]
    plain, full = (
        Service(EmulatorOptions(create_delay_s=0.0), clock=lambda: clock[0]) for _ in range(2)
    )
    create = orjson.dumps(_table_request())
    for svc in (plain, full):
        assert svc.handle(TARGET + "CreateTable", create)[0] == 200
    statuses: set[int] = set()
    for _ in range(4000):
        clock[0] += rng.choice([0.0, 0.0, 0.001, 0.01, 0.2])
        op, req, forced = _request(rng)
        got = plain.handle(TARGET + op, orjson.dumps(req))
        want = full.handle(TARGET + op, orjson.dumps(forced))
        assert got == want, (op, req)
        statuses.add(got[0])
    assert statuses == {200, 400}  # both answers and refusals (throttles among them) ran
    assert plain.metrics_view(900) == full.metrics_view(900)
    assert plain.partitions_view("tbl") == full.partitions_view("tbl")
    scan = orjson.dumps({"TableName": "tbl"})
    assert plain.handle(TARGET + "Scan", scan) == full.handle(TARGET + "Scan", scan)
    assert plain.internal_errors == full.internal_errors == 0


def _digit_strings() -> list[str]:
    rng = random.Random(7)
    fixed = [
        "0",
        "00",
        "000",
        "1",
        "10",
        "100",
        "0100",
        "007",
        "120300",
        "9" * 38,
        "1" * 38,
        "0" * 37 + "1",
        "1" + "0" * 37,
        "1" * 39,
        "0" * 39,
        "1" + "0" * 40,
        "",
        "-1",
        "1.0",
        "1e3",
        " 1",
        "١٢",
        "²",
    ]
    drawn = [
        "".join(rng.choice("0000123456789") for _ in range(rng.randint(1, 45))) for _ in range(3000)
    ]
    return fixed + drawn


def test_plain_integers_are_sized_and_accepted_as_decimals_are() -> None:
    for text in _digit_strings():
        try:
            number = Decimal(text)
            ok = number.is_finite()
        except InvalidOperation:
            ok = False
        if ok:
            digits = 0 if number == 0 else len(number.normalize(WIDE).as_tuple().digits)
            assert value_size({"N": text}) == ((digits + 1) // 2 + 1 if digits else 2), text
        if is_plain_integer(text):
            parse_number(text)  # never refused
            check_value({"N": text})


def test_changed_attributes_agree_with_canonical_equality() -> None:
    rng = random.Random(11)
    edge = [
        "0",
        "00",
        "7",
        "007",
        "1.0",
        "1.00",
        "-0",
        "1E2",
        "100",
        "0.5",
        "5E-1",
        "1" * 28,
        "0" + "1" * 28,
        "1" * 27 + "2",
        "1" * 29 + "0",
        "1" * 29 + "1",
        "9" * 38,
    ]
    edge_values: list[dict[str, Any]] = [{"N": t} for t in edge]
    edge_values += [
        {"S": "1"},
        {"S": ""},
        {"SS": ["a", "b"]},
        {"SS": ["b", "a"]},
        {"L": [{"N": "1"}]},
        {"L": [{"N": "1.0"}]},
    ]
    drawn = [{"N": t} for t in _digit_strings() if _is_number(t)]
    pairs = [(a, b) for a in edge_values for b in edge_values]
    pairs += [(rng.choice(drawn), rng.choice(drawn)) for _ in range(5000)]
    for a, b in pairs:
        old = {"k": {"S": "x"}, "v": a, "gone": {"N": "1"}}
        new = {"k": {"S": "x"}, "v": b, "added": {"N": "1"}}
        want = {"gone", "added"} | ({"v"} if canonical(a) != canonical(b) else set())
        assert changed_attributes(old, new) == want, (a, b)


def _is_number(text: str) -> bool:
    try:
        parse_number(text)
    except DynamoError:
        return False
    return True
