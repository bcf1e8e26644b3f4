"""A lean keep-alive HTTP/1.1 client for measured requests: one attempt, always a timeout.

Why not aiohttp: one process with its client falls short of the >= 4,000 signed requests/s
a worker must offer (docs/loadgen.md, "Throughput of one worker process"). This client
does only what a measured DynamoDB request needs: a pool of keep-alive connections, one
request at a time per connection (no pipelining, so a slow reply never delays another
request's clock), responses parsed by httptools, and completion delivered by a plain
callback instead of a task per request.

The rules that make it a measuring instrument:
- every request has a deadline (connect included); at the deadline the request is
  reported as a timeout and its connection is closed (also one still connecting: its
  socket is closed the moment the connect completes), so a late reply can never be
  mistaken for the next request's and no socket is left open;
- a failed request is reported, never retried, at any layer: a connection that died while
  idle in the pool is dropped before reuse, one that dies under a request fails that
  request;
- the pool size is the cap on requests in flight.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from collections.abc import Callable
from typing import Any, cast

import httptools

TIMEOUT = "Timeout"
"""The `error` passed to a callback when a request's deadline passed."""

Callback = Callable[[Any, int, bytes, str | None], None]
"""(context, HTTP status or 0, body, error name or None) -> None."""


class _Connection(asyncio.Protocol):
    """One keep-alive connection carrying at most one request at a time."""

    __slots__ = ("_body", "_busy_cb", "_ctx", "_parser", "_pool", "_timer", "closed", "transport")

    def __init__(self, pool: HttpPool) -> None:
        self._pool = pool
        self.transport: asyncio.Transport | None = None
        self._parser = httptools.HttpResponseParser(self)
        self._body: list[bytes] = []
        self._busy_cb: Callback | None = None
        self._ctx: Any = None
        self._timer: asyncio.TimerHandle | None = None
        self.closed = False

    # --- asyncio.Protocol -------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports do not subclass asyncio.Transport; they have its methods.
        self.transport = cast(asyncio.Transport, transport)
        if self.closed:  # its request timed out while connecting: nobody will use it
            self.transport.abort()

    def data_received(self, data: bytes) -> None:
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError:
            self._fail("BadHttpResponse")

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._pool._forget(self)
        if self._busy_cb is not None:
            self._fail(type(exc).__name__ if exc else "ConnectionClosed")

    # --- httptools callbacks ----------------------------------------------------------
    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        cb, ctx = self._busy_cb, self._ctx
        if cb is None:
            return
        status = self._parser.get_status_code()
        body = b"".join(self._body)
        keep = self._parser.should_keep_alive()
        self._finish()
        if keep and not self.closed:
            self._pool._release(self)
        else:
            self.close()
        cb(ctx, status, body, None)

    # --- client side ------------------------------------------------------------------
    def send(self, payload: bytes, ctx: Any, cb: Callback, deadline: float) -> None:
        assert self.transport is not None
        self._busy_cb, self._ctx = cb, ctx
        self._body = []
        self._timer = self._pool.loop.call_at(deadline, self._on_timeout)
        self.transport.write(payload)

    def start_timer(self, ctx: Any, cb: Callback, deadline: float) -> None:
        """Arm the deadline before the connection exists (it covers connecting)."""
        self._busy_cb, self._ctx = cb, ctx
        self._timer = self._pool.loop.call_at(deadline, self._on_timeout)

    def _on_timeout(self) -> None:
        self._timer = None
        self._fail(TIMEOUT)

    def _finish(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._busy_cb, self._ctx = None, None
        self._pool._slot_freed()

    def _fail(self, error: str) -> None:
        cb, ctx = self._busy_cb, self._ctx
        if cb is None:
            return
        self._finish()
        self.close()
        cb(ctx, 0, b"", error)

    @property
    def busy(self) -> bool:
        return self._busy_cb is not None

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._pool._forget(self)
            if self.transport is not None:
                self.transport.abort()


class HttpPool:
    """Up to `size` keep-alive connections to one host; `size` caps requests in flight."""

    def __init__(
        self,
        host: str,
        port: int,
        size: int,
        timeout_s: float,
        loop: asyncio.AbstractEventLoop | None = None,
        tls: bool = False,
    ) -> None:
        self.host, self.port = host, port
        self.ssl: ssl.SSLContext | None = ssl.create_default_context() if tls else None
        self.size = size
        self.timeout_s = timeout_s
        self.loop = loop or asyncio.get_running_loop()
        self.in_flight = 0
        self._idle: deque[_Connection] = deque()
        self._all: set[_Connection] = set()
        self._head = f"POST / HTTP/1.1\r\nHost: {host}:{port}\r\n".encode()
        self.on_slot_free: Callable[[], None] | None = None

    @property
    def available(self) -> int:
        """Requests that can start now without exceeding the cap."""
        return self.size - self.in_flight

    def request(self, payload: bytes, ctx: Any, cb: Callback) -> None:
        """Send one fully framed request (see `frame`); `cb` is called exactly once."""
        if self.in_flight >= self.size:
            raise RuntimeError("request cap reached: check `available` before sending")
        self.in_flight += 1
        deadline = self.loop.time() + self.timeout_s
        while self._idle:
            conn = self._idle.pop()
            if not conn.closed:
                conn.send(payload, ctx, cb, deadline)
                return
        conn = _Connection(self)
        self._all.add(conn)
        conn.start_timer(ctx, cb, deadline)
        self.loop.create_task(self._connect(conn, payload))

    async def _connect(self, conn: _Connection, payload: bytes) -> None:
        try:
            await self.loop.create_connection(
                lambda: conn,
                self.host,
                self.port,
                ssl=self.ssl,
                server_hostname=self.host if self.ssl is not None else None,
            )
        except Exception as exc:  # any failure to connect is this request's error
            conn._fail(type(exc).__name__)
            return
        if conn.closed or not conn.busy:  # timed out (or aborted) while connecting
            conn.close()
            if conn.transport is not None and not conn.transport.is_closing():
                conn.transport.abort()
            return
        assert conn.transport is not None
        conn.transport.write(payload)

    def frame(self, headers: list[tuple[str, str]], body: bytes) -> bytes:
        """The bytes of one POST / request. The Host header comes from `headers` (it is
        part of the signature) or, if absent there, from the pool."""
        lines = [f"{k}: {v}\r\n" for k, v in headers]
        has_host = any(k.lower() == "host" for k, _ in headers)
        head = b"POST / HTTP/1.1\r\n" if has_host else self._head
        return b"".join(
            (head, "".join(lines).encode(), b"Content-Length: %d\r\n\r\n" % len(body), body)
        )

    def _release(self, conn: _Connection) -> None:
        self._idle.append(conn)

    def _forget(self, conn: _Connection) -> None:
        self._all.discard(conn)

    def _slot_freed(self) -> None:
        self.in_flight -= 1
        if self.on_slot_free is not None:
            self.on_slot_free()

    def abort_all(self, error: str) -> None:
        """Fail every request in flight with `error` and close every connection."""
        for conn in list(self._all):
            if conn.busy:
                conn._fail(error)
            conn.close()
        self._idle.clear()
