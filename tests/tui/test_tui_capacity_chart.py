"""The run chart's capacity line: it steps where the capacity in force changed, and a
mark stands where a change was asked (a playbook's UpdateTable phase, auto scaling);
`watch` prints the same. Driven with Textual's pilot on samples as the emulator's
metrics source makes them (console/targets/local.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from textual.app import App, ComposeResult

from console.render.workflow_output import _sample_line
from console.run.samples import IndexSample
from console.targets.local import index_capacity, scaling_in
from console.tui.session import Watched
from console.tui.widgets.table_chart import TableChart

T0 = datetime(2026, 12, 3, 12, 0, 0, tzinfo=UTC)


def _samples() -> list[IndexSample]:
    out = []
    for t in range(6):
        wcu = 1000.0 if t < 3 else 3000.0
        out.append(
            IndexSample(
                source="emulator",
                table="orders",
                start=T0 + timedelta(seconds=t),
                consumed_wcu=900.0,
                capacity_wcu=wcu,
                capacity_rcu=100.0,
                capacity_status="UPDATING" if t == 2 else "ACTIVE",
                scaling=["write 1000.0 -> 3000.0: UpdateTable"] if t == 1 else [],
            )
        )
    return out


class ChartApp(App[None]):
    def compose(self) -> ComposeResult:
        yield TableChart("orders")


async def test_the_chart_steps_the_capacity_and_marks_the_change() -> None:
    watched = Watched("orders#1")
    watched.first_at = T0
    watched.series[("emulator", "orders", None)] = _samples()
    app = ChartApp()
    async with app.run_test(size=(80, 24)) as pilot:
        chart = app.query_one(TableChart)
        chart.show(watched, None, "orders")
        await pilot.pause()
        assert chart.lines["capacity WCU"] == [1000.0] * 3 + [3000.0] * 3
        assert chart.scaling_marks == [(1.0, "write 1000.0 -> 3000.0: UpdateTable")]
        assert "capacity change (1)" in chart.series_colors


def test_watch_prints_the_capacity_and_the_change() -> None:
    lines = [_sample_line(s) for s in _samples()]
    assert "capacity 1,000 WCU 100 RCU" in lines[0]
    assert "[capacity: write 1000.0 -> 3000.0: UpdateTable]" in lines[1]
    assert "UPDATING" in lines[2] and "capacity 3,000 WCU" in lines[3]


def test_the_emulator_view_gives_the_capacity_and_the_second_of_each_change() -> None:
    index = {
        "provisioned": None,
        "on_demand_ceiling": {"read": 12000.0, "write": 4000.0},
        "capacity_events": [
            {"t": 7.4, "what": "on-demand maximum", "from": "a", "to": "b", "cause": "UpdateTable"}
        ],
    }
    assert index_capacity(index) == (12000.0, 4000.0)
    assert scaling_in(index, 7) == ["on-demand maximum a -> b: UpdateTable"]
    assert scaling_in(index, 8) == []
