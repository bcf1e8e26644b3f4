"""PutItem/s of the emulator endpoint, next to its HTTP stack's ceiling and moto.

Three servers, one at a time, each in its own process pinned to core 0, driven by a
keep-alive client pinned to core 1 (so the client is never the bottleneck's suspect):

  bare      the emulator's own HTTP layer (emulator/server/http.py) answering every
            request with a fixed `{}` (the ceiling: the HTTP stack alone)
  emulator  hotbench's endpoint, PutItem of ~1 KB items on a table with 3 GSIs
  moto      moto_server (moto[server]), the same PutItems
  aiohttp   (optional, for context) aiohttp's low-level server answering `{}`: what a
            well-kept Python framework's HTTP layer costs

Two more for a change to the endpoint (issue 41):

  emulator+stream  the emulator, its table with a NEW_AND_OLD_IMAGES stream (nobody reads
                   it: its records fill the budget and the oldest are trimmed); with
                   `emulator` in the same run it prints `emulator+stream / emulator per
                   round`, a stream's cost as a ratio
  baseline         the emulator of another checkout (--baseline DIR, e.g. a worktree of
                   main), the same PutItems: before against after, in one run

Targets (issue #3): emulator >= 0.5 x bare and >= 30 x moto. Loopback only; each target
runs for --seconds (default 20) after a 2 s warm-up, --rounds times (default 3) in turn,
and is judged by its median: a 2-core machine is noisy, and taking turns spreads a
neighbour's load over all three targets alike.

    .venv/bin/python benchmarks/endpoint.py [--seconds 20] [--rounds 3] [--connections 64]
        [--targets bare,emulator,moto[,aiohttp,emulator+stream,baseline]] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

from emulator.emulator_options import EmulatorOptions

ROOT = Path(__file__).resolve().parent.parent
SERVER_CORE = 0
CLIENT_CORE = 1
TABLE = "bench"
# A syntactically valid SigV4 header: moto routes on its credential scope; the emulator
# and the bare server ignore it. Signing is not what is measured.
AUTH = (
    "AWS4-HMAC-SHA256 Credential=x/20260101/us-east-1/dynamodb/aws4_request, "
    "SignedHeaders=host;x-amz-date;x-amz-target, Signature=" + "0" * 64
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _pin(core: int) -> None:
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setaffinity(0, {core})


# --- servers (child processes) ------------------------------------------------------------


def serve_bare(port: int) -> None:
    from emulator.server.http import HttpServer, Reply
    from emulator.wire import JSON_CONTENT_TYPE

    empty = Reply(200, JSON_CONTENT_TYPE, b"{}")

    def handle(
        method: str,
        path: str,
        query: str,
        target: str | None,
        body: bytes,
        authorization: str | None,
        headers: list[tuple[bytes, bytes]] | None,
    ) -> Reply:
        return empty

    async def main() -> None:
        server = HttpServer(handle)
        await asyncio.get_running_loop().create_server(server, "127.0.0.1", port, backlog=1024)
        await asyncio.Event().wait()

    from emulator.server.serving import new_event_loop

    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        runner.run(main())


def serve_aiohttp(port: int) -> None:
    """For context only (--targets ...,aiohttp): aiohttp's low-level server answering `{}`,
    i.e. what a well-kept Python framework's HTTP layer costs on the same machine."""
    from aiohttp import web, web_server

    async def handle(request: web.BaseRequest) -> web.Response:
        await request.read()
        return web.Response(body=b"{}", headers={"Content-Type": "application/x-amz-json-1.0"})

    async def main() -> None:
        server = web_server.Server(handle, access_log=None)
        await asyncio.get_running_loop().create_server(server, "127.0.0.1", port, backlog=1024)
        await asyncio.Event().wait()

    from emulator.server.serving import new_event_loop

    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        runner.run(main())


def serve_emulator(port: int) -> None:
    from emulator.server import Latency, Service
    from emulator.server.serving import serve_forever

    serve_forever(
        "127.0.0.1", port, Service(EmulatorOptions(create_delay_s=0.0)), Latency(), lambda url: None
    )


EMULATORS = ("emulator", "emulator+stream", "baseline")
"""The targets that are an emulator endpoint, with the benchmark's table."""


def _start(kind: str, port: int, baseline: Path | None = None) -> subprocess.Popen[bytes]:
    if kind == "moto":
        exe = shutil.which("moto_server") or str(Path(sys.executable).parent / "moto_server")
        cmd = [exe, "-H", "127.0.0.1", "-p", str(port)]
    elif kind == "baseline":
        # The other checkout's own benchmark serves its own emulator (its sources, and its
        # compiled build if it has a current one).
        if baseline is None:
            raise SystemExit("--targets baseline needs --baseline DIR (another checkout)")
        script = baseline / "benchmarks" / "endpoint.py"
        cmd = [sys.executable, str(script), "--serve", "emulator", "--port", str(port)]
        return _start_process(cmd, baseline)
    else:
        serve = "emulator" if kind == "emulator+stream" else kind
        cmd = [sys.executable, __file__, "--serve", serve, "--port", str(port)]
    return _start_process(cmd, ROOT)


def _start_process(cmd: list[str], cwd: Path) -> subprocess.Popen[bytes]:
    """A server process pinned to the server's core (benchmarks/memory.py starts its own)."""
    return subprocess.Popen(
        cmd,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=lambda: _pin(SERVER_CORE),
    )


def _call(port: int, operation: str, body: dict[str, object]) -> dict[str, object]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/",
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "X-Amz-Target": f"DynamoDB_20120810.{operation}",
            "Authorization": AUTH,
            "Content-Type": "application/x-amz-json-1.0",
        },
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        result: dict[str, object] = json.loads(response.read() or b"{}")
        return result


def _wait_ready(port: int, deadline_s: float = 20.0) -> None:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"server on port {port} did not start")


def create_table_request(stream: bool = False) -> dict[str, object]:
    """The benchmark's table: uuid partition keys, three all-projected GSIs, on demand
    and warmed to 40,000 writes a second (the default per-table quota) on the table and on
    each index. On demand because DynamoDB's default account quota (80,000 provisioned
    write units over all tables and indexes, which the emulator enforces) refuses 40,000
    provisioned on a table and three GSIs; warm, so that ~35,000 PutItems a second fit."""
    keys = ("pk", "g1", "g2", "g3")
    warm = {"ReadUnitsPerSecond": 40000, "WriteUnitsPerSecond": 40000}
    extra: dict[str, object] = {}
    if stream:
        extra["StreamSpecification"] = {
            "StreamEnabled": True,
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        }
    return {
        **extra,
        "TableName": TABLE,
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": k, "AttributeType": "S"} for k in keys],
        "BillingMode": "PAY_PER_REQUEST",
        "WarmThroughput": warm,
        "GlobalSecondaryIndexes": [
            {
                "IndexName": f"by{k}",
                "KeySchema": [{"AttributeName": k, "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "WarmThroughput": warm,
            }
            for k in keys[1:]
        ],
    }


def bench_item(i: int, pk: str, version: str) -> dict[str, dict[str, str]]:
    """The i-th ~1 KB item (see `_requests` for why the GSI keys take thousands of values)."""
    return {
        "pk": {"S": pk},
        "g1": {"S": f"w{i % 9973}"},
        "g2": {"S": f"s{i % 9967}"},
        "g3": {"S": f"p{i % 9949}"},
        "version": {"N": version},
        "payload": {"S": "x" * 880},
    }


def _create_table(port: int, stream: bool = False) -> None:
    _call(port, "CreateTable", create_table_request(stream))
    for _ in range(100):
        status = _call(port, "DescribeTable", {"TableName": TABLE})["Table"]
        if isinstance(status, dict) and status.get("TableStatus") == "ACTIVE":
            return
        time.sleep(0.1)


# --- client ---------------------------------------------------------------------------------

MARK = "#" * 10


def _requests(count: int) -> list[tuple[bytes, bytes]]:
    """Pre-built PutItem requests (~1 KB items, distinct keys), split around a 10-digit
    version number the client fills in per send: the client spends its time on I/O, not
    JSON, and every put changes its item, so each one writes to all three GSIs.

    The GSI keys take thousands of values, so they spread over each index's partitions
    as evenly as the table's uuid keys: with a few dozen values, some of an index's 40
    partitions would hold five or six of them and, past ~20,000 puts/s once their burst
    capacity ran out, the model would rightly throttle them, and the benchmark would
    measure throttles instead of the endpoint. The table
    (40,000 WCU, the default per-table quota: 40 partitions of 1,000 WCU/s) still caps a
    run near 35,000 accepted puts/s; the rate counts accepted puts only, and throttles
    are printed as errors."""
    out = []
    for i in range(count):
        item = bench_item(i, str(uuid.uuid4()), MARK)
        body = json.dumps({"TableName": TABLE, "Item": item}).encode()
        head = (
            f"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
            f"application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.PutItem\r\n"
            f"Authorization: {AUTH}\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode()
        before, after = (head + body).split(MARK.encode())
        out.append((before, after))
    return out


async def _connection(
    port: int,
    requests: list[tuple[bytes, bytes]],
    start: int,
    stop_at: float,
    counts: dict[str, int],
) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    i = start
    try:
        while time.monotonic() < stop_at:
            before, after = requests[i % len(requests)]
            writer.write(b"%s%010d%s" % (before, 1_000_000_000 + i, after))
            i += 7
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").lower().split("\r\n")
            length = 0
            close = lines[0].startswith("http/1.0")
            for line in lines[1:]:
                if line.startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
                elif line.startswith("connection:"):
                    close = "close" in line
            await reader.readexactly(length)
            counts["ok" if b" 200 " in head[:16] else "err"] += 1
            if close:
                writer.close()
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except (OSError, asyncio.IncompleteReadError):
        counts["err"] += 1
    finally:
        writer.close()


async def _drive(
    port: int, seconds: float, connections: int, requests: list[tuple[bytes, bytes]]
) -> dict[str, int]:
    counts = {"ok": 0, "err": 0}
    warm = time.monotonic() + 2.0
    await asyncio.gather(
        *(_connection(port, requests, c, warm, {"ok": 0, "err": 0}) for c in range(connections))
    )
    stop_at = time.monotonic() + seconds
    await asyncio.gather(
        *(_connection(port, requests, c * 1000, stop_at, counts) for c in range(connections))
    )
    return counts


def measure(
    kind: str,
    seconds: float,
    connections: int,
    requests: list[tuple[bytes, bytes]],
    baseline: Path | None = None,
) -> tuple[float, int]:
    port = _free_port()
    proc = _start(kind, port, baseline)
    try:
        _wait_ready(port)
        if kind in (*EMULATORS, "moto"):
            _create_table(port, stream=kind == "emulator+stream")
        t0 = time.monotonic()
        from emulator.server.serving import new_event_loop

        with asyncio.Runner(loop_factory=new_event_loop) as runner:
            counts = runner.run(_drive(port, seconds, connections, requests))
        elapsed = time.monotonic() - t0 - 2.0
        return counts["ok"] / max(elapsed, 1e-9), counts["err"]
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()


def per_round(runs: dict[str, list[float]], numerator: str, denominator: str) -> str | None:
    """`A / B per round: r1, r2, ... (median m)` for two targets of one run, each round's
    rates divided (the two ran back to back in it); None unless both ran."""
    if numerator not in runs or denominator not in runs:
        return None
    pairs = zip(runs[numerator], runs[denominator], strict=True)
    ratios = [a / b for a, b in pairs if b]
    if not ratios:
        return None
    shown = ", ".join(f"{r:.2f}" for r in ratios)
    return (
        f"{numerator} / {denominator} per round: {shown} (median {statistics.median(ratios):.2f})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--targets", default="bare,emulator,moto")
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="another checkout whose emulator is the target `baseline` (e.g. a worktree of main)",
    )
    parser.add_argument("--serve", choices=["bare", "aiohttp", "emulator"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    # This checkout's packages, not the ones the venv's editable install points at: the
    # servers run them, and the status line below must name their build.
    sys.path.insert(0, str(ROOT))
    if args.serve:
        {"bare": serve_bare, "aiohttp": serve_aiohttp, "emulator": serve_emulator}[args.serve](
            args.port
        )
        return 0
    _pin(CLIENT_CORE)
    requests = _requests(20_000)
    kinds = args.targets.split(",")
    runs: dict[str, list[float]] = {kind: [] for kind in kinds}
    from emulator.native import status

    print(f"emulator and bare server: {status()}")
    print(
        f"PutItem of ~1 KB items, table with 3 GSIs; server on core {SERVER_CORE}, client "
        f"on core {CLIENT_CORE}; {args.connections} keep-alive connections, "
        f"{args.seconds:g} s per target, {args.rounds} rounds"
    )
    for round_no in range(1, args.rounds + 1):
        for kind in kinds:
            rate, errors = measure(kind, args.seconds, args.connections, requests, args.baseline)
            runs[kind].append(rate)
            print(
                f"  round {round_no} {kind:15s} {rate:10.0f} req/s   ({errors} errors)",
                flush=True,
            )
    rates = {kind: statistics.median(values) for kind, values in runs.items()}
    print()
    print("medians:")
    print(f"{'target':16s} {'req/s':>10s} {'vs bare':>9s} {'vs moto':>9s} {'vs emulator':>12s}")
    for kind, rate in rates.items():
        vs_bare = f"{rate / rates['bare']:.2f}x" if rates.get("bare") else "-"
        vs_moto = f"{rate / rates['moto']:.1f}x" if rates.get("moto") else "-"
        vs_emulator = f"{rate / rates['emulator']:.2f}x" if rates.get("emulator") else "-"
        print(f"{kind:16s} {rate:10.0f} {vs_bare:>9s} {vs_moto:>9s} {vs_emulator:>12s}")
    # Per round (each pair ran back to back), so a neighbour's load shows as spread:
    # this branch against another checkout, and a stream's cost (on against off).
    for numerator, denominator in (("emulator", "baseline"), ("emulator+stream", "emulator")):
        line = per_round(runs, numerator, denominator)
        if line is not None:
            print(line)
    ok = True
    if "emulator" in rates and "bare" in rates:
        ok &= rates["emulator"] >= 0.5 * rates["bare"]
    if "emulator" in rates and "moto" in rates:
        ok &= rates["emulator"] >= 30 * rates["moto"]
    judged = "emulator" in rates and "bare" in rates and "moto" in rates
    print(
        "targets (>= 0.5x bare, >= 30x moto):",
        ("met" if ok else "NOT met") if judged else "not judged (run bare, emulator and moto)",
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
