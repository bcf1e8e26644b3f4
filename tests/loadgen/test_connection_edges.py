"""The places where an HTTP client hides a retry: a connection reset under a request, a
keep-alive connection the server closed between requests, a connect that outlives its
deadline. Each request must be counted once, never retried, and the server must see
exactly one attempt of it.

The servers here are raw asyncio servers on 127.0.0.1 in the test's own event loop, so
the test decides byte by byte what the client gets, and counts every attempt by the
request's own stamp (the filler attribute of a measured put is unique per request).
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import struct
import time
from collections import Counter
from typing import Any

from loadgen.live.httpclient import TIMEOUT, HttpPool
from loadgen.live.measure import Measurement
from loadgen.live.sigv4 import StaticCredentials
from loadgen.load.requests import UNREADABLE, classify

from .conftest import make_plan

OK_BODY = json.dumps({"ConsumedCapacity": {"TableName": "tbl", "CapacityUnits": 1.0}}).encode()
OK = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-json-1.0\r\n"
    b"Content-Length: %d\r\n\r\n" % len(OK_BODY)
) + OK_BODY
STAMP = re.compile(rb'"hbpad": \{"S": "([0-9a-f]+\.[0-9a-f]+)\.')


async def read_request(reader: asyncio.StreamReader) -> bytes | None:
    """One request's body, or None when the client closed the connection."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))  # type: ignore[union-attr]
    return await reader.readexactly(length)


def reset(writer: asyncio.StreamWriter) -> None:
    """Close with an RST (SO_LINGER 0), as a crashed server or a middlebox does."""
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


class EdgeServer:
    """Answers puts with 200, except: arrival numbers in `reset_on` get a reset instead of
    a reply; after answering an arrival in `close_after` the server closes the
    connection (a keep-alive connection the server ended between requests)."""

    def __init__(self, reset_on: set[int], close_after: set[int]) -> None:
        self.reset_on, self.close_after = reset_on, close_after
        self.arrivals = 0
        self.stamps: Counter[bytes] = Counter()
        self.connections = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        while True:
            body = await read_request(reader)
            if body is None:
                writer.close()
                return
            self.arrivals += 1
            match = STAMP.search(body)
            assert match, body[:200]
            self.stamps[match.group(1)] += 1
            if self.arrivals in self.reset_on:
                reset(writer)
                return
            writer.write(OK)
            await writer.drain()
            if self.arrivals in self.close_after:
                writer.close()
                return


async def measure_against(server: EdgeServer, rate: float, duration_s: float) -> Any:
    listener = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    plan = make_plan(
        f"http://127.0.0.1:{port}", rate=rate, duration_s=duration_s, timeout_s=1.0, drain_s=2.0
    )
    try:
        measurement = Measurement(plan, 0, StaticCredentials("a", "b"))
        report = await measurement.run(time.time() + 0.1)
        await asyncio.sleep(0.3)  # room for a retry to arrive, were there one
    finally:
        listener.close()
    return report


def test_reset_mid_request_is_one_error_and_never_retried() -> None:
    server = EdgeServer(reset_on={5, 17, 33}, close_after=set())
    report = asyncio.run(measure_against(server, rate=50, duration_s=1.0))
    total = report.totals()
    assert total.sent == 50 == server.arrivals
    assert len(server.stamps) == 50 and set(server.stamps.values()) == {1}  # no retry
    assert total.errors == 3 and total.succeeded == 47 and total.timeouts == 0
    assert sum(total.errors_by_type.values()) == 3
    assert total.gap() == 0 and total.unaccounted == 0


def test_keepalive_closed_between_requests_costs_nothing_and_is_not_retried() -> None:
    server = EdgeServer(reset_on=set(), close_after={3, 10, 20, 30, 40})
    report = asyncio.run(measure_against(server, rate=50, duration_s=1.0))
    total = report.totals()
    assert total.sent == 50 == server.arrivals
    assert len(server.stamps) == 50 and set(server.stamps.values()) == {1}
    assert total.succeeded == 50 and total.errors == 0
    assert server.connections >= 6  # each close made the next request open a new one


def test_request_on_a_keepalive_connection_the_server_just_closed_fails_once() -> None:
    """The race a hidden retry covers up: the request leaves on a connection whose FIN is
    already on its way. It must fail once, and reach the server once."""
    arrivals: list[bytes] = []
    outcomes: list[tuple[str, int, str | None]] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        first = await read_request(reader)
        assert first is not None
        arrivals.append(first)
        writer.write(OK)
        writer.write_eof()  # the server ends the connection right after its reply ...
        second = await read_request(reader)  # ... but still reads what was in flight
        if second is not None:
            arrivals.append(second)
        writer.close()

    async def main() -> None:
        listener = await asyncio.start_server(handle, "127.0.0.1", 0)
        port = listener.sockets[0].getsockname()[1]
        pool = HttpPool("127.0.0.1", port, 4, timeout_s=2.0)

        def done(ctx: Any, status: int, body: bytes, error: str | None) -> None:
            outcomes.append((ctx, status, error))
            if ctx == "one":  # sent at once: on the connection just released to the pool
                pool.request(pool.frame([], b"two"), "two", done)

        pool.request(pool.frame([], b"one"), "one", done)
        deadline = time.monotonic() + 3
        while len(outcomes) < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)  # a retry would arrive now
        listener.close()

    asyncio.run(main())
    assert [o[0] for o in outcomes] == ["one", "two"]
    assert outcomes[0][1:] == (200, None)
    assert outcomes[1][1] == 0 and outcomes[1][2] is not None  # an error, counted once
    assert arrivals == [b"one", b"two"]  # the server saw the second request exactly once


def test_a_connect_that_outlives_its_deadline_is_closed() -> None:
    """The request times out while connecting; when the connect completes later, the
    socket is closed at once instead of lingering unused."""

    class Transport:
        aborted = False

        def abort(self) -> None:
            self.aborted = True

        def is_closing(self) -> bool:
            return self.aborted

        def write(self, data: bytes) -> None:
            raise AssertionError("nothing may be written on a timed-out connection")

    transport = Transport()
    outcomes: list[str | None] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        connected = asyncio.Event()

        async def slow_connect(factory: Any, *args: Any, **kwargs: Any) -> Any:
            await connected.wait()
            protocol = factory()
            protocol.connection_made(transport)
            return transport, protocol

        pool = HttpPool("127.0.0.1", 9, 4, timeout_s=0.05, loop=loop)
        loop_proxy = _LoopWith(loop, slow_connect)
        pool.loop = loop_proxy  # type: ignore[assignment]
        pool.request(b"x", "ctx", lambda ctx, status, body, error: outcomes.append(error))
        await asyncio.sleep(0.2)  # past the deadline: reported as a timeout
        assert outcomes == [TIMEOUT] and pool.in_flight == 0
        connected.set()  # now the connect completes
        await asyncio.sleep(0.05)

    asyncio.run(main())
    assert transport.aborted
    assert outcomes == [TIMEOUT]  # counted once


class _LoopWith:
    """The running loop with its create_connection replaced."""

    def __init__(self, loop: asyncio.AbstractEventLoop, create_connection: Any) -> None:
        self._loop = loop
        self.create_connection = create_connection

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loop, name)


def test_a_200_with_an_unreadable_body_is_an_error() -> None:
    for body in (b"", b"{trunc", b"[]", b'{"ConsumedCapacity": "x"}', b"\xff\xfe"):
        outcome = classify(200, body)
        assert (outcome.kind, outcome.name) == ("error", UNREADABLE), body
    assert classify(200, b"{}").kind == "ok"
    assert classify(200, OK_BODY).consumed == 1.0
