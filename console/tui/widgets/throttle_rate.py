"""The throttle rate of a table run and its throttles by reason."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from console.render.results_table import short_reason


class ThrottleRate(Static):
    """`rate` is what is shown: the run's result once it finished, the sum of the watched
    samples while it runs."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.rate: float | None = None
        self.final = False

    def show(
        self,
        rate: float | None,
        by_reason: dict[str, float],
        final: bool,
        accepted: float,
        throttled: float,
    ) -> None:
        self.rate, self.final = rate, final
        text = Text()
        style = "green" if not rate else ("yellow" if rate < 0.1 else "bold red")
        text.append("thr ")
        text.append("-" if rate is None else f"{rate * 100:.1f} %", style=style)
        text.append(" result" if final else " live", style="dim")
        text.append(f"\nok  {accepted:,.0f}\nthr {throttled:,.0f}")
        for reason, n in sorted(by_reason.items(), key=lambda kv: -kv[1]):
            text.append(f"\n{short_reason(reason)} {n:,.0f}", style="dim")
        self.update(text)
