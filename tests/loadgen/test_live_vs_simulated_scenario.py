"""A scenario run live against the emulator and simulated, compared row by row.

200 users (20 live at scale 0.1) write to one hot partition with 0.1 s of think time:
the partition's capacity, not the client, decides how many iterations succeed, so the
rows the capacity model decides must agree between the live worker (real time, real
HTTP, the endpoint's admission) and the virtual-time engine: ok iterations per second,
the write units consumed, and the reasons iterations failed. What depends on the
client's own latency (how many attempts it offered, hence how many were throttled) is
what a live run measures and a simulation models (emulator/params.py's latency model),
so those rows are only required to exist in both.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from loadgen.live.coordinator import aggregate
from loadgen.live.measure import Measurement
from loadgen.live.messages import RunPlan
from loadgen.live.sigv4 import StaticCredentials
from loadgen.results.records import to_full_scale
from loadgen.runners import SimulatedRunner

from .conftest import emulator_table
from .test_live_users import scenario_playbook

SCALE = 0.1
TOLERANCE = 0.10
"""Relative: a live second's boundary and the worker's start are not the simulation's."""


@pytest.mark.slow  # 4 s of a live phase in real time, plus the simulation
def test_a_hot_partitions_scenario_agrees_live_and_simulated() -> None:
    playbook = scenario_playbook(
        {"name": "hot", "users": 200, "think_s": 0.1, "scenario": "save", "duration_s": 4},
        {
            "save": {
                "steps": [
                    {"name": "save", "op": "put", "key": {"pk": "HOT", "sk": "{user}-{iteration}"}}
                ]
            }
        },
    )
    simulated = SimulatedRunner().run(playbook).runs[0]
    with EmulatorServer(EmulatorOptions(scale=SCALE, create_delay_s=0), port=0) as emu:
        emulator_table(emu.endpoint_url, playbook)
        plan = RunPlan("r", playbook, "v", "tbl", endpoint=emu.endpoint_url, scale=SCALE)
        t0 = time.time() + 0.05
        report = asyncio.run(Measurement(plan, 0, StaticCredentials("a", "b")).run(t0))
    live = to_full_scale(aggregate(plan, t0, [0], {0: report}, {}), SCALE)
    assert live.reconciled and not live.partial, live.notes
    sim, real = simulated.to_json(), live.to_json()
    rows = {
        "ok iterations/s": (
            sim["iterations"]["iterations_per_s"],
            real["iterations"]["iterations_per_s"],
        ),
        "consumed WCU": (sim["consumed_wcu"], real["consumed_wcu"]),
    }
    for row, (expected, measured) in rows.items():
        assert measured == pytest.approx(expected, rel=TOLERANCE), row
    assert (
        set(sim["iterations"]["failed_by_reason"])
        == set(real["iterations"]["failed_by_reason"])
        == {"throttled"}
    )
    assert sim["throttled"] > 0 and real["throttled"] > 0
