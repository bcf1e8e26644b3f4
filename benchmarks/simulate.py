"""Simulation speed: simulated requests per second of wall time.

Run: .venv/bin/python benchmarks/simulate.py [datastore]

`datastore` runs only the closed-loop entries: M5's v1 (10 users, 7 simulated hours) and
v4 (100 users, 2 hours) of playbooks/datastore-sync.yaml, each alone, with the wall time
and the CPU time of this process (the machine is shared: CPU time is what the engine
costs, wall time what a user waits), against a 60 s target each.

Measures, in one process: the wall time of the two big built-in playbooks
(hot-partition.yaml, 2.88 M requests; ondemand-growth.yaml, 16.3 M requests), and, as the
same-process baseline, the same capacity model driven one request at a time (what an
endpoint does), so the speed-up of grouped ticks is a ratio, not a noisy absolute.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from emulator.keyspace import key_bytes, partition_hash, sort_position
from emulator.model import CapacityModel
from loadgen.format.playbook import load_playbook
from loadgen.load.keys import ItemGenerator
from loadgen.simulation.simulate import simulate

ROOT = Path(__file__).resolve().parent.parent
BASELINE_REQUESTS = 200_000


def per_request_baseline() -> float:
    """Requests/s when every request is its own model call (keys rendered and hashed)."""
    playbook = load_playbook(ROOT / "playbooks" / "hot-partition.yaml")
    spec = playbook.table("bad")
    model = CapacityModel()
    table = model.create_table(spec.create_table_request("bad"), 0.0)
    gen = ItemGenerator(
        playbook.load.attributes, ["warehouseId", "itemId"], ["warehouseId", "itemId"]
    )
    idx = gen.draw(np.random.default_rng(1), BASELINE_REQUESTS, 0)
    start = time.perf_counter()
    for i in range(BASELINE_REQUESTS):
        item = gen.render(idx, i)
        now = i / 4000.0
        model.advance(now)
        model.write(
            table,
            partition_hash(key_bytes(item["warehouseId"])),
            sort_position(item["itemId"]),
            1,
            now=now,
        )
    return BASELINE_REQUESTS / (time.perf_counter() - start)


def timed(name: str) -> tuple[int, float]:
    playbook = load_playbook(ROOT / "playbooks" / name)
    start = time.perf_counter()
    result = simulate(playbook)
    wall = time.perf_counter() - start
    return sum(r.offered for r in result.runs), wall


def closed_loop_phase(phase_name: str) -> tuple[int, int, float, float]:
    """One phase of datastore-sync.yaml simulated alone: (iterations, requests, wall s,
    CPU s)."""
    playbook = load_playbook(ROOT / "playbooks" / "datastore-sync.yaml")
    phase = next(p for p in playbook.load.phases if p.name == phase_name)
    alone = playbook.model_copy(
        update={"load": playbook.load.model_copy(update={"phases": [phase]})}
    )
    wall0, cpu0 = time.perf_counter(), time.process_time()
    result = simulate(alone)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    iterations = result.runs[0].phases[0].iterations
    ok = iterations.ok if iterations is not None else 0
    return ok, sum(r.offered for r in result.runs), wall, cpu


def closed_loop_rows() -> None:
    print(
        f"{'closed loop (M5)':24} {'iterations':>12} {'requests':>12} {'wall s':>8} "
        f"{'cpu s':>8} {'target s':>9}"
    )
    for phase, label in (("v1", "v1: 10 users, 7 h"), ("v4", "v4: 100 users, 2 h")):
        ok, requests, wall, cpu = closed_loop_phase(phase)
        verdict = "ok" if wall < 60 else "SLOW"
        print(f"{label:24} {ok:>12,} {requests:>12,} {wall:>8.1f} {cpu:>8.1f} {60:>7} {verdict}")


def main() -> None:
    if sys.argv[1:] == ["datastore"]:
        closed_loop_rows()
        return
    baseline = per_request_baseline()
    rows = []
    for name, target in (("hot-partition.yaml", 10.0), ("ondemand-growth.yaml", 60.0)):
        requests, wall = timed(name)
        rows.append((name, requests, wall, requests / wall, target))
    print(
        f"{'playbook':24} {'requests':>12} {'wall s':>8} {'req/s':>12} "
        f"{'x baseline':>11} {'target s':>9}"
    )
    for name, requests, wall, rate, target in rows:
        verdict = "ok" if wall < target else "SLOW"
        print(
            f"{name:24} {requests:>12,} {wall:>8.2f} {rate:>12,.0f} "
            f"{rate / baseline:>11.1f} {target:>7.0f} {verdict}"
        )
    print(
        f"{'baseline: one call/req':24} {BASELINE_REQUESTS:>12,} "
        f"{BASELINE_REQUESTS / baseline:>8.2f} {baseline:>12,.0f} {1.0:>11.1f}"
    )
    closed_loop_rows()


if __name__ == "__main__":
    main()
