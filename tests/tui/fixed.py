"""Fixed data for the console's snapshots: a run id, times, samples and reports that never
change, so a snapshot differs only when the screen does."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from console.run.state import EmulatorProcess, IndexState, TableRun, TableState
from console.tui.app import HotbenchApp
from console.tui.backend import Backend
from console.workflow import (
    CostTally,
    IndexSample,
    RunState,
    Status,
    Step,
    UpOptions,
    WatchFrame,
    WorkerStatus,
    load_settings,
)
from console.workflow.run_cost import tally_state
from loadgen.results.records import PlaybookResult

SNAPSHOT_FLEET = "ecs"
"""The snapshots were drawn with the plan priced on the ECS fleet (its Fargate lines);
the plan's lines on either fleet come from one cost table (tests/cost)."""


TINY = Path(__file__).with_name("tiny.yaml")
RUN_ID = "hb-1130120000-beef"
T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
NOW = T0 + timedelta(minutes=3)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def mark_running(state: RunState) -> None:
    """Up and pre-warmed in the first seconds, the run step running from 60 s."""
    for step in (Step.UP, Step.PREWARM):
        record = state.record(step)
        record.status, record.started_at, record.finished_at = Status.DONE, at(1), at(8)
    state.record(Step.RUN).status = Status.RUNNING
    state.record(Step.RUN).started_at = at(60)


def fixed_state(run_id: str = RUN_ID, up: bool = True) -> RunState:
    state = RunState(
        run_id=run_id,
        target="local",
        region="us-east-1",
        playbook_path=str(TINY),
        playbook_name="tiny",
        created_at=T0,
        updated_at=NOW,
        deadline=T0 + timedelta(hours=4),
        scale=0.5,
        workers=2,
        emulator=EmulatorProcess(
            pid=4242, port=8123, scale=0.5, started_at=T0, log_path="runs/emulator.log"
        ),
        tables={
            "hot": TableState(
                variant="hot",
                name=f"{run_id}-hot",
                billing_mode="PROVISIONED",
                read_capacity=100,
                write_capacity=2000,
                created_at=at(5),
                gsis=[IndexState(name="byWarehouse", read_capacity=100, write_capacity=2000)],
            ),
            "od": TableState(
                variant="od", name=f"{run_id}-od", billing_mode="PAY_PER_REQUEST", created_at=at(5)
            ),
        },
        results_table=f"{run_id}-results",
        table_runs=[
            TableRun(
                variant="hot", repeat=1, status=Status.DONE, started_at=at(60), finished_at=at(64)
            ),
            TableRun(variant="od", repeat=1, status=Status.RUNNING, started_at=at(170)),
            TableRun(variant="od", repeat=2),
        ],
    )
    mark_running(state)
    if not up:
        for table in state.tables.values():
            table.deleted_at = at(100)
        assert state.emulator is not None
        state.emulator.stopped_at = at(100)
        for step in (Step.RUN, Step.TALLY, Step.DOWN):
            state.record(step).status = Status.DONE
            state.record(step).started_at = at(90)
    return state


def replay(
    preview: PlaybookResult,
    starts: dict[tuple[str, int], float],
    latency: Callable[[int], tuple[float, float]],
    late: Callable[[int], int],
    until: datetime | None = None,
) -> list[WatchFrame]:
    """The simulated seconds of each table run that started (`starts`: seconds after T0),
    replayed as a watch stream sends them (workers with `latency(t)` as p50 and p99, and
    the emulator) with a fleet status of 2 workers, `late(t)` of them late; with `until`,
    only the seconds that ended by then."""
    out: list[WatchFrame] = []
    for run in preview.runs:
        start = starts.get((run.table, run.repeat))
        if start is None:
            continue
        for t in sorted(run.seconds):
            if until is not None and at(start + t + 1) > until:
                break
            c = run.seconds[t]
            common: dict[str, Any] = {
                "table": run.table,
                "start": at(start + t),
                "accepted": c.succeeded,
                "throttled": c.throttled,
                "throttled_by_reason": dict(c.by_reason),
                "consumed_wcu": c.consumed_wcu,
            }
            p50, p99 = latency(t)
            out.append(
                WatchFrame(
                    at=at(start + t + 1),
                    run_label=f"{run.table}#{run.repeat}",
                    samples=[
                        IndexSample(source="workers", p50_ms=p50, p99_ms=p99, **common),
                        IndexSample(source="emulator", **common),
                    ],
                    workers=WorkerStatus(planned=2, ready=2, running=2, late=late(t)),
                )
            )
    return out


def frames(preview: PlaybookResult) -> list[WatchFrame]:
    """tiny's two table runs so far, latency and late workers growing each second."""
    starts = {("hot", 1): 60.0, ("od", 1): 170.0}
    return replay(preview, starts, lambda t: (3.2 + t, 11.5 + t), lambda t: t * 3)


PARTITIONS: dict[str, Any] = {
    "table": f"{RUN_ID}-hot",
    "now_s": 612.0,
    "indexes": [
        {
            "index": None,
            "partition_count": 2,
            "splits": 2,
            "warm_throughput": {"read": 12000, "write": 4000, "status": "ACTIVE"},
            "on_demand_ceiling": None,
            "partitions": [
                {
                    "id": 0,
                    "hash_range": ["0000000000000000", "7fffffffffffffff"],
                    "hot_since": None,
                    "split_at": None,
                    "utilisation_total": 15.2,
                    "utilisation": 0.12,
                },
                {
                    "id": 1,
                    "hash_range": ["8000000000000000", "ffffffffffffffff"],
                    "hot_since": 61.0,
                    "split_at": 541.0,
                    "utilisation_total": 412.3,
                    "utilisation": 1.0,
                },
                {
                    "id": 2,
                    "hash_range": ["9c0f3a1d00000000", "9c0f3a1d00000001"],
                    "hot_since": 70.0,
                    "split_at": None,
                    "utilisation_total": 204.8,
                    "utilisation": 0.97,
                    "item_collection_of_hash": "9c0f3a1d00000000",
                },
                {
                    "id": 3,
                    "hash_range": ["9c0f3a1d00000000", "9c0f3a1d00000001"],
                    "hot_since": 70.0,
                    "split_at": None,
                    "utilisation_total": 198.7,
                    "utilisation": 0.91,
                    "item_collection_of_hash": "9c0f3a1d00000000",
                },
            ],
        },
    ],
}


class FixedBackend(Backend):
    """Answers from the fixed data; nothing runs."""

    def runs(self) -> list[RunState]:
        return [fixed_state("hb-1130110000-cafe", up=False), fixed_state()]

    def meter(self, state: RunState) -> CostTally:
        return tally_state(state, self.settings.price_region, now=NOW)


def fixed_app(_tmp: Path | None = None) -> HotbenchApp:
    """Nothing is read from or written to the runs folder: its name is only shown."""
    return snapshot_app(FixedBackend, TINY, NOW)


def snapshot_app(backend: type[Backend], playbook: Path, now: datetime) -> HotbenchApp:
    """The console over `backend` on local settings, at `now`, polling nothing and
    animating nothing (the tab underline slides: a screenshot mid-slide varies)."""
    app = HotbenchApp(
        backend(load_settings(target="local", runs_dir=Path("runs"), fleet=SNAPSHOT_FLEET)),
        playbook_path=playbook,
        poll=False,
        clock=lambda: now,
    )
    app.animation_level = "none"
    return app


def fill(app: HotbenchApp, results: bool = False) -> None:
    """The session as it is 3 minutes into a run (or after it, with `results`)."""
    b = app.backend
    s = app.session
    s.playbook = b.playbook(TINY)
    s.plan = b.plan(TINY, UpOptions(workers=2, scale=0.5))
    s.preview = b.preview(TINY)
    s.advice = None
    s.run_id = RUN_ID
    s.state = fixed_state()
    for frame in frames(s.preview):
        s.add_frame(frame)
    s.tally = tally_state(s.state, b.settings.price_region, now=NOW)
    s.partitions = {"hot": PARTITIONS}
    s.hot_keys = {}
    s.log = ["od#1: 2 of 2 workers running"]
    s.busy = "run"
    if results:
        s.busy = None
        s.result = PlaybookResult(
            playbook="tiny", mode="run", scale=0.5, runs=s.preview.runs, target="local"
        )
        s.tally = CostTally.model_validate(s.tally.model_dump())
