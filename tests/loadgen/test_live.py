"""Live runs against the real emulator (emulator.server.EmulatorServer): the fleet's
counts must match the simulation of the same playbook, and M1 where the run is long
enough to show it. Shortened (20 s per variant at scale 0.1) to keep CI small."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from console.cli import main as cli
from emulator.emulator_options import EmulatorOptions
from loadgen.format.playbook import Playbook, load_playbook
from loadgen.live.playbook_run import LiveOptions, run_playbook
from loadgen.simulation.simulate import simulate

ROOT = Path(__file__).resolve().parents[2]
M1 = {"bad": 0.548, "badOnDemand": 0.550}


def shortened(duration_s: float, tables: list[str], seed_items: int = 300) -> Playbook:
    """hot-partition.yaml cut to `duration_s` per variant, one repeat each. The GSI sort
    keys are made per-item (a SKU's shelf and price do not move on every write), as the
    simulation assumes: otherwise a live write that moves an item within a GSI costs it
    two write units (delete + put), which the simulation does not charge."""
    pb = load_playbook(ROOT / "playbooks" / "hot-partition.yaml")
    attrs = dict(pb.load.attributes)
    for name in ("shelfNumber", "unitPrice"):
        attrs[name] = attrs[name].model_copy(update={"per_item": True})
    phases = [p.model_copy(update={"duration_s": duration_s}) for p in pb.load.phases]
    runs = [r.model_copy(update={"repeats": 1}) for r in pb.runs() if r.table in tables]
    specs = [t.model_copy(update={"seed_items": seed_items}) for t in pb.tables]
    return pb.model_copy(
        update={
            "tables": specs,
            "load": pb.load.model_copy(
                update={"attributes": attrs, "phases": phases, "runs": runs}
            ),
        }
    )


@pytest.mark.slow
def test_live_matches_simulation_and_m1() -> None:
    playbook = shortened(20.0, ["bad", "goodGsi", "badOnDemand"])
    live = run_playbook(playbook, LiveOptions(workers=2, scale=0.1, pause_scale=0))
    sim = simulate(playbook)
    assert [r.table for r in live.runs] == ["bad", "goodGsi", "badOnDemand"]
    for got, want in zip(live.runs, sim.runs, strict=True):
        g, w = got.to_json(), want.to_json()
        assert not got.partial, got.notes
        assert g["offered"] == w["offered"] == 80_000  # full-scale units: 4,000/s x 20 s
        assert g["sent"] == g["succeeded"] + g["throttled"] + g["errors"] + g["timeouts"]
        assert g["errors"] == 0 and g["timeouts"] == 0
        assert abs(g["throttle_rate"] - w["throttle_rate"]) <= 0.02, (got.table, g, w)
        assert set(g["throttles_by_reason"]) == set(w["throttles_by_reason"])
        assert g["latency_ms"]["p50"] is not None
        if got.table in M1:
            assert abs(g["throttle_rate"] - M1[got.table]) <= 0.03, got.table


def test_cli_run_writes_the_simulate_json_format(tmp_path: Path) -> None:
    playbook = shortened(3.0, ["bad"], seed_items=50)
    path = tmp_path / "pb.json"
    path.write_text(json.dumps(playbook.model_dump(mode="json")))  # JSON is valid YAML
    out = tmp_path / "live.json"
    assert (
        cli(
            [
                "run",
                str(path),
                "--target",
                "local",
                "--workers",
                "2",
                "--scale",
                "0.05",
                "--json",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    sim_out = tmp_path / "sim.json"
    assert cli(["simulate", str(path), "--json", str(sim_out), "--quiet"]) == 0
    live, sim = json.loads(out.read_text()), json.loads(sim_out.read_text())
    assert live["format"] == sim["format"] and live["mode"] == "run"
    assert live["scale"] == 0.05 and live["target"] == "local"
    run, srun = live["runs"][0], sim["runs"][0]
    assert set(srun) <= set(run) and "latency_ms" in run
    assert run["offered"] == srun["offered"] == 12_000
    assert run["sent"] == run["succeeded"] + run["throttled"] + run["errors"] + run["timeouts"]


@pytest.mark.usefixtures("no_aws_credentials")
def test_cli_aws_target_without_credentials_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`run --target aws` is up, run and down in one go (console/workflow): without AWS
    credentials it stops with the credentials message (exit 2) before anything exists."""
    monkeypatch.setenv("HOTBENCH_RUNS_DIR", str(tmp_path / "runs"))
    playbook = str(ROOT / "playbooks" / "hot-partition.yaml")
    assert cli(["run", playbook, "--target", "aws", "--yes"]) == 2
    assert not (tmp_path / "runs").exists()


def test_every_operation_succeeds_against_the_emulator() -> None:
    import asyncio
    import time

    from emulator.server import EmulatorServer
    from loadgen.format.playbook import parse_playbook
    from loadgen.live.measure import Measurement
    from loadgen.live.messages import RunPlan
    from loadgen.live.sigv4 import StaticCredentials

    from .conftest import emulator_table, tiny_playbook

    base = tiny_playbook().model_dump(mode="json")
    base["load"]["phases"] = [
        {"name": op, "operation": op, "rate": 100, "duration_s": 1.0}
        for op in ("put", "update", "get", "query")
    ]
    playbook = parse_playbook(base)
    with EmulatorServer(EmulatorOptions(scale=1.0, create_delay_s=0), port=0) as emu:
        emulator_table(emu.endpoint_url, playbook)
        plan = RunPlan("r", playbook, "v", "tbl", endpoint=emu.endpoint_url, drain_s=2.0)
        report = asyncio.run(
            Measurement(plan, 0, StaticCredentials("a", "b")).run(time.time() + 0.1)
        )
    for phase, second in (("put", 0), ("update", 1), ("get", 2), ("query", 3)):
        c = report.seconds[second]
        assert c.sent == c.succeeded == 100, (phase, c.to_json())
    assert report.seconds[0].consumed_wcu == 100.0  # 1,000-byte items: 1 WCU each
    assert report.seconds[2].consumed_rcu == 50.0  # eventually consistent: 0.5 RCU


@pytest.mark.slow
def test_a_capacity_change_live_is_made_between_segments_and_carried_by_the_result() -> None:
    """A raise that splits (1,000 -> 3,000 WCU: 300 s UPDATING) live on the in-process
    emulator: the load runs in two segments, the change between them waits for ACTIVE on
    the emulator's skipped clock (no real 300 s), and the result carries the change's
    outcome and the capacity series as the simulation's does."""
    playbook = load_playbook(ROOT / "tests" / "loadgen" / "differential" / "capacity-change.yaml")
    data = playbook.model_dump(mode="json", exclude_unset=True)
    data["load"]["phases"][1]["update_table"] = {"write_capacity": 3000}
    from loadgen.format.playbook import parse_playbook

    playbook = parse_playbook(data)
    live = run_playbook(playbook, LiveOptions(workers=1, scale=0.1, pause_scale=0))
    sim = simulate(playbook)
    (run,) = live.runs
    assert not run.partial, run.notes
    change = run.phases[1].change
    assert change is not None and change.accepted
    assert change.active_after_s is not None and change.active_after_s >= 300
    assert [p.name for p in run.phases] == ["before", "raise", "after"]
    assert run.phases[2].start_s == run.phases[1].start_s + run.phases[1].duration_s
    assert run.phases[2].offered == sim.runs[0].phases[2].offered == 6000
    assert run.capacity is not None
    steps = [p["write"] for p in run.capacity["$table"]["series"]]
    assert (
        steps
        == [1000.0, 3000.0]
        == [p["write"] for p in (sim.runs[0].capacity or {})["$table"]["series"]]
    )
