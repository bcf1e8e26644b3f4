"""A playbook driven through the emulator endpoint on a virtual clock, for comparing the
endpoint's charges and throttles with `simulate` (the differential tests).

Everything a live run's request goes through on the server is the same: the bodies are
the worker's (`loadgen.load.requests.RequestFactory`, one worker), the replies are counted by
the worker's `classify`, the items are seeded by `loadgen.load.seed.seed_items`, and the
endpoint is the in-process `Service` with the `keys` item store (what `hotbench run`
starts). What is left out is the HTTP hop and real time: request k of a phase is handled
exactly at its scheduled send time on the emulator's clock, so a run is deterministic,
takes CPU time only (a few thousand requests a second of it), and a pause between
repeats is skipped. The comparison is then of the two charging paths alone, with no
client timing noise to widen the tolerance.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from emulator.emulator_options import EmulatorOptions
from emulator.server import Service
from emulator.wire import TARGET_PREFIX
from loadgen.format.playbook import Playbook, TableSpec
from loadgen.live.segmented_run import ClientChanger
from loadgen.load.arrivals import Schedule
from loadgen.load.requests import RequestFactory, classify
from loadgen.load.seed import seed_items, seed_rate
from loadgen.results.records import PlaybookResult

SEED_SETTLE_S = 400.0
"""Skipped after seeding: the burst pool (300 s) and every bucket refill, so the seeding
(paced well under capacity, as the live seeder is) leaves nothing the run would see."""


@dataclass
class PhaseCounts:
    """One phase of one run, in full-scale requests."""

    offered: float = 0.0
    throttled: float = 0.0
    errors: float = 0.0
    by_reason: Counter[str] = field(default_factory=Counter)

    @property
    def throttle_rate(self) -> float:
        return self.throttled / self.offered if self.offered else 0.0


Runs = dict[tuple[str, int, int], PhaseCounts]
"""(table, repeat, phase index) -> counts."""


class VirtualClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _call(service: Service, operation: str, request: dict[str, object]) -> dict[str, object]:
    status, body = service.handle(TARGET_PREFIX + operation, json.dumps(request).encode())
    if status != 200:
        raise AssertionError(f"{operation} failed: {status} {body[:300]!r}")
    out: dict[str, object] = json.loads(body)
    return out


def _seed(service: Service, clock: VirtualClock, playbook: Playbook, spec: TableSpec) -> None:
    if spec.seed_items == 0:
        return
    step = 1.0 / seed_rate(playbook, spec, service.state.scale)
    for item in seed_items(playbook, spec):
        clock.now += step
        body = json.dumps({"TableName": spec.name, "Item": item}).encode()
        while classify(*service.handle(TARGET_PREFIX + "PutItem", body)).kind == "throttled":
            clock.now += 0.1  # the live seeder backs off and resends the same way
    clock.now += SEED_SETTLE_S


class ServiceClient:
    """The two calls a capacity change makes (DescribeTable, UpdateTable), boto3-shaped,
    on the in-process service: a refusal raises botocore's ClientError as boto3 would."""

    def __init__(self, service: Service) -> None:
        self.service = service

    def _call(self, operation: str, request: dict[str, Any]) -> dict[str, Any]:
        from botocore.exceptions import ClientError

        status, body = self.service.handle(TARGET_PREFIX + operation, json.dumps(request).encode())
        reply: dict[str, Any] = json.loads(body)
        if status != 200:
            code = str(reply.get("__type", "")).rsplit("#", 1)[-1]
            message = reply.get("message") or reply.get("Message") or ""
            raise ClientError({"Error": {"Code": code, "Message": message}}, operation)
        return reply

    def describe_table(self, **request: Any) -> dict[str, Any]:
        return self._call("DescribeTable", request)

    def update_table(self, **request: Any) -> dict[str, Any]:
        return self._call("UpdateTable", request)


def run_on_endpoint(
    playbook: Playbook, scale: float = 0.25, outcomes: dict[tuple[str, int, int], Any] | None = None
) -> Runs:
    """Every run of the playbook through one in-process endpoint; counts per phase (and,
    into `outcomes`, each capacity change's outcome, made as a live run makes it:
    loadgen.live.segmented_run.ClientChanger, on the virtual clock)."""
    clock = VirtualClock()
    service = Service(EmulatorOptions(scale=scale, create_delay_s=0, store="keys"), clock=clock)

    def sleep(seconds: float) -> None:
        clock.now += seconds

    changer = ClientChanger(ServiceClient(service), sleep, 1.0, clock)
    out: Runs = {}
    created: set[str] = set()
    for run in playbook.runs():
        spec = playbook.table(run.table)
        if spec.name not in created:
            _call(service, "CreateTable", spec.create_table_request(spec.name))
            created.add(spec.name)
            _seed(service, clock, playbook, spec)
        for repeat in range(1, run.repeats + 1):
            if repeat > 1 and run.pause_s > 0:
                clock.now += run.pause_s
            for index, phase in enumerate(playbook.load.phases):
                if phase.kind.engine == "control":
                    start = clock.now
                    outcome = changer.change(phase.kind.capacity_change(), spec.name)
                    out.setdefault((spec.name, repeat, index), PhaseCounts())
                    if outcomes is not None:
                        outcomes[(spec.name, repeat, index)] = outcome
                    clock.now = start + math.ceil(max(phase.duration_s, clock.now - start) - 1e-9)
                    continue
                rng = np.random.default_rng([playbook.load.seed, repeat, 0, index])
                factory = RequestFactory(playbook, spec, phase, spec.name, rng)
                schedule = Schedule.for_phase(phase, scale)
                counts = out.setdefault((spec.name, repeat, index), PhaseCounts())
                start = clock.now
                for k in range(schedule.total):
                    clock.now = start + schedule.send_time(k)
                    outcome = classify(*service.handle(factory.target, factory.next_body()))
                    counts.offered += 1 / scale
                    if outcome.kind == "throttled":
                        counts.throttled += 1 / scale
                        counts.by_reason[outcome.reason or outcome.name] += 1 / scale
                    elif outcome.kind == "error":
                        counts.errors += 1 / scale
                clock.now = start + phase.duration_s
    assert service.internal_errors == 0
    return out


def simulated_runs(result: PlaybookResult) -> Runs:
    """A simulation's result in the same shape."""
    out: Runs = {}
    for run in result.runs:
        for index, phase in enumerate(run.phases):
            c = phase.counts
            out[(run.table, run.repeat, index)] = PhaseCounts(
                float(phase.offered),
                float(c.throttled),
                float(c.errors),
                Counter({k: float(v) for k, v in c.by_reason.items()}),
            )
    return out
