"""The operator console's Textual app (the TUI): screens, keys, the command palette, and
the workers that run steps.

Threads: every workflow call runs in a Textual thread worker, a `@work` method named for
what it does (prepare, poll_state, fetch_partitions, load_runs, load_run, run_step,
record_tally, follow_run, write_export); results and the steps' hook callbacks come back
through `call_from_thread`, so widgets are only touched on the UI thread, which redraws
the active screen once a second.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import threading
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from console.output import UserError
from console.render.live_vs_simulated import export
from console.tui.backend import Backend
from console.tui.screens.base import TuiScreen
from console.tui.screens.dialogs import destroy_question, quit_question, step_question, sweep_result
from console.tui.screens.help import HelpScreen
from console.tui.screens.optimize import OptimizeScreen
from console.tui.screens.partitions import PartitionsScreen
from console.tui.screens.plan import PlanScreen
from console.tui.screens.prewarm import PrewarmScreen
from console.tui.screens.results import ResultsScreen
from console.tui.screens.run import RunScreen
from console.tui.screens.runs import RunsScreen
from console.tui.session import Session, utc_now
from console.workflow import (
    DownReport,
    Hooks,
    RunOptions,
    RunState,
    Status,
    Step,
    UpOptions,
    WatchFrame,
)
from loadgen.results.records import PlaybookResult


def export_words(path: Path) -> str:
    """The toast of a written export: the file's name, then its folder on a line of its
    own (relative where it can be), so an 80-column screen shows both whole."""
    folder = path.parent
    with contextlib.suppress(ValueError):
        folder = folder.relative_to(Path.cwd())
    return f"written {path.name}\nin {folder}/"


SCREENS: dict[str, type[TuiScreen]] = {
    "plan": PlanScreen,
    "prewarm": PrewarmScreen,
    "run": RunScreen,
    "results": ResultsScreen,
    "partitions": PartitionsScreen,
    "runs": RunsScreen,
    "optimize": OptimizeScreen,
}
"""The console's screens in the order of a run; keys 1-6 open them."""

SCREEN_OF_STEP = {
    Step.PLAN: "plan",
    Step.UP: "plan",
    Step.PREWARM: "prewarm",
    Step.RUN: "run",
    Step.TALLY: "results",
    Step.DOWN: "results",
}
"""Where a resumed run opens: the screen of its next step."""


class HotbenchApp(App[int]):
    CSS_PATH = "console.tcss"
    TITLE = "hotbench console"
    ENABLE_COMMAND_PALETTE = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("d", "destroy", "destroy"),
        Binding("q", "quit_console", "quit"),
        Binding("1", "show('plan')", "screens", key_display="1-6"),
        Binding("2", "show('prewarm')", "prewarm", show=False),
        Binding("3", "show('run')", "run", show=False),
        Binding("4", "show('results')", "results", show=False),
        Binding("5", "show('partitions')", "partitions", show=False),
        Binding("6", "show('runs')", "runs", show=False),
        Binding("7", "show('optimize')", "optimize", show=False),
        Binding("p", "show('partitions')", "partitions", show=False),
        Binding("r", "show('runs')", "runs", show=False),
        Binding("t", "toggle_theme", "theme", show=False),
    ]

    def __init__(
        self,
        backend: Backend,
        playbook_path: str | Path | None = None,
        run_id: str | None = None,
        up_options: UpOptions | None = None,
        run_options: RunOptions | None = None,
        poll: bool = True,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        super().__init__()
        self.backend = backend
        self.session = Session(playbook_path=Path(playbook_path) if playbook_path else None)
        self.start_run_id = run_id
        self.up_options = up_options or UpOptions()
        self.run_options = run_options or RunOptions()
        self.poll = poll
        """False in snapshot tests: nothing is fetched, the session is set by the test."""
        self.now = clock
        self._cancel: threading.Event | None = None
        self._watch_stop = threading.Event()
        self._watching = False
        self._polling = False
        self._fetching_partitions = False
        self._insights_at: float | None = None
        self._after_step: Callable[[], None] | None = None
        self._tally_once = False
        self.ticks: collections.deque[float] = collections.deque(maxlen=3600)
        """When each 1 Hz redraw ran (time.monotonic): how steady the screen refreshes."""

    # -- life -------------------------------------------------------------------------------
    def on_mount(self) -> None:
        for name, screen in SCREENS.items():
            self.install_screen(screen(), name)
        first = "runs" if self.session.playbook_path is None and not self.start_run_id else "plan"
        self.push_screen(first)
        if self.poll:
            self._terminate_on_signals()
            if self.start_run_id:
                self.resume(self.start_run_id)
            elif self.session.playbook_path is not None:
                self.prepare(self.session.playbook_path)
            self.set_interval(1.0, self.tick)

    def _terminate_on_signals(self) -> None:
        """SIGTERM and SIGHUP as Ctrl-C in the CLI: a step in progress is cancelled at its
        next safe point (on_unmount), the app exits with 128 + the signal's number, and
        `hotbench console` then says what is still up. Through the event loop, since a
        signal handler that raised inside Textual's loop would leave the terminal raw."""
        import asyncio

        from console.interrupts import SIGNALS

        if threading.current_thread() is not threading.main_thread():
            return
        loop = asyncio.get_running_loop()
        for sig in SIGNALS:
            loop.add_signal_handler(sig, self._terminated, sig)

    def _terminated(self, signum: int) -> None:
        self.session.say(f"stopped by signal {signum}: cancelling, then leaving")
        self.exit(128 + signum)

    def on_unmount(self) -> None:
        self._watch_stop.set()
        if self._cancel is not None:
            self._cancel.set()

    def tick(self) -> None:
        """Once a second: fetch in workers what may have changed, redraw the screen."""
        if not self.screen_stack:
            # The app is closing: its screens are gone before its timer stops, and a last
            # tick in between (seen under two CPU hogs) would raise ScreenStackError.
            return
        self.ticks.append(time.monotonic())
        s = self.session
        if s.run_id and not self._polling:
            self._polling = True
            self.poll_state()
        screen = self.screen
        wants = getattr(screen, "wants_partitions", None)
        if (
            wants is not None
            and s.state is not None
            and s.state.billable_up
            and not self._fetching_partitions
            and (s.state.emulator is not None or self._insights_due())
        ):
            variants = wants()
            if variants:
                self._fetching_partitions = True
                self.fetch_partitions(variants)
        if s.busy == "run" and not self._watching:
            self._start_watch()
        self.redraw()

    def redraw(self) -> None:
        """Redraw the console screen on top (under a dialog, the one it covers)."""
        shown = [s for s in self.screen_stack if isinstance(s, TuiScreen)]
        if shown:
            shown[-1].refresh_view()
        if self.screen_stack and self.screen is self.get_screen("runs") and self.poll:
            self.load_runs()

    # -- workers: fetching ------------------------------------------------------------------
    def _guard(self, what: str, work: Callable[[], Any]) -> Any:
        """Run `work`; an error becomes the session's error line, never a traceback."""
        try:
            return work()
        except UserError as exc:
            message = str(exc)
        except NotImplementedError:
            message = f"{what}: not available in this build of the workflow"
        except Exception as exc:  # shown, not raised: the console must stay up to destroy
            message = f"{what}: {type(exc).__name__}: {exc}"
        self._later(self._fail, message)
        return None

    def _later(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        """Call on the UI thread from a worker (ignored once the app has gone)."""
        with contextlib.suppress(RuntimeError):
            self.call_from_thread(fn, *args, **kwargs)

    def _fail(self, message: str) -> None:
        self.session.error = message
        self.notify(message, severity="error", timeout=8)
        self.redraw()

    @work(thread=True, group="prepare")
    def prepare(self, path: Path) -> None:
        """The playbook, its plan, the advice and the simulated preview, each shown as it
        comes."""
        playbook, plan = self._playbook_and_plan(path, self.up_options)
        if playbook is not None:
            self._later(self._set, playbook=playbook, plan=plan)
            self._advise_and_preview(path)

    def _playbook_and_plan(self, path: Path, options: UpOptions) -> tuple[Any, Any]:
        """On a worker: the playbook and its plan (None for what could not be made, the
        error shown)."""
        playbook = self._guard("playbook", lambda: self.backend.playbook(path))
        if playbook is None:
            return None, None
        return playbook, self._guard("plan", lambda: self.backend.plan(path, options))

    def _advise_and_preview(self, path: Path) -> None:
        """On a worker: the playbook's advice and hot keys, then its simulated preview,
        each shown as it comes."""
        b = self.backend
        advice = self._guard("advice", lambda: b.advice(path))
        hot = self._guard("advice", lambda: b.hot_keys(path)) or {}
        self._later(self._set, advice=advice, hot_keys=hot)
        preview = self._guard("simulation", lambda: b.preview(path, self.run_options.pause_scale))
        self._later(self._set, preview=preview)

    def _set(self, **values: Any) -> None:
        for name, value in values.items():
            setattr(self.session, name, value)
        self.redraw()

    @work(thread=True, group="poll")
    def poll_state(self) -> None:
        """The run's state and, while it is up, its cost so far (once a second)."""
        try:
            run_id = self.session.run_id
            if run_id is None:
                return
            state = self._guard("state", lambda: self.backend.state(run_id))
            if state is None:
                return
            tally = None
            if state.billable_up or self._tally_once or self.session.tally is None:
                self._tally_once = False
                tally = self._guard("tally", lambda: self.backend.meter(state))
            self._later(self._polled, state, tally)
        finally:
            self._polling = False

    def _polled(self, state: RunState, tally: Any) -> None:
        if state.run_id != self.session.run_id:
            return
        self.session.state = state
        if tally is not None:
            self.session.tally = tally
        self.redraw()

    def _insights_due(self) -> bool:
        """AWS: Contributor Insights reports have 1-minute periods; asked once a minute."""
        due = self._insights_at is None or time.monotonic() - self._insights_at >= 60.0
        if due:
            self._insights_at = time.monotonic()
        return due

    @work(thread=True, group="partitions")
    def fetch_partitions(self, variants: list[str]) -> None:
        """Each variant's partition map (the emulator's), or its Contributor Insights
        rules (AWS, once a minute)."""
        try:
            state = self.session.state
            if state is None:
                return
            if self.backend.target(state).hot_key_view == "insights":
                for variant in variants:
                    rules = self._guard(
                        "contributor insights",
                        functools.partial(self.backend.insights, state, variant),
                    )
                    self._later(self._set_insights, variant, rules)
                return
            for variant in variants:
                fetch = functools.partial(self.backend.partitions, state, variant)
                pmap = self._guard("partitions", fetch)
                self._later(self._set_partitions, variant, pmap)
        finally:
            self._fetching_partitions = False

    def _set_insights(self, variant: str, rules: list[dict[str, Any]] | None) -> None:
        self.session.insights[variant] = rules
        self.redraw()

    def _set_partitions(self, variant: str, pmap: dict[str, Any] | None) -> None:
        self.session.partitions[variant] = pmap
        self.redraw()

    @work(thread=True, group="runs", exclusive=True)
    def load_runs(self) -> None:
        """Every run in the runs folder with its cost so far, for the runs screen."""
        found = self._guard("runs", self.backend.runs)
        if found is None:
            return
        costs = {
            state.run_id: self._guard("tally", functools.partial(self.backend.meter, state))
            for state in found
        }
        self._later(self.get_screen("runs").show_runs, found, costs)  # type: ignore[attr-defined]

    def resume(self, run_id: str) -> None:
        """Take up an existing run at the screen of its next step."""
        if self.session.busy:
            self.notify(
                f"{self.session.busy} is running in this console: wait for it, or x to cancel",
                severity="warning",
            )
            return
        self.load_run(run_id)

    @work(thread=True, group="prepare")
    def load_run(self, run_id: str) -> None:
        """An existing run: its state, playbook, plan and result, then its advice and
        preview."""
        b = self.backend
        state = self._guard("state", lambda: b.state(run_id))
        if state is None:
            return
        path = Path(state.playbook_path)
        options = UpOptions(workers=state.workers, scale=state.scale)
        playbook, plan = self._playbook_and_plan(path, options)
        finished = state.record(Step.RUN).status == Status.DONE
        result = self._guard("result", lambda: b.result(state)) if finished else None
        self._later(self._resumed, state, path, playbook, plan, result)
        if playbook is not None:
            self._advise_and_preview(path)

    def _resumed(self, state: RunState, path: Path, playbook: Any, plan: Any, result: Any) -> None:
        fresh = Session(playbook_path=path, playbook=playbook, plan=plan, run_id=state.run_id)
        fresh.state, fresh.result = state, result
        self.session = fresh
        self._watch_stop.set()
        step = state.next_step
        self.action_show(SCREEN_OF_STEP[step] if step else "results")
        self.notify(f"resumed {state.run_id}: next step {step.value if step else 'none'}")

    # -- workers: steps -------------------------------------------------------------------
    def hooks(self) -> Hooks:
        cancel = threading.Event()
        self._cancel = cancel
        return Hooks(
            say=lambda line: self._later(self._say, line),
            progress=lambda what, f: self._later(self._progress, what, f),
            confirm=self._ask_from_thread,
            cancel=cancel,
        )

    def _say(self, line: str) -> None:
        self.session.say(line)
        self.redraw()

    def _progress(self, what: str, fraction: float | None) -> None:
        self.session.progress = (what, fraction)
        self.redraw()

    def _ask_from_thread(self, question: str) -> bool:
        """The step's own question (the cost before `up`), asked on screen; the step's
        thread waits for the answer."""
        answered = threading.Event()
        answer: list[str] = []

        def ask() -> None:
            def done(choice: str | None) -> None:
                answer.append(choice or "no")
                answered.set()

            self.push_screen(step_question(question), done)

        self._later(ask)
        while not answered.wait(0.2):
            if self._cancel is not None and self._cancel.is_set():
                return False
        return answer[0] == "yes"

    def start_step(
        self, name: str, work: Callable[[Hooks], Any], then: Callable[[Any], None]
    ) -> bool:
        """Run one workflow step in a thread worker; one at a time."""
        if self.session.busy:
            self.notify(f"{self.session.busy} is running; x cancels it", severity="warning")
            return False
        self.session.busy, self.session.error, self.session.progress = name, None, None
        self.run_step(name, work, self.hooks(), then)
        self.redraw()
        return True

    @work(thread=True, group="step")
    def run_step(
        self,
        name: str,
        step: Callable[[Hooks], Any],
        hooks: Hooks,
        then: Callable[[Any], None],
    ) -> None:
        """One workflow step; `then` gets what it returned, on the UI thread."""
        try:
            value = self._guard(name, lambda: step(hooks))
        except KeyboardInterrupt:
            value = None
            self._later(self._fail, f"{name}: cancelled")
        self._later(self._step_done, name, value, then)

    def _step_done(self, name: str, value: Any, then: Callable[[Any], None]) -> None:
        self.session.busy = None
        self.session.progress = None
        self.session.waiting_for = None
        if value is not None:
            then(value)
        if self._after_step is not None:
            queued, self._after_step = self._after_step, None
            queued()
        self.redraw()

    # -- actions ------------------------------------------------------------------------------
    def action_show(self, name: str) -> None:
        if isinstance(self.screen, TuiScreen) or len(self.screen_stack) <= 1:
            self.switch_screen(name)

    def action_help(self) -> None:
        sections: list[tuple[str, list[Any]]] = [("everywhere", list(self.BINDINGS))]
        sections += [(name, list(screen.BINDINGS)) for name, screen in SCREENS.items()]
        self.push_screen(HelpScreen(sections))

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.theme == "textual-dark" else "textual-dark"

    def action_up(self) -> None:
        path = self.session.playbook_path
        if path is None:
            self.notify("no playbook: start with `hotbench console PLAYBOOK`", severity="warning")
            return
        if self.session.state is not None and self.session.state.billable_up:
            self.notify(f"{self.session.state.run_id} is already up", severity="warning")
            return

        def done(state: RunState) -> None:
            self.session.run_id, self.session.state = state.run_id, state
            self._tally_once = True
            self.action_show("prewarm")

        self.start_step(
            "up",
            lambda hooks: self.backend.up(path, hooks, self.up_options, self.session.run_id),
            done,
        )

    def action_optimize(self) -> None:
        """Search the cheapest passing configuration of the playbook (the optimize screen)."""
        path = self.session.playbook_path
        if path is None:
            self.notify("no playbook: start with `hotbench console PLAYBOOK`", severity="warning")
            return
        if self.session.optimizing:
            self.notify("the search is running", severity="warning")
            return
        self.session.optimizing = "searching: the playbook as written first"
        self.search_configurations(path)
        self.redraw()

    @work(thread=True, group="optimize", exclusive=True)
    def search_configurations(self, path: Path) -> None:
        def progress(message: str) -> None:
            self._later(self._set, optimizing=message)

        report = self._guard("optimize", lambda: self.backend.optimize(path, progress))
        self._later(self._set, optimized=report, optimizing=None)

    def action_apply_optimized(self) -> None:
        """Apply the recommendation to the plan: its playbook becomes the console's, and
        the plan screen shows its tables, cost and preview (nothing is created)."""
        report = self.session.optimized
        if report is None or not report.passed:
            self.notify("no recommendation to apply: o searches first", severity="warning")
            return
        if self.session.billable_up:
            self.notify("a run is up: destroy it (d) before planning another", severity="warning")
            return
        path = self._guard("optimize", lambda: self.backend.write_best(report))
        if path is None:
            return
        self.session.playbook_path = path
        self.session.say(f"plan: the recommended configuration, {path}")
        self.prepare(path)
        self.action_show("plan")

    def _need_run(self) -> str | None:
        run_id = self.session.run_id
        if run_id is None:
            self.notify("nothing is up: u on the plan screen creates it", severity="warning")
        return run_id

    def action_prewarm(self) -> None:
        run_id = self._need_run()
        if run_id is None:
            return

        def done(state: RunState) -> None:
            self.session.state = state
            self.action_show("run")

        self.start_step("prewarm", lambda hooks: self.backend.prewarm(run_id, hooks), done)

    def action_run(self) -> None:
        run_id = self._need_run()
        if run_id is None:
            return

        def done(result: Any) -> None:
            self.session.result = result
            self.action_show("results")
            self.record_tally(run_id)

        if self.start_step(
            "run", lambda hooks: self.backend.run(run_id, hooks, self.run_options), done
        ):
            self.session.watch_finished = False
            self._start_watch()

    @work(thread=True, group="tally")
    def record_tally(self, run_id: str) -> None:
        """The `tally` step once the run is done: the results screen shows its lines."""
        tally = self._guard("tally", lambda: self.backend.tally(run_id))
        if tally is not None:
            self._later(self._set, tally=tally)

    def _start_watch(self) -> None:
        run_id = self.session.run_id
        if run_id is None or self._watching:
            return
        self._watching = True
        self._watch_stop = threading.Event()
        self.follow_run(run_id, self._watch_stop)

    @work(thread=True, group="watch")
    def follow_run(self, run_id: str, stop: threading.Event) -> None:
        """The run's watch stream, frame by frame, until `stop` or its end."""
        try:
            frames = self._guard("watch", lambda: self.backend.watch(run_id, stop))
            for frame in frames or ():
                self._later(self._on_frame, frame)
                if stop.is_set():
                    break
        except Exception as exc:  # the stream broke: say so, the run goes on
            self._later(self._fail, f"watch: {type(exc).__name__}: {exc}")
        finally:
            self._watching = False

    def _on_frame(self, frame: WatchFrame) -> None:
        self.session.add_frame(frame)

    def action_cancel_step(self) -> None:
        if self.session.busy and self._cancel is not None:
            self._cancel.set()
            self.session.waiting_for = self.session.waiting_for or "cancel asked"
            self.notify(
                f"cancelling {self.session.busy} at its next safe point (a run stops its "
                "fleet within a second or so; the run can be resumed)",
                timeout=8,
            )
            self.redraw()

    def action_export(self, kind: str) -> None:
        s = self.session
        if s.result is None or s.run_id is None:
            self.notify("no results to export yet", severity="warning")
            return
        self.write_export(self.backend.export_dir(s.run_id), s.run_id, s.result, s.preview, kind)

    @work(thread=True, group="export")
    def write_export(
        self,
        folder: Path,
        run_id: str,
        live: PlaybookResult,
        simulated: PlaybookResult | None,
        kind: str,
    ) -> None:
        """The live result beside its simulation, as JSON or Markdown in the run's folder."""
        path = self._guard("export", lambda: export(folder, run_id, live, simulated, kind))
        if path is not None:
            self._later(self._exported, path)

    def _exported(self, path: Path) -> None:
        self.session.exported.append(path)
        self.notify(export_words(path))
        self.redraw()

    def action_destroy(self) -> None:
        state = self.session.state
        if state is None:
            self.notify("nothing is up in this console; r lists every run", severity="warning")
            return
        self.confirm_destroy(state)

    def confirm_destroy(self, state: RunState, then: Callable[[], None] | None = None) -> None:
        def answered(choice: str | None) -> None:
            if choice == "yes":
                self.destroy(state.run_id, then)

        self.push_screen(destroy_question(state), answered)

    def destroy(self, run_id: str, then: Callable[[], None] | None = None) -> None:
        """`down` on a run; a step in progress is cancelled first and down follows it."""
        if self.session.busy:
            self._after_step = lambda: self.destroy(run_id, then)
            self.session.waiting_for = "cancel asked; destroy follows"
            self.action_cancel_step()
            return

        def done(report: DownReport) -> None:
            self.session.down = report
            self._tally_once = True
            self._watch_stop.set()
            self.push_screen(sweep_result(report), lambda _choice: then() if then else None)
            if run_id != self.session.run_id:
                self.load_runs()

        self.start_step("down", lambda hooks: self.backend.down(run_id, hooks), done)

    def action_quit_console(self) -> None:
        state = self.session.state
        if state is None or not state.billable_up:
            self.exit(0)
            return

        def answered(choice: str | None) -> None:
            if choice == "leave":
                self.exit(0)
            elif choice == "destroy":
                self.destroy(state.run_id, lambda: self.exit(0))

        self.push_screen(quit_question(state), answered)

    # -- command palette ------------------------------------------------------------------
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        actions = [
            ("Up: create what the plan lists", "workflow step up", self.action_up),
            ("Prewarm: warm throughput", "workflow step prewarm", self.action_prewarm),
            ("Run the playbook", "workflow step run", self.action_run),
            ("Optimize: the cheapest passing configuration", "o", self.action_optimize),
            ("Cancel the running step", "at its next safe point", self.action_cancel_step),
            ("Destroy this run", "workflow step down, then the sweep", self.action_destroy),
            ("Export results as JSON", "console-results.json", lambda: self.action_export("json")),
            ("Export results as Markdown", "console-results.md", lambda: self.action_export("md")),
            ("Toggle dark/light theme", "t", self.action_toggle_theme),
            ("Help: every key", "?", self.action_help),
            ("Quit the console", "asks first if resources are up", self.action_quit_console),
        ]
        for title, help_text, callback in actions:
            yield SystemCommand(title, help_text, callback)
        for name in SCREENS:
            yield SystemCommand(
                f"Show the {name} screen",
                f"key {list(SCREENS).index(name) + 1}",
                functools.partial(self.action_show, name),
            )
