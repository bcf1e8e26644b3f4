"""A lean HTTP/1.1 server: an asyncio Protocol on httptools' C parser.

Why our own protocol rather than a framework: a framework's HTTP layer costs the server
core more per request than the emulator's own work for a PutItem, so it, not the
capacity model, would set the emulator's rate (docs/emulator.md, "History of the
measurements"). What the emulator needs of HTTP is small (bodies by Content-Length or
chunked, keep-alive, pipelined requests answered in order, 100-continue, a size limit, a
few GET routes), and httptools (the parser uvicorn runs on) does the parsing; this module
only frames requests and replies, in a few microseconds. The benchmark's bare ceiling
runs on the same class, so the emulator is compared with exactly the stack it uses.

A handler gets (method, path, query, X-Amz-Target, body) and returns a `Reply`. Replies
go out in request order; a reply may ask to be held back (the --latency model) without
holding up the parsing of the next request.
"""

from __future__ import annotations

import asyncio
import collections
import email.utils
import itertools
import logging
import time
import zlib
from collections.abc import Callable
from typing import NamedTuple, cast

import httptools

from emulator.wire import JSON_CONTENT_TYPE

log = logging.getLogger("hotbench.emulator")

MAX_REQUEST_BYTES = 16 * 1024 * 1024
"""[AWS] the largest request DynamoDB accepts (a full BatchWriteItem)."""
MAX_HEADER_BYTES = 16 * 1024
"""The request line and headers DynamoDB accepts: 16 KB, beyond which it answers 400
(measured against DynamoDB by ScyllaDB's Alternator tests, test_manual_requests.py
test_too_large_request_headers); it also bounds what a client can make the server hold."""


class Reply(NamedTuple):
    """One HTTP response: status, content type, body, and seconds to hold it back."""

    status: int
    content_type: str
    body: bytes
    delay_s: float = 0.0


Headers = list[tuple[bytes, bytes]]
RequestHandler = Callable[
    [str, str, str, "str | None", bytes, "bytes | None", "Headers | None"], Reply
]
"""handler(method, path, query, x_amz_target, body, authorization, headers) -> Reply;
`authorization` the Authorization header's bytes (undecoded: most requests need only
its credential scope, found by its bytes), `headers` all of the request's, in order,
when the server keeps them (`keep_headers`:
the signature check needs them), else None. Must not raise (a raise is answered with a
500 naming a server bug)."""

PLAIN_JSON = "application/json"
IDLE_TIMEOUT_S = 60.0
"""A keep-alive connection with nothing to answer and nothing received for this long is
closed, so a client that leaks sockets cannot exhaust the server's file descriptors, and
one that sends half a request and stops cannot hold a connection for ever. DynamoDB
documents no figure; 60 s is the default idle timeout of AWS's load balancers
(https://docs.aws.amazon.com/elasticloadbalancing/latest/application/application-load-balancers.html#connection-idle-timeout),
longer than any SDK's default keep-alive pool waits between requests."""

_REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    413: "Request Entity Too Large",
    500: "Internal Server Error",
}
_TOO_LARGE = (
    b'{"__type":"com.amazon.coral.validate#ValidationException","message":'
    b'"Request size exceeded %d bytes"}' % MAX_REQUEST_BYTES
)
_HEADERS_TOO_LARGE = (
    b'{"__type":"com.amazon.coral.service#SerializationException","Message":'
    b'"Request headers exceeded %d bytes"}' % MAX_HEADER_BYTES
)
_BAD_HTTP = (
    b'{"__type":"com.amazon.coral.service#SerializationException","Message":'
    b'"Malformed HTTP request"}'
)
_BUG = (
    b'{"__type":"com.amazon.coral.service#InternalFailure","message":'
    b'"hotbench emulator bug: see the server log"}'
)


class _Date:
    """The Date header line, formatted once per second rather than once per reply."""

    def __init__(self) -> None:
        self.second = -1
        self.line = b""

    def now(self) -> bytes:
        second = int(time.time())
        if second != self.second:
            self.second = second
            self.line = f"Date: {email.utils.formatdate(second, usegmt=True)}\r\n".encode()
        return self.line


_DATE = _Date()
_ID_PREFIX = f"{int(time.time()) & 0xFFFFFFFF:08X}".encode()
"""x-amzn-RequestId is this process's start time and a reply counter: unique per
process, and cheaper than a uuid4 per reply; 52 characters of [0-9A-Z], the shape of
DynamoDB's own (dynalite's tests, run against AWS, check it)."""
_request_ids = itertools.count(1)
_STATUS_LINES: dict[tuple[int, str], bytes] = {}


def _status_line(status: int, content_type: str) -> bytes:
    """The status line and Content-Type header of a reply (formatted once per pair)."""
    line = _STATUS_LINES.get((status, content_type))
    if line is None:
        line = _STATUS_LINES[(status, content_type)] = (
            f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\nContent-Type: {content_type}\r\n"
        ).encode("latin-1")
    return line


def encode_reply(reply: Reply, keep_alive: bool) -> bytes:
    """The bytes of one response, with the headers DynamoDB sends (x-amz-crc32 lets an
    SDK check the body, as botocore does against AWS)."""
    body = reply.body
    return (
        b"%sContent-Length: %d\r\nx-amzn-RequestId: %s%044X\r\nx-amz-crc32: %d\r\n"
        b"%sServer: hotbench\r\n%s\r\n%s"
        % (
            _status_line(reply.status, reply.content_type),
            len(body),
            _ID_PREFIX,
            next(_request_ids),
            zlib.crc32(body),
            _DATE.now(),
            b"" if keep_alive else b"Connection: close\r\n",
            body,
        )
    )


_Request = tuple[bytes, bytes, "str | None", bytes, bool, "bytes | None", "Headers | None", bool]
"""A parsed request: method, URL, X-Amz-Target, body, keep-alive, Authorization, and
every header when they are kept."""
_Work = _Request | tuple[Reply, bool]
"""What a connection queues: a request to answer, or a reply made by the HTTP layer
itself (a refusal, or the end of a half-closed connection) with its keep-alive."""


class HttpServer:
    """The protocol factory of one listening socket, its open connections (so that
    stopping the server also closes keep-alive connections, which asyncio.Server.close
    leaves open before Python 3.13), and the work of the current event-loop turn."""

    def __init__(
        self,
        handler: RequestHandler,
        idle_timeout_s: float | None = IDLE_TIMEOUT_S,
        keep_headers: bool = False,
    ) -> None:
        self.handler = handler
        self.connections: set[HttpConnection] = set()
        self.inbox: list[tuple[HttpConnection, _Work]] = []
        self.outbox: list[tuple[HttpConnection, bytes, bool]] = []
        self.scheduled = False
        self.idle_timeout_s = idle_timeout_s
        """Seconds a connection may stay idle before it is closed (None: never)."""
        self.keep_headers = keep_headers
        """Hand every request's headers to the handler (the signature check needs them)."""
        self.idle_closed = 0
        """Connections closed for idleness (what the tests count)."""
        self._sweeper: asyncio.TimerHandle | None = None

    def __call__(self) -> HttpConnection:
        if self._sweeper is None and self.idle_timeout_s is not None:
            self._schedule_sweep()
        return HttpConnection(self)

    def _schedule_sweep(self) -> None:
        assert self.idle_timeout_s is not None
        # One timer for all connections, a quarter of the timeout apart: no timer to set
        # and cancel per request, and an idle connection goes within 1.25 timeouts.
        self._sweeper = asyncio.get_running_loop().call_later(self.idle_timeout_s / 4, self._sweep)

    def _sweep(self) -> None:
        """Close the connections idle past the timeout (nothing held back for them)."""
        assert self.idle_timeout_s is not None
        deadline = time.monotonic() - self.idle_timeout_s
        for connection in list(self.connections):
            if connection.last_active < deadline and not connection.held:
                self.idle_closed += 1
                connection.close()
        self._schedule_sweep()

    def close_all(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        for connection in list(self.connections):
            connection.close()

    def submit(self, connection: HttpConnection, work: _Work) -> None:
        """Queue a request (or a ready reply) for the end of this turn of the loop."""
        self.inbox.append((connection, work))
        if not self.scheduled:
            self.scheduled = True
            asyncio.get_running_loop().call_soon(self.turn)

    def post(self, connection: HttpConnection, data: bytes, keep_alive: bool) -> None:
        """Queue a reply's bytes; `turn` sends them."""
        self.outbox.append((connection, data, keep_alive))

    def turn(self) -> None:
        """Answer the requests of this turn, then send the replies, in arrival order.

        Why not answer and send each request as it is read: the loop hands over every
        ready connection in one turn; running the handler for all of them back to back,
        and only then the kernel's send path for all replies, keeps each one's code and
        data in the CPU caches instead of alternating the two (measured with
        benchmarks/endpoint.py). A reply waits only for the rest of the current turn."""
        inbox, self.inbox = self.inbox, []
        self.scheduled = False
        for connection, work in inbox:
            connection.answer(work)
        outbox, self.outbox = self.outbox, []
        for connection, data, keep_alive in outbox:
            transport = connection.transport
            if transport is None or transport.is_closing():
                continue
            if data:
                transport.write(data)
            if not keep_alive:
                transport.close()


class HttpConnection(asyncio.Protocol):
    """One client connection: parse, queue, answer and reply in order."""

    def __init__(self, server: HttpServer) -> None:
        self.server = server
        self.handler = server.handler
        self.parser = httptools.HttpRequestParser(self)
        self.transport: asyncio.Transport | None = None
        self.url = b""
        self.target: str | None = None
        self.body: list[bytes] = []
        self.size = 0
        self.header_bytes = 0
        """Bytes of the request line and headers so far (refused past MAX_HEADER_BYTES)."""
        self.too_large = False
        self.reading = True
        """False once nothing more is to be parsed (a closing request, bad HTTP, EOF)."""
        self.finished = False
        """True once a closing reply is queued: nothing after it is answered."""
        self.held: collections.deque[tuple[float, bytes, bool]] = collections.deque()
        self.timer: asyncio.TimerHandle | None = None
        self.authorization: bytes | None = None
        self.plain_json = False
        """The request's Content-Type was application/json: so is the reply's."""
        self.headers: Headers | None = None
        self.keep_headers = server.keep_headers
        self.last_active = time.monotonic()
        """When the client last sent anything (the idle sweep closes it past the timeout)."""

    # asyncio.Protocol ---------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports implement asyncio.Transport without subclassing it
        self.transport = cast(asyncio.Transport, transport)
        self.server.connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.connections.discard(self)
        self.reading = False
        self.transport = None
        if self.timer is not None:
            self.timer.cancel()

    def data_received(self, data: bytes) -> None:
        self.last_active = time.monotonic()
        while data and self.reading:
            try:
                self.parser.feed_data(data)
                return
            except httptools.HttpParserUpgrade as upgrade:
                # No protocol upgrades: the request was answered as plain HTTP/1.1, and
                # the parser stopped there; go on with what followed it.
                offset = upgrade.args[0] if upgrade.args else 0
                data = data[offset:] if offset > 0 else b""
            except httptools.HttpParserError:
                self.reading = False
                self.server.submit(self, (Reply(400, JSON_CONTENT_TYPE, _BAD_HTTP), False))
                return

    def eof_received(self) -> bool:
        """The client half-closed (sent all it will send): answer what it asked, then
        close. True keeps the transport open for those replies."""
        if self.reading:
            self.reading = False
            self.server.submit(self, (Reply(0, "", b""), False))
        return True

    def pause_writing(self) -> None:
        """A client that does not read its replies stops being read (bounded memory)."""
        if self.transport is not None:
            self.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.transport is not None and self.reading:
            self.transport.resume_reading()

    def close(self) -> None:
        self.reading = False
        self.finished = True
        if self.transport is not None:
            self.transport.close()

    # httptools callbacks ------------------------------------------------------------------
    def on_message_begin(self) -> None:
        self.url = b""
        self.target = None
        self.authorization = None
        self.plain_json = False
        self.headers = [] if self.keep_headers else None
        self.body = []
        self.size = 0
        self.header_bytes = 0
        self.too_large = False

    def on_url(self, url: bytes) -> None:
        self.url += url
        self.header_bytes += len(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self.header_bytes += len(name) + len(value)
        if self.headers is not None:
            self.headers.append((name, value))
        if len(name) == 12:
            lowered = name.lower()
            if lowered == b"x-amz-target":
                self.target = value.decode("latin-1")
            elif lowered == b"content-type" and value.startswith(b"application/json"):
                # [AWS] DynamoDB answers in the content type it was asked in: JSON 1.0's,
                # or plain application/json (dynalite's test/connection.js, run on AWS).
                self.plain_json = True
        elif len(name) == 13 and name.lower() == b"authorization":
            self.authorization = value
        elif (
            len(name) == 6
            and name.lower() == b"expect"
            and value.lower() == b"100-continue"
            and self.transport is not None
        ):
            self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    def on_body(self, body: bytes) -> None:
        self.size += len(body)
        if self.size > MAX_REQUEST_BYTES:
            self.too_large = True  # read on to the end, so the client sees the reply
            self.body = []
        elif not self.too_large:
            self.body.append(body)

    def on_message_complete(self) -> None:
        keep_alive = self.parser.should_keep_alive()
        if not keep_alive:
            self.reading = False
        if self.too_large:
            self.reading = False
            self.server.submit(self, (Reply(413, JSON_CONTENT_TYPE, _TOO_LARGE), False))
            return
        if self.header_bytes > MAX_HEADER_BYTES:
            self.reading = False
            self.server.submit(self, (Reply(400, JSON_CONTENT_TYPE, _HEADERS_TOO_LARGE), False))
            return
        body = self.body[0] if len(self.body) == 1 else b"".join(self.body)
        self.server.submit(
            self,
            (
                self.parser.get_method(),
                self.url,
                self.target,
                body,
                keep_alive,
                self.authorization,
                self.headers,
                self.plain_json,
            ),
        )

    # answers and replies ------------------------------------------------------------------
    def answer(self, work: _Work) -> None:
        """Run the handler on one queued request (or take the ready reply) and queue
        the reply."""
        if len(work) == 2:
            ready, keep_alive = cast(tuple[Reply, bool], work)
            self._send(ready, keep_alive)
            return
        raw_method, url, target, body, keep_alive, authorization, headers, plain_json = cast(
            _Request, work
        )
        method = raw_method.decode("latin-1")
        path, _, query = url.decode("latin-1").partition("?")
        try:
            reply = self.handler(method, path, query, target, body, authorization, headers)
            if plain_json and reply.content_type == JSON_CONTENT_TYPE:
                reply = reply._replace(content_type=PLAIN_JSON)
        except Exception:  # the handler's contract is not to raise; never drop the client
            log.exception("handler failed on %s %s", method, path)
            reply = Reply(500, JSON_CONTENT_TYPE, _BUG)
        self._send(reply, keep_alive, head_only=method == "HEAD")

    def _send(self, reply: Reply, keep_alive: bool, head_only: bool = False) -> None:
        """Queue a reply's bytes: for this turn's end, or held back (--latency) behind
        any reply held before it. Status 0 is no reply, only the close that follows."""
        if self.transport is None or self.finished:
            return
        if not keep_alive:
            self.finished = True
        data = encode_reply(reply, keep_alive) if reply.status else b""
        if head_only:
            data = data[: len(data) - len(reply.body)]
        if reply.delay_s <= 0 and not self.held:
            self.server.post(self, data, keep_alive)
            return
        loop = asyncio.get_running_loop()
        ready_at = loop.time() + max(reply.delay_s, 0.0)
        if self.held:
            ready_at = max(ready_at, self.held[-1][0])
        self.held.append((ready_at, data, keep_alive))
        if self.timer is None:
            self.timer = loop.call_at(ready_at, self._release)

    def _release(self) -> None:
        """Write the held replies that are due, in order; wait for the next one."""
        self.timer = None
        if self.transport is None or self.transport.is_closing():
            return
        loop = asyncio.get_running_loop()
        while self.held and self.held[0][0] <= loop.time():
            _, data, keep_alive = self.held.popleft()
            if data:
                self.transport.write(data)
            if not keep_alive:
                self.transport.close()
                return
        if self.held:
            self.timer = loop.call_at(self.held[0][0], self._release)
