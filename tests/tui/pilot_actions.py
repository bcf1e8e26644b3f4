"""What a person does at the console, for Pilot: press or click again until it had its
effect, read the dialog on screen, and wait for a screen to settle before a picture of
it is taken. One copy for every TUI test."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from textual.pilot import Pilot

from console.tui.app import HotbenchApp
from console.tui.screens.dialogs import Question


async def repeat_until(
    pilot: Pilot[int], act: Callable[[], Awaitable[object]], effect: Callable[[], bool], what: str
) -> None:
    """Does `act` until `effect()` holds (at most 20 times, 5 s apart), as a person
    presses a key or clicks again when the first had no effect."""
    for _ in range(20):
        if effect():
            return
        await act()
        deadline = time.monotonic() + 5.0
        while not effect() and time.monotonic() < deadline:
            await pilot.pause(0.1)
    assert effect(), f"{what} 20 times had no effect"


async def press_until(pilot: Pilot[int], key: str, effect: Callable[[], bool]) -> None:
    """Presses `key` until `effect()` holds."""
    await repeat_until(pilot, lambda: pilot.press(key), effect, f"pressing {key!r}")


async def click_until(pilot: Pilot[int], selector: str, effect: Callable[[], bool]) -> None:
    """Clicks `selector` until `effect()` holds: a dialog's lines can be drawn before its
    buttons are laid out, and a click then lands on what is under them (seen in a fresh
    clone's suite: the ok of a destroy's result was missed, the dialog stayed, and every
    later key went to it)."""
    await repeat_until(pilot, lambda: pilot.click(selector), effect, f"clicking {selector!r}")


def screen_changes(app: HotbenchApp) -> Callable[[], bool]:
    """True once the screen shown now (a question) is no longer the current one."""
    shown = app.screen
    return lambda: app.screen is not shown


def no_dialog(app: HotbenchApp) -> bool:
    return not isinstance(app.screen, Question)


def dialog_drawn(app: HotbenchApp) -> bool:
    """A question is on screen and its lines are composed (a pushed screen is current a
    moment before its widgets exist)."""
    return isinstance(app.screen, Question) and bool(app.screen.query("#dialog-lines"))


def dialog_text(app: HotbenchApp) -> str:
    return str(app.screen.query_one("#dialog-lines").render())


async def settle(pilot: Pilot[int]) -> None:
    """Waits until the screen draws the same twice in a row, at least three rounds of
    (workers done, redraw, pause): the run screen mounts its tabs, then draws them, and a
    screen filled from a worker draws once the worker's callback has run. (The tables are
    whole from their first frame: console/tui/widgets/fitted_table.py says why that is
    not Textual's default.) A settled screen is what a snapshot compares; 50 rounds bound
    a screen that never settles, and the snapshot then shows it."""
    app = pilot.app
    assert isinstance(app, HotbenchApp)
    previous = None
    for round_ in range(50):
        await app.workers.wait_for_complete()
        app.redraw()
        await pilot.pause()
        shot = app.export_screenshot()
        if round_ >= 2 and shot == previous:
            return
        previous = shot
