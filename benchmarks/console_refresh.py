"""How steadily the console redraws (its 1 Hz timer) while a local run drives load.

The console runs every workflow step on a thread worker; the UI thread only draws. This
drives the real app headless (Textual's Pilot) through up -> run -> destroy of a one-table
playbook at --rate writes/s for --seconds at scale 1 (so --rate is what the emulator
serves), and prints the gaps between the app's redraws during the run: a UI thread held
by blocking work would show gaps well over 1 s. Loopback only; it destroys what it made.

    .venv/bin/python benchmarks/console_refresh.py [--rate 4000] [--seconds 10] [--workers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

PLAYBOOK = """\
name: refresh
tables:
  - name: hot
    partition_key: {{name: pk, type: S}}
    sort_key: {{name: sk, type: S}}
    billing_mode: PROVISIONED
    read_capacity: 100
    write_capacity: 2000
    item_size_bytes: 500
load:
  attributes:
    pk: {{dist: weighted, weights: {{HOT: 90, COLD: 10}}}}
    sk: {{dist: uniform, count: 1000, format: "i{{:04d}}"}}
  phases:
    - {{name: rush, operation: put, rate: {rate}, duration_s: {seconds}}}
"""


async def measure(rate: int, seconds: int, workers: int, folder: Path) -> None:
    from textual.pilot import Pilot

    from console.tui.app import HotbenchApp
    from console.tui.backend import Backend
    from console.tui.screens.dialogs import Question
    from console.workflow import RunOptions, UpOptions, load_settings

    playbook = folder / "refresh.yaml"
    playbook.write_text(PLAYBOOK.format(rate=rate, seconds=seconds))
    backend = Backend(load_settings(target="local", runs_dir=folder / "runs"))
    app = HotbenchApp(
        backend,
        playbook_path=playbook,
        up_options=UpOptions(workers=workers, scale=1.0),
        run_options=RunOptions(pause_scale=0),
    )

    async def until(pilot: Pilot[int], ok: Callable[[], bool]) -> None:
        while not ok():
            await pilot.pause(0.1)

    async with app.run_test(size=(80, 24)) as pilot:
        s = app.session
        await until(pilot, lambda: s.plan is not None)
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, Question))
        await pilot.press("y")
        await until(pilot, lambda: s.state is not None and s.busy is None)
        await pilot.press("3", "g")
        await until(pilot, lambda: s.busy == "run")
        first = len(app.ticks)
        await until(pilot, lambda: s.result is not None or s.error is not None)
        ticks = list(app.ticks)[first:]
        gaps = [b - a for a, b in itertools.pairwise(ticks)]
        if s.result is not None and gaps:
            run = s.result.runs[0].to_json()
            print(
                f"{run['sent']:,} writes sent ({run['late']:,} late, {run['succeeded']:,} "
                f"succeeded) in {s.result.wall_s:.1f} s; {len(ticks)} redraws: gap median "
                f"{statistics.median(gaps):.3f} s, max {max(gaps):.3f} s"
            )
        else:
            print(f"the run did not finish: {s.error}")
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Question))
        await pilot.press("y")
        await until(pilot, lambda: s.down is not None)
        print("destroyed:", "nothing left" if s.down and s.down.nothing_left else s.down)


def main() -> None:
    # Run as a script, this folder comes first on sys.path, and its loadgen.py would hide
    # the loadgen package the console imports: the repository root goes first instead.
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=int, default=4000)
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(measure(args.rate, args.seconds, args.workers, Path(folder)))


if __name__ == "__main__":
    main()
