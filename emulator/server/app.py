"""The HTTP front: DynamoDB's JSON 1.0 protocol on aiohttp's low-level server.

aiohttp's low-level `web_server.Server` (no router, no middleware) was chosen by
measurement (benchmarks/endpoint.py): it keeps the per-request HTTP cost small next to
the model's, on a well-kept library with a C parser. Routes:

  POST /                      DynamoDB (X-Amz-Target: DynamoDB_20120810.<Operation>)
  GET  /                      "healthy: ..." as DynamoDB answers a plain GET
  GET  /_hotbench/metrics     per-second metrics (docs/emulator.md)
  GET  /_hotbench/partitions  ?table=T: the model's partition map

SigV4 headers are accepted and not verified: any credentials work.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web, web_protocol, web_request, web_server
from aiohttp.abc import AbstractStreamWriter
from aiohttp.http_parser import RawRequestMessage
from aiohttp.streams import StreamReader

from emulator.server.latency import Latency
from emulator.server.protocol import CONTENT_TYPE, DynamoError, validation
from emulator.server.service import Service

MAX_REQUEST_BYTES = 16 * 1024 * 1024
"""[AWS] the largest request DynamoDB accepts (a full BatchWriteItem)."""

_JSON_HEADERS = {"Content-Type": CONTENT_TYPE}


def _json(payload: dict[str, Any], status: int = 200) -> web.Response:
    return web.Response(body=json.dumps(payload, indent=1).encode(), status=status,
                        content_type="application/json")


def make_handler(service: Service, latency: Latency
                 ) -> Callable[[web_request.BaseRequest], Awaitable[web.StreamResponse]]:
    """The request handler of one emulator."""

    async def handle(request: web_request.BaseRequest) -> web.StreamResponse:
        if request.method == "POST":
            try:
                body = await request.read()
            except web.HTTPRequestEntityTooLarge:
                error = validation(f"Request size exceeded {MAX_REQUEST_BYTES} bytes")
                return web.Response(body=error.payload(), status=413, headers=_JSON_HEADERS)
            status, payload = service.handle(request.headers.get("X-Amz-Target"), body)
            delay = latency.sample()
            if delay > 0:
                await asyncio.sleep(delay)
            return web.Response(body=payload, status=status, headers=_JSON_HEADERS)
        if request.method in ("GET", "HEAD"):
            return _get(service, request)
        error = DynamoError("UnknownOperationException", f"Method {request.method} not allowed",
                            "com.amazon.coral.service#", status=405)
        return web.Response(body=error.payload(), status=405, headers=_JSON_HEADERS)

    return handle


def _get(service: Service, request: web_request.BaseRequest) -> web.StreamResponse:
    path = request.path
    query = request.query
    try:
        if path == "/_hotbench/metrics":
            seconds = int(query.get("seconds", "60"))
            return _json(service.metrics_view(seconds, query.get("table")))
        if path == "/_hotbench/partitions":
            table = query.get("table")
            if not table:
                return _json({"error": "give ?table=NAME"}, 400)
            return _json(service.partitions_view(table))
    except ValueError:
        return _json({"error": "seconds must be an integer"}, 400)
    except DynamoError as exc:
        return _json(exc.body(), exc.status)
    if path == "/":
        return web.Response(text=f"healthy: dynamodb.{service.region}.amazonaws.com "
                                 "(hotbench emulator)")
    return _json({"error": f"no such path {path}; see docs/emulator.md"}, 404)


def make_server(service: Service, latency: Latency) -> web_server.Server:
    """An aiohttp low-level server for `loop.create_server`."""
    loop = asyncio.get_running_loop()

    def request_factory(message: RawRequestMessage, payload: StreamReader,
                        protocol: web_protocol.RequestHandler,
                        writer: AbstractStreamWriter,
                        task: asyncio.Task[None]) -> web_request.BaseRequest:
        return web_request.BaseRequest(message, payload, protocol, writer, task, loop,
                                       client_max_size=MAX_REQUEST_BYTES)

    return web_server.Server(make_handler(service, latency),
                             request_factory=request_factory, access_log=None)
