"""The local target: a detached `hotbench emulator serve` on loopback, its tables, and
worker processes on this machine.

Nothing here is billed: the tally prices what the same run would cost on AWS. The
emulator's clock can be skipped, so a pause between repeats passes at once for the
physics (splits, cooling) while the wall waits only `pause_scale` of it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from console.run.errors import ConfigError, InfraError
from console.run.hooks import Hooks
from console.run.models import DownReport, Leftover, PlanReport
from console.run.options import UpOptions
from console.run.samples import IndexSample
from console.run.settings import FleetName, Settings, TargetName
from console.run.state import ImageState, RunState, StateStore, utc_now
from console.run.tables import table_state, variants_in_runs
from console.targets import emulator_process as emulator
from console.targets.awserrors import error_code
from console.targets.fleets import FleetKind, fleet_named
from console.targets.fleets.process_fleet import LocalFleetKind
from console.targets.interface import Finding, FleetBinding, HotKeyView
from loadgen.format.playbook import Playbook, load_playbook
from loadgen.live.auto_scaling_route import AutoScalingRouteError, put_auto_scaling

if TYPE_CHECKING:  # types only: a local run builds no image
    from console.targets.worker_image import ImagePlan
    from loadgen.live.segmented_run import TableChanger

_NO_ACCOUNT: Any = None
"""The local fleet's `stop_all` asks no AWS account (its workers are this machine's)."""


class LocalTarget:
    name: TargetName = "local"
    billed = False
    skips_pauses = True
    hot_key_view: HotKeyView = "partitions"
    runs_through_workflow = False
    tables_are_modelled = True
    setup_s = 30.0
    """The emulator starts in seconds; tables are ACTIVE at once (create delay 0)."""

    @classmethod
    def fleet_kind(cls, fleet: FleetName) -> FleetKind:
        """Worker processes on this machine, priced as the AWS fleet `fleet`."""
        return LocalFleetKind(fleet_named(fleet))

    def __init__(self, settings: Settings, clients: object = None) -> None:
        self.settings = settings  # `clients`: AWS clients, none of which are used here

    # -- before anything exists ----------------------------------------------------------
    def table_name(self, run_id: str, variant: str) -> str:
        return f"{run_id}-{variant}"  # the run id already starts with `hb-`

    def check_up_options(self, options: UpOptions) -> None:
        if not 0 < options.scale <= 1:
            raise ConfigError(
                "--scale must be in (0, 1]: the fraction of the playbook's rates offered"
            )

    def run_scale(self, options: UpOptions) -> float:
        return options.scale

    def identity(self) -> str | None:
        return None

    def preflight(self, report: PlanReport) -> list[Finding]:
        return []

    # -- up and down ---------------------------------------------------------------------
    def provision(
        self, store: StateStore, state: RunState, options: UpOptions, hooks: Hooks
    ) -> None:
        playbook = load_playbook(state.playbook_path)
        if not emulator.emulator_alive(state.emulator):
            if state.emulator is not None:
                hooks.say(
                    "the emulator of this run is gone: its tables went with it; starting anew"
                )
                for table in state.tables.values():
                    table.deleted_at = table.deleted_at or utc_now()
                state.tables = {}
                state.results_table = None
            state.emulator = emulator.start_emulator(
                store.run_dir(state.run_id),
                dataclasses.replace(options.emulator, scale=state.scale),
                hooks,
            )
            store.save(state)
        hooks.say(f"emulator at {state.emulator.endpoint if state.emulator else '?'}")
        create_tables(store, state, playbook, emulator.client(state), hooks, self.table_name)

    def worker_image_plan(self, fleet: FleetName, say: Callable[[str], None]) -> ImagePlan | None:
        return None  # local workers are `python -m loadgen.live.worker` processes: no image

    def worker_image(
        self, store: StateStore, state: RunState, hooks: Hooks, rebuild: bool
    ) -> ImageState | None:
        return None  # local workers are `python -m loadgen.live.worker` processes: no image

    def teardown(self, store: StateStore, state: RunState, hooks: Hooks) -> DownReport:
        leftovers: list[Leftover] = []
        notes: list[str] = []
        removed, _ = self.fleet_kind(state.fleet).stop_all(_NO_ACCOUNT, state)
        emu = state.emulator
        names = [t.name for t in state.tables.values() if t.deleted_at is None]
        if state.results_table:
            names.append(state.results_table)
        if emu is not None and emulator.emulator_alive(emu):
            client = emulator.client(state)
            for name in names:
                try:
                    client.delete_table(TableName=name)
                    removed.append(f"table {name}")
                except Exception as exc:
                    if error_code(exc) != "ResourceNotFoundException":
                        leftovers.append(
                            Leftover(
                                kind="dynamodb:table", id=name, delete_command=f"kill {emu.pid}"
                            )
                        )
            remaining = set(client.list_tables().get("TableNames", [])) & set(names)
            for name in sorted(remaining):
                leftovers.append(
                    Leftover(kind="dynamodb:table", id=name, delete_command=f"kill {emu.pid}")
                )
            if emulator.stop_emulator(emu):
                removed.append(f"emulator process {emu.pid}")
                # its tables lived in its memory: none survives it
                leftovers = [x for x in leftovers if x.kind != "dynamodb:table"]
            else:
                leftovers.append(
                    Leftover(kind="process", id=str(emu.pid), delete_command=f"kill -9 {emu.pid}")
                )
        elif emu is not None and emu.stopped_at is None and names:
            notes.append(f"the emulator (pid {emu.pid}) was already gone; its tables went with it")
        now = utc_now()
        if emu is not None and not emulator.emulator_alive(emu):
            emu.stopped_at = emu.stopped_at or now
        for table in state.tables.values():
            if table.deleted_at is None and not any(x.id == table.name for x in leftovers):
                table.deleted_at = now
        return DownReport(
            run_id=state.run_id, target=self.name, removed=removed, leftovers=leftovers, notes=notes
        )

    def sweep(self, state: RunState) -> list[Leftover]:
        """The emulator's tables die with it: what is left is a process still running."""
        emu = state.emulator
        if emu is not None and emulator.emulator_alive(emu):
            return [Leftover(kind="process", id=str(emu.pid), delete_command=f"kill {emu.pid}")]
        return []

    # -- while up ------------------------------------------------------------------------
    def dynamodb_client(self, state: RunState) -> Any:
        return emulator.client(state)

    def require_alive(self, state: RunState) -> None:
        if not emulator.emulator_alive(state.emulator):
            raise InfraError(
                f"the emulator of run {state.run_id} is not running (pid "
                f"{state.emulator.pid if state.emulator else '?'} gone): its tables went "
                f"with it; `hotbench down {state.run_id}` and a new `hotbench up`"
            )

    def gone(self, state: RunState) -> str | None:
        emu = state.emulator
        if emu is not None and not emulator.emulator_alive(emu):
            return (
                f"the emulator of run {state.run_id} is gone (pid {emu.pid}), and its "
                "tables with it"
            )
        return None

    def refresh(self, state: RunState) -> None:
        if state.emulator and not emulator.emulator_alive(state.emulator):
            state.emulator.stopped_at = state.emulator.stopped_at or utc_now()

    def after_prewarm(self, state: RunState, hooks: Hooks) -> None:
        if state.emulator is None:
            return
        for table in state.tables.values():
            parts = emulator.partitions(state.emulator, table.name)
            for index in (parts or {}).get("indexes", []):
                hooks.say(
                    f"{table.variant}{'/' + index['index'] if index.get('index') else ''}: "
                    f"{index.get('partition_count')} partition(s)"
                )

    def fleet(self, store: StateStore, state: RunState) -> FleetBinding:
        return self.fleet_kind(state.fleet).binding(None, store, state)

    def endpoint(self, state: RunState) -> str | None:
        return state.emulator.endpoint if state.emulator else None

    def skipper(self, state: RunState) -> Callable[[float], None] | None:
        endpoint = self.endpoint(state)
        if endpoint is None:
            return None
        # The process's one client (emulator.http): seeding skips after each batch, and a
        # client per call would build an SSL context each time.
        client = emulator.http()

        def skip(seconds: float) -> None:
            """Skip seconds on the emulator's clock (POST /_hotbench/skip)."""
            import httpx

            try:
                reply = client.post(f"{endpoint}/_hotbench/skip", params={"seconds": seconds})
                reply.raise_for_status()
            except httpx.HTTPError as exc:
                raise InfraError(
                    f"could not skip {seconds:.0f} s on the emulator at {endpoint} ({exc}); "
                    "`hotbench down RUN_ID` stops it, `hotbench up` starts a new one"
                ) from None

        return skip

    def clock(self) -> Callable[[], float]:
        return time.time  # workers and coordinator share this machine's clock

    def metrics_source(self) -> EmulatorMetrics:
        return EmulatorMetrics()

    def table_changer(self, state: RunState, table_name: str) -> TableChanger:
        """The emulator's UpdateTable, waited for on its clock (skipped: a split's minutes
        pass at once), and its /_hotbench/capacity view."""
        from loadgen.live.segmented_run import emulator_changer

        if state.emulator is None:
            raise InfraError(f"run {state.run_id} has no emulator: `hotbench up` starts one")
        endpoint = state.emulator.endpoint
        return emulator_changer(
            self.dynamodb_client(state), endpoint, table_name, self.skipper(state)
        )

    def partition_map(self, state: RunState, variant: str) -> dict[str, Any] | None:
        if state.emulator is None or variant not in state.tables:
            return None
        name = state.tables[variant].name
        found = emulator.partitions(state.emulator, name)
        recent = emulator.metrics(state.emulator, seconds=1)
        if found is None or recent is None:
            return found
        # The map's partitions carry units taken since creation; the metrics carry each
        # partition's utilisation over the last second (the heat against its limit).
        indexes = (recent.get("tables", {}).get(name) or {}).get("indexes", {})
        for index in found.get("indexes", []):
            live = indexes.get(index.get("index") or "$table") or {}
            heat = {p["id"]: p.get("utilisation") for p in live.get("partitions", [])}
            for part in index.get("partitions", []):
                part["utilisation"] = heat.get(part["id"])
        return found

    def insights(self, state: RunState, variant: str) -> list[dict[str, Any]] | None:
        return None  # the emulator has no Contributor Insights: its partition map shows more


class EmulatorMetrics:
    """The emulator's per-second metrics (`/_hotbench/metrics`), complete seconds only."""

    label = "emulator"

    def __init__(self) -> None:
        self.done: dict[tuple[str, str | None], int] = {}
        self.requested = 0  # free: nothing is billed

    def samples(self, state: RunState, flush: bool) -> list[IndexSample]:
        """The emulator's complete seconds not yet sent; with `flush` (the run is over, no
        more traffic comes) the current second too, or a short run's last second would
        never be sent."""
        emu = state.emulator
        if emu is None or emu.stopped_at is not None:
            return []
        data = emulator.metrics(emu, seconds=10)
        if data is None:
            return []
        by_name = {t.name: t.variant for t in state.tables.values()}
        now_s = float(data.get("now_s", 0.0))
        base = utc_now() - timedelta(seconds=now_s)
        out = []
        for name, table in (data.get("tables") or {}).items():
            variant = by_name.get(name)
            if variant is None:
                continue  # the results table, or another run's
            for index in (table.get("indexes") or {}).values():
                key = (variant, index.get("index"))
                done = self.done.get(key, -1)
                capacity = index_capacity(index)
                for second in index.get("seconds", []):
                    t = int(second["t"])
                    if t <= done or (t >= int(now_s) and not flush):  # the second goes on
                        continue
                    out.append(
                        IndexSample(
                            source="emulator",
                            table=variant,
                            index=index.get("index"),
                            start=base + timedelta(seconds=t),
                            accepted=float(second.get("accepted", 0.0)),
                            throttled=float(second.get("throttled", 0.0)),
                            throttled_by_reason=dict(second.get("throttles_by_reason", {})),
                            consumed_wcu=float(second.get("consumed_wcu", 0.0)),
                            consumed_rcu=float(second.get("consumed_rcu", 0.0)),
                            capacity_rcu=capacity[0],
                            capacity_wcu=capacity[1],
                            capacity_status=index.get("capacity_status"),
                            scaling=scaling_in(index, t),
                        )
                    )
                    self.done[key] = t
        return out


def create_tables(
    store: StateStore,
    state: RunState,
    playbook: Playbook,
    client: Any,
    hooks: Hooks,
    table_name: Callable[[str, str], str],
) -> None:
    """Each variant's table and the results table, by CreateTable (on AWS Terraform
    creates them). `table_name(run_id, variant)` is the target's."""
    from loadgen.live.resultstore import ResultStore, wait_active

    specs = variants_in_runs(playbook)
    for i, spec in enumerate(specs):
        hooks.check_cancel()
        name = table_name(state.run_id, spec.name)
        hooks.progress("creating tables", i / (len(specs) + 1))
        existing = state.tables.get(spec.name)
        if existing is None or existing.deleted_at is not None:
            hooks.say(f"creating {name}")
            try:
                client.create_table(
                    **spec.create_table_request(name, tags={"hotbench:run-id": state.run_id})
                )
            except Exception as exc:
                if error_code(exc) != "ResourceInUseException":
                    raise
            state.tables[spec.name] = table_state(spec, name)
            store.save(state)
        wait_active(client, name)
        if spec.auto_scaling_specs():
            # Auto scaling is Application Auto Scaling's on AWS (Terraform sets it there);
            # here the emulator's route (a PUT again on a resumed `up` replaces it).
            if state.emulator is None:
                raise InfraError(f"run {state.run_id} has no emulator recorded")
            try:
                for line in put_auto_scaling(state.emulator.endpoint, name, spec):
                    hooks.say(line)
            except AutoScalingRouteError as exc:
                raise InfraError(str(exc)) from None
    results = f"{state.run_id}-results"
    if state.results_table is None:
        hooks.say(f"creating {results}")
        # a no-op when a resumed up made it before it was killed
        ResultStore(client, results, state.run_id).create_table()
        state.results_table = results
        store.save(state)
    wait_active(client, results)
    hooks.progress("creating tables", 1.0)


def index_capacity(index: dict[str, Any]) -> tuple[float | None, float | None]:
    """(read, write) capacity in force of one index of the emulator's metrics view: its
    provisioned units, or on demand the ceiling it serves (the capacity it is polled at:
    a change lands on the sample of the poll that sees it)."""
    pair = index.get("provisioned") or index.get("on_demand_ceiling") or {}
    read, write = pair.get("read"), pair.get("write")
    return (
        None if read is None else float(read),
        None if write is None else float(write),
    )


def scaling_in(index: dict[str, Any], second: int) -> list[str]:
    """The capacity changes asked of an index in one emulator second, in words."""
    out = []
    for event in index.get("capacity_events") or []:
        if int(float(event.get("t", -1))) == second:
            change = f"{event.get('what')} {event.get('from')} -> {event.get('to')}"
            out.append(f"{change}: {event.get('cause')}")
    return out
