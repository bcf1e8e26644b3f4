"""The partitions screen during the repeats of a hot key on an on-demand table: after the
split for heat, more partitions serve the hot key in repeat 3 than in repeat 1.

Slow (about a minute: three repeats of 9 s, live; the pauses between them are skipped
on the emulator's clock with --pause-scale 0, POST /_hotbench/skip). The emulator runs
with the split brought forward (split_soon_params.yaml: decided after 3 s of heat, landed
30 s later, instead of 8 minutes in all), so the screen sees the same sequence in seconds;
the minutes the defaults take are the model's tests' to check. The load is light (120
writes/s at scale 0.1, one worker)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from console.tui.app import HotbenchApp
from console.tui.backend import Backend
from console.tui.screens.partitions import PartitionsScreen
from console.workflow import RunOptions, UpOptions
from emulator.paramsfile import load_params
from tests.conftest import until
from tests.tui.pilot_actions import click_until, dialog_drawn, screen_changes

SPLIT = Path(__file__).with_name("split_soon.yaml")
SOON = Path(__file__).with_name("split_soon_params.yaml").resolve()
SOON_EMULATOR = dataclasses.replace(UpOptions().emulator, params=load_params(SOON))


@pytest.mark.slow
async def test_more_partitions_serve_the_hot_key_in_repeat_3(backend: Backend) -> None:
    app = HotbenchApp(
        backend,
        playbook_path=SPLIT,
        up_options=UpOptions(workers=1, scale=0.1, emulator=SOON_EMULATOR),
        run_options=RunOptions(pause_scale=0.0),
    )
    serving: dict[int, int] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        s = app.session
        await until(pilot, lambda: s.plan is not None)
        await pilot.press("u")
        await until(pilot, lambda: dialog_drawn(app))
        await click_until(pilot, "#yes", screen_changes(app))
        await until(pilot, lambda: s.state is not None and s.busy is None)
        await pilot.press("3", "g", "5")
        screen = app.screen
        assert isinstance(screen, PartitionsScreen)

        def running(label: str) -> bool:
            """The repeat's worker is sending (its frames say so; the map of a second
            after it stopped may already show the emulator's clock skipped on)."""
            watched = s.watched.get(label)
            return (
                s.current_label == label
                and watched is not None
                and watched.workers is not None
                and watched.workers.running > 0
            )

        for repeat in (1, 2, 3):
            label = f"hotOnDemand#{repeat}"
            await until(pilot, lambda lb=label: running(lb), 900)  # type: ignore[misc]
            # the most partitions the map showed serving the hot key while this repeat's
            # load ran (the map refreshes once a second; the split only adds partitions)
            serving[repeat] = 0
            while running(label):
                per_index = screen.serving.get("hotOnDemand", {}).get(None, {})
                serving[repeat] = max(serving[repeat], *per_index.values(), 0)
                await pilot.pause(0.2)
        await until(pilot, lambda: s.result is not None, 120)
        await pilot.press("d")
        await until(pilot, lambda: dialog_drawn(app))
        await click_until(pilot, "#yes", screen_changes(app))
        await until(pilot, lambda: s.down is not None, 90)
        assert s.down is not None and s.down.nothing_left
    print(f"partitions serving the hot key, by repeat: {serving}")
    assert serving[1] >= 1, serving  # the map showed the hot key before the split
    assert serving[3] > serving[1], serving
