"""Fixed data for the console's snapshots with M1 (playbooks/hot-partition.yaml): its four
variants, its six table runs and their simulated seconds, as a new user's local run looks
40 s into badOnDemand's second repeat. The preview is kept in m1_preview.json (the
lossless run record of each simulated run) so a snapshot costs no 10-second simulation
and differs only when a screen does; after a deliberate model change, rewrite it with

    HOTBENCH_PURE=1 .venv/bin/python -m tests.tui.fixed_m1
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from console.run.state import EmulatorProcess, IndexState, TableRun, TableState
from console.tui.app import HotbenchApp
from console.tui.backend import Backend
from console.workflow import (
    CostTally,
    PlanReport,
    RunState,
    Status,
    UpOptions,
    WatchFrame,
    load_settings,
)
from console.workflow.run_cost import tally_state
from console.workflow.runrecord import dump_run, load_run
from loadgen.format.playbook import load_playbook
from loadgen.results.records import PlaybookResult
from tests.conftest import PLAYBOOKS
from tests.tui.fixed import PARTITIONS, T0, at, mark_running, replay, snapshot_app

M1 = PLAYBOOKS / "hot-partition.yaml"
SNAPSHOT_FLEET = "ecs"
"""The snapshots were drawn with the plan priced on the ECS fleet (its Fargate lines);
the plan's lines on either fleet come from one cost table (tests/cost)."""


PREVIEW = Path(__file__).with_name("m1_preview.json")
RUN_ID = "hb-1130120000-m1m1"
STARTS = {
    ("bad", 1): 60.0,
    ("good", 1): 200.0,
    ("goodGsi", 1): 340.0,
    ("badOnDemand", 1): 480.0,
    ("badOnDemand", 2): 620.0,  # the 600 s pause passed on the emulator's clock
}
"""When each table run started, seconds after T0 (each runs 120 s; 20 s between)."""
NOW = at(660)
"""40 s into badOnDemand#2."""


def m1_preview() -> PlaybookResult:
    runs = [load_run(r) for r in json.loads(PREVIEW.read_text(encoding="utf-8"))["runs"]]
    return PlaybookResult(playbook="hot-partition", mode="simulate", scale=1.0, runs=runs)


def m1_state() -> RunState:
    playbook = load_playbook(M1)
    tables = {
        spec.name: TableState(
            variant=spec.name,
            name=f"{RUN_ID}-{spec.name}",
            billing_mode=spec.billing_mode,
            has_sort_key=spec.sort_key is not None,
            read_capacity=spec.read_capacity,
            write_capacity=spec.write_capacity,
            gsis=[
                IndexState(
                    name=g.name,
                    has_sort_key=g.sort_key is not None,
                    read_capacity=g.read_capacity,
                    write_capacity=g.write_capacity,
                )
                for g in spec.gsis
            ],
            created_at=at(5),
            seeded_items=spec.seed_items,
        )
        for spec in playbook.tables
    }
    table_runs = []
    for (variant, repeat), start in STARTS.items():
        running = at(start + 120) > NOW
        table_runs.append(
            TableRun(
                variant=variant,
                repeat=repeat,
                status=Status.RUNNING if running else Status.DONE,
                started_at=at(start),
                finished_at=None if running else at(start + 120),
            )
        )
    table_runs.append(TableRun(variant="badOnDemand", repeat=3))
    state = RunState(
        run_id=RUN_ID,
        target="local",
        region="us-east-1",
        playbook_path=str(M1),
        playbook_name=playbook.name,
        created_at=T0,
        updated_at=NOW,
        deadline=T0 + timedelta(hours=4),
        scale=0.1,
        workers=2,
        emulator=EmulatorProcess(
            pid=4242, port=8123, scale=0.1, started_at=T0, log_path="runs/emulator.log"
        ),
        tables=tables,
        results_table=f"{RUN_ID}-results",
        table_runs=table_runs,
    )
    mark_running(state)
    return state


def m1_frames(preview: PlaybookResult) -> list[WatchFrame]:
    """The simulated seconds of every table run that started, up to NOW, as a watch
    stream sends them (workers with latency, and the emulator)."""
    return replay(preview, STARTS, lambda _t: (3.1, 12.4), lambda _t: 0, until=NOW)


class FixedM1Backend(Backend):
    """Answers M1's fixed data; nothing runs and nothing is simulated."""

    def runs(self) -> list[RunState]:
        return [m1_state()]

    def preview(self, path: str | Path, pause_scale: float = 1.0) -> PlaybookResult:
        return m1_preview()

    def meter(self, state: RunState) -> CostTally:
        return tally_state(state, self.settings.price_region, now=NOW)


def m1_app() -> HotbenchApp:
    return snapshot_app(FixedM1Backend, M1, NOW)


_PLAN: dict[str, PlanReport] = {}


def fill_m1(app: HotbenchApp, results: bool = False) -> None:
    """The session 40 s into badOnDemand#2 (or, with `results`, after the run)."""
    b = app.backend
    s = app.session
    s.playbook = b.playbook(M1)
    if "plan" not in _PLAN:  # the plan prices every table: made once per process
        _PLAN["plan"] = b.plan(M1, UpOptions(workers=2, scale=0.1))
    s.plan = _PLAN["plan"]
    s.preview = m1_preview()
    s.advice = b.advice(M1)
    s.run_id = RUN_ID
    s.state = m1_state()
    for frame in m1_frames(s.preview):
        s.add_frame(frame)
    s.tally = tally_state(s.state, b.settings.price_region, now=NOW)
    s.partitions = {
        "badOnDemand": {**PARTITIONS, "table": f"{RUN_ID}-badOnDemand"},
        "bad": {**PARTITIONS, "table": f"{RUN_ID}-bad"},
    }
    s.hot_keys = {}
    s.log = ["badOnDemand#2: 2 of 2 workers running"]
    s.busy = "run"
    if results:
        s.busy = None
        s.result = PlaybookResult(
            playbook="hot-partition", mode="run", scale=0.1, runs=s.preview.runs, target="local"
        )


def main() -> None:
    """Rewrite m1_preview.json from the console's own preview of M1."""
    backend = Backend(load_settings(target="local", runs_dir=Path("runs"), fleet=SNAPSHOT_FLEET))
    preview = backend.preview(M1)
    PREVIEW.write_text(
        json.dumps({"runs": [dump_run(r) for r in preview.runs]}, separators=(",", ":")) + "\n",
        encoding="utf-8",
    )
    print(f"wrote {PREVIEW} ({len(preview.runs)} runs)")


if __name__ == "__main__":
    main()
