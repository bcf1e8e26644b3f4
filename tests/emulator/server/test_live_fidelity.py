"""Live fidelity: the M1 hot-partition playbook driven over HTTP against the endpoint at
--scale 0.1 gives the same throttle rates as `hotbench simulate` of the same playbook.

Shortened to keep the suite fast: each run lasts RUN_S instead of 120 s, and the
10-minute pauses between the badOnDemand repeats are skipped on the emulator's clock
(`EmulatorServer.skip`) instead of waited. The comparison is with the simulation of the
SAME shortened playbook. The client here is a minimal open-loop pacer (one attempt per
request, keys from the same ItemGenerator the simulation uses); the real load generator
is loadgen/worker.py.

The playbook is changed in two ways: shelfNumber and unitPrice are fixed per item (a
SKU's shelf does not move; both paths would charge a move two GSI writes, by the one
rule, docs/model.md#the-charging-rule), and items are not pre-seeded (the minimal pacer
here does not seed, so neither does the simulation it is compared with).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp
import numpy as np
import pytest

from emulator.itemsize import item_size
from emulator.server import EmulatorServer
from loadgen.arrivals import Schedule
from loadgen.keys import ItemGenerator
from loadgen.playbook import Playbook, load_playbook
from loadgen.simulate import simulate
from tests.conftest import PLAYBOOKS

SCALE = 0.1
RUN_S = 25.0
TOLERANCE_POINTS = 2.0
THROTTLE_TYPES = ("ProvisionedThroughputExceededException", "ThrottlingException")


def shortened_playbook() -> Playbook:
    playbook = load_playbook(PLAYBOOKS / "hot-partition.yaml")
    data = playbook.model_dump(mode="json", exclude_none=True)
    for phase in data["load"]["phases"]:
        phase["duration_s"] = RUN_S
    for name in ("shelfNumber", "unitPrice"):
        data["load"]["attributes"][name]["per_item"] = True
    for table in data["tables"]:
        table["seed_items"] = 0
    return Playbook.model_validate(data)


def _item(
    rendered: dict[str, Any], spec_size: int, types: dict[str, str], qty: int
) -> dict[str, Any]:
    item: dict[str, Any] = {}
    for name, value in rendered.items():
        kind = types.get(name, "S")
        item[name] = {kind: str(value)}
    item["qty"] = {"N": str(qty)}
    pad = spec_size - item_size(item) - len("pad")
    item["pad"] = {"S": "x" * max(0, pad)}
    return item


async def _drive(url: str, playbook: Playbook, table: str, seq0: int) -> tuple[int, int]:
    """Offer one run of the playbook's load to `table` at SCALE; (offered, throttled)."""
    spec = playbook.table(table)
    phase = playbook.load.phases[0]
    attributes = {**playbook.load.attributes, **phase.attributes}
    keys = [k.name for k in spec.key_attributes()]
    primary = [spec.partition_key.name] + ([spec.sort_key.name] if spec.sort_key else [])
    generator = ItemGenerator(attributes, keys, primary)
    types = {k.name: k.type for k in spec.key_attributes()}
    schedule = Schedule.for_phase(phase, SCALE)
    rng = np.random.default_rng(playbook.load.seed + seq0)
    drawn = generator.draw(rng, schedule.total, seq0)
    bodies = [
        json.dumps(
            {
                "TableName": table,
                "Item": _item(generator.render(drawn, i), spec.item_size_bytes, types, i),
            }
        ).encode()
        for i in range(schedule.total)
    ]
    headers = {
        "X-Amz-Target": "DynamoDB_20120810.PutItem",
        "Content-Type": "application/x-amz-json-1.0",
    }
    throttled = 0
    other: list[str] = []

    async def send(session: aiohttp.ClientSession, body: bytes) -> None:
        nonlocal throttled
        async with session.post(url, data=body, headers=headers) as response:
            payload = await response.read()
            if response.status != 200:
                kind = json.loads(payload)["__type"].rsplit("#", 1)[-1]
                if kind in THROTTLE_TYPES:
                    throttled += 1
                else:
                    other.append(kind)

    connector = aiohttp.TCPConnector(limit=200)
    async with aiohttp.ClientSession(connector=connector) as session:
        tasks = []
        t0 = time.perf_counter()
        for k, body in enumerate(bodies):
            due = t0 + schedule.send_time(k)
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(send(session, body)))
        await asyncio.gather(*tasks)
    assert not other, f"unexpected errors: {sorted(set(other))}"
    return schedule.total, throttled


@pytest.mark.slow
def test_hot_partition_live_matches_the_simulation() -> None:
    playbook = shortened_playbook()
    expected = {(r.table, r.repeat): r for r in simulate(playbook).runs}
    measured: dict[tuple[str, int], float] = {}
    with EmulatorServer(scale=SCALE, create_delay_s=0) as emu:
        from tests.emulator.server.conftest import client

        ddb = client(emu.endpoint_url)
        seq = 0
        for run in playbook.runs():
            spec = playbook.table(run.table)
            ddb.create_table(**spec.create_table_request(spec.name))
            for repeat in range(1, run.repeats + 1):
                if repeat > 1:
                    emu.skip(run.pause_s)
                offered, throttled = asyncio.run(_drive(emu.endpoint_url, playbook, spec.name, seq))
                seq += offered
                measured[(spec.name, repeat)] = 100.0 * throttled / offered
        assert emu.service.internal_errors == 0
    report = []
    for key, rate in measured.items():
        simulated = 100.0 * expected[key].totals().throttled / expected[key].offered
        report.append(f"{key}: live {rate:.1f} % simulated {simulated:.1f} %")
    print("\n".join(report))
    for key, rate in measured.items():
        simulated = 100.0 * expected[key].totals().throttled / expected[key].offered
        assert abs(rate - simulated) <= TOLERANCE_POINTS, "\n".join(report)
    assert measured[("good", 1)] == 0.0
    assert measured[("bad", 1)] > 45.0
