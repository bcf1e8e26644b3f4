"""The simulated run of one table (the plan's preview): succeeded and throttled per second."""

from __future__ import annotations

from textual_plotext import PlotextPlot

from console.tui.widgets.chart_axes import round_axes
from loadgen.results.records import RunResult


class PreviewChart(PlotextPlot):
    def __init__(self, variant: str, repeat: int = 1, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.variant, self.repeat = variant, repeat
        self.run: RunResult | None = None

    def show(self, run: RunResult | None) -> None:
        self.run = run
        plt = self.plt
        plt.clear_figure()
        title = f"{self.variant}#{self.repeat} (simulated)"
        if run is not None:
            data = run.to_json()
            title += f" {data['throttle_rate'] * 100:.1f} % thr"
            seconds = sorted(t for t in run.seconds if t >= 0)
            plt.plot(
                seconds,
                [run.seconds[t].succeeded for t in seconds],
                color="green",
                marker="braille",
            )
            plt.plot(
                seconds, [run.seconds[t].throttled for t in seconds], color="red", marker="braille"
            )
            top = max((run.seconds[t].succeeded for t in seconds), default=0)
            top = max(top, *(run.seconds[t].throttled for t in seconds), 0)
            round_axes(plt, max(seconds, default=1), top)
        plt.title(title)
        self.refresh()
