"""A table run's per-second chart: accepted and throttled requests, consumed WCU, against
the 1,000 WCU/s partition line and the table's own limit; the capacity in force as it
steps, with a mark where a change was asked (an UpdateTable phase, auto scaling)."""

from __future__ import annotations

from datetime import datetime, timedelta

from rich.text import Text
from textual_plotext import PlotextPlot

from console.tui.session import Watched
from console.tui.widgets.chart_axes import round_axes
from console.workflow import IndexSample

PARTITION_WCU = 1000.0
"""One partition's write limit (docs/reference.md#dynamodb-facts): the line a hot key
crosses."""


def in_run(sample: IndexSample, t0: datetime) -> bool:
    """Whether a per-second sample holds traffic of the run that began at T0: a second
    that ends after T0 (a worker's seconds start at T0; the emulator's fall anywhere)."""
    return sample.start + timedelta(seconds=sample.period_s) > t0


_RICH = {"orange": "dark_orange"}
"""plotext colour names that rich spells differently."""


class TableChart(PlotextPlot):
    """Redrawn from the samples each second; `lines` keeps what was drawn (tests read it)."""

    def __init__(self, variant: str, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.variant = variant
        self.lines: dict[str, list[float]] = {}
        self.series_colors: dict[str, str] = {}
        """label -> colour of what was drawn: the legend beside the plot (`legend`)."""
        self.scaling_marks: list[tuple[float, str]] = []
        """(seconds since T0, the change in words) of each capacity change drawn."""

    def legend(self) -> Text:
        """One line per drawn series in its colour, for a widget beside the plot: a
        legend on the plot hides the lines it explains."""
        text = Text(no_wrap=True, overflow="ellipsis")
        for label, color in self.series_colors.items():
            text.append("━━ ", style=_RICH.get(color, color))
            text.append(label + "\n")
        return text

    def show(self, watched: Watched | None, limit_wcu: float | None, title: str) -> None:
        plt = self.plt
        plt.clear_figure()
        plt.title(title)
        plt.xlabel("s")
        self.lines, self.series_colors = {}, {}
        if watched is None or watched.first_at is None:
            self.refresh()
            return
        t0 = watched.go_at or watched.first_at

        def xs(samples: list[IndexSample]) -> list[float]:
            return [(s.start - t0).total_seconds() for s in samples]

        def since_t0(source: str) -> list[IndexSample]:
            # Before T0 the table only took the seeding writes: not the run's. The
            # emulator's seconds are its own, not aligned on T0: the one T0 falls in
            # already holds the run's first requests.
            found = watched.samples(source, self.variant)
            return [x for x in found if in_run(x, t0)] if watched.go_at else found

        workers = since_t0("workers")
        endpoint = since_t0("emulator")
        minutes = watched.samples("cloudwatch", self.variant)  # 1-minute periods
        wcu = endpoint or workers
        drawn: list[tuple[str, list[float], list[float], str]] = [
            ("accepted/s", xs(workers), [s.accepted for s in workers], "green"),
            ("throttled/s", xs(workers), [s.throttled for s in workers], "red"),
            ("WCU/s", xs(wcu), [s.consumed_wcu for s in wcu], "cyan"),
        ]
        if minutes:
            drawn.append(
                ("CloudWatch 1-min WCU", xs(minutes), [s.consumed_wcu for s in minutes], "blue")
            )
        # The capacity in force as it steps (provisioned WCU, or the on-demand ceiling),
        # from the table side's samples: a change shows where it lands, not where asked.
        stepped = [s for s in wcu if s.capacity_wcu is not None]
        if stepped:
            drawn.append(
                (
                    "capacity WCU",
                    xs(stepped),
                    [s.capacity_wcu or 0.0 for s in stepped],
                    "yellow",
                )
            )
        self.scaling_marks = [
            (max(0.0, x), change) for x, s in zip(xs(wcu), wcu, strict=True) for change in s.scaling
        ]
        span = [max(0.0, min(xs(workers) or [0.0])), max(xs(workers) or [1.0])]
        drawn.append(("partition 1,000 WCU", span, [PARTITION_WCU] * 2, "orange"))
        if limit_wcu:
            drawn.append((f"limit {limit_wcu:,.0f}", span, [limit_wcu] * 2, "magenta"))
        top_x = top_y = 0.0
        for label, x, y, color in drawn:
            # no negative time: a sample that began before T0 is drawn from 0
            kept = [(max(0.0, a), b) for a, b in zip(x, y, strict=True)]
            if kept:
                plt.plot([a for a, _ in kept], [b for _, b in kept], color=color, marker="braille")
                self.lines[label] = [b for _, b in kept]
                self.series_colors[label] = color
                top_x = max(top_x, *(a for a, _ in kept))
                top_y = max(top_y, *(b for _, b in kept))
        for at, _change in self.scaling_marks:
            plt.vline(at, "yellow")  # a capacity change asked: UpdateTable or auto scaling
        if self.scaling_marks:
            self.series_colors[f"capacity change ({len(self.scaling_marks)})"] = "yellow"
        round_axes(plt, top_x, top_y)
        self.refresh()
