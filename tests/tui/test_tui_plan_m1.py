"""The plan screen at 80x24 with M1 (playbooks/hot-partition.yaml), as a new user first
sees it: every variant on the first screen, uncut; distributions in words; the advisor's
first limit per table, the rest one key away; a preview of every repeat."""

from __future__ import annotations

from pathlib import Path

from console.tui.app import HotbenchApp
from console.tui.backend import Backend
from console.tui.widgets.preview_chart import PreviewChart
from console.workflow import UpOptions, load_settings
from tests.conftest import PLAYBOOKS

M1 = PLAYBOOKS / "hot-partition.yaml"


async def test_m1_plan_at_80x24_shows_all_four_variants_in_words(tmp_path: Path) -> None:
    backend = Backend(load_settings(target="local", runs_dir=tmp_path / "runs"))
    app = HotbenchApp(backend, playbook_path=M1, poll=False)
    app.animation_level = "none"
    async with app.run_test(size=(80, 24)) as pilot:
        s = app.session
        s.playbook = backend.playbook(M1)
        s.plan = backend.plan(M1, UpOptions(workers=2, scale=0.1))
        s.advice = backend.advice(M1)
        app.redraw()
        await pilot.pause()
        table = app.screen.query_one("#plan-tables")
        assert table.virtual_size.width <= 78  # inside the margins: no column cut
        assert "badOnDemand" in app.export_screenshot()  # the last row, on the first screen
        rows = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]  # type: ignore[attr-defined]
        assert rows == ["bad", "good", "goodGsi", "badOnDemand"]
        load = str(app.screen.query_one("#plan-load").render())
        assert "WH-TOKYO 80 %, WH-OSAKA 10 %, WH-FUKUOKA 10 %" in load and "{" not in load
        gsis = str(app.screen.query_one("#plan-gsis").render())
        assert "byWarehouse, byWarehouseShelf, byWarehousePrice" in gsis
        advice = str(app.screen.query_one("#plan-advice").render())
        assert advice.count("the first limit hit is") == 3  # bad, goodGsi, badOnDemand
        assert "good: no limit is reached" in advice and "[morning-rush]" not in advice
        await pilot.press("a")
        everything = str(app.screen.query_one("#plan-advice").render())
        assert "[morning-rush] table partition write" in everything
        charts = [(c.variant, c.repeat) for c in app.screen.query(PreviewChart)]
        assert ("badOnDemand", 3) in charts and len(charts) == 6


async def test_a_steps_status_line_is_cleared_after_the_step_and_partitions_say_partitions(
    tmp_path: Path,
) -> None:
    from console.tui.widgets.step_log import StepLog
    from tests.tui.fixed import fill, fixed_app

    app = fixed_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        fill(app)
        app.session.log = ["GO: 2 of 2 workers, T0 in 2.0 s"]
        app.redraw()
        await pilot.pause()
        log = app.screen.query_one(StepLog)
        assert "GO: 2 of 2 workers" in str(log.render())  # while the run step runs
        app.session.busy = None
        app.redraw()
        await pilot.pause()
        assert "GO:" not in str(app.screen.query_one(StepLog).render())
        await pilot.press("5", "left_square_bracket")  # hot: its map is in the fixture
        await pilot.pause()
        text = " ".join(str(w.render()) for w in app.screen.query("Static"))
        assert "served by" in text and " on 1" not in text, text


async def test_the_results_table_fits_80_columns_with_the_reasons_below(tmp_path: Path) -> None:
    from textual.widgets import DataTable

    from tests.tui.fixed import fill, fixed_app

    app = fixed_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        fill(app, results=True)
        await pilot.press("4")
        await pilot.pause()
        table = app.screen.query_one("#results-table", DataTable)
        assert table.virtual_size.width <= 78
        assert "reasons" not in [str(c.label) for c in table.columns.values()]
        assert "hot#1: table write key range" in str(
            app.screen.query_one("#results-reasons").render()
        )
