"""How fast seeding goes when its pace is kept on the emulator's clock (skipped).

Seeds M1's `bad` table (playbooks/hot-partition.yaml: 15,000 items over 3 warehouse keys)
into the in-process emulator at `--scale` with the pace skipped on the emulator's clock
(what `hotbench run` and `hotbench up` do locally), and prints the real seconds, the items
per second the emulator took, the seconds the pace would have waited on a real clock, and
the table's throttled writes during the seed (0: the skipped pace is the same gentle seed).
The items/s is what loadgen.load.seed.EMULATOR_SEED_ITEMS_PER_S records. Loopback only; the
emulator stops with the script.

    .venv/bin/python benchmarks/seed_speed.py [--scale 0.1] [--items 15000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from emulator.emulator_options import EmulatorOptions

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # before benchmarks/, whose loadgen.py shadows the package


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--items", type=int, default=15_000, help="seed at most N items")
    args = parser.parse_args()

    from emulator.server import EmulatorServer
    from loadgen.format.playbook import load_playbook
    from loadgen.live.playbook_run import LOCAL_CREDENTIALS
    from loadgen.live.resultstore import make_client
    from loadgen.load.seed import seed_count, seed_rate, seed_table

    playbook = load_playbook(ROOT / "playbooks" / "hot-partition.yaml")
    spec = playbook.table("bad")
    with EmulatorServer(
        EmulatorOptions(scale=args.scale, create_delay_s=0, store="keys"), port=0
    ) as server:
        client = make_client(str(server.endpoint_url), "us-east-1", LOCAL_CREDENTIALS)
        client.create_table(**spec.create_table_request("bad"))
        total = seed_count(playbook, spec, args.items)
        clock0 = server.service.state.now()
        wall0 = time.perf_counter()
        written = seed_table(
            client, "bad", playbook, spec, args.scale, args.items, skip=server.skip
        )
        wall = time.perf_counter() - wall0
        on_clock = server.service.state.now() - clock0
        series = server.service.state.metrics.series.get("bad", {}).get(None)
        throttled = series.totals.throttled if series is not None else 0
    paced = total / seed_rate(playbook, spec, args.scale)
    print(
        f"seeded {written:,} items in {wall:.1f} s real ({written / wall:,.0f} items/s); "
        f"{on_clock:,.0f} s passed on the emulator's clock (the pace: {paced:,.0f} s); "
        f"throttled during the seed: {throttled}"
    )


if __name__ == "__main__":
    main()
