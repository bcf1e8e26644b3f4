"""The local fleet: worker processes on this machine (`python -m loadgen.live.worker`),
pointed at the run's emulator.

Nothing here is billed: what a local run's workers would cost on AWS is the AWS fleet the
run is priced as (`priced_as`: the run's `--fleet`, the playbook's, else the default),
asked for its cost model and for what the same workers would have used.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from console.cost.record import UsageRecord
from console.render.cells import counted
from console.run import processes
from console.run.models import PlanReport
from console.run.options import RunOptions, UpOptions
from console.run.processes import WORKER_MARKER
from console.run.settings import Settings
from console.run.state import RunState, StateStore, TableRun
from console.targets.fleets.fleet_kind import AwsAccount, FleetKind, Sizing
from console.targets.interface import Finding
from loadgen.format.playbook import Playbook

if TYPE_CHECKING:
    from console.cost.setup import WorkerCost
    from console.targets.interface import FleetBinding

LOCAL_BARRIER_TIMEOUT_S = 60.0
"""A worker process is ready in a second or two; a minute still fails a broken start."""


class LocalFleetKind(FleetKind):
    """Worker processes on this machine, priced as the AWS fleet `priced_as`. FleetKind's
    neutral steps hold: `python -m loadgen.live.worker` from this checkout, no image, no
    package, nothing a destroy leaves."""

    name = "local"
    barrier_timeout_s = LOCAL_BARRIER_TIMEOUT_S

    def __init__(self, priced_as: FleetKind) -> None:
        self.priced_as = priced_as
        self.needs_image = priced_as.needs_image
        """Its image's build is priced as on AWS (the tables would stand through it)."""
        self.worker_kind = f"worker processes (priced as {priced_as.worker_kind})"

    # -- before anything exists ----------------------------------------------------------
    def sizing(self, options: UpOptions, playbook: Playbook) -> Sizing:
        aws = self.priced_as.sizing(options, playbook)
        return Sizing(
            options.workers,
            aws.vcpu,
            aws.memory_gb,
            aws.architecture,
            f"{counted(options.workers, 'worker process', 'worker processes')} on this "
            f"machine; on AWS: {aws.summary}",
            aws.in_flight,
        )

    def cost(self, options: UpOptions, playbook: Playbook) -> WorkerCost:
        return self.priced_as.cost(options, playbook)

    def start_note(self) -> str:
        return self.priced_as.start_note()

    def check_options(self, options: UpOptions, playbook: Playbook) -> None:
        return None  # a process runs any playbook for as long as it lasts

    def operator_actions(self, settings: Settings | None) -> dict[str, list[str]]:
        return {}

    def preflight(self, account: AwsAccount, caller: str, report: PlanReport) -> list[Finding]:
        return []

    def terraform_variables(
        self, settings: Settings, state: RunState, options: UpOptions, playbook: Playbook
    ) -> dict[str, Any]:
        return {}

    # -- up and down ---------------------------------------------------------------------
    def binding(self, account: Any, store: StateStore, state: RunState) -> FleetBinding:
        return LocalFleetBinding(store, state)

    def stop_all(self, account: AwsAccount, state: RunState) -> tuple[list[str], list[str]]:
        stopped = []
        for table_run in state.table_runs:
            for pid in table_run.worker_pids:
                if processes.is_ours(pid, WORKER_MARKER):
                    processes.stop(pid, WORKER_MARKER)
                    stopped.append(f"worker process {pid}")
        return stopped, []

    # -- watch and the tally ---------------------------------------------------------------
    def lifecycle(self, state: RunState, table_run: TableRun) -> dict[str, int]:
        return {}  # a process's life is its table run's

    def stop_reasons(self, state: RunState, table_run: TableRun) -> list[str]:
        return []  # a worker's exit code is in the table run's notes

    def used(self, state: RunState, origin: datetime, now: datetime) -> UsageRecord:
        """What the same workers would have used on the AWS fleet the run is priced as."""
        return self.priced_as.as_if(state, origin, now)

    def as_if(self, state: RunState, origin: datetime, now: datetime) -> UsageRecord:
        return self.priced_as.as_if(state, origin, now)


class LocalFleetBinding:
    """Worker processes on this machine, pointed at the run's emulator."""

    window_s: float | None = None  # a process measures the whole run

    def __init__(self, store: StateStore, state: RunState) -> None:
        self.store, self.state = store, state

    def new_fleet(self) -> Any:
        from loadgen.live.fleet import LocalFleet
        from loadgen.live.playbook_run import LOCAL_CREDENTIALS

        return LocalFleet(
            log_dir=str(self.store.run_dir(self.state.run_id) / "workers"),
            extra_env=LOCAL_CREDENTIALS,
        )

    def record_started(self, fleet: Any, table_run: TableRun) -> None:
        table_run.worker_pids = [p.pid for p in fleet.procs.values()]
        self.store.save(self.state)

    def seen(self, table_run: TableRun) -> None:
        return None  # a process's life is its table run's: nothing to record

    def record_finished(self, table_run: TableRun) -> None:
        return None  # the table run's own start and end are the workers' span

    def stop_orphans(self, table_run: TableRun) -> None:
        for pid in table_run.worker_pids:
            processes.stop(pid, WORKER_MARKER)

    def barrier_timeout_s(self, options: RunOptions) -> float:
        return options.barrier_timeout_s or LOCAL_BARRIER_TIMEOUT_S
