"""The Lambda fleet: each worker a chain of invocations of one function, the instrument the
published studies used (one drove 8 functions on a shared start time, another 27 workers
of 149 requests/s at 2,048 MB: docs/reference.md#m1-hot-partition-by-key-design and
docs/reference.md#m4-the-measuring-instrument).

Everything of the Lambda fleet is here: how many workers and how much memory a playbook
needs, its cost model (requests and GB-seconds, console.cost.setup.LambdaShape), its
Terraform module (terraform/modules/lambda-fleet: the function, its role and log group),
the function's package (console/targets/fleets/lambda_package.py: a zip of loadgen/ and
its pinned requirements, no Docker), its preflight (the account's concurrency, the
package's size), the actions it calls, the binding a table run invokes it with
(loadgen.live.lambda_invokes), each invocation's state and why it ended, and what `down`
does for it (nothing can stop an invocation: the abort item and its watchdog do).

Sizing, and why:
- One worker is one event loop on one CPU: it offers at most REQUESTS_PER_WORKER a second
  here (the reference's Node runner flattened near 1,100/s on a 3 GB Lambda, CPU-bound on
  signing: M4), so a playbook's peak rate needs ceil(peak / 1,000) workers at least, more
  when `--workers` asks.
- Lambda allots CPU in proportion to memory, one vCPU at 1,769 MB
  (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html); a worker gets
  the memory its share of the peak needs at REQUESTS_PER_WORKER per vCPU, at least
  MIN_MEMORY_MB (the worker's imports, and headroom). The studies' 2,048 MB for 149
  requests/s was a Node runner's; `--lambda-memory` sets any size from 128 to 10,240 MB.
- An invocation lasts 15 minutes at most: a run longer than MAX_WINDOW_S is measured in
  windows by successive invocations of each worker (loadgen.live.windows).
"""

from __future__ import annotations

import contextlib
import math
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from console.cost.record import InvocationUse, UsageRecord
from console.cost.setup import LAMBDA_START_S, LambdaShape
from console.render.cells import counted
from console.run.errors import ConfigError, StateError, WorkflowError
from console.run.hooks import Hooks
from console.run.models import PlanReport
from console.run.options import RunOptions, UpOptions
from console.run.settings import Settings
from console.run.state import (
    InvocationRecord,
    RunState,
    StateStore,
    TableRun,
    seconds_between,
    utc_now,
)
from console.targets import aws_kit as kit
from console.targets.awserrors import error_code
from console.targets.fleets.fleet_kind import AwsAccount, FleetKind, Sizing
from console.targets.interface import Finding
from loadgen.format.playbook import Playbook, load_playbook
from loadgen.live.lambda_invokes import HANDOVER_LEAD_S, LambdaFleet
from loadgen.live.windows import SplitError, split

if TYPE_CHECKING:
    from console.targets.interface import FleetBinding

FUNCTION_TIMEOUT_S = 900
"""Lambda's longest invocation, 15 minutes
(https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html): the
function's Timeout."""
LAMBDA_BARRIER_TIMEOUT_S = 120.0
"""From the invokes: a cold start takes seconds, and a throttled invoke is invoked again
after 2 and 4 s (loadgen.live.lambda_invokes); two minutes still fail a broken start."""
MAX_WINDOW_S = 720.0
"""The longest stretch of a run one invocation measures: 900 s of timeout, less the start
barrier's 120 s (window 0; a later window's hand-over lead is 60 s), the drain (10 s), a
request's timeout (8 s) and 42 s for the final write and margin."""
REQUESTS_PER_WORKER = 1000.0
"""Requests a second one worker is asked to offer at most: one event loop on one vCPU.
An estimate kept well below what the worker measures on a core here (~14,500 signed
PutItem/s against loopback, docs/loadgen.md): TLS and the network cost more on AWS, and
the reference's runner flattened near 1,100/s (M4)."""
MB_PER_VCPU = 1769
"""Lambda's memory at which a function has one vCPU's worth of CPU
(https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html)."""
MIN_MEMORY_MB = 1024
"""The smallest function the sizing picks: the worker's imports (numpy, botocore) take
~130 MB, and CPU and network bandwidth shrink with memory."""
MEMORY_RANGE_MB = (128, 10240)
"""What a function may be given (same page as the timeout)."""
NEW_ACCOUNT_MEMORY_MB = 3008
"""New accounts have reduced memory quotas (the quotas page above): a function above this
may be refused there (the quota is not in GetAccountSettings: said, not checked)."""
PACKAGE_MB_ESTIMATE = 44.0
"""The function's zip when none is built yet (measured 42 MB for x86_64: the pinned
wheels, numpy and botocore the bulk); Lambda takes 50 MB zipped for a direct upload."""

ACTIONS: dict[str, list[str]] = {
    "terraform: the Lambda fleet (the function, its role and log group)": [
        "lambda:CreateFunction",
        "lambda:DeleteFunction",
        "lambda:GetFunction",
        "lambda:GetFunctionConfiguration",
        "lambda:GetFunctionCodeSigningConfig",
        "lambda:GetFunctionConcurrency",
        "lambda:ListVersionsByFunction",
        "lambda:UpdateFunctionCode",
        "lambda:UpdateFunctionConfiguration",
        "lambda:TagResource",
        "lambda:UntagResource",
        "lambda:ListTags",
    ],
    "run: the Lambda fleet's invocations": ["lambda:InvokeFunction"],
    "preflight: the account's Lambda concurrency and package sizes": ["lambda:GetAccountSettings"],
}
"""Every action the Lambda fleet calls as the operator (console.targets.preflight adds the
ones every run calls: the role and log group are created with them). The function's own
role may call the run's tables' data plane and write its logs, nothing else."""


def peak_rate(playbook: Playbook) -> float:
    """The highest rate any open-loop phase offers (a phase of users has no rate)."""
    return max((p.kind.arrivals.peak_rate() for p in playbook.load.phases), default=0.0)


def sized(options: UpOptions, playbook: Playbook) -> tuple[int, int]:
    """(workers, memory MB): at least `--workers`, at least one per REQUESTS_PER_WORKER
    of the peak; memory for each one's share of it (module docstring)."""
    peak = peak_rate(playbook)
    workers = max(options.workers, math.ceil(peak / REQUESTS_PER_WORKER))
    if options.lambda_memory_mb is not None:
        return workers, options.lambda_memory_mb
    share = peak / workers
    memory = math.ceil(MB_PER_VCPU * share / REQUESTS_PER_WORKER / 64) * 64
    return workers, max(MIN_MEMORY_MB, memory)


def window_lengths(playbook: Playbook) -> tuple[float, ...]:
    """Each window's length of one table run (loadgen.live.windows at MAX_WINDOW_S)."""
    phases = playbook.load.phases
    duration = sum(p.duration_s for p in phases)
    return tuple(w.bounded_end(duration) - w.start for w in split(phases, MAX_WINDOW_S))


class LambdaFleetKind(FleetKind):
    """Workers as Lambda invocations (module docstring). FleetKind's neutral steps hold:
    no image (the package is built at `up`, before the apply, which uploads it), and
    the destroy deletes the function, every version of it and its logs."""

    name = "lambda"
    worker_kind = "Lambda invocations"
    needs_image = False  # a zip built on this machine, no container image
    barrier_timeout_s = LAMBDA_BARRIER_TIMEOUT_S

    # -- before anything exists ----------------------------------------------------------
    def sizing(self, options: UpOptions, playbook: Playbook) -> Sizing:
        workers, memory = sized(options, playbook)
        windows = window_lengths(playbook)
        peak = peak_rate(playbook)
        why = (
            f"{memory:,} MB as asked"
            if options.lambda_memory_mb is not None
            else f"{memory:,} MB for {peak / workers:,.0f} requests/s each"
        )
        more = (
            f" (--workers {options.workers}: one offers at most {REQUESTS_PER_WORKER:,.0f}/s)"
            if workers > options.workers
            else ""
        )
        split_note = (
            f", each run in {len(windows)} invocations of at most {MAX_WINDOW_S:.0f} s "
            "(an invocation lasts 15 minutes at most)"
            if len(windows) > 1
            else ", one invocation per table run"
        )
        return Sizing(
            workers,
            round(memory / MB_PER_VCPU, 2),
            memory / 1024,
            options.cpu_architecture,
            f"{counted(workers, 'Lambda worker')}{more} of {why} ({memory / MB_PER_VCPU:.2f} vCPU) "
            f"{options.cpu_architecture}{split_note}",
            # while a window hands over, a worker's next invocation runs beside it
            in_flight=workers * (2 if len(windows) > 1 else 1),
        )

    def cost(self, options: UpOptions, playbook: Playbook) -> LambdaShape:
        workers, memory = sized(options, playbook)
        return LambdaShape(
            workers, memory, window_lengths(playbook), HANDOVER_LEAD_S, options.cpu_architecture
        )

    def start_note(self) -> str:
        return (
            f"each fleet start is priced at {LAMBDA_START_S:.0f} s (a cold start and the "
            "barrier; Lambda bills INIT and the wait alike)"
        )

    def check_options(self, options: UpOptions, playbook: Playbook) -> None:
        low, high = MEMORY_RANGE_MB
        if options.lambda_memory_mb is not None and not low <= options.lambda_memory_mb <= high:
            raise ConfigError(
                f"--lambda-memory {options.lambda_memory_mb}: a Lambda function takes "
                f"{low:,} to {high:,} MB"
            )
        if options.cpu_architecture not in ("X86_64", "ARM64"):
            raise ConfigError(f"--cpu-architecture {options.cpu_architecture}: X86_64 or ARM64")
        try:
            split(playbook.load.phases, MAX_WINDOW_S)
        except SplitError as exc:
            raise ConfigError(
                f"{exc}; on the Lambda fleet a run is measured in windows of at most "
                f"{MAX_WINDOW_S:.0f} s: shorten the phase, or run it with --fleet ecs"
            ) from None

    def operator_actions(self, settings: Settings | None) -> dict[str, list[str]]:
        return dict(ACTIONS)

    def preflight(self, account: AwsAccount, caller: str, report: PlanReport) -> list[Finding]:
        """The account's concurrency against the invocations the run keeps in flight, the
        package against Lambda's size limits (GetAccountSettings), the memory against a
        new account's quota."""
        return check_account(account.client("lambda"), report)

    def terraform_variables(
        self, settings: Settings, state: RunState, options: UpOptions, playbook: Playbook
    ) -> dict[str, Any]:
        workers, memory = sized(options, playbook)
        return {
            "fleet": self.name,
            "task_count": workers,
            "lambda_memory": memory,
            "lambda_timeout": FUNCTION_TIMEOUT_S,
            "cpu_architecture": options.cpu_architecture,
        }

    # -- up and down ---------------------------------------------------------------------
    def before_apply(
        self, account: AwsAccount, store: StateStore, state: RunState, hooks: Hooks
    ) -> None:
        """The function's package, built on this machine (no Docker) into the run folder,
        named in the stack's variables (a resumed up reuses it)."""
        from console.targets.fleets.lambda_package import build_package

        tf_state = state.terraform
        assert tf_state is not None
        if tf_state.variables.get("lambda_package"):
            return
        architecture = str(tf_state.variables.get("cpu_architecture", "X86_64"))
        package = build_package(
            store.run_dir(state.run_id) / "lambda" / "worker.zip",
            architecture,
            account.settings.plugin_cache.parent / "lambda",
            hooks.say,
        )
        tf_state.variables = {
            **tf_state.variables,
            "lambda_package": str(package.path),
            "lambda_package_hash": package.base64_sha256,
        }
        store.save(state)

    def binding(self, account: Any, store: StateStore, state: RunState) -> FleetBinding:
        return LambdaFleetBinding(account, store, state)

    def stop_all(self, account: AwsAccount, state: RunState) -> tuple[list[str], list[str]]:
        """No invocation can be stopped: the ones still open are told to stop through the
        abort item of their table run (within 3 s), and are recorded as ended when they
        must have, at their function's timeout at the latest."""
        open_runs = {i.run_label for i in state.invocations if i.ended_at is None}
        if not open_runs:
            return [], []
        notes = abort_table_runs(account, state, open_runs)
        now = utc_now()
        for inv in state.invocations:
            if inv.ended_at is None:
                latest = inv.started_at + timedelta(seconds=FUNCTION_TIMEOUT_S)
                inv.ended_at = min(now, latest)
                inv.state = inv.state if inv.state != "invoking" else "ended unseen"
                inv.reason = inv.reason or (
                    "its answer was never read (the command that invoked it was stopped); "
                    f"it ran until {inv.ended_at:%H:%M:%S} UTC at the latest"
                )
        return [], notes

    # -- watch and the tally ---------------------------------------------------------------
    def lifecycle(self, state: RunState, table_run: TableRun) -> dict[str, int]:
        out: dict[str, int] = {}
        for inv in state.invocations:
            if inv.run_label == table_run.label:
                label = inv.status if inv.state == "returned" and inv.status else inv.state
                out[label] = out.get(label, 0) + 1
        return out

    def stop_reasons(self, state: RunState, table_run: TableRun) -> list[str]:
        return [
            f"worker {i.worker}" + (f" window {i.window}" if i.window else "") + f": {i.reason}"
            for i in state.invocations
            if i.run_label == table_run.label and i.reason and i.status != "complete"
        ]

    def used(self, state: RunState, origin: datetime, now: datetime) -> UsageRecord:
        """Each invocation by Lambda's Billed Duration when its REPORT line said it,
        else from its invoke to its answer (still open: now, at most the timeout)."""
        out = UsageRecord()
        for inv in state.invocations:
            if inv.state == "not started":
                continue  # throttled every time: nothing ran, nothing billed
            if inv.billed_ms is not None:
                billed = inv.billed_ms / 1000
            else:
                billed = min(FUNCTION_TIMEOUT_S, seconds_between(inv.started_at, inv.ended_at, now))
            out.invocations.append(
                InvocationUse(inv.id, inv.memory_mb / 1024, billed, inv.architecture)
            )
        return out

    def as_if(self, state: RunState, origin: datetime, now: datetime) -> UsageRecord:
        """A local run's workers as invocations: each table run's workers, one invocation
        per window of its measured length, at the memory the plan would size."""
        playbook = load_playbook(state.playbook_path)
        shape = self.cost(UpOptions(workers=state.workers), playbook)
        out = UsageRecord()
        for run in state.table_runs:
            if run.started_at is None:
                continue
            load = seconds_between(run.started_at, run.finished_at, now)
            out.add_workers(shape.table_run(run.label, 0.0, load))
        return out


def check_account(client: Any, report: PlanReport) -> list[Finding]:
    """GetAccountSettings against the plan: unreserved concurrency for every invocation
    the run keeps in flight (twice the workers while one window hands over to the next),
    and the package against CodeSizeZipped (a new account's concurrency can be far
    below the default 1,000: https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html)."""
    fleet = report.fleet
    needed = fleet.in_flight
    split_run = needed > fleet.workers
    memory_mb = round(fleet.memory_gb * 1024)
    out: list[Finding] = []
    try:
        limits = client.get_account_settings()["AccountLimit"]
    except Exception as exc:
        return [
            Finding(
                "not-checked",
                f"Lambda concurrency not checked: lambda:GetAccountSettings answered "
                f"{error_code(exc) or type(exc).__name__}; the run keeps {needed} "
                "invocations in flight",
            )
        ]
    unreserved = limits.get("UnreservedConcurrentExecutions")
    total = limits.get("ConcurrentExecutions")
    if unreserved is not None and unreserved < needed:
        overlap = (
            " (twice the workers while one window hands over to the next)" if split_run else ""
        )
        out.append(
            Finding(
                "quota",
                f"the run keeps {needed} Lambda invocations in flight{overlap}, but the "
                f"account has {unreserved:,} unreserved concurrent executions in this region "
                f"(of {total:,}; new accounts start far below the default 1,000): fewer "
                "workers (--workers), or raise 'Concurrent executions' (AWS Lambda) in "
                "Service Quotas; invokes over it are throttled (TooManyRequestsException)",
            )
        )
    zipped = limits.get("CodeSizeZipped")
    if zipped is not None and zipped < PACKAGE_MB_ESTIMATE * 1e6:
        out.append(
            Finding(
                "quota",
                f"the worker's package (~{PACKAGE_MB_ESTIMATE:.0f} MB zipped) is over this "
                f"account's {zipped / 1e6:,.0f} MB for a function's zip: run with --fleet ecs",
            )
        )
    if memory_mb > NEW_ACCOUNT_MEMORY_MB:
        out.append(
            Finding(
                "not-checked",
                f"functions of {memory_mb:,} MB: new accounts have a reduced memory quota "
                "(no API says it); if CreateFunction refuses, a smaller --lambda-memory",
            )
        )
    return out


def abort_table_runs(account: AwsAccount, state: RunState, labels: set[str]) -> list[str]:
    """Write the abort item of each table run in `labels` (its workers stop within their
    progress interval); best effort, each failure a note."""
    from loadgen.live.resultstore import ResultStore

    notes: list[str] = []
    if state.results_table is None:
        return notes
    for run in state.table_runs:
        if run.label not in labels or run.fleet_run_id is None:
            continue
        try:
            store = ResultStore(account.client("dynamodb"), state.results_table, run.fleet_run_id)
            if store.get_abort() is None:
                store.put_abort("the run was stopped (`down`, or a resumed `run`)")
        except Exception as exc:  # the table may be gone already; the timeout still holds
            notes.append(
                f"could not tell {run.label}'s invocations to stop ({error_code(exc) or exc}); "
                f"they end at their function's timeout, {FUNCTION_TIMEOUT_S // 60} minutes "
                "after they began, at the latest"
            )
    return notes


def invoke_client(account: Any, workers: int) -> Any:
    """A Lambda client for RequestResponse invocations: botocore's retries off (one
    attempt per call: a retried invoke could run a worker twice), a read timeout past the
    function's (an invocation answers when it ends), a connection for each invocation in
    flight (twice the workers at a hand-over)."""
    from botocore.config import Config

    config = Config(
        retries={"total_max_attempts": 1},
        read_timeout=FUNCTION_TIMEOUT_S + 60,
        connect_timeout=10,
        max_pool_connections=max(10, 2 * workers + 2),
    )
    return account.session().client("lambda", config=config)


class LambdaFleetBinding:
    """Invocations of the run's function, recorded in the state as they start and end."""

    window_s: float | None = MAX_WINDOW_S

    def __init__(self, target: Any, store: StateStore, state: RunState) -> None:
        self.target, self.store, self.state = target, store, state
        self.fleet: LambdaFleet | None = None
        self.table_run: TableRun | None = None
        self._synced: dict[tuple[int, int], tuple[str, int | None]] = {}

    def new_fleet(self) -> Any:
        outputs = kit.outputs_from_state(self.state)
        if outputs.lambda_function_name is None:
            raise StateError(
                f"run {self.state.run_id}'s stack has no Lambda function (applied without "
                "the Lambda fleet): nothing can run the load"
            )
        playbook = load_playbook(self.state.playbook_path)
        self.fleet = LambdaFleet(
            invoke_client(self.target, self.state.workers),
            outputs.lambda_function_name,
            split(playbook.load.phases, self.window_s),
        )
        self._synced = {}
        return self.fleet

    def record_started(self, fleet: Any, table_run: TableRun) -> None:
        self.table_run = table_run
        self._sync(table_run, always=True)

    def seen(self, table_run: TableRun) -> None:
        """As the coordinator polls: new invocations (a later window's) and each one's
        state into the state file, when something changed (invokes are no API calls to
        make here: the fleet knows)."""
        with contextlib.suppress(BotoCoreError, ClientError, WorkflowError, OSError):
            self._sync(table_run)

    def record_finished(self, table_run: TableRun) -> None:
        self._sync(table_run, always=True)

    def _sync(self, table_run: TableRun, always: bool = False) -> None:
        fleet = self.fleet
        if fleet is None:
            return
        by_slot = {
            (r.worker, r.window): r
            for r in self.state.invocations
            if r.run_label == table_run.label and r.id.startswith(table_run.fleet_run_id or "")
        }
        changed = False
        memory = self.state.worker_memory_mb or MIN_MEMORY_MB
        architecture = str(
            (self.state.terraform.variables if self.state.terraform else {}).get(
                "cpu_architecture", "X86_64"
            )
        )
        for slot, inv in list(fleet.invocations.items()):
            if inv.started_at is None:
                continue
            mark = (inv.state, inv.billed_ms)
            if self._synced.get(slot) == mark:
                continue
            self._synced[slot] = mark
            changed = True
            record = by_slot.get(slot)
            if record is None:
                record = InvocationRecord(
                    id=f"{table_run.fleet_run_id}/w{slot[0]}/j{slot[1]}",
                    run_label=table_run.label,
                    worker=slot[0],
                    window=slot[1],
                    memory_mb=inv.memory_mb or memory,
                    architecture=architecture,
                    started_at=_wall(inv.started_at),
                )
                self.state.invocations.append(record)
            record.state = inv.state
            record.status = inv.status
            record.reason = inv.reason
            record.attempts = inv.attempts
            record.billed_ms = inv.billed_ms
            if inv.memory_mb:
                record.memory_mb = inv.memory_mb
            if inv.ended_at is not None:
                record.ended_at = _wall(inv.ended_at)
        if changed or always:
            self.store.save(self.state)

    def stop_orphans(self, table_run: TableRun) -> None:
        """An interrupted table run's invocations may still measure: its abort item stops
        them (no API stops an invocation), and they are recorded as ended."""
        open_ones = {
            i.run_label
            for i in self.state.invocations
            if i.run_label == table_run.label and i.ended_at is None
        }
        if not open_ones:
            return
        abort_table_runs(self.target, self.state, open_ones)
        now = utc_now()
        for inv in self.state.invocations:
            if inv.run_label == table_run.label and inv.ended_at is None:
                inv.ended_at = min(now, inv.started_at + timedelta(seconds=FUNCTION_TIMEOUT_S))
                inv.reason = inv.reason or "orphaned by an interrupted run; told to stop"
        self.store.save(self.state)

    def barrier_timeout_s(self, options: RunOptions) -> float:
        return options.barrier_timeout_s or LAMBDA_BARRIER_TIMEOUT_S


def _wall(t: float) -> datetime:
    from datetime import UTC

    return datetime.fromtimestamp(t, UTC)
