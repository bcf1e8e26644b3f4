"""The partitions screen during the repeats of a hot key on an on-demand table: after the
split for heat, more partitions serve the hot key in repeat 3 than in repeat 1.

Slow (about 4 minutes: three repeats of 65 s; the pauses between them are skipped on the
emulator's clock with --pause-scale 0, POST /_hotbench/skip, so the model still sees the
8 minutes after which it lands a split for heat; see split.yaml). The load is light (120
writes/s at scale 0.1, one worker)."""

from __future__ import annotations

from pathlib import Path

import pytest

from console.tui.app import HotbenchApp
from console.tui.backend import Backend
from console.tui.screens.dialogs import Question
from console.tui.screens.partitions import PartitionsScreen
from console.workflow import RunOptions, UpOptions
from tests.conftest import until

SPLIT = Path(__file__).with_name("split.yaml")


@pytest.mark.slow
async def test_more_partitions_serve_the_hot_key_in_repeat_3(backend: Backend) -> None:
    app = HotbenchApp(
        backend,
        playbook_path=SPLIT,
        up_options=UpOptions(workers=1, scale=0.1),
        run_options=RunOptions(pause_scale=0.0),
    )
    serving: dict[int, int] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        s = app.session
        await until(pilot, lambda: s.plan is not None)
        await pilot.press("u")
        await until(pilot, lambda: isinstance(app.screen, Question))
        await pilot.click("#yes")
        await until(pilot, lambda: s.state is not None and s.busy is None)
        await pilot.press("3", "g", "5")
        screen = app.screen
        assert isinstance(screen, PartitionsScreen)
        for repeat in (1, 2, 3):
            label = f"hotOnDemand#{repeat}"
            await until(pilot, lambda lb=label: s.current_label == lb, 900)  # type: ignore[misc]
            # 40 s into the repeat: the key is hot, the map is fresh
            await pilot.pause(40)
            per_index = screen.serving["hotOnDemand"][None]
            serving[repeat] = max(per_index.values())
        await until(pilot, lambda: s.result is not None, 120)
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, Question))
        await pilot.click("#yes")
        await until(pilot, lambda: s.down is not None, 90)
        assert s.down is not None and s.down.nothing_left
    print(f"partitions serving the hot key, by repeat: {serving}")
    assert serving[3] > serving[1], serving
