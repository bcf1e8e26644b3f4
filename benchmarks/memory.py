"""Server memory per stored item, `--store full` against `--store keys`, and their PutItem/s.

For each store, an emulator is started in a child process (pinned to core 0, as in
benchmarks/endpoint.py), a table is created, WARMUP new ~1 KB items are written (the
interpreter, the allocator's pools and the table's first dict sizes settle), the server's
resident memory is read from /proc/PID/statm, --items more new items are written (distinct
uuid keys, 16 keep-alive connections), and the memory is read again: the growth divided by
--items is the cost of one stored item. Every write must succeed (no throttle: the table
has 40,000 WCU) and DescribeTable must count every item.

    .venv/bin/python benchmarks/memory.py [--items 200000] [--table plain|gsi]

  plain  the shape of playbooks/ondemand-growth.yaml: a uuid partition key and a ~1 KB item
  gsi    benchmarks/endpoint.py's table and items: three GSIs projecting ALL (`keys` then
         keeps the GSI keys and a hash of each other value)

Prints one line per store (bytes an item, MB for --items, PutItem/s while writing) and the
ratios keys/full, measured in the same run. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import uuid
from pathlib import Path

from endpoint import (  # the same helpers, table and items as the endpoint benchmark
    AUTH,
    CLIENT_CORE,
    TABLE,
    _call,
    _free_port,
    _pin,
    _start_process,
    _wait_ready,
    bench_item,
    create_table_request,
)

ROOT = Path(__file__).resolve().parent.parent
WARMUP = 20_000
CONNECTIONS = 16
PAYLOAD = "x" * 960
"""With a 36-character uuid key: a 1,005-byte item (DynamoDB's measure)."""


def plain_table_request() -> dict[str, object]:
    return {
        "TableName": TABLE,
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
        "BillingMode": "PROVISIONED",
        "ProvisionedThroughput": {"ReadCapacityUnits": 40000, "WriteCapacityUnits": 40000},
    }


def _item(kind: str, i: int) -> dict[str, dict[str, str]]:
    key = str(uuid.uuid4())
    if kind == "plain":
        return {"id": {"S": key}, "payload": {"S": PAYLOAD}}
    return bench_item(i, key, "1")


def _rss(pid: int) -> int:
    with open(f"/proc/{pid}/statm", "rb") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def _writer(
    port: int, kind: str, start: int, count: int, step: int, errors: list[int]
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for i in range(start, count, step):
            body = json.dumps({"TableName": TABLE, "Item": _item(kind, i)}).encode()
            writer.write(
                (
                    "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                    "application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
                    f"Authorization: {AUTH}\r\nContent-Length: {len(body)}\r\n\r\n"
                ).encode()
                + body
            )
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.decode("latin-1").lower().split("\r\n")[1:]:
                if line.startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            await reader.readexactly(length)
            if b" 200 " not in head[:16]:
                errors.append(i)
    finally:
        writer.close()


def _write(port: int, kind: str, count: int) -> float:
    """Write `count` new items; returns the seconds it took (every write must succeed)."""
    from emulator.server.runner import new_event_loop

    errors: list[int] = []

    async def main() -> None:
        await asyncio.gather(
            *(_writer(port, kind, c, count, CONNECTIONS, errors) for c in range(CONNECTIONS))
        )

    began = time.perf_counter()
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        runner.run(main())
    took = time.perf_counter() - began
    if errors:
        raise SystemExit(f"{len(errors)} of {count} writes were refused: the figure would be wrong")
    return took


def measure(store: str, kind: str, items: int) -> tuple[float, float]:
    """(bytes of server memory per item, PutItem/s) of one store."""
    port = _free_port()
    proc = _start_process([sys.executable, __file__, "--serve", store, "--port", str(port)], ROOT)
    try:
        _wait_ready(port)
        _call(
            port,
            "CreateTable",
            plain_table_request() if kind == "plain" else create_table_request(),
        )
        _write(port, kind, WARMUP)
        time.sleep(0.5)
        before = _rss(proc.pid)
        took = _write(port, kind, items)
        time.sleep(0.5)
        grown = _rss(proc.pid) - before
        count = _call(port, "DescribeTable", {"TableName": TABLE})["Table"]
        assert isinstance(count, dict) and count["ItemCount"] == WARMUP + items, count
        return grown / items, items / took
    finally:
        proc.terminate()
        proc.wait(10)


def serve(store: str, port: int) -> None:
    sys.path.insert(0, str(ROOT))
    from emulator.server import Latency, Service
    from emulator.server.runner import serve_forever

    service = Service(create_delay_s=0.0, store=store, max_memory=1 << 50)
    serve_forever("127.0.0.1", port, service, Latency(), lambda url: None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--table", choices=["plain", "gsi"], default="plain")
    parser.add_argument("--stores", default="full,keys")
    parser.add_argument("--serve", choices=["full", "keys"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port)
        return 0
    sys.path.insert(0, str(ROOT))
    from emulator.native import status

    _pin(CLIENT_CORE)
    print(f"emulator: {status()}")
    print(
        f"{args.items:,} new ~1 KB items after {WARMUP:,} of warm-up, table {args.table}; "
        "server memory (RSS) growth from /proc"
    )
    results = {}
    for store in args.stores.split(","):
        per_item, rate = measure(store, args.table, args.items)
        results[store] = (per_item, rate)
        print(
            f"  {store:5s} {per_item:8.0f} bytes an item   {per_item * args.items / 1e6:8.1f} MB "
            f"for {args.items:,}   {rate:8.0f} PutItem/s",
            flush=True,
        )
    if "full" in results and "keys" in results:
        (full_b, full_r), (keys_b, keys_r) = results["full"], results["keys"]
        print(f"keys/full: memory {keys_b / full_b:.2f}x, PutItem/s {keys_r / full_r:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
