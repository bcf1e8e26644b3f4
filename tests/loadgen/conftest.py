"""Shared fixtures: a results table on a moto server, a tiny playbook, run plans.

The results table lives on moto (threaded, 127.0.0.1) so these tests need nothing but the
venv; measured requests go to the fake DynamoDB (tests/fakes/fake_dynamodb.py) or, in the
fidelity tests, to the real emulator.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from loadgen.format.playbook import Playbook, parse_playbook
from loadgen.live.messages import RunPlan
from loadgen.live.resultstore import ResultStore, make_client

CREDS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}


def tiny_playbook(
    rate: float = 200, duration_s: float = 2.0, operation: str = "put", item_size: int = 1000
) -> Playbook:
    return parse_playbook(
        {
            "name": "tiny",
            "tables": [
                {
                    "name": "v",
                    "partition_key": {"name": "pk"},
                    "sort_key": {"name": "sk"},
                    "billing_mode": "PAY_PER_REQUEST",
                    "item_size_bytes": item_size,
                }
            ],
            "load": {
                "attributes": {
                    "pk": {"dist": "uniform", "count": 50, "format": "P{:03d}"},
                    "sk": {"dist": "uniform", "count": 50, "format": "S{:03d}"},
                },
                "phases": [
                    {"name": "w", "operation": operation, "rate": rate, "duration_s": duration_s}
                ],
            },
        }
    )


def emulator_table(endpoint_url: str, playbook: Playbook, name: str = "tbl") -> Any:
    """A control client on the emulator at `endpoint_url`, the playbook's first table
    created there as `name` (what a live test measures against)."""
    client = make_client(endpoint_url, "us-east-1", CREDS)
    client.create_table(**playbook.tables[0].create_table_request(name))
    return client


def make_plan(endpoint: str, run_id: str = "r", **kwargs: Any) -> RunPlan:
    playbook = kwargs.pop("playbook", None) or tiny_playbook(
        kwargs.pop("rate", 200), kwargs.pop("duration_s", 2.0)
    )
    defaults: dict[str, Any] = {"timeout_s": 1.0, "drain_s": 1.5, "progress_s": 0.5}
    return RunPlan(run_id, playbook, "v", "tbl", endpoint=endpoint, **{**defaults, **kwargs})


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)

    for key, value in CREDS.items():
        os.environ.setdefault(key, value)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture()
def store(moto_endpoint: str) -> ResultStore:
    table = f"results-{uuid.uuid4().hex[:8]}"
    s = ResultStore(
        make_client(moto_endpoint, "us-east-1", CREDS), table, f"run-{uuid.uuid4().hex[:6]}"
    )
    s.create_table()
    return s
