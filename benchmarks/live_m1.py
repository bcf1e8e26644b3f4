"""The live M1 record: `hotbench run playbooks/hot-partition.yaml` kept with its commit.

Run (about 18 minutes of wall time; `--pause-scale 0` skips the 10-minute pauses on the
in-process emulator's clock, so the physics is unchanged):

    .venv/bin/python benchmarks/live_m1.py [--scale 1] [--workers 2] [--allow-dirty]

It runs exactly `python -m console.cli run playbooks/hot-partition.yaml --target local
--scale S --pause-scale 0 --workers W --json FILE`, then writes
docs/results/live-m1-<commit>.json: the result JSON plus a `provenance` block (the commit
from `git rev-parse HEAD`, whether the tree had uncommitted changes, the command, its exit
code, the machine's core count) and prints a Markdown table of live, simulation and the
published M1 rates to paste into docs/loadgen.md and README.md. A tree with uncommitted
changes is refused (a record must be reproducible from its commit) unless --allow-dirty,
which is then recorded. The exit code is `hotbench run`'s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from loadgen.format.playbook import load_playbook  # noqa: E402
from loadgen.simulation.simulate import simulate  # noqa: E402
from tests.emulator.model.test_fidelity import M1_RATES  # noqa: E402  (the published figures, kept once)

PLAYBOOK = "playbooks/hot-partition.yaml"


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--allow-dirty", action="store_true")
    parser.add_argument("--out-dir", type=Path, default=ROOT / "docs" / "results")
    parser.add_argument(
        "--playbook", default=PLAYBOOK, help="another playbook, to check this script quickly"
    )
    args = parser.parse_args()
    commit = git("rev-parse", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    if dirty and not args.allow_dirty:
        print("uncommitted changes: commit first, or pass --allow-dirty", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        raw = Path(scratch) / "live.json"
        command = [
            sys.executable,
            "-m",
            "console.cli",
            "run",
            args.playbook,
            "--target",
            "local",
            "--scale",
            f"{args.scale:g}",
            "--pause-scale",
            "0",
            "--workers",
            str(args.workers),
            "--json",
            str(raw),
        ]
        started = datetime.now(UTC).isoformat(timespec="seconds")
        code = subprocess.run(command, cwd=ROOT).returncode
        if not raw.exists():
            print(f"hotbench run exited {code} without a result", file=sys.stderr)
            return code or 1
        result = json.loads(raw.read_text())
    result["provenance"] = {
        "commit": commit,
        "dirty": dirty,
        "command": " ".join(["hotbench", *command[3:-1], "FILE"]),
        "exit_code": code,
        "started_at": started,
        "cpus": os.cpu_count(),
        "pure_python": os.environ.get("HOTBENCH_PURE") == "1",
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    name = "live-m1" if args.playbook == PLAYBOOK else f"live-{Path(args.playbook).stem}"
    out = args.out_dir / f"{name}-{commit[:12]}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written {out} (commit {commit[:12]}, exit {code})")
    sim = {
        (r.table, r.repeat): r.to_json()["throttle_rate"] * 100
        for r in simulate(load_playbook(ROOT / args.playbook)).runs
    }
    print("\n| variant | run | live | simulate | M1 (calibrated to) | unaccounted |")
    print("|---|---|---|---|---|---|")
    for run in result["runs"]:
        key = (run["table"], run["repeat"])
        print(
            f"| {run['table']} | {run['repeat']} | {run['throttle_rate'] * 100:.1f} % | "
            f"{sim.get(key, float('nan')):.1f} % | {M1_RATES.get(key, float('nan')):.1f} % | "
            f"{run.get('unaccounted', 0)} |"
        )
    return code


if __name__ == "__main__":
    sys.exit(main())
