"""Every console screen at 80x24 with M1 (playbooks/hot-partition.yaml), on fixed data
(tests/tui/fixed_m1.py): a new user's first terminal, with the playbook the README leads
with. Besides the pictures, each screen's tables are checked to fit the 80 columns and
the plan to show all four variants on its first screen. Update the snapshots after a
deliberate change with --snapshot-update."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from console.tui.app import HotbenchApp
from tests.tui.fixed_m1 import fill_m1, m1_app
from tests.tui.pilot_actions import settle

SCREENS: dict[str, str] = {
    "plan": "1",
    "prewarm": "2",
    "run": "3",
    "results": "4",
    "partitions": "5",  # it follows badOnDemand#2, whose map is in the fixture
    "runs": "6",
    "help": "question_mark",
    "destroy": "d",
}


async def _show(pilot: Pilot[int], key: str, results: bool) -> None:
    app = pilot.app
    assert isinstance(app, HotbenchApp)
    fill_m1(app, results=results)
    await pilot.press(key)
    await settle(pilot)


def _check_tables(app: HotbenchApp, screen: str) -> None:
    """No table of the screen is wider than its region (it would scroll sideways: a cut
    column is a hidden figure), and the plan's first screen lists all four variants."""
    for table in app.screen.query(DataTable):
        if table.display and table.row_count:
            assert table.virtual_size.width <= table.size.width, (screen, table.id)
    if screen == "plan":
        plan = app.screen.query_one("#plan-tables", DataTable)
        rows = [str(plan.get_row_at(i)[0]) for i in range(plan.row_count)]
        assert rows == ["bad", "good", "goodGsi", "badOnDemand"]
        assert plan.region.bottom <= 24  # all four on the first screen
        seeding = str(app.screen.query_one("#plan-gsis").render())
        assert "15,000 seeded per table; ~46 s of seeding first" in seeding


@pytest.mark.parametrize("screen", list(SCREENS))
def test_m1_screen_at_80x24(snap_compare: Any, screen: str) -> None:
    """The screen as a picture, and its tables uncut (checked on the same app, before the
    picture is taken)."""

    async def run_before(pilot: Pilot[int]) -> None:
        await _show(pilot, SCREENS[screen], screen == "results")
        assert isinstance(pilot.app, HotbenchApp)
        _check_tables(pilot.app, screen)

    assert snap_compare(m1_app(), terminal_size=(80, 24), run_before=run_before)
