"""The emulator's routes: DynamoDB's JSON 1.0 protocol and hotbench's own GET views.

  POST /                      DynamoDB (X-Amz-Target: DynamoDB_20120810.<Operation>), and
                              DynamoDB Streams (DynamoDBStreams_20120810.<Operation>)
  GET  /                      "healthy: ..." as DynamoDB answers a plain GET
  GET  /_hotbench/metrics     per-second metrics (docs/emulator.md)
  GET  /_hotbench/partitions  ?table=T: the model's partition map
  GET  /_hotbench/memory      the item store, the memory bound and what it refused
  GET  /_hotbench/capacity    ?table=T: each index's capacity over time and its changes
  POST /_hotbench/skip        ?seconds=S: let S seconds of emulator time pass at once
  GET|PUT|DELETE /_hotbench/tables/T/auto-scaling[?index=G]
                              target tracking on a table or GSI (Application Auto
                              Scaling's part on AWS)

A request reaches the tables of the region its SigV4 credential scope names (regions.py);
its signature is verified only when the service was asked to (signatures.py), otherwise
any credentials work. The HTTP framing is emulator/server/http.py; the DynamoDB semantics
are Service.handle.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs, unquote

from emulator.autoscaling import AutoScalingError
from emulator.server.http import Headers, Reply, RequestHandler
from emulator.server.latency import Latency
from emulator.server.protocol import DynamoError
from emulator.server.service import Service
from emulator.wire import JSON_CONTENT_TYPE

_METHOD_NOT_ALLOWED = DynamoError(
    "UnknownOperationException", "Method not allowed", "com.amazon.coral.service#", status=405
)


def _json(payload: dict[str, Any], status: int = 200) -> Reply:
    return Reply(status, "application/json", json.dumps(payload, indent=1).encode())


def make_handler(service: Service, latency: Latency) -> RequestHandler:
    """The request handler of one emulator."""
    handle_dynamodb = service.handle
    delay = latency.sample
    signatures = service.signatures

    def handle(
        method: str,
        path: str,
        query: str,
        target: str | None,
        body: bytes,
        authorization: bytes | None,
        headers: Headers | None,
    ) -> Reply:
        if method == "POST":
            if path == SKIP_PATH:  # the one POST that is not DynamoDB's
                return _skip(service, query)
            if signatures is not None:
                text = None if authorization is None else authorization.decode("latin-1")
                refused = signatures.refusal(method, path, query, headers or [], body, text)
                if refused is not None:
                    return Reply(refused.status, JSON_CONTENT_TYPE, refused.payload(), delay())
            status, payload = handle_dynamodb(target, body, authorization)
            return Reply(status, JSON_CONTENT_TYPE, payload, delay())
        table = _auto_scaling_table(path)
        if table is not None:
            return _auto_scaling(service, method, table, query, body)
        if method in ("GET", "HEAD"):
            return _get(service, path, query)
        return Reply(405, JSON_CONTENT_TYPE, _METHOD_NOT_ALLOWED.payload())

    return handle


SKIP_PATH = "/_hotbench/skip"
_REGION = re.compile(r"[a-z0-9-]{1,32}")
MAX_SKIP_S = 86_400.0


def _skip(service: Service, query_string: str) -> Reply:
    """Advance the emulator's clock with no traffic: a pause between repeats of a
    playbook (10 minutes before a split for heat lands) need not be waited out when the
    emulator runs in its own process, as it does for `hotbench up`. The same as
    EmulatorServer.skip in-process; the physics sees the whole pause."""
    query = {k: v[-1] for k, v in parse_qs(query_string).items()}
    try:
        seconds = float(query.get("seconds", ""))
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= MAX_SKIP_S:
        return _json(
            {"error": f"give ?seconds=S with 0 <= S <= {MAX_SKIP_S:.0f} (seconds to skip)"}, 400
        )
    service.skip(seconds)
    return _json({"skipped_s": seconds, "now_s": round(service.state.now(), 3)})


TABLES_PREFIX = "/_hotbench/tables/"
AUTO_SCALING_SUFFIX = "/auto-scaling"


def _auto_scaling_table(path: str) -> str | None:
    """The table named by /_hotbench/tables/T/auto-scaling, or None for another path."""
    if path.startswith(TABLES_PREFIX) and path.endswith(AUTO_SCALING_SUFFIX):
        name = unquote(path[len(TABLES_PREFIX) : -len(AUTO_SCALING_SUFFIX)])
        return name if name and "/" not in name else None
    return None


def _auto_scaling(service: Service, method: str, table: str, query: str, body: bytes) -> Reply:
    """Target tracking on a table or GSI: GET shows it, PUT sets it (the body: {"Read":
    {...}, "Write": {...}}, each with RegisterScalableTarget's MinCapacity and MaxCapacity
    and PutScalingPolicy's TargetTrackingScalingPolicyConfiguration), DELETE removes it.
    A body the model cannot take is a 400 naming the field; an unknown table or index 404."""
    index = {k: v[-1] for k, v in parse_qs(query).items()}.get("index") or None
    try:
        if method in ("GET", "HEAD"):
            return _json(service.auto_scaling_view(table, index))
        if method == "DELETE":
            return _json(service.set_auto_scaling(table, index, None))
        if method == "PUT":
            try:
                raw = json.loads(body or b"null")
            except ValueError:
                return _json(
                    {"error": 'the body must be JSON: {"Read": {...}, "Write": {...}}'}, 400
                )
            return _json(service.set_auto_scaling(table, index, raw))
    except AutoScalingError as bad:
        return _json({"error": str(bad)}, 400)
    except DynamoError as refused:
        status = 404 if "NotFound" in refused.name else refused.status
        return _json({"error": refused.message or refused.name}, status)
    return Reply(405, JSON_CONTENT_TYPE, _METHOD_NOT_ALLOWED.payload())


def _get(service: Service, path: str, query_string: str) -> Reply:
    query = {k: v[-1] for k, v in parse_qs(query_string).items()}
    try:
        region = query.get("region")
        if region is not None and _REGION.fullmatch(region) is None:
            return _json({"error": "region must be a region's name, such as eu-west-1"}, 400)
        if path == "/_hotbench/metrics":
            seconds = int(query.get("seconds", "60"))
            return _json(service.metrics_view(seconds, query.get("table"), region))
        if path == "/_hotbench/memory":
            return _json(service.memory_view())
        if path == "/_hotbench/capacity":
            table = query.get("table")
            if not table:
                return _json({"error": "give ?table=NAME"}, 400)
            return _json(service.capacity_view(table))
        if path == "/_hotbench/partitions":
            table = query.get("table")
            if not table:
                return _json({"error": "give ?table=NAME"}, 400)
            return _json(service.partitions_view(table, region))
    except ValueError:
        return _json({"error": "seconds must be an integer"}, 400)
    except DynamoError as exc:
        return _json(exc.body(), exc.status)
    if path == "/":
        return Reply(
            200,
            "text/plain; charset=utf-8",
            f"healthy: dynamodb.{service.state.region}.amazonaws.com (hotbench emulator)".encode(),
        )
    return _json({"error": f"no such path {path}; see docs/emulator.md"}, 404)
