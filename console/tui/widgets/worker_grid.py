"""The fleet: one cell per worker, coloured by what the results table says it is doing."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from console.workflow import WorkerStatus

STYLES = {"done": "blue", "running": "green", "ready": "yellow", "lost": "red", "waiting": "dim"}


class WorkerGrid(Static):
    def __init__(self, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.status: WorkerStatus | None = None

    def show(self, status: WorkerStatus | None) -> None:
        self.status = status
        text = Text()
        if status is None:
            self.update("workers: -")
            return
        # A running or finished worker was ready first: only the rest are waiting at
        # the barrier.
        at_barrier = max(0, status.ready - status.running - status.done - status.lost)
        cells = (
            ["done"] * status.done
            + ["running"] * status.running
            + ["ready"] * at_barrier
            + ["lost"] * status.lost
        )
        cells += ["waiting"] * max(0, status.planned - len(cells))
        for kind in cells:
            text.append("■", style=STYLES[kind])
        text.append(f"\n{status.running} running {status.done} done\n{status.ready} ready")
        if status.lost:
            text.append(f" {status.lost} lost (partial)", style="red")
        text.append(f"\nlate {status.late:,}", style="yellow" if status.late else "dim")
        self.update(text)
