"""The run screen's chart reads as drawn: the 1,000 WCU/s partition line at its value
(a 10,000 WCU table's limit scaled the chart to 10k and put it on the zero row), and a
legend whose marks differ, so it does not rely on colour alone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from console.run.samples import IndexSample
from console.tui.session import Watched
from console.tui.widgets.table_chart import PARTITION_WCU, TableChart

T0 = datetime(2026, 12, 1, 9, 0, 0, tzinfo=UTC)


def _watched() -> Watched:
    watched = Watched("bad#1")
    for t in range(20):
        start = T0 + timedelta(seconds=t)
        for source in ("workers", "emulator"):
            sample = IndexSample(
                source=source,  # type: ignore[arg-type]
                table="bad",
                start=start,
                accepted=1800.0,
                throttled=2200.0,
                consumed_wcu=1800.0,
            )
            watched.series[(source, "bad", None)].append(sample)
    watched.first_at = watched.go_at = T0
    return watched


def _rows(chart: TableChart) -> list[str]:
    chart.plt.plotsize(60, 12)
    chart.plt.theme("clear")
    return chart.plt.build().splitlines()


def test_a_limit_far_above_the_load_leaves_the_partition_line_at_its_value() -> None:
    chart = TableChart("bad")
    chart.show(_watched(), 10_000.0, "bad#1")
    assert chart.lines["partition 1,000 WCU"] == [PARTITION_WCU] * 2
    assert not any(label.startswith("limit") for label in chart.lines)
    assert "limit 10,000 (above the chart)" in chart.legend().plain
    rows = _rows(chart)
    zero = next(i for i, row in enumerate(rows) if row.strip().startswith("0┤"))
    drawn = [i for i, row in enumerate(rows) if "─" in row and "┤" in row and "┌" not in row]
    assert drawn and all(i < zero for i in drawn)  # not on the zero row
    one_k = next(i for i, row in enumerate(rows) if row.strip().startswith("1k┤"))
    assert one_k in drawn  # on the 1k tick's row


def test_a_limit_near_the_load_is_drawn() -> None:
    chart = TableChart("bad")
    chart.show(_watched(), 4_000.0, "bad#1")
    assert chart.lines["limit 4,000"] == [4000.0, 4000.0]


def test_the_legend_reads_without_colour() -> None:
    chart = TableChart("bad")
    chart.show(_watched(), 4_000.0, "bad#1")
    marks = [line.split(" ")[0] for line in chart.legend().plain.splitlines()]
    assert len(marks) == len(chart.series_colors) == 5
    assert len(set(marks)) == len(marks)  # each series its own mark


def test_the_levels_span_every_series_not_only_the_workers() -> None:
    """The workers' seconds come every 3 s; the emulator's already reach 3 s: the
    partition line goes across all of it, not one mark at 0."""
    watched = _watched()
    workers = watched.series[("workers", "bad", None)]
    del workers[1:]  # the workers have reported only their first second
    chart = TableChart("bad")
    chart.show(watched, 2_000.0, "bad#1")
    assert len(chart.lines["accepted/s"]) == 1
    assert chart.lines["partition 1,000 WCU"] == [PARTITION_WCU] * 2
    rows = _rows(chart)
    one_k = next(row for row in rows if row.strip().startswith("1k┤"))
    assert one_k.count("─") > 20  # drawn across the chart
