"""The top line of every screen: where you are, which run, which step, the cost meter."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from console.tui.session import Session
from console.tui.widgets.cost_meter import CostMeter


class StatusBar(Horizontal):
    def __init__(self, title: str) -> None:
        super().__init__()
        self.screen_title = title

    def compose(self) -> ComposeResult:
        yield Static(self.screen_title, id="screen-title")
        yield Static("", id="run-line")
        yield CostMeter(id="cost-meter")

    def show(self, session: Session) -> None:
        state = session.state
        if session.run_id is None:
            line = "no run yet"
        elif state is None:
            line = session.run_id
        else:
            line = f"{state.run_id} {state.target}"
            if not session.busy:
                line += f" · last step {state.current_step.value}"
        if session.busy:
            line += f" · {session.busy} running…"
        if session.waiting_for:
            line += f" ({session.waiting_for})"
        self.query_one("#run-line", Static).update(line)
        self.query_one(CostMeter).show(session.tally, session.billable_up)
