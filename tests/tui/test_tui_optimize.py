"""The optimize screen: `o` searches the playbook's cheapest passing configuration, the
screen shows the chart, the ranked table and the recommendation against the naive fix,
and `a` applies it to the plan (the plan screen then plans the recommended tables)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from console.tui.app import HotbenchApp
from console.tui.backend import Backend
from console.tui.screens.optimize import OptimizeScreen
from loadgen.analysis.optimize import OptimizeReport
from tests.conftest import until
from tests.loadgen.optimize_playbooks import LAUNCH


class OneProcess(Backend):
    """The search in this process (a test counts the processes it starts)."""

    def optimize(self, path: str | Path, progress: Callable[[str], None]) -> OptimizeReport:
        import loadgen.analysis.optimize_search as search

        cores = search.cores
        search.cores = lambda: 1  # type: ignore[assignment]
        try:
            return super().optimize(path, progress)
        finally:
            search.cores = cores  # type: ignore[assignment]


async def test_search_then_apply_to_the_plan(tmp_path: Path, backend: Backend) -> None:
    playbook = tmp_path / "launch.yaml"
    playbook.write_text(
        LAUNCH.replace("trials: 8", "trials: 4\n  month: {peak_hours_per_day: 0.01}")
    )
    one = OneProcess(backend.settings)
    app = HotbenchApp(one, playbook)
    async with app.run_test(size=(100, 40)) as pilot:
        await until(pilot, lambda: app.session.plan is not None)
        await pilot.press("7")
        await until(pilot, lambda: isinstance(app.screen, OptimizeScreen))
        note = str(app.screen.query_one("#optimize-note").render())
        assert "o searches the cheapest configuration" in note
        await pilot.press("o")
        await until(pilot, lambda: app.session.optimized is not None, timeout_s=120)
        report = app.session.optimized
        assert report is not None and report.passed
        await until(
            pilot, lambda: "applies" in str(app.screen.query_one("#optimize-note").render())
        )
        table = app.screen.query_one("#optimize-table")
        assert table.row_count >= 3  # ranked, then the naive fix and the playbook as written
        summary = str(app.screen.query_one("#optimize-summary").render())
        assert "recommended:" in summary and "naive fix" in summary
        await pilot.press("a")
        best = backend.settings.runs_dir / "optimize" / "tiny-launch.best.yaml"
        await until(pilot, lambda: app.session.playbook_path == best)
        await until(pilot, lambda: type(app.screen).__name__ == "PlanScreen")
        await until(
            pilot,
            lambda: (
                app.session.plan is not None
                and app.session.playbook is not None
                and app.session.playbook.tables[0].billing_mode
                == report.final.configs["t"]["billing_mode"]
            ),  # type: ignore[union-attr]
            timeout_s=60,
        )
        assert best.read_text().startswith("# The cheapest configuration of tiny-launch")
