"""The workflow's steps bound to one Settings: the only door from the console to the work.

Every method blocks (files, HTTP to the emulator, AWS, Terraform): the app calls them
from thread workers only. Snapshot tests subclass this with fixed data.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from console.output import UserError
from console.targets import Target, target_for, target_named
from console.workflow import (
    CostTally,
    DownReport,
    Hooks,
    PlanReport,
    RunOptions,
    RunState,
    Settings,
    StateStore,
    UpOptions,
    WatchFrame,
)
from console.workflow import steps as workflow
from emulator.params import DEFAULT_PARAMS, CapacityParams
from loadgen.format.playbook import Playbook, load_playbook
from loadgen.results.records import PlaybookResult

if TYPE_CHECKING:  # the search is imported where it runs: the console starts without it
    from loadgen.analysis.optimize import OptimizeReport


class Backend:
    """What the console can ask of the workflow, for one runs folder and target."""

    def __init__(self, settings: Settings, params: CapacityParams = DEFAULT_PARAMS) -> None:
        self.settings = settings
        self.params = params
        """The model's parameters for the preview (`hotbench console --params FILE`)."""
        self.store = StateStore(settings.runs_dir)
        self._run_target: tuple[tuple[str, str, str], Target] | None = None
        """The shown run's target, kept while the same run is shown: an AWS target makes
        its session and clients once, not at every minute's Contributor Insights poll."""

    # -- before anything exists ---------------------------------------------------------
    def playbook(self, path: str | Path) -> Playbook:
        return load_playbook(path)

    def plan(self, path: str | Path, options: UpOptions) -> PlanReport:
        return workflow.plan(path, self.settings, options)

    def preview(self, path: str | Path, pause_scale: float = 1.0) -> PlaybookResult:
        """The same playbook through the capacity model in virtual time (`simulate`), with
        the pauses between repeats as the live run's physics will see them, so the results
        screen compares like with like (a split for heat needs the pause): whole on the
        local target, whose emulator skips the rest of each pause on its clock; shortened
        by `--pause-scale` on AWS, where time cannot be skipped."""
        from loadgen.runners import SimulatedRunner

        playbook = load_playbook(path)
        if self.target().skips_pauses:
            pause_scale = 1.0  # the tables' clock skips the rest of each pause
        if pause_scale != 1.0 and playbook.load.runs:
            runs = [
                r.model_copy(update={"pause_s": r.pause_s * pause_scale})
                for r in playbook.load.runs
            ]
            load = playbook.load.model_copy(update={"runs": runs})
            playbook = playbook.model_copy(update={"load": load})
        return SimulatedRunner(self.params).run(playbook)

    def optimize(self, path: str | Path, progress: Callable[[str], None]) -> OptimizeReport:
        """`hotbench optimize` of the playbook: the cheapest configuration that passes its
        criteria, priced with this console's region (docs/optimize.md)."""
        import yaml

        from console.cost.configuration_cost import configuration_pricing
        from console.cost.measured_usage import run_cost_at
        from console.cost.prices import price_table
        from loadgen.analysis.optimize import OptimizeOptions, optimize
        from loadgen.analysis.optimize_search import cores

        playbook = load_playbook(path)  # the file's errors first, with their lines
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        prices = price_table(self.settings.prices_region)
        section = playbook.optimize
        options = OptimizeOptions(
            trials=section.trials if section else 40,
            seed=section.seed if section else 1,
            jobs=cores(),
            params=self.params,
            progress=progress,
        )
        return optimize(
            data, configuration_pricing(prices), run_cost_at(prices), options, str(path)
        )

    def write_best(self, report: OptimizeReport) -> Path:
        """The best playbook of a search, as a file the plan can take: in the runs folder
        (`optimize/<name>.best.yaml`), never over the playbook it came from."""
        if report.best_text is None:
            raise UserError("no configuration passed: nothing to apply")
        folder = self.settings.runs_dir / "optimize"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{report.playbook}.best.yaml"
        path.write_text(
            f"# The cheapest configuration of {report.playbook} that passes its criteria in "
            "simulation (hotbench console: optimize).\n" + report.best_text,
            encoding="utf-8",
        )
        return path

    def advice(self, path: str | Path) -> list[str] | None:
        """The advisor's lines for the plan screen: the hottest key's share and the first
        limit each table hits (the same arithmetic as `hotbench advise` and the check
        reports)."""
        from loadgen.analysis import advise as advisor

        playbook = load_playbook(path)
        return [line for table in advisor.advise(playbook) for line in table.lines()]

    def hot_keys(self, path: str | Path) -> dict[str, list[str]]:
        """Per table variant, the hottest partition-key values (the advisor's)."""
        from loadgen.analysis import advise as advisor

        playbook = load_playbook(path)
        out: dict[str, list[str]] = {}
        for table in advisor.advise(playbook):
            out[table.table] = sorted(
                {c.hot_key.value for c in table.checks if c.hot_key and c.scope == "table"}
            )
        return out

    # -- the steps ------------------------------------------------------------------------
    def up(
        self, path: str | Path, hooks: Hooks, options: UpOptions, run_id: str | None = None
    ) -> RunState:
        return workflow.up(path, self.settings, hooks, options, run_id)

    def prewarm(self, run_id: str, hooks: Hooks) -> RunState:
        return workflow.prewarm(run_id, self.settings, hooks)

    def run(self, run_id: str, hooks: Hooks, options: RunOptions) -> PlaybookResult:
        return workflow.run(run_id, self.settings, hooks, options)

    def watch(self, run_id: str, stop: threading.Event) -> Iterator[WatchFrame]:
        return workflow.watch(run_id, self.settings, stop=stop)

    def tally(self, run_id: str) -> CostTally:
        return workflow.tally(run_id, self.settings)

    def meter(self, state: RunState) -> CostTally:
        """The cost so far, for the header's meter: the tally's arithmetic over the state
        as it is, read-only (the `tally` step also records itself in the state)."""
        from console.workflow.run_cost import tally_state

        return tally_state(state, self.settings.price_region)

    def down(self, run_id: str, hooks: Hooks) -> DownReport:
        return workflow.down(run_id, self.settings, hooks)

    # -- reading ----------------------------------------------------------------------------
    def runs(self) -> list[RunState]:
        return workflow.runs(self.settings)

    def state(self, run_id: str) -> RunState:
        return self.store.load(run_id)

    def result(self, state: RunState) -> PlaybookResult | None:
        """A finished run's result, from the table runs' files (resuming at results)."""
        from console.workflow.runrecord import read_run

        runs = [
            read_run(self.store.run_dir(state.run_id) / r.result_path)
            for r in state.table_runs
            if r.result_path
        ]
        if not runs:
            return None
        return PlaybookResult(
            playbook=state.playbook_name,
            mode="run",
            scale=state.scale,
            runs=runs,
            target=state.target,
        )

    def target(self, state: RunState | None = None) -> Target:
        """The run's own target (its recorded target and region), or the settings' one
        before a run exists."""
        if state is None:
            return target_named(self.settings)
        key = (state.run_id, state.target, state.region)
        if self._run_target is None or self._run_target[0] != key:
            self._run_target = (key, target_for(state, self.settings))
        return self._run_target[1]

    def partitions(self, state: RunState, variant: str) -> dict[str, Any] | None:
        """The table's partition map with each partition's heat, where the target shows
        one (the emulator's; None on AWS)."""
        return self.target(state).partition_map(state, variant)

    def insights(
        self, state: RunState, variant: str, clients: tuple[Any, Any] | None = None
    ) -> list[dict[str, Any]] | None:
        """Each Contributor Insights rule of the table and its GSIs with its top
        contributors over the last five minutes, where the target has them (AWS). None
        when the playbook did not enable Contributor Insights on the table."""
        if not clients:
            return self.target(state).insights(state, variant)
        given = {"dynamodb": clients[0], "cloudwatch": clients[1]}
        return target_for(state, self.settings, given).insights(state, variant)

    def export_dir(self, run_id: str) -> Path:
        return self.store.run_dir(run_id)
