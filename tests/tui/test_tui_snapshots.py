"""Every screen at 80x24 and 160x48, on fixed data (run id, times, samples, reports), and
the README's screenshot of the run screen (docs/img/console-run.svg), made here so it
stays current. Update the snapshots after a deliberate change with --snapshot-update."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from console.tui.app import HotbenchApp
from tests.tui.fixed import fill, fixed_app
from tests.tui.pilot_actions import settle

ROOT = Path(__file__).resolve().parents[2]
SIZES = [(80, 24), (160, 48)]
SCREENS: dict[str, str | tuple[str, ...]] = {
    "plan": "1",
    "prewarm": "2",
    "run": "3",
    "results": "4",
    "partitions": ("5", "left_square_bracket"),  # it follows od#1; the map is hot's
    "runs": "6",
    "help": "question_mark",
    "destroy": "d",
}


def before(key: str | tuple[str, ...], results: bool = False) -> Any:
    keys = (key,) if isinstance(key, str) else key

    async def run_before(pilot: Pilot[int]) -> None:
        app = pilot.app
        assert isinstance(app, HotbenchApp)
        fill(app, results=results)
        await pilot.press(*keys)
        await settle(pilot)

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("screen", list(SCREENS))
def test_screen(snap_compare: Any, tmp_path: Path, screen: str, size: tuple[int, int]) -> None:
    app = fixed_app(tmp_path)
    results = screen == "results"
    assert snap_compare(app, terminal_size=size, run_before=before(SCREENS[screen], results))


def test_run_screen_in_the_light_theme(snap_compare: Any, tmp_path: Path) -> None:
    app = fixed_app(tmp_path)
    app.theme = "textual-light"
    assert snap_compare(app, terminal_size=(80, 24), run_before=before("3"))


async def test_readme_screenshot_of_the_run_screen(tmp_path: Path) -> None:
    app = fixed_app(tmp_path)
    async with app.run_test(size=(120, 34)) as pilot:
        await before("3")(pilot)
        target = ROOT / "docs" / "img"
        target.mkdir(parents=True, exist_ok=True)
        app.save_screenshot("console-run.svg", str(target))
    svg = (target / "console-run.svg").read_text()
    assert "od#1" in svg and "throttled" in svg
