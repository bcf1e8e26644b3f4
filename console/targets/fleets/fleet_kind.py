"""The one interface every fleet implements: what runs a run's workers.

A target is where the tables live (the emulator, an AWS account) x which fleet runs the
workers (processes on this machine, ECS Fargate tasks, Lambda invocations). The plan, the
run step, watch, the tally, `down` and the console ask the run's fleet through this
interface and never compare its name: a third fleet is a third module here, named once in
`console/targets/fleets/__init__.py` (`fleet_named`), not another branch in every step.

What a fleet answers, before anything exists (the plan), while up (the run step, watch),
and after (the tally, `down`):
- its workers' cost model (console.cost.setup.WorkerCost) and the plan's words for it;
- the Terraform variables of its module, and what it does before and after the apply
  (the ECS fleet's worker image, the Lambda fleet's function package);
- the actions it calls as the operator and its own preflight checks;
- the binding a table run starts workers with (console.targets.interface.FleetBinding);
- each worker's state and stop reason as last recorded (watch, the console);
- what its workers used, from the run's records (the tally);
- what `down` does for it before and after the destroy.

A method a fleet has nothing to do for returns the neutral value (None, an empty list);
the steps no fleet but one needs (its image, its package, what a destroy leaves) have that
neutral value here, once, and a fleet subclasses FleetKind to inherit them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # types only: importing a fleet loads no workflow module
    from console.cost.record import UsageRecord
    from console.cost.setup import WorkerCost
    from console.run.hooks import Hooks
    from console.run.models import PlannedFleet, PlanReport
    from console.run.options import UpOptions
    from console.run.settings import Settings
    from console.run.state import ImageState, RunState, StateStore, TableRun
    from console.targets.interface import Finding, FleetBinding
    from console.targets.worker_image import ImagePlan
    from loadgen.format.playbook import Playbook


class AwsAccount(Protocol):
    """What an AWS fleet asks of its target: the run's settings and clients, and the
    Terraform apply of the run's stack (console/targets/aws.py is the one)."""

    settings: Settings

    def session(self) -> Any: ...

    def client(self, service: str) -> Any: ...

    def apply(self, store: StateStore, state: RunState, hooks: Hooks) -> None:
        """Init, plan (printed), apply the run's stack; outputs and tables into the state."""


@dataclass(frozen=True)
class Sizing:
    """The plan's words for a fleet: how many workers, how big, and why."""

    workers: int
    vcpu: float
    memory_gb: float
    architecture: str
    summary: str
    """One line: what the workers are and why they are this size."""
    in_flight: int = 0
    """The most workers running at once (0: `workers`); a Lambda run split into windows
    keeps two invocations of a worker in flight while one hands over to the next."""


class FleetKind(Protocol):
    """One fleet (module docstring)."""

    name: str
    """`local`, `ecs`, `lambda`: as the state records it (`RunState.fleet`)."""
    worker_kind: str
    """What a worker is, for the plan's text: "Lambda invocations", "Fargate tasks"."""
    barrier_timeout_s: float
    """How long the start barrier waits for this fleet's workers, from their launch."""
    needs_image: bool
    """Its workers run a container image, built (the tables standing) before they can."""

    # -- before anything exists ----------------------------------------------------------
    def sizing(self, options: UpOptions, playbook: Playbook) -> Sizing:
        """The workers the plan prices and `up` creates (a fleet may need more than
        `--workers` asks for, or size them to their share of the rate)."""

    def cost(self, options: UpOptions, playbook: Playbook) -> WorkerCost:
        """How its workers are billed, per table run (console.cost.setup)."""

    def start_note(self) -> str:
        """The plan's note on what a fleet start is priced at, and why."""

    def check_options(self, options: UpOptions, playbook: Playbook) -> None:
        """ConfigError (exit 2) for a playbook or option this fleet cannot run."""

    def image_plan(self, settings: Settings, say: Callable[[str], None]) -> ImagePlan | None:
        """How its workers get a container image (None: they are not containers)."""
        return None

    def operator_actions(self, settings: Settings | None) -> dict[str, list[str]]:
        """The actions a run on this fleet calls as the operator, by when; None: every
        path (the shipped operator policy), else the path `settings` take."""

    def preflight(self, account: AwsAccount, caller: str, report: PlanReport) -> list[Finding]:
        """This fleet's own checks before money (quotas, limits, network)."""

    def terraform_variables(
        self, settings: Settings, state: RunState, options: UpOptions, playbook: Playbook
    ) -> dict[str, Any]:
        """Its part of the run's Terraform variables (`fleet` selects its module)."""

    # -- up and down ---------------------------------------------------------------------
    def before_apply(
        self, account: AwsAccount, store: StateStore, state: RunState, hooks: Hooks
    ) -> None:
        """What must exist before the stack is applied (the Lambda function's package)."""
        return None

    def after_apply(
        self, account: AwsAccount, store: StateStore, state: RunState, hooks: Hooks
    ) -> None:
        """What the applied stack still needs (the ECS worker image, pinned by digest)."""
        return None

    def worker_image(
        self,
        account: AwsAccount,
        store: StateStore,
        state: RunState,
        hooks: Hooks,
        rebuild: bool,
    ) -> ImageState | None:
        """`hotbench image build`: None when its workers are not containers."""
        return None

    def binding(self, account: Any, store: StateStore, state: RunState) -> FleetBinding:
        """How the run step starts this fleet's workers for one table run."""

    def stop_all(self, account: AwsAccount, state: RunState) -> tuple[list[str], list[str]]:
        """`down`, before the destroy: stop what may still run (what was stopped, the
        problems met), recording each worker's stop in the state. Never raises."""

    def after_destroy(self, account: AwsAccount, state: RunState) -> list[str]:
        """`down`, after a destroy: what the destroy leaves listed (notes)."""
        return []

    # -- watch and the tally ---------------------------------------------------------------
    def lifecycle(self, state: RunState, table_run: TableRun) -> dict[str, int]:
        """How many of the table run's workers are in each state as last recorded."""

    def stop_reasons(self, state: RunState, table_run: TableRun) -> list[str]:
        """Why each worker of the table run that ended other than normally ended."""

    def used(self, state: RunState, origin: datetime, now: datetime) -> UsageRecord:
        """What the run's workers used, from its records, on the time line from `origin`
        (a local run: what the same workers would have used on this AWS fleet)."""

    def as_if(self, state: RunState, origin: datetime, now: datetime) -> UsageRecord:
        """What a local run's workers would have used on this fleet, from its table
        runs' times (the plan's rules)."""


def planned_fleet(kind: FleetKind, sizing: Sizing, per_hour_usd: float) -> PlannedFleet:
    """The plan's record of a fleet (console.run.models.PlannedFleet)."""
    from console.run.models import PlannedFleet

    return PlannedFleet(
        name=kind.name,
        worker_kind=kind.worker_kind,
        workers=sizing.workers,
        vcpu=sizing.vcpu,
        memory_gb=sizing.memory_gb,
        architecture=sizing.architecture,
        summary=sizing.summary,
        in_flight=sizing.in_flight or sizing.workers,
        per_hour_usd=per_hour_usd,
    )
