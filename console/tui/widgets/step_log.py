"""The last thing the running step said, and its progress bar."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from console.tui.session import Session

BAR_WIDTH = 16


class StepLog(Static):
    def show(self, session: Session) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        if session.error:
            text.append(f"error: {session.error}", style="bold red")
        else:
            if session.progress is not None:
                what, fraction = session.progress
                if fraction is not None:
                    filled = round(BAR_WIDTH * max(0.0, min(1.0, fraction)))
                    text.append("█" * filled + "░" * (BAR_WIDTH - filled) + " ", style="cyan")
                text.append(f"{what}  ")
            # a step's status line belongs to it: once the step is over it goes, or a
            # stale "GO: 2 of 2 workers, T0 in 2.0 s" would stay on every later screen
            line = session.step_line()
            if line is not None and session.busy:
                text.append(line, style="dim")
        self.update(text)
