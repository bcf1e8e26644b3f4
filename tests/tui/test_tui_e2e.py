"""The console driven with Textual's Pilot against the real workflow on the local
emulator: plan -> up -> prewarm -> run a tiny playbook -> results -> destroy."""

from __future__ import annotations

from pathlib import Path

import pytest

from console.tui.app import HotbenchApp
from console.tui.backend import Backend
from console.tui.screens.run import TablePane
from console.tui.widgets.cost_meter import CostMeter
from console.tui.widgets.table_chart import TableChart, in_run
from console.tui.widgets.throttle_rate import ThrottleRate
from console.workflow import RunOptions, UpOptions
from tests.conftest import until
from tests.tui.pilot_actions import (
    click_until,
    dialog_drawn,
    dialog_text,
    no_dialog,
    screen_changes,
)


@pytest.mark.e2e  # the whole TUI workflow, driven by keys: ~35 s
async def test_plan_up_prewarm_run_results_destroy(tiny_playbook: Path, backend: Backend) -> None:
    app = HotbenchApp(
        backend,
        playbook_path=tiny_playbook,
        up_options=UpOptions(workers=1, scale=0.5),
        run_options=RunOptions(pause_scale=1.0),
    )
    async with app.run_test(size=(80, 24)) as pilot:
        s = app.session
        await until(pilot, lambda: s.plan is not None and s.preview is not None)
        assert type(app.screen).__name__ == "PlanScreen"
        assert backend.runs() == []  # the plan created nothing
        await pilot.press("u")
        await until(pilot, lambda: dialog_drawn(app))
        await click_until(pilot, "#yes", screen_changes(app))
        await until(pilot, lambda: s.state is not None and s.busy is None)
        assert s.state is not None and s.state.billable_up
        run_id = s.state.run_id
        # the prewarm screen is pushed when up ends, and composed on a later frame
        await until(pilot, lambda: bool(app.screen.query(CostMeter)))
        meter = app.screen.query_one(CostMeter)
        await until(pilot, lambda: (meter.usd or 0) > 0)
        first = meter.usd
        await pilot.press("w")
        await until(pilot, lambda: s.busy is None and type(app.screen).__name__ == "RunScreen")
        await pilot.press("g")
        await until(pilot, lambda: s.result is not None, 120)
        assert type(app.screen).__name__ == "ResultsScreen"
        await until(pilot, lambda: bool(app.screen.query(CostMeter)))  # composed
        meter = app.screen.query_one(CostMeter)
        await until(pilot, lambda: meter.usd is not None)  # the screen's first 1 Hz poll
        assert meter.usd is not None and first is not None and meter.usd > first
        # the run screen shows the result's throttle rate, its charts drew the samples
        await pilot.press("3")

        def drawn(p: TablePane) -> bool:
            # the 1 Hz redraw has drawn every watched second, the workers' and the
            # emulator's (its last second can arrive after the workers' last)
            w = s.latest_for(p.variant)
            if w is None or w.go_at is None:
                return False
            lines = p.query_one(TableChart).lines
            go_at = w.go_at
            endpoint = [x for x in w.samples("emulator", p.variant) if in_run(x, go_at)]
            return len(lines.get("accepted/s", [])) == len(w.samples("workers", p.variant)) and [
                *lines.get("WCU/s", [])
            ] == [x.consumed_wcu for x in endpoint]

        def drawn_all() -> bool:
            return all(drawn(p) for p in app.screen.query(TablePane))

        await until(pilot, drawn_all)
        assert s.result is not None
        result = {(r.table, r.repeat): r.to_json() for r in s.result.runs}
        for pane in app.screen.query(TablePane):
            shown = pane.query_one(ThrottleRate)
            watched = s.latest_for(pane.variant)
            assert watched is not None
            label = watched.label.split("#")
            assert shown.final
            assert shown.rate == result[(label[0], int(label[1]))]["throttle_rate"]
            chart = pane.query_one(TableChart)
            workers = watched.samples("workers", pane.variant)
            # the emulator's seconds from T0 on (before it, the table took the seeding)
            assert watched.go_at is not None
            endpoint = [
                x for x in watched.samples("emulator", pane.variant) if in_run(x, watched.go_at)
            ]
            assert chart.lines["accepted/s"] == [x.accepted for x in workers]
            assert chart.lines["throttled/s"] == [x.throttled for x in workers]
            assert chart.lines["WCU/s"] == [x.consumed_wcu for x in endpoint]
            assert len(endpoint) >= 2  # per second over a 3-second run
        await pilot.press("d")
        await until(pilot, lambda: dialog_drawn(app))
        lines = dialog_text(app)
        assert f"{run_id}-hot" in lines and "emulator process" in lines
        await click_until(pilot, "#yes", screen_changes(app))
        await until(pilot, lambda: s.down is not None)
        assert s.down is not None and s.down.nothing_left
        await until(pilot, lambda: s.state is not None and not s.state.billable_up)
        await pilot.pause(2.5)
        final = app.screen_stack[-2].query_one(CostMeter).usd
        await pilot.pause(2.5)
        assert app.screen_stack[-2].query_one(CostMeter).usd == final
        await until(pilot, lambda: dialog_drawn(app) and "nothing left" in dialog_text(app))
        await click_until(pilot, "#ok", lambda: no_dialog(app))
        await pilot.press("q")
