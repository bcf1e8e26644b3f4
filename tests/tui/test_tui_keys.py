"""Keys and confirmations over a real local run: resuming from the runs screen, destroy
asked from every screen (naming what it deletes), the help screen, quitting with
resources up."""

from __future__ import annotations

from pathlib import Path

import pytest

from console.tui.app import SCREENS, HotbenchApp
from console.tui.backend import Backend
from console.tui.screens.help import HelpScreen
from console.workflow import Hooks, UpOptions, auto_yes
from tests.conftest import until
from tests.tui.pilot_actions import (
    click_until,
    dialog_drawn,
    dialog_text,
    no_dialog,
    press_until,
    screen_changes,
)


@pytest.mark.e2e  # every screen's keys over a whole run: ~20 s
async def test_resume_destroy_everywhere_help_and_quit(
    tiny_playbook: Path, backend: Backend
) -> None:
    state = backend.up(tiny_playbook, auto_yes(Hooks()), UpOptions(workers=1, scale=0.5))
    older = backend.up(tiny_playbook, auto_yes(Hooks()), UpOptions(workers=1, scale=0.5))
    table = f"{state.run_id}-hot"
    app = HotbenchApp(backend)  # no playbook: opens on the runs screen
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: bool(app.get_screen("runs").listed))  # type: ignore[attr-defined]
        assert type(app.screen).__name__ == "RunsScreen"
        runs = app.get_screen("runs")
        assert [r.run_id for r in runs.listed] == [older.run_id, state.run_id]  # type: ignore[attr-defined]

        # d on the runs screen destroys the selected (newest) run, after naming it
        await pilot.press("d")
        await until(pilot, lambda: dialog_drawn(app))
        assert f"{older.run_id}-hot" in dialog_text(app)
        await click_until(pilot, "#yes", screen_changes(app))
        await until(pilot, lambda: app.session.down is not None)
        assert app.session.down is not None and app.session.down.nothing_left
        await until(pilot, lambda: dialog_drawn(app) and "nothing left" in dialog_text(app))
        await click_until(pilot, "#ok", lambda: no_dialog(app))
        assert not backend.state(older.run_id).billable_up

        # resume the other one: it opens at its next step, prewarm
        await until(pilot, lambda: len(runs.listed) == 2 and not runs.listed[0].billable_up)  # type: ignore[attr-defined]
        # Keys pressed in the moment the result dialog closes can be dropped (seen here on
        # a loaded machine: neither down nor enter had an effect, a later enter did), so
        # each key is pressed until its effect shows, as a person would press it again.
        listing = runs.query_one("#runs-table")
        await until(pilot, lambda: listing.has_focus and app.session.busy is None)

        def on_state() -> bool:
            return getattr(runs.selected(), "run_id", None) == state.run_id  # type: ignore[attr-defined]

        await press_until(pilot, "down", on_state)
        await press_until(pilot, "enter", lambda: app.session.state is not None)
        assert app.session.run_id == state.run_id
        assert type(app.screen).__name__ == "PrewarmScreen"

        # destroy asks first from every screen, naming the tables and the emulator
        for key, name in enumerate(SCREENS, start=1):
            if name == "runs":
                continue
            await pilot.press(str(key))
            assert type(app.screen) is SCREENS[name]
            await pilot.press("d")
            await until(pilot, lambda: dialog_drawn(app))
            text = dialog_text(app)
            assert table in text and "emulator process" in text, name
            await pilot.press("escape")
            assert type(app.screen) is SCREENS[name]
        assert backend.state(state.run_id).billable_up  # every confirmation was declined

        # help lists every key of the console and of each screen
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        helped = str(app.screen.query_one("#help-text").render())
        for binding in [*app.BINDINGS, *(b for s in SCREENS.values() for b in s.BINDINGS)]:
            assert binding.description in helped  # type: ignore[union-attr]
        await pilot.press("escape")

        # quitting with resources up asks first; staying keeps the app
        await pilot.press("q")
        await until(pilot, lambda: dialog_drawn(app))
        assert "still up" in str(app.screen.query_one(".dialog-title").render())
        await click_until(pilot, "#no", screen_changes(app))
        assert app.is_running
        # ... and "destroy, then quit" leaves nothing
        await pilot.press("q")
        await until(pilot, lambda: dialog_drawn(app))
        await click_until(pilot, "#destroy", screen_changes(app))
        # session.down still holds the first destroy's report, so it cannot tell that this
        # one is done: wait for this destroy's result dialog before pressing its ok.
        await until(pilot, lambda: dialog_drawn(app) and "nothing left" in dialog_text(app))
        await click_until(pilot, "#ok", lambda: no_dialog(app) or not app.is_running)
        await until(pilot, lambda: not app.is_running)
    assert not backend.state(state.run_id).billable_up
