"""The few pieces of the console that compute anything: which partitions serve a hot key,
and the live-beside-simulated comparison it exports."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from console.render.live_vs_simulated import export, live_vs_simulated
from console.tui.app import SCREENS, HotbenchApp
from console.tui.widgets.partition_map import serving_keys
from console.tui.widgets.phase_clock import PhaseClock
from emulator.keyspace import partition_hash
from loadgen.format.playbook import load_playbook
from loadgen.results.records import PlaybookResult
from loadgen.runners import SimulatedRunner
from tests.tui.fixed import NOW, TINY, fixed_app


def test_a_hot_key_is_served_by_its_item_collection_once_split() -> None:
    hot = f"{partition_hash('HOT'):016x}"
    index = {
        "partitions": [
            {"id": 0, "hash_range": ["0" * 16, "f" * 16]},
            {"id": 1, "item_collection_of_hash": hot},
            {"id": 2, "item_collection_of_hash": hot},
            {"id": 3, "item_collection_of_hash": "0123456789abcdef"},
        ]
    }
    assert serving_keys(index, ["HOT", "COLD"]) == {"HOT": 2, "COLD": 1}
    # without named keys: every split item collection, by hash
    assert serving_keys(index, []) == {f"#{hot[:8]}": 2, "#01234567": 1}
    assert serving_keys({"partitions": [{"id": 0}]}, []) == {"hottest partition's key": 1}


def test_export_puts_the_simulation_beside_the_run(tmp_path: Path) -> None:
    simulated = SimulatedRunner().run(load_playbook(TINY))
    live = PlaybookResult("tiny", "run", 0.5, runs=simulated.runs[:1], target="local")
    compared = live_vs_simulated(live, simulated)
    rows = compared.runs
    assert len(rows) == 1 and rows[0].rate_difference == 0.0
    assert rows[0].rate_live == simulated.runs[0].to_json()["throttle_rate"]
    path = export(tmp_path, "hb-x", live, simulated, "json")
    data = json.loads(path.read_text())
    assert data["compared"][0]["rate_simulated"] == rows[0].rate_simulated
    assert data["live"]["runs"][0]["table"] == "hot"
    # the verdict `check --mode live` prints, of the same figures: the run is the
    # simulation's own, so every figure both carry agrees
    assert data["verdict"] == compared.verdict() and data["verdict"].startswith("AGREE")
    markdown = export(tmp_path, "hb-x", live, simulated, "md").read_text()
    assert "live vs simulated: AGREE: all" in markdown
    markdown = export(tmp_path, "hb-x", live, None, "md").read_text()
    assert "| hot | 1 |" in markdown and "| - |" in markdown  # no simulation: no difference
    assert "live vs simulated" not in markdown


def test_the_clock_counts_down_to_t0_through_phases_and_pauses() -> None:
    playbook = load_playbook(TINY)
    phases = list(playbook.load.phases)
    words = PhaseClock._words
    assert words("od#1", None, phases, NOW, None, None, "1 of 2 workers ready") == (
        "od#1: waiting for T0\n1 of 2 workers ready"
    )
    assert words("od#1", NOW - timedelta(seconds=1), phases, NOW, None, None, "") == (
        "od#1 T+1 s\nrush: 1 / 3 s, 2 s left"
    )
    pause = NOW + timedelta(seconds=5)
    assert words("od#1", NOW, phases, NOW, pause, "od#2", "") == "pause: od#2 in 5 s"


async def test_the_palette_offers_every_action(tmp_path: Path) -> None:
    app = fixed_app(tmp_path)
    async with app.run_test(size=(80, 24)):
        titles = " ".join(c.title for c in app.get_system_commands(app.screen))
    for action in (
        "Up",
        "Prewarm",
        "Run",
        "Cancel",
        "Destroy",
        "JSON",
        "Markdown",
        "theme",
        "Help",
        "Quit",
    ):
        assert action in titles, action
    for screen in SCREENS:
        assert f"Show the {screen} screen" in titles


def test_the_simulation_sees_the_pauses_as_the_run_will(tmp_path: Path) -> None:
    """Locally the emulator skips the rest of each pause on its clock, so the physics
    sees whole pauses whatever --pause-scale says; on AWS a shortened pause shortens the
    physics, and the simulation beside the run must be shortened the same way."""
    from console.tui.backend import Backend
    from console.workflow import load_settings

    split = Path(__file__).with_name("split.yaml")
    local = Backend(load_settings(target="local", runs_dir=tmp_path))
    aws = Backend(load_settings(target="aws", runs_dir=tmp_path))
    whole = [r.to_json()["throttle_rate"] for r in local.preview(split, 1.0).runs]
    assert [r.to_json()["throttle_rate"] for r in local.preview(split, 0.0).runs] == whole
    none = [r.to_json()["throttle_rate"] for r in aws.preview(split, 0.0).runs]
    assert whole[0] == none[0]
    assert whole[2] < none[2]  # the whole pauses let the split for heat land before repeat 3


def test_chart_ticks_are_round_and_start_at_zero() -> None:
    from console.tui.widgets.chart_axes import nice_ticks, tick_label

    assert nice_ticks(5000) == [0, 2000, 4000, 6000]
    assert nice_ticks(1666.7) == [0, 500, 1000, 1500, 2000]
    assert nice_ticks(120) == [0, 50, 100, 150]
    assert nice_ticks(0) == [0, 1]
    assert [tick_label(t) for t in (0, 500, 2500, 12000, 1.2e6)] == [
        "0",
        "500",
        "2.5k",
        "12k",
        "1.2M",
    ]


def test_a_tick_after_the_screens_are_gone_does_nothing(tmp_path: Path) -> None:
    """The 1 Hz timer can fire once more while the app closes, after its screens are
    popped (seen under two CPU hogs: ScreenStackError at exit)."""
    from console.tui.backend import Backend
    from console.workflow import load_settings

    app = HotbenchApp(Backend(load_settings(target="local", runs_dir=tmp_path)))
    assert not app.screen_stack
    app.tick()
    app.redraw()
    assert not app.ticks
