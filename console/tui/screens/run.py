"""Run: per table, the live chart, throttle rate and reasons, latency, the worker grid and
the clock (T0, phases, pauses); the cost meter is in the header."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Static, TabbedContent, TabPane

from console.tui.screens.base import TuiScreen
from console.tui.session import Watched
from console.tui.widgets.client_latency import ClientLatency
from console.tui.widgets.iteration_rate import IterationRate
from console.tui.widgets.phase_clock import PhaseClock
from console.tui.widgets.table_chart import TableChart
from console.tui.widgets.throttle_rate import ThrottleRate
from console.tui.widgets.worker_grid import WorkerGrid
from console.workflow import Status, Step


class TablePane(TabPane):
    """One table's live view."""

    def __init__(self, variant: str, pane_id: str) -> None:
        super().__init__(variant, id=pane_id)
        self.variant = variant

    def compose(self) -> ComposeResult:
        with Horizontal(classes="chart-row"):
            yield TableChart(self.variant, classes="table-chart")
            yield Static("", classes="chart-legend")
        yield IterationRate(classes="iteration-rate")
        with Horizontal(classes="run-stats"):
            yield ThrottleRate(classes="stat")
            yield ClientLatency(classes="stat")
            yield WorkerGrid(classes="stat")
            yield PhaseClock(classes="stat")


class RunScreen(TuiScreen):
    TITLE = "RUN"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g", "app.run", "go: run"),
        Binding("x", "app.cancel_step", "cancel"),
    ]

    def compose_body(self) -> ComposeResult:
        yield Static("", id="run-note")
        yield TabbedContent(id="run-tabs")

    def variants(self) -> list[str]:
        if self.session.plan is not None:
            return [t.variant for t in self.session.plan.tables]
        if self.session.state is not None:
            return list(self.session.state.tables)
        return []

    def show_body(self) -> None:
        tabs = self.query_one("#run-tabs", TabbedContent)
        variants = self.variants()
        panes = list(tabs.query(TablePane))
        if not panes and variants:
            for i, variant in enumerate(variants):
                tabs.add_pane(TablePane(variant, f"pane-{i}"))
            return  # drawn on the next tick, once mounted
        self._note()
        current = self.session.current_label
        for pane in panes:
            self._pane(pane)
            follows = current and current.split("#")[0] == pane.variant
            if follows and pane.id and tabs.active != pane.id and not self.session.watch_finished:
                tabs.active = pane.id

    def _note(self) -> None:
        s = self.session
        if s.state is None:
            text = "Nothing is up yet: the plan screen (1) creates the tables with u."
        elif not s.state.billable_up:
            text = "This run is down: nothing is up (6: the runs)."
        elif s.busy == "run":
            text = f"running {s.current_label or '(preparing)'}  ·  x: cancel"
        elif s.state.record(Step.RUN).status == Status.DONE:
            text = "run finished  ·  4: results  ·  d: destroy"
        else:
            runs = s.state.table_runs
            done = sum(1 for r in runs if r.status == Status.DONE)
            text = (
                f"g: resume the run ({done} of {len(runs)} table runs done)"
                if done
                else ("g: start the run")
            )
        if s.watch_note:
            text += f"  ·  {s.watch_note}"
        self.query_one("#run-note", Static).update(text)

    def _limit(self, variant: str) -> float | None:
        state = self.session.state
        if state is not None and variant in state.tables and state.tables[variant].write_capacity:
            return float(state.tables[variant].write_capacity or 0)
        plan = self.session.plan
        planned = next((t for t in plan.tables if t.variant == variant), None) if plan else None
        if planned is not None and planned.on_demand_max_write:
            return float(planned.on_demand_max_write)
        return None

    def _final(self, label: str) -> dict[str, Any] | None:
        result = self.session.result
        if result is None:
            return None
        variant, _, repeat = label.partition("#")
        for run in result.runs:
            if run.table == variant and str(run.repeat) == repeat:
                return run.to_json()
        return None

    def _pane(self, pane: TablePane) -> None:
        if not pane.query(TableChart):
            return  # added on this tick; its widgets come on the next
        s = self.session
        watched = s.latest_for(pane.variant)
        title = watched.label if watched else f"{pane.variant}: not run yet"
        chart = pane.query_one(TableChart)
        chart.show(watched, self._limit(pane.variant), title)
        pane.query_one(".chart-legend", Static).update(chart.legend())
        final = self._final(watched.label) if watched else None
        rate_widget = pane.query_one(ThrottleRate)
        if final is not None:
            rate_widget.show(
                final["throttle_rate"],
                final["throttles_by_reason"],
                True,
                final["succeeded"],
                final["throttled"],
            )
        elif watched is not None:
            totals = watched.totals("workers", pane.variant)
            accepted, throttled = totals.pop("accepted", 0.0), totals.pop("throttled", 0.0)
            sent = accepted + throttled
            rate_widget.show(throttled / sent if sent else None, totals, False, accepted, throttled)
        else:
            rate_widget.show(None, {}, False, 0, 0)
        timed = [
            x
            for x in (watched.samples("workers", pane.variant) if watched else [])
            if x.p50_ms is not None
        ]
        pane.query_one(ClientLatency).show(
            timed[-1].p50_ms if timed else None, timed[-1].p99_ms if timed else None
        )
        pane.query_one(WorkerGrid).show(watched.workers if watched else None)
        pane.query_one(IterationRate).show(
            watched.samples("workers", pane.variant) if watched else [], final
        )
        self._clock(pane, watched)

    def _clock(self, pane: TablePane, watched: Watched | None) -> None:
        s = self.session
        state, playbook = s.state, s.playbook
        if state is None or playbook is None:
            pane.query_one(PhaseClock).show(None, None, [], self.console.now())
            return
        mine = [r for r in state.table_runs if r.variant == pane.variant]
        running = next((r for r in mine if r.status == Status.RUNNING), None)
        label = watched.label if watched else None
        t0 = watched.go_at if watched else None
        fleet = watched.workers if watched else None
        waiting = f"{fleet.ready} of {fleet.planned} workers ready" if fleet else "seeding"
        if fleet is not None and fleet.lifecycle:  # AWS: where the tasks are while waiting
            waiting += f" ({fleet.lifecycle})"
        pause_until = next_label = None
        finished = [r for r in mine if r.status == Status.DONE and r.finished_at]
        pending = [r for r in mine if r.status == Status.PENDING]
        if running is None and finished and pending and s.busy == "run":
            spec = next(r for r in playbook.runs() if r.table == pane.variant)
            last = finished[-1].finished_at
            assert last is not None
            pause_until = last + timedelta(
                seconds=spec.pause_s * self.console.run_options.pause_scale
            )
            next_label = pending[0].label
        pane.query_one(PhaseClock).show(
            running.label if running else label,
            t0,
            list(playbook.load.phases),
            self.console.now(),
            pause_until,
            next_label,
            waiting,
        )
