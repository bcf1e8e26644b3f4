"""What a write to a table with LSIs costs as its item collection grows, against the same
write to a table without LSIs, on one in-process emulator (no HTTP: the request's work is
what is measured).

Every write to a table with LSIs checks its item collection against DynamoDB's 10 GB
limit. Issue 25 asks that this check not walk the collection: the store keeps each
collection's running size (`ItemStore.weigh`, lsi.py). Here one collection is filled with
--items items, then --writes PutItems of new items go into it, and the same PutItems go
into a table without LSIs (the baseline, measured in the same run, in turn, --rounds
times). The ratio stays near the cost of the LSI entries themselves whatever --items is;
a check that walks the collection makes it grow with --items.

    .venv/bin/python benchmarks/lsi_collection.py [--items 20000] [--writes 2000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import time
from typing import Any

from emulator.emulator_options import EmulatorOptions
from emulator.server.service import Service

TARGET = "DynamoDB_20120810."
LSI = {
    "IndexName": "byRank",
    "KeySchema": [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "rank", "KeyType": "RANGE"},
    ],
    "Projection": {"ProjectionType": "ALL"},
}


def _table(name: str, with_lsi: bool) -> dict[str, Any]:
    request: dict[str, Any] = {
        "TableName": name,
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        "BillingMode": "PAY_PER_REQUEST",
    }
    if with_lsi:
        request["LocalSecondaryIndexes"] = [LSI]
        request["AttributeDefinitions"].append({"AttributeName": "rank", "AttributeType": "N"})
    return request


def _put(table: str, sk: str) -> bytes:
    item = {
        "pk": {"S": "one-collection"},
        "sk": {"S": sk},
        "rank": {"N": str(len(sk))},
        "payload": {"S": "x" * 200},
    }
    return json.dumps({"TableName": table, "Item": item}).encode()


def _send(service: Service, operation: str, body: bytes) -> None:
    status, payload = service.handle(TARGET + operation, body)
    if status != 200:
        raise SystemExit(f"{operation} failed: {payload.decode()}")


def _writes_per_second(service: Service, table: str, prefix: str, writes: int) -> float:
    bodies = [_put(table, f"{prefix}-{n:08d}") for n in range(writes)]
    start = time.perf_counter()
    for body in bodies:
        _send(service, "PutItem", body)
    return writes / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=20000, help="items in the collection first")
    parser.add_argument("--writes", type=int, default=2000, help="PutItems timed per round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    # The emulator's clock moves 10 ms at every reading: one collection's writes then stay
    # far below a partition's 1,000 WCU/s and are never throttled, whatever the machine.
    ticks = itertools.count()
    service = Service(EmulatorOptions(create_delay_s=0), clock=lambda: next(ticks) * 0.01)
    for name, with_lsi in (("with_lsi", True), ("plain", False)):
        _send(service, "CreateTable", json.dumps(_table(name, with_lsi)).encode())
        for n in range(args.items):
            _send(service, "PutItem", _put(name, f"fill-{n:08d}"))
    lsi_rates: list[float] = []
    plain_rates: list[float] = []
    for round_number in range(args.rounds):
        # In turn, so a neighbour's load on a shared machine falls on both alike.
        lsi_rates.append(_writes_per_second(service, "with_lsi", f"r{round_number}", args.writes))
        plain_rates.append(_writes_per_second(service, "plain", f"r{round_number}", args.writes))
        print(
            f"  round {round_number + 1}: with LSI {lsi_rates[-1]:8.0f} PutItem/s, "
            f"without {plain_rates[-1]:8.0f} PutItem/s"
        )
    with_lsi, plain = statistics.median(lsi_rates), statistics.median(plain_rates)
    print(
        f"collection of {args.items} items + {args.writes} writes a round: medians "
        f"{with_lsi:.0f} vs {plain:.0f} PutItem/s; a write with an LSI costs "
        f"{plain / with_lsi:.2f}x one without"
    )


if __name__ == "__main__":
    main()
