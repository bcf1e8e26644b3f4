"""Simulation speed: simulated requests per second of wall time, and the memory of a day.

Run: .venv/bin/python benchmarks/simulate.py [datastore | day | quick]

Measures, in one run on this machine (each entry in a process of its own, so that its
peak memory is its own):

- the two big built-in playbooks on each engine (hot-partition.yaml, M1, 2.88 M requests;
  ondemand-growth.yaml, M3, 16.3 M requests), with the same capacity model driven one
  request at a time as the same-run baseline (what an endpoint does), so every speed is a
  ratio, never a noisy absolute;
- a day of orders (benchmarks/playbooks/orders-day.yaml: one phase at a per-minute rate
  curve, orders-day.csv, averaging 20,000 writes/s, one on-demand table with a GSI, 1.73
  billion requests)
  on the aggregate engine against a 60 s target, with its peak memory against 500 MB; the
  per-request engine on two 10-minute slices of it (the peak hour and the night), since a
  whole day of it takes hours: the ratio of the two engines on the same slices;
- the same curve for a week (7 such phases, 12.1 billion requests) against 5 minutes.

`day` runs only the day, the week and the slices; `quick` only M1 on both engines.
`datastore` runs only the closed-loop entries: M5's v1 (10 users, 7 simulated hours) and
v4 (100 users, 2 hours) of playbooks/datastore-sync.yaml, each alone, with the wall time
and the CPU time of this process (the machine is shared: CPU time is what the engine
costs, wall time what a user waits), against a 60 s target each.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from emulator.keyspace import key_bytes, partition_hash, sort_position
from emulator.model import CapacityModel
from loadgen.format.kinds.rate_curve import PerMinuteRate
from loadgen.format.playbook import Playbook, load_playbook
from loadgen.load.keys import ItemGenerator
from loadgen.simulation.simulate import simulate

ROOT = Path(__file__).resolve().parent.parent
DAY = ROOT / "benchmarks" / "playbooks" / "orders-day.yaml"
BASELINE_REQUESTS = 200_000
SLICE_S = 600.0
SLICES = {"peak": 14, "night": 2}
"""The hours of the day whose first SLICE_S seconds both engines run."""


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
    start = time.process_time()
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
    return BASELINE_REQUESTS / (time.process_time() - start)


def week(day: Playbook) -> Playbook:
    """The day's curve seven times over."""
    phases = [
        p.model_copy(update={"name": f"d{d + 1}-{p.name}"})
        for d in range(7)
        for p in day.load.phases
    ]
    return day.model_copy(
        update={"name": "orders-week", "load": day.load.model_copy(update={"phases": phases})}
    )


def day_slice(day: Playbook, hour: int) -> Playbook:
    """The first SLICE_S seconds of one hour of the day's curve."""
    curve = day.load.phases[0]
    assert isinstance(curve.rate, PerMinuteRate)
    first = hour * 60
    minutes = curve.rate.per_minute[first : first + int(SLICE_S // 60)]
    cut = curve.model_copy(
        update={
            "name": f"h{hour:02d}",
            "duration_s": SLICE_S,
            "rate": PerMinuteRate(per_minute=minutes),
        }
    )
    return day.model_copy(update={"load": day.load.model_copy(update={"phases": [cut]})})


def playbook_named(name: str) -> Playbook:
    if name == "day":
        return load_playbook(DAY)
    if name == "week":
        return week(load_playbook(DAY))
    if name.startswith("slice-"):
        return day_slice(load_playbook(DAY), SLICES[name.removeprefix("slice-")])
    return load_playbook(ROOT / "playbooks" / name)


def measure_one(name: str, engine: str) -> dict[str, float]:
    """One simulation in this process: requests, wall and CPU seconds, peak memory."""
    playbook = playbook_named(name)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    result = simulate(playbook, engine=engine)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    throttled = sum(r.totals().throttled for r in result.runs)
    return {
        "requests": sum(r.offered for r in result.runs),
        "throttled": throttled,
        "wall_s": wall,
        "cpu_s": cpu,
        "peak_mb": rss_mb,
    }


def measured(name: str, engine: str) -> dict[str, float]:
    """`measure_one` in a fresh process (its peak memory is the simulation's own)."""
    out = subprocess.run(
        [sys.executable, __file__, "--one", name, engine],
        check=True,
        capture_output=True,
        text=True,
    )
    data: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return data


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


HEADER = (
    f"{'simulation':34} {'engine':>11} {'requests':>15} {'wall s':>8} {'cpu s':>8} "
    f"{'req/s (cpu)':>13} {'x base':>7} {'peak MB':>8} {'target':>12}"
)
BASELINE = [0.0]
"""The one-call-per-request baseline's requests per CPU second, once measured."""


def row(label: str, engine: str, m: dict[str, float], target: str = "") -> None:
    rate = m["requests"] / m["cpu_s"] if m["cpu_s"] else 0.0
    base = f"{rate / BASELINE[0]:.1f}" if BASELINE[0] else "-"
    print(
        f"{label:34} {engine:>11} {m['requests']:>15,.0f} {m['wall_s']:>8.1f} "
        f"{m['cpu_s']:>8.1f} {rate:>13,.0f} {base:>7} {m['peak_mb']:>8.0f} {target:>12}"
    )


def engines_on(name: str, label: str) -> float:
    """Both engines on one playbook: rows, and the aggregate's speed-up (CPU)."""
    agg = measured(name, "aggregate")
    per = measured(name, "per-request")
    row(label, "aggregate", agg)
    row(label, "per-request", per)
    ratio = (agg["requests"] / agg["cpu_s"]) / (per["requests"] / per["cpu_s"])
    print(f"{'':34} {'ratio':>11} {ratio:>15.1f}x aggregate over per-request requests/s")
    return ratio


def day_rows() -> None:
    print(HEADER)
    for which in SLICES:
        engines_on(f"slice-{which}", f"day, 10 min of {SLICES[which]:02d}:00 ({which})")
    day = measured("day", "aggregate")
    verdict = "ok" if day["wall_s"] < 60 and day["peak_mb"] < 500 else "SLOW/BIG"
    row("day: 24 h, 20,000 writes/s avg", "aggregate", day, f"60 s 500 MB {verdict}")
    wk = measured("week", "aggregate")
    row("week: 7 x 24 h", "aggregate", wk, f"300 s {'ok' if wk['wall_s'] < 300 else 'SLOW'}")


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--one"]:
        print(json.dumps(measure_one(args[1], args[2])))
        return
    if args == ["datastore"]:
        closed_loop_rows()
        return
    if args == ["day"]:
        day_rows()
        return
    if args == ["quick"]:
        print(HEADER)
        engines_on("hot-partition.yaml", "M1 hot-partition.yaml")
        return
    BASELINE[0] = per_request_baseline()
    print(f"baseline (x base): one model call per request, {BASELINE[0]:,.0f} requests/s (cpu)")
    print(HEADER)
    engines_on("hot-partition.yaml", "M1 hot-partition.yaml")
    engines_on("ondemand-growth.yaml", "M3 ondemand-growth.yaml")
    day_rows()
    closed_loop_rows()


if __name__ == "__main__":
    main()
