"""What every screen shares: the status bar with the cost meter, the step log, the footer."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer

from console.tui.session import Session
from console.tui.widgets.status_bar import StatusBar
from console.tui.widgets.step_log import StepLog

if TYPE_CHECKING:
    from console.tui.app import HotbenchApp


class TuiScreen(Screen[None]):
    TITLE = ""

    @property
    def console(self) -> HotbenchApp:
        # a string: the app imports the screens, so the screens name its class only
        # for the type checker (no import circle between the two)
        return cast("HotbenchApp", self.app)

    @property
    def session(self) -> Session:
        return self.console.session

    def compose(self) -> ComposeResult:
        yield StatusBar(self.TITLE)
        yield from self.compose_body()
        yield StepLog(id="step-log")
        yield Footer()

    def compose_body(self) -> ComposeResult:
        yield from ()

    def on_screen_resume(self) -> None:
        self.refresh_view()

    def refresh_view(self) -> None:
        """Redraw from the session; the app calls it once a second on the active screen."""
        if not self.is_mounted:
            return
        try:
            self.query_one(StatusBar).show(self.session)
            self.query_one(StepLog).show(self.session)
            self.show_body()
        except NoMatches:
            # A screen is mounted a moment before the widgets of its widgets are composed:
            # a resume in that moment (seen when a screen was pushed and popped on a
            # loaded machine) finds no status line yet. The next redraw, within a second,
            # draws what this one could not.
            return

    def show_body(self) -> None:
        return None
