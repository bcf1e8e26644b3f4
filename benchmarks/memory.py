"""Server memory per stored item, `--store full` against `--store keys`, and their CPU cost.

For each store, an emulator is started in a child process (pinned to core 0, as in
benchmarks/endpoint.py), a table is created, WARMUP new ~1 KB items are written (the
interpreter, the allocator's pools and the table's first dict sizes settle), the server's
resident memory is read from /proc/PID/statm, --items more new items are written (distinct
uuid keys, 16 keep-alive connections), and the memory is read again: the growth divided by
--items is the cost of one stored item. Every item must be written (a write throttled
past the table's 40,000 WCU is sent again) and DescribeTable must count every item.

    .venv/bin/python benchmarks/memory.py [--items 200000] [--table plain|gsi] [--rounds 1]

  plain  the shape of playbooks/ondemand-growth.yaml: a uuid partition key and a ~1 KB item
  gsi    benchmarks/endpoint.py's table and items: three GSIs projecting ALL (`keys` then
         keeps the GSI keys and a hash of each other value)

Prints one line per store and round (bytes an item, MB for --items, the server's CPU
time per PutItem while writing, its memory at the end), the medians over --rounds (stores
in turn, so a neighbour's load falls on both alike) and the ratios keys/full. Linux only
(/proc).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
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

from emulator.emulator_options import EmulatorOptions

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


def _cpu_s(pid: int) -> float:
    """The process's CPU time (user + system) from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss(pid: int) -> int:
    with open(f"/proc/{pid}/statm", "rb") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


async def _writer(
    port: int, kind: str, start: int, count: int, step: int, errors: list[int], sent: list[int]
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        for i in range(start, count, step):
            body = json.dumps({"TableName": TABLE, "Item": _item(kind, i)}).encode()
            request = (
                "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                "application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
                f"Authorization: {AUTH}\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode() + body
            for _attempt in range(100):
                writer.write(request)
                sent[0] += 1
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.decode("latin-1").lower().split("\r\n")[1:]:
                    if line.startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                reply = await reader.readexactly(length)
                if b" 200 " in head[:16]:
                    break
                if b"ThroughputExceeded" not in reply and b"Throttling" not in reply:
                    errors.append(i)
                    break
                await asyncio.sleep(0.01)  # past the table's 40,000 WCU: the item again
            else:
                errors.append(i)
    finally:
        writer.close()


def _write(port: int, kind: str, count: int) -> int:
    """Write `count` new items (every one must be written); returns the requests sent."""
    from emulator.server.serving import new_event_loop

    errors: list[int] = []
    sent = [0]

    async def main() -> None:
        await asyncio.gather(
            *(_writer(port, kind, c, count, CONNECTIONS, errors, sent) for c in range(CONNECTIONS))
        )

    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        runner.run(main())
    if errors:
        raise SystemExit(f"{len(errors)} of {count} writes were refused: the figure would be wrong")
    return sent[0]


def measure(store: str, kind: str, items: int) -> tuple[float, float, int]:
    """(bytes of server memory per item, server CPU microseconds per PutItem sent, the
    server's memory at the end). CPU time, not a rate: the client and the neighbours
    share the machine, and a throttled put sent again costs the server a request too."""
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
        before, cpu = _rss(proc.pid), _cpu_s(proc.pid)
        sent = _write(port, kind, items)
        cpu = _cpu_s(proc.pid) - cpu
        time.sleep(0.5)
        after = _rss(proc.pid)
        count = _call(port, "DescribeTable", {"TableName": TABLE})["Table"]
        assert isinstance(count, dict) and count["ItemCount"] == WARMUP + items, count
        return (after - before) / items, cpu / sent * 1e6, after
    finally:
        proc.terminate()
        proc.wait(10)


def serve(store: str, port: int) -> None:
    sys.path.insert(0, str(ROOT))
    from emulator.server import Latency, Service
    from emulator.server.serving import serve_forever

    service = Service(EmulatorOptions(create_delay_s=0.0, store=store, max_memory=1 << 50))
    serve_forever("127.0.0.1", port, service, Latency(), lambda url: None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--table", choices=["plain", "gsi"], default="plain")
    parser.add_argument("--stores", default="full,keys")
    parser.add_argument("--rounds", type=int, default=1, help="stores in turn, medians")
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
    results: dict[str, list[tuple[float, float]]] = {s: [] for s in args.stores.split(",")}
    for round_no in range(1, args.rounds + 1):
        for store in results:
            per_item, cpu_us, rss = measure(store, args.table, args.items)
            results[store].append((per_item, cpu_us))
            print(
                f"  round {round_no} {store:5s} {per_item:6.0f} bytes an item "
                f"{per_item * args.items / 1e6:8.1f} MB for {args.items:,}  "
                f"{cpu_us:5.1f} us of server CPU a PutItem   server {rss / 1e6:,.0f} MB at the end",
                flush=True,
            )
    medians = {
        store: (statistics.median(m for m, _ in runs), statistics.median(r for _, r in runs))
        for store, runs in results.items()
    }
    print("medians:")
    for store, (per_item, cpu_us) in medians.items():
        print(
            f"  {store:5s} {per_item:6.0f} bytes an item  {cpu_us:5.1f} us of server CPU a PutItem"
        )
    if "full" in medians and "keys" in medians:
        (full_b, full_c), (keys_b, keys_c) = medians["full"], medians["keys"]
        print(
            f"keys/full: memory {keys_b / full_b:.2f}x, server CPU a PutItem {keys_c / full_c:.2f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
