"""How long CreateTable and UpdateTable take at the largest capacity DynamoDB accepts,
against the same calls at 1 unit, on one in-process emulator (no HTTP: the work of the
request is what is measured, not the socket).

The largest accepted values are the default per-table quota (40,000 read and 40,000
write units: 54 partitions); anything past it is refused with LimitExceededException
before the model is touched, and anything past 10^12 as "out of bounds". Issue 25 asks
for an answer within 100 ms at the largest accepted value; this prints the medians, the
ratio to the 1-unit baseline, and the refusals' times for 10^7, 10^12 + 1 and 10^15.

    .venv/bin/python benchmarks/control_plane.py [--rounds 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from emulator.emulator_options import EmulatorOptions
from emulator.server.service import Service

TARGET = "DynamoDB_20120810."


def _request(name: str, units: int) -> dict[str, Any]:
    return {
        "TableName": name,
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "ProvisionedThroughput": {"ReadCapacityUnits": units, "WriteCapacityUnits": units},
    }


def _timed(service: Service, operation: str, body: dict[str, Any]) -> tuple[float, int]:
    start = time.perf_counter()
    status, _ = service.handle(TARGET + operation, json.dumps(body).encode())
    return time.perf_counter() - start, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    results: dict[str, list[float]] = {}
    for i in range(args.rounds):
        service = Service(EmulatorOptions(create_delay_s=0))
        for label, units in (("create 1", 1), ("create 40000", 40000)):
            elapsed, status = _timed(service, "CreateTable", _request(f"t{units}-{i}", units))
            assert status == 200, label
            results.setdefault(label, []).append(elapsed)
        body = {
            "TableName": f"t1-{i}",
            "ProvisionedThroughput": {"ReadCapacityUnits": 40000, "WriteCapacityUnits": 1},
        }
        service.handle(TARGET + "DeleteTable", json.dumps({"TableName": f"t40000-{i}"}).encode())
        elapsed, status = _timed(service, "UpdateTable", body)
        assert status == 200
        results.setdefault("update 1 -> 40000", []).append(elapsed)
        for units in (10**7, 10**12 + 1, 10**15):
            elapsed, status = _timed(service, "CreateTable", _request(f"x{units}", units))
            assert status == 400
            results.setdefault(f"refuse {units}", []).append(elapsed)
    base = statistics.median(results["create 1"])
    for label, times in results.items():
        median = statistics.median(times)
        print(
            f"{label:>26}: median {median * 1e3:7.3f} ms, max {max(times) * 1e3:7.3f} ms, "
            f"{median / base:5.1f}x create 1"
        )


if __name__ == "__main__":
    main()
