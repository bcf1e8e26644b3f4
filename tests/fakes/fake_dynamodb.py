"""A fake DynamoDB data plane on loopback, for tests and the benchmark (never shipped).

It answers every POST with a canned reply chosen by its mode and counts what arrives, so a
test can prove that a worker never retried (arrivals == sent) and can make a server that
stops answering. It speaks just enough HTTP/1.1 (keep-alive, Content-Length). It binds
127.0.0.1 only.

Modes:
- ok: `{}` with HTTP 200, as fast as possible (the benchmark's bare server);
- mixed: deterministic mix by arrival number n: n % 5 == 1 throttled (400,
  ProvisionedThroughputExceededException with ThrottlingReasons), n % 11 == 2 a
  ValidationException, n % 13 == 3 never answered (the client times out), otherwise 200
  with ConsumedCapacity;
- silent: accepts connections and reads requests but never replies;
- answer-then-silent: answers the first `answer_first` requests, then goes silent;
- slow: `{}` after `delay_s` (a server slower than the send interval).

Run in a thread (`FakeDynamoDB` context manager) or as a process:
`python -m tests.fakes.fake_dynamodb --mode ok` prints the port it listens on.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import threading
from types import TracebackType
from typing import cast

import httptools

from emulator import eventloop
from emulator.wire import JSON_CONTENT_TYPE

OK = (
    b"HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: 2\r\n\r\n{}"
    % JSON_CONTENT_TYPE.encode()
)


def _reply(status: int, reason: str, payload: dict[str, object]) -> bytes:
    body = json.dumps(payload).encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: {JSON_CONTENT_TYPE}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


CONSUMED = _reply(
    200,
    "OK",
    {"ConsumedCapacity": {"TableName": "t", "CapacityUnits": 2.0, "Table": {"CapacityUnits": 1.0}}},
)
THROTTLED = _reply(
    400,
    "Bad Request",
    {
        "__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
        "message": "The level of configured provisioned throughput for the table was exceeded.",
        "ThrottlingReasons": [
            {
                "reason": "TableWriteKeyRangeThroughputExceeded",
                "resource": "arn:aws:dynamodb:local:0:table/t",
            }
        ],
    },
)
INVALID = _reply(
    400,
    "Bad Request",
    {"__type": "com.amazon.coral.validate#ValidationException", "message": "bad"},
)


class Stats:
    """What the stand-in saw; read it after the client is done."""

    def __init__(self) -> None:
        self.arrivals = 0
        self.connections = 0
        self.bodies: list[bytes] = []
        self.keep_bodies = False
        self.pending = 0  # requests received whose delayed reply is not yet written
        self.peak_pending = 0  # the most at once: > the client's cap proves it did not wait


class _ServerConn(asyncio.Protocol):
    def __init__(self, server: FakeDynamoDB) -> None:
        self.server = server
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.body: list[bytes] = []

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's are not subclasses
        self.server.stats.connections += 1
        self.server._transports.add(self.transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport is not None:
            self.server._transports.discard(self.transport)

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            if self.transport is not None:
                self.transport.close()

    def on_body(self, body: bytes) -> None:
        if self.server.stats.keep_bodies:
            self.body.append(body)

    def on_message_complete(self) -> None:
        stats = self.server.stats
        stats.arrivals += 1
        if stats.keep_bodies:
            stats.bodies.append(b"".join(self.body))
            self.body = []
        reply = self.server.reply_for(stats.arrivals)
        if reply is None or self.transport is None:
            return
        if self.server.delay_s > 0:
            stats.pending += 1
            stats.peak_pending = max(stats.peak_pending, stats.pending)
            asyncio.get_running_loop().call_later(self.server.delay_s, self._write, reply)
        else:
            self.transport.write(reply)

    def _write(self, reply: bytes) -> None:
        self.server.stats.pending -= 1
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(reply)


class FakeDynamoDB:
    """The stand-in server on 127.0.0.1 in a background thread (context manager)."""

    def __init__(
        self, mode: str = "ok", answer_first: int = 0, port: int = 0, delay_s: float = 0.05
    ) -> None:
        if mode not in ("ok", "mixed", "silent", "answer-then-silent", "slow"):
            raise ValueError(f"unknown stand-in mode {mode!r}")
        self.mode = mode
        self.delay_s = delay_s if mode == "slow" else 0.0
        self.answer_first = answer_first
        self.port = port
        self.stats = Stats()
        self._transports: set[asyncio.Transport] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def reply_for(self, n: int) -> bytes | None:
        """The reply to the n-th request (1-based), or None to stay silent."""
        if self.mode in ("ok", "slow"):
            return OK
        if self.mode == "silent":
            return None
        if self.mode == "answer-then-silent":
            return OK if n <= self.answer_first else None
        if n % 13 == 3:
            return None
        if n % 5 == 1:
            return THROTTLED
        if n % 11 == 2:
            return INVALID
        return CONSUMED

    async def serve(self, on_port: threading.Event | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await self._loop.create_server(
            lambda: _ServerConn(self), "127.0.0.1", self.port, backlog=1024
        )
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stop.wait()
            for t in list(self._transports):
                t.abort()

    def __enter__(self) -> FakeDynamoDB:
        self._thread = threading.Thread(
            target=lambda: asyncio.run(self.serve()), name="standin", daemon=True
        )
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("stand-in server did not start")
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._loop is not None and self._stop is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(5)


def main() -> None:
    parser = argparse.ArgumentParser(description="loopback DynamoDB stand-in")
    parser.add_argument("--mode", default="ok")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = FakeDynamoDB(args.mode, port=args.port)

    async def run() -> None:
        task = asyncio.create_task(server.serve())
        await asyncio.get_running_loop().run_in_executor(None, server._ready.wait)
        print(server.port, flush=True)
        await task

    eventloop.run(run())


if __name__ == "__main__":
    main()
