"""The one interface every target implements: where a run's tables and workers live.

A step, the console and the commands ask the run's target (built by
`console.targets.target_for` from the target and region the run recorded at `up`)
instead of comparing its name: a third target is a third module here, not another
branch in every step. The shape follows locust's runners (one `Runner` protocol with
local and distributed implementations, built by a factory on the environment).

Each method says what it is for; a target that has nothing to do for one returns the
neutral value (None, an empty list) rather than raising.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:  # types only: importing console.targets loads no workflow module
    from console.run.hooks import Hooks
    from console.run.models import DownReport, Leftover, PlanReport
    from console.run.options import RunOptions, UpOptions
    from console.run.samples import IndexSample
    from console.run.settings import FleetName, Settings, TargetName
    from console.run.state import ImageState, RunState, StateStore, TableRun
    from console.targets.fleets import FleetKind
    from console.targets.worker_image import ImagePlan
    from loadgen.live.segmented_run import TableChanger


@dataclass(frozen=True)
class Finding:
    """One result of a preflight check, naming the action, quota or setting and the fix."""

    kind: Literal["permission", "quota", "setting", "not-checked"]
    """`not-checked`: the check itself could not be made (no failure, but said)."""
    message: str

    @property
    def blocks(self) -> bool:
        return self.kind != "not-checked"


HotKeyView = Literal["partitions", "insights"]
"""How a target shows where the heat is: the emulator's partition map, or DynamoDB's
Contributor Insights (AWS shows no partitions)."""


class MetricsSource(Protocol):
    """The table side's own per-period series for `watch` (beside the workers' view):
    the emulator's per-second metrics, or CloudWatch's 1-minute series. Remembers what
    it emitted, so each call returns only new periods."""

    label: str
    """Names the source in a watch note ("emulator", "cloudwatch")."""
    requested: int
    """Billed metric requests made since the last time the watcher read this (AWS
    GetMetricData is billed per metric; the tally adds them up). Reset by the reader."""

    def samples(self, state: RunState, flush: bool) -> list[IndexSample]:
        """New complete periods; with `flush` (the run is over) the current one too."""


class FleetBinding(Protocol):
    """The run step's view of a run's fleet for one table run: how to start workers, and
    what to record so a killed command can stop them (console/targets/fleets/)."""

    window_s: float | None
    """The longest stretch of a run one worker process measures (a Lambda invocation's
    window, loadgen.live.windows); None: the whole run."""

    def new_fleet(self) -> Any:
        """A loadgen.live.fleet.Fleet for one table run."""

    def record_started(self, fleet: Any, table_run: TableRun) -> None:
        """Put what `fleet` started (pids, task ARNs, invocations) into the state at once."""

    def seen(self, table_run: TableRun) -> None:
        """Called while the coordinator polls the fleet: record the workers' lifecycle
        and last-seen time (a fleet may do it only every so often)."""

    def record_finished(self, table_run: TableRun) -> None:
        """Each worker's billed span once the table run ended (best effort)."""

    def stop_orphans(self, table_run: TableRun) -> None:
        """Stop workers an interrupted table run left (they add load nobody counts)."""

    def barrier_timeout_s(self, options: RunOptions) -> float:
        """How long the start barrier waits for workers, from the fleet's start."""


class Target(Protocol):
    """A place to run a playbook's tables and workers (the emulator on loopback, an AWS
    account), with everything a step needs to ask of it."""

    name: TargetName
    settings: Settings
    billed: bool
    """True when the run costs money; False: the tally is what it would cost on AWS."""
    skips_pauses: bool
    """True when a pause between repeats, and seeding's pace, pass on the tables' clock,
    not the wall's (the fleet's `skipper`)."""
    hot_key_view: HotKeyView
    runs_through_workflow: bool
    """A live run here needs a stack created and priced first (`up`, `run`, `down`);
    False: `hotbench run` may start and remove everything within one command."""
    tables_are_modelled: bool
    """True when the tables are the capacity model (the emulator), so the model's
    parameters (--params) apply; False: the tables meet the provider's own capacity."""
    setup_s: float
    """Seconds the tables stand before and after the load (creation, destruction)."""

    @classmethod
    def fleet_kind(cls, fleet: FleetName) -> FleetKind:
        """What runs a run's workers here, given the AWS fleet the run names (`--fleet`,
        the playbook's, the default; console.targets.fleets.chosen_fleet): that fleet on
        AWS; processes locally, priced as it. Needs no settings (the tally asks it)."""

    # -- before anything exists ----------------------------------------------------------
    def table_name(self, run_id: str, variant: str) -> str: ...

    def check_up_options(self, options: UpOptions) -> None:
        """ConfigError (exit 2) for an option this target cannot honour."""

    def run_scale(self, options: UpOptions) -> float:
        """The scale the run is recorded at (AWS runs at full scale)."""

    def identity(self) -> str | None:
        """Who the run's resources would be created as (CredentialsError when unknown);
        None when the target has no identity (local)."""

    def worker_image_plan(self, fleet: FleetName, say: Callable[[str], None]) -> ImagePlan | None:
        """How a run here on `fleet` gets its worker image (given, built on this machine,
        built in the account), decided before anything exists so the plan prices that
        path; None when the workers are not containers (processes, Lambda)."""

    def preflight(self, report: PlanReport) -> list[Finding]:
        """What must be fixed before `up` may create anything (permissions, quotas,
        network), as lines naming the action, quota or setting and the fix. Empty: go."""

    # -- up and down ---------------------------------------------------------------------
    def provision(
        self, store: StateStore, state: RunState, options: UpOptions, hooks: Hooks
    ) -> None:
        """Create the tables and whatever runs the workers; record each in the state."""

    def worker_image(
        self, store: StateStore, state: RunState, hooks: Hooks, rebuild: bool
    ) -> ImageState | None:
        """Build (with `rebuild`: again) the image the run's workers start from and pin it
        by digest where the workers are defined; None when this target's workers are
        not containers (local processes)."""

    def teardown(self, store: StateStore, state: RunState, hooks: Hooks) -> DownReport:
        """Remove everything the state records, then sweep. Never raises for what it
        finds left: every error becomes a note or a leftover with its command."""

    def sweep(self, state: RunState) -> list[Leftover]:
        """What of the run is still there, each hit confirmed."""

    # -- while up ------------------------------------------------------------------------
    def dynamodb_client(self, state: RunState) -> Any:
        """A DynamoDB client on the run's own tables (its endpoint, its region)."""

    def require_alive(self, state: RunState) -> None:
        """InfraError when the run's tables are known to be gone (a dead emulator)."""

    def gone(self, state: RunState) -> str | None:
        """Why the run's tables are known to be gone by themselves (an emulator that
        died took its tables), or None."""

    def refresh(self, state: RunState) -> None:
        """Mark in `state` (not saved) what is known to have gone by itself."""

    def after_prewarm(self, state: RunState, hooks: Hooks) -> None:
        """Say what pre-warming changed, where the target can show it."""

    def fleet(self, store: StateStore, state: RunState) -> FleetBinding:
        """The run's fleet, bound to this run (`fleet_kind(state.fleet).binding`)."""

    def endpoint(self, state: RunState) -> str | None:
        """The DynamoDB endpoint workers are pointed at (None: the region's own)."""

    def skipper(self, state: RunState) -> Callable[[float], None] | None:
        """Skips seconds on the tables' clock (a pause passes without waiting), or None
        when time here cannot be skipped."""

    def clock(self) -> Callable[[], float]:
        """The wall clock T0 is taken from: one every worker shares."""

    def metrics_source(self) -> MetricsSource: ...

    def partition_map(self, state: RunState, variant: str) -> dict[str, Any] | None:
        """The partition map of one table with each partition's heat (None: not shown)."""

    def insights(self, state: RunState, variant: str) -> list[dict[str, Any]] | None:
        """Contributor Insights rules and their top keys (None: not enabled or not here)."""

    def table_changer(self, state: RunState, table_name: str) -> TableChanger:
        """What makes a playbook's capacity changes on one of the run's tables between
        the load's segments (its UpdateTable, waiting while the table is UPDATING) and
        reads the table's capacity series and scaling events for the result
        (loadgen.live.segmented_run)."""
