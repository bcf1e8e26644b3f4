"""Modal questions: destroy (naming what will be deleted), its sweep result, quit with
resources up, and the workflow's own confirmations (the cost before `up`)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from console.workflow import DownReport, RunState


def what_destroy_deletes(state: RunState) -> list[str]:
    """Everything the run's state records as existing: what `down` will delete."""
    out: list[str] = []
    for table in state.tables.values():
        if table.created_at is not None and table.deleted_at is None:
            gsis = f" (GSIs {', '.join(g.name for g in table.gsis)})" if table.gsis else ""
            out.append(f"table {table.name}{gsis}")
    if state.results_table:
        out.append(f"results table {state.results_table}")
    emu = state.emulator
    if emu is not None and getattr(emu, "stopped_at", None) is None:
        out.append(f"emulator process pid {emu.pid} on {emu.endpoint}")
    tf = state.terraform
    if tf is not None and tf.applied_at is not None and tf.destroyed_at is None:
        out.append(f"the Terraform stack in {tf.workdir}, then a sweep by tag {state.run_id}")
    running = [t.id for t in state.tasks if t.stopped_at is None] + [
        i.id for i in state.invocations if i.ended_at is None
    ]
    if running:
        out.append(f"{len(running)} workers still running")
    out += [f"left over earlier: {item}" for item in state.leftovers]
    return out


class Question(ModalScreen[str]):
    """A question with buttons, each with its own key (shown on it); dismisses with the
    chosen button's id. Escape answers no."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss('no')", "cancel")]

    def __init__(
        self, title: str, lines: list[str], buttons: list[tuple[str, str, str, str]]
    ) -> None:
        super().__init__()
        self.title_text = title
        self.lines = lines
        self.buttons = buttons
        """(id, label, variant, key)"""

    def on_key(self, event: events.Key) -> None:
        for button_id, _label, _variant, key in self.buttons:
            if event.key == key:
                event.stop()
                self.dismiss(button_id)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(Text(self.title_text), classes="dialog-title")
            body = VerticalScroll(classes="dialog-body")
            body.display = bool(self.lines)  # set here, not on mount: see on_mount
            with body:
                yield Static(Text("\n".join(self.lines)), id="dialog-lines")
            with Horizontal(classes="dialog-buttons"):
                for button_id, label, variant, key in self.buttons:
                    yield Button(f"{label} ({key})", id=button_id, variant=variant)  # type: ignore[arg-type]

    def on_mount(self) -> None:
        # A question pushed as the app shuts down is mounted after its children are gone
        # (seen when a test's app exited with a dialog on its way): nothing to focus then.
        buttons = self.query(Button)
        if buttons:
            buttons.last().focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id or "no")


def destroy_question(state: RunState) -> Question:
    lines = what_destroy_deletes(state) or ["nothing is recorded as up; down will check"]
    return Question(
        f"Destroy run {state.run_id}? This deletes:",
        [f"• {line}" for line in lines],
        [("yes", "Destroy", "error", "y"), ("no", "Cancel", "primary", "n")],
    )


def quit_question(state: RunState) -> Question:
    deadline = (
        f" until {state.deadline:%H:%M} UTC, when it is destroyed by itself"
        if state.deadline
        else ""
    )
    return Question(
        f"Run {state.run_id} is still up{deadline}:",
        [f"• {line}" for line in what_destroy_deletes(state)]
        + ["", "`hotbench console --run " + state.run_id + "` comes back to it."],
        [
            ("destroy", "Destroy, then quit", "error", "d"),
            ("leave", "Quit, leave it up", "warning", "l"),
            ("no", "Stay", "primary", "n"),
        ],
    )


def sweep_result(report: DownReport) -> Question:
    if report.nothing_left:
        lines = ["nothing left"] + [f"removed {item}" for item in report.removed]
    else:
        lines = [
            f"LEFT: {x.kind} {x.id}\n  delete with: {x.delete_command}" for x in report.leftovers
        ]
    lines += [f"note: {n}" for n in report.notes]
    return Question(f"Destroyed {report.run_id}", lines, [("ok", "OK", "primary", "enter")])


def step_question(question: str) -> Question:
    return Question(question, [], [("yes", "Yes", "warning", "y"), ("no", "No", "primary", "n")])
