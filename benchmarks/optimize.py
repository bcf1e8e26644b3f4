"""`hotbench optimize` speed: configurations simulated per minute, and each example's wall
time as a ratio to one simulation of the same playbook, measured in the same run.

Run: .venv/bin/python benchmarks/optimize.py [--jobs N] [--trials N] [NAME ...]

The examples are docs/optimize.md's: warm-throughput.yaml (the `warm` table),
launch-spike.yaml, M1's `bad` table with warehouseId shardable, and
optimize-auto-scaling.yaml (auto scaling searched on a launch ramp). For each, in one
process: one simulation of the whole playbook (what `hotbench simulate` and `check` run:
the baseline), then the search with its verification, as `hotbench optimize` runs it.
The ratio is the search's wall time over the baseline's: how many simulations' worth of
time a recommendation costs, whatever the machine's speed (it runs shared: the wall
times themselves are noisy, their ratio much less). CPU time of this process is shown
too; the worker processes' is not in it.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from console.commands.optimize import with_options
from console.cost.configuration_cost import configuration_pricing
from console.cost.measured_usage import run_cost_at
from console.cost.prices import US_EAST_1
from loadgen.analysis.optimize import OptimizeOptions, optimize
from loadgen.analysis.optimize_search import cores
from loadgen.format.playbook import parse_playbook
from loadgen.simulation.simulate import simulate

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Example:
    name: str
    playbook: str
    options: dict[str, Any]
    """Command-line options, as `hotbench optimize` takes them."""


EXAMPLES = [
    Example("warm-throughput", "warm-throughput.yaml", {}),
    Example("launch-spike", "launch-spike.yaml", {}),
    Example(
        "m1-sharded",
        "hot-partition.yaml",
        {"table": ["bad"], "shard": "warehouseId", "max_shards": 10},
    ),
    Example("auto-scaling", "optimize-auto-scaling.yaml", {}),
]


def _args(example: Example, trials: int | None) -> argparse.Namespace:
    defaults: dict[str, Any] = {
        "table": [],
        "keep": [],
        "billing_mode": [],
        "reserved_terms": None,
        "shard": None,
        "max_shards": 10,
        "shard_suffix": "#{shard}",
        "peak_hours": None,
        "off_peak": None,
        "days": None,
        "stored_gb": None,
        "trials": trials,
        "seed": None,
        "max_throttle_rate": None,
    }
    return argparse.Namespace(**{**defaults, **example.options})


def timed(work: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = work()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="examples to run (default: all)")
    parser.add_argument("--jobs", type=int, default=cores())
    parser.add_argument("--trials", type=int, default=None, help="default: each playbook's")
    args = parser.parse_args()
    chosen = [e for e in EXAMPLES if not args.names or e.name in args.names]
    rows = []
    for example in chosen:
        raw = yaml.safe_load((ROOT / "playbooks" / example.playbook).read_text())
        data = with_options(raw, _args(example, args.trials))
        playbook = parse_playbook(data)
        _, one_wall, _ = timed(lambda p=playbook: simulate(p))
        report, wall, cpu = timed(
            lambda d=data, p=playbook: optimize(
                d,
                configuration_pricing(US_EAST_1),
                run_cost_at(US_EAST_1),
                OptimizeOptions(
                    trials=p.optimize.trials if p.optimize else 40,
                    seed=1,
                    jobs=args.jobs,
                ),
            )
        )
        best = report.final.words if report.final else "none passes"
        rows.append(
            (
                example.name,
                report.simulations,
                report.simulations / wall * 60,
                one_wall,
                wall,
                wall / one_wall,
                cpu,
                best,
                report.final.costs.month_usd if report.final else float("nan"),
            )
        )
    print(f"jobs {args.jobs}; one simulation of the whole playbook is the baseline")
    print(
        f"{'example':<16} {'sims':>5} {'per min':>8} {'one sim s':>9} {'optimize s':>10} "
        f"{'ratio':>6} {'cpu s':>6}  recommended"
    )
    for name, sims, per_min, one, wall, ratio, cpu, best, usd in rows:
        print(
            f"{name:<16} {sims:>5} {per_min:>8.1f} {one:>9.1f} {wall:>10.1f} {ratio:>6.1f} "
            f"{cpu:>6.1f}  {best} (${usd:,.2f}/month)"
        )


if __name__ == "__main__":
    main()
