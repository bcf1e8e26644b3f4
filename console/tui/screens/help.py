"""Help (`?`): every key of the console and of each screen, from their own bindings."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


def key_lines(title: str, bindings: list[BindingType]) -> list[str]:
    out = [title.upper()]
    if any(isinstance(b, Binding) and b.key == "1" for b in bindings):
        out.append("  1-6        screens: plan, prewarm, run, results, partitions, runs")
    for b in bindings:
        if isinstance(b, Binding) and b.description and b.key not in "123456":
            key = b.key_display or b.key.replace("question_mark", "?").replace(
                "left_square_bracket", "["
            ).replace("right_square_bracket", "]")
            out.append(f"  {key:<10} {b.description}")
    return out


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "close"),
        Binding("question_mark", "dismiss", "close"),
        Binding("q", "dismiss", "close"),
    ]

    def __init__(self, sections: list[tuple[str, list[BindingType]]]) -> None:
        super().__init__()
        self.sections = sections

    def compose(self) -> ComposeResult:
        lines: list[str] = [
            "hotbench console: plan -> up -> prewarm -> run -> results -> destroy.",
            "Every action is a workflow step (docs/workflow.md); ctrl+p lists them all.",
            "",
        ]
        for title, bindings in self.sections:
            lines += [*key_lines(title, bindings), ""]
        lines.append("escape, ? or q closes this help.")
        with Vertical(classes="dialog help"):
            yield Static("Keys", classes="dialog-title")
            with VerticalScroll(classes="dialog-body"):
                yield Static(Text("\n".join(lines)), id="help-text")
