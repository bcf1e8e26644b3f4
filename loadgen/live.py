"""A playbook driven live against a DynamoDB endpoint (the local emulator for now).

For every entry of playbook.runs(): create the variant's table (once), seed it, pause
between repeats, run the fleet on a fresh run id, and add up. Everything the run created
is deleted in a `finally`, also on Ctrl-C. The result has the same format as
`hotbench simulate`, in full-scale units (counts divided by the scale), so the two can be
compared line by line.

Pauses between repeats matter to the physics (a split for heat lands minutes after the
heat). With the in-process emulator, `pause_scale` (default 1) is the share of each pause
spent in real time, and the rest is skipped on the emulator's clock (EmulatorServer.skip),
so `pause_scale=0` runs the whole playbook without waiting yet with the same physics.
Against an external --endpoint the clock cannot be skipped: the pause is real time
times `pause_scale`, which shortens the physics too (compare such a run with the
simulation of the same shortened playbook, not with M1).
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from loadgen.coordinator import FleetOptions, Notify, run_fleet
from loadgen.fleet import Fleet, LocalFleet
from loadgen.messages import CONCURRENCY, DRAIN_S, TIMEOUT_S, RunPlan
from loadgen.playbook import Playbook
from loadgen.results import PlaybookResult, to_full_scale
from loadgen.resultstore import ResultStore, make_client, wait_active
from loadgen.seed import seed_table

LOCAL_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "hotbench", "AWS_SECRET_ACCESS_KEY": "local"}
"""Live runs target a local endpoint for now (--target aws is a later issue): fixed
credentials, so a developer's real AWS credentials are never sent to it."""


@dataclass
class LiveOptions:
    """How to drive a playbook live."""

    workers: int = 2
    scale: float = 0.1
    """Fraction of the playbook's rates offered; the emulator runs at the same scale."""
    pause_scale: float = 1.0
    """Multiplier on the playbook's pause_s between repeats (1 = as written)."""
    endpoint: str | None = None
    """DynamoDB endpoint; None starts the emulator in-process."""
    region: str = "us-east-1"
    timeout_s: float = TIMEOUT_S
    concurrency: int = CONCURRENCY
    drain_s: float = DRAIN_S
    """Handed to each run's RunPlan (the defaults are RunPlan's)."""
    seed_limit: int | None = None
    """Seed at most this many items per table (default: the playbook's seed_items)."""
    fleet_factory: Callable[[], Fleet] | None = None
    fleet: FleetOptions = field(default_factory=FleetOptions)


def new_run_id() -> str:
    return f"{datetime.now(UTC):%Y%m%d%H%M%S}-{secrets.token_hex(2)}"


Skip = Callable[[float], None]


@contextlib.contextmanager
def _endpoint(options: LiveOptions) -> Iterator[tuple[str, Skip | None]]:
    """The endpoint, and a way to advance its clock when it is our in-process emulator."""
    if options.endpoint is not None:
        yield options.endpoint, None
        return
    from emulator.server import EmulatorServer  # imported late: only local runs need it

    with EmulatorServer(port=0, scale=options.scale, create_delay_s=0) as server:
        yield str(server.endpoint_url), server.skip


def pause(seconds: float, pause_scale: float, skip: Skip | None, say: Notify) -> None:
    """Wait `seconds * pause_scale` of real time; with the in-process emulator the rest
    of the pause is skipped on its clock, so splits and cooling see the whole pause."""
    real = seconds * pause_scale if skip is not None else seconds * min(1.0, pause_scale)
    rest = seconds - real
    if skip is not None and rest > 0:
        say(
            f"pausing {seconds:.0f} s: {real:.0f} s real, {rest:.0f} s skipped on the "
            "emulator's clock"
        )
    else:
        say(f"pausing {real:.0f} s (real time)")
    time.sleep(real)
    if skip is not None and rest > 0:
        skip(rest)


def run_playbook(
    playbook: Playbook, options: LiveOptions | None = None, notify: Notify | None = None
) -> PlaybookResult:
    """Run every table run of a playbook live; always returns (partial runs labelled)."""
    options = options or LiveOptions()
    say = notify or (lambda _m: None)
    run_id = new_run_id()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    wall0 = time.perf_counter()
    result = PlaybookResult(playbook.name, "run", options.scale, started_at=started, target="local")
    with _endpoint(options) as (endpoint, skip):
        client = make_client(endpoint, options.region, LOCAL_CREDENTIALS)
        created: list[str] = []
        try:
            results_table = f"hb-{run_id}-results"
            ResultStore(client, results_table, run_id).create_table()
            created.append(results_table)
            for spec_run in playbook.runs():
                spec = playbook.table(spec_run.table)
                table_name = f"hb-{run_id}-{spec.name}"
                if table_name not in created:
                    say(f"creating {table_name}")
                    client.create_table(
                        **spec.create_table_request(table_name, tags={"hotbench:run": run_id})
                    )
                    created.append(table_name)
                    wait_active(client, table_name)
                    if spec.seed_items:
                        say(f"seeding {table_name}")
                        n = seed_table(
                            client, table_name, playbook, spec, options.scale, options.seed_limit
                        )
                        say(f"seeded {n:,} items into {table_name}")
                for repeat in range(1, spec_run.repeats + 1):
                    if repeat > 1 and spec_run.pause_s > 0:
                        pause(spec_run.pause_s, options.pause_scale, skip, say)
                    plan = RunPlan(
                        f"{run_id}-{spec.name}-{repeat}",
                        playbook,
                        spec.name,
                        table_name,
                        repeat=repeat,
                        scale=options.scale,
                        workers=options.workers,
                        endpoint=endpoint,
                        region=options.region,
                        timeout_s=options.timeout_s,
                        concurrency=options.concurrency,
                        drain_s=options.drain_s,
                    )
                    say(f"running {spec.name} #{repeat} with {options.workers} workers")
                    run = run_one(plan, client, results_table, endpoint, options, say)
                    result.runs.append(to_full_scale(run, options.scale))
        finally:
            for table in created:
                with contextlib.suppress(Exception):
                    client.delete_table(TableName=table)
    result.wall_s = time.perf_counter() - wall0
    return result


def run_one(
    plan: RunPlan,
    client: Any,
    results_table: str,
    endpoint: str | None,
    options: LiveOptions,
    say: Notify,
) -> Any:
    """One table run on a fresh fleet (options.fleet_factory, default local processes);
    also the workflow's `run` step on tables it provisioned. `endpoint` None: the
    workers use the region's AWS endpoint (a Fargate fleet)."""
    store = ResultStore(client, results_table, plan.run_id)
    fleet = (
        options.fleet_factory()
        if options.fleet_factory
        else LocalFleet(extra_env=LOCAL_CREDENTIALS)
    )
    env = {
        "HOTBENCH_RUN_ID": plan.run_id,
        "HOTBENCH_RESULTS_TABLE": results_table,
        "AWS_REGION": options.region,
        "HOTBENCH_BARRIER_TIMEOUT_S": str(options.fleet.barrier_timeout_s + 30),
    }
    if endpoint is not None:
        env["HOTBENCH_CONTROL_ENDPOINT"] = endpoint
    return run_fleet(plan, store, fleet, env, options.fleet, say)
