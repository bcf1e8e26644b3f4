"""The HTTP layer (emulator/server/http.py) over raw sockets: what SDKs and proxies rely
on beyond single keep-alive requests (pipelining, chunked bodies, 100-continue,
Connection: close, HTTP/1.0, malformed requests, held replies in order, stop)."""

from __future__ import annotations

import json
import re
import socket
import time
import zlib
from collections.abc import Iterator
from typing import Any

import httptools
import pytest

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer

TARGET = "DynamoDB_20120810."


class Replies:
    """An httptools response parser collecting complete responses."""

    def __init__(self) -> None:
        self.parser = httptools.HttpResponseParser(self)
        self.done: list[dict[str, Any]] = []
        self.current: dict[str, Any] = {}

    def on_message_begin(self) -> None:
        self.current = {"headers": {}, "body": b""}

    def on_header(self, name: bytes, value: bytes) -> None:
        self.current["headers"][name.decode().lower()] = value.decode()

    def on_body(self, body: bytes) -> None:
        self.current["body"] += body

    def on_message_complete(self) -> None:
        self.current["status"] = self.parser.get_status_code()
        self.done.append(self.current)


def exchange(
    port: int, data: bytes, count: int, timeout: float = 5.0
) -> tuple[list[dict[str, Any]], bool]:
    """Send raw bytes; read until `count` replies arrived; also report whether the server
    closed the connection after them."""
    replies = Replies()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        closed = False
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                closed = True
                break
            replies.parser.feed_data(chunk)
            if len(replies.done) >= count:
                sock.settimeout(0.3)
                try:
                    closed = sock.recv(1) == b""
                except TimeoutError:
                    closed = False
                break
    return replies.done, closed


def post(
    operation: str, body: dict[str, Any] | bytes, extra: str = "", version: str = "1.1"
) -> bytes:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return (
        f"POST / HTTP/{version}\r\nHost: x\r\nX-Amz-Target: {TARGET}{operation}\r\n"
        f"Content-Type: application/x-amz-json-1.0\r\nContent-Length: {len(data)}\r\n"
        f"{extra}\r\n"
    ).encode() + data


@pytest.fixture(scope="module")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer(EmulatorOptions(create_delay_s=0)) as emu:
        yield emu
        assert emu.service.internal_errors == 0


def test_pipelined_requests_are_answered_in_order(server: EmulatorServer) -> None:
    names = [f"pipe{i}" for i in range(5)]
    data = b"".join(
        post(
            "CreateTable",
            {
                "TableName": n,
                "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            },
        )
        for n in names
    )
    replies, closed = exchange(server.port, data, len(names))
    assert [json.loads(r["body"])["TableDescription"]["TableName"] for r in replies] == names
    assert not closed


def test_reply_headers_are_dynamodbs(server: EmulatorServer) -> None:
    [reply], _ = exchange(server.port, post("ListTables", {}), 1)
    headers = reply["headers"]
    assert reply["status"] == 200
    assert headers["content-type"] == "application/x-amz-json-1.0"
    assert int(headers["x-amz-crc32"]) == zlib.crc32(reply["body"])
    assert re.fullmatch(r"[0-9A-Z]{52}", headers["x-amzn-requestid"])  # DynamoDB's shape


def test_request_ids_differ(server: EmulatorServer) -> None:
    replies, _ = exchange(server.port, post("ListTables", {}) * 3, 3)
    assert len({r["headers"]["x-amzn-requestid"] for r in replies}) == 3


def test_chunked_body_is_decoded(server: EmulatorServer) -> None:
    body = b'{"Limit": 1}'
    data = (
        f"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: {TARGET}ListTables\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    data += b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (5, body[:5], len(body) - 5, body[5:])
    [reply], _ = exchange(server.port, data, 1)
    assert reply["status"] == 200 and "TableNames" in json.loads(reply["body"])


def test_expect_100_continue_is_honoured(server: EmulatorServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        body = b"{}"
        sock.sendall(
            (
                f"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: {TARGET}ListTables\r\n"
                f"Expect: 100-continue\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode()
        )
        assert sock.recv(1024).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(body)
        assert sock.recv(4096).startswith(b"HTTP/1.1 200 OK")


def test_connection_close_and_http_1_0_close_after_the_reply(server: EmulatorServer) -> None:
    replies, closed = exchange(server.port, post("ListTables", {}, "Connection: close\r\n"), 1)
    assert replies[0]["status"] == 200 and replies[0]["headers"]["connection"] == "close"
    assert closed
    replies, closed = exchange(server.port, post("ListTables", {}, version="1.0"), 1)
    assert replies[0]["status"] == 200 and closed


def test_malformed_http_gets_a_400_and_a_close(server: EmulatorServer) -> None:
    replies, closed = exchange(server.port, b"NOT HTTP AT ALL\r\n\r\n", 1)
    assert replies[0]["status"] == 400
    assert json.loads(replies[0]["body"])["__type"].endswith("SerializationException")
    assert closed


def test_get_and_head_and_unknown_method(server: EmulatorServer) -> None:
    [get], _ = exchange(server.port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 1)
    assert get["status"] == 200 and get["body"].startswith(b"healthy")
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        head = sock.recv(4096)
    length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
    assert length == len(get["body"]) and head.endswith(b"\r\n\r\n")  # no body after HEAD
    [put], _ = exchange(server.port, b"PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", 1)
    assert put["status"] == 405
    assert json.loads(put["body"])["__type"].endswith("UnknownOperationException")


def test_upgrade_requests_are_answered_as_http_1_1(server: EmulatorServer) -> None:
    upgrade = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"
    replies, closed = exchange(server.port, upgrade + post("ListTables", {}), 2)
    assert [r["status"] for r in replies] == [200, 200] and not closed


@pytest.mark.parametrize("latency", ["none", "fixed:20ms"])
def test_a_half_closed_client_still_gets_its_replies(latency: str) -> None:
    with (
        EmulatorServer(EmulatorOptions(create_delay_s=0), latency=latency) as emu,
        socket.create_connection(("127.0.0.1", emu.port), timeout=5) as sock,
    ):
        sock.sendall(post("ListTables", {}) * 2)
        sock.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    assert received.count(b"HTTP/1.1 200 OK") == 2


def test_held_replies_keep_their_order_and_delay() -> None:
    with EmulatorServer(EmulatorOptions(create_delay_s=0), latency="fixed:50ms") as emu:
        start = time.monotonic()
        replies, _ = exchange(
            emu.port,
            post("ListTables", {"Limit": 1}) + post("Nope", {}) + post("ListTables", {"Limit": 2}),
            3,
        )
        elapsed = time.monotonic() - start
    assert [r["status"] for r in replies] == [200, 400, 200]
    assert 0.05 <= elapsed < 1.0


def test_stop_closes_keep_alive_connections() -> None:
    emu = EmulatorServer(EmulatorOptions(create_delay_s=0)).start()
    sock = socket.create_connection(("127.0.0.1", emu.port), timeout=5)
    try:
        sock.sendall(post("ListTables", {}))
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        emu.stop()
        assert sock.recv(4096) == b""
    finally:
        sock.close()


def _closed_by_server(sock: socket.socket, within_s: float) -> bool:
    """Wait (up to `within_s`, the condition polled) for the server to close `sock`."""
    sock.settimeout(within_s)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_idle_connections_are_closed_after_the_timeout() -> None:
    """A client that leaks sockets (or stops half way through a request) does not hold
    them open for ever: the server closes a connection idle for `idle_timeout_s` (60 s
    by default; 0.2 s here). The test waits on the closes, up to 5 s each."""
    with EmulatorServer(EmulatorOptions(create_delay_s=0), idle_timeout_s=0.2) as emu:
        port = emu.port
        request = (
            f"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: {TARGET}ListTables\r\n"
            "Content-Length: 2\r\n\r\n{}"
        ).encode()
        leaked = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
        half = socket.create_connection(("127.0.0.1", port))
        half.sendall(request[:30])  # a request that never ends
        used = socket.create_connection(("127.0.0.1", port))
        used.sendall(request)
        assert b"TableNames" in used.recv(65536)
        assert all(_closed_by_server(s, 5.0) for s in [*leaked, half, used])
        http = emu._http
        assert http is not None and http.idle_closed >= 22 and not http.connections
        for sock in [*leaked, half, used]:
            sock.close()
        assert emu.service.internal_errors == 0
