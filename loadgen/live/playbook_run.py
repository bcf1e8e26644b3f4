"""A playbook driven live against a DynamoDB endpoint (the local emulator for now).

For every entry of playbook.runs(): create the variant's table (once), seed it, pause
between repeats, run the fleet on a fresh run id, and add up. Everything the run created
is deleted in a `finally`, also on Ctrl-C; a table that could not be deleted is said at
once and listed in the result's `left_behind` with the command that removes it. The
result has the same format as `hotbench simulate`, in full-scale units (counts divided
by the scale), so the two can be compared line by line.

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
import dataclasses
import json
import socket
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from emulator.emulator_options import EmulatorOptions
from loadgen.format.playbook import Playbook
from loadgen.live.auto_scaling_route import put_auto_scaling
from loadgen.live.coordinator import CLEANUP_FAILED, FleetOptions, Notify, StopCheck, run_fleet
from loadgen.live.fleet import Fleet, LocalFleet
from loadgen.live.messages import CONCURRENCY, DRAIN_S, TIMEOUT_S, RunPlan
from loadgen.live.resultstore import ResultStore, make_client, wait_active
from loadgen.live.runid import new_run_id
from loadgen.live.segmented_run import (
    TableChanger,
    emulator_changer,
    has_changes,
    run_in_segments,
)
from loadgen.results.records import Leftover, PlaybookResult, to_full_scale

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
    window_s: float | None = None
    """The longest stretch one worker process measures (a Lambda invocation's window);
    None: the whole run (loadgen.live.windows)."""
    fleet_factory: Callable[[], Fleet] | None = None
    fleet: FleetOptions = field(default_factory=FleetOptions)
    emulator: EmulatorOptions = field(default_factory=lambda: EmulatorOptions(store="keys"))
    """The in-process emulator's options (an --endpoint emulator has its own): its
    capacity parameters (`--params FILE`), its item store, "keys" by default (a playbook's
    items are synthetic: only keys, index attributes and sizes are kept, every capacity
    figure unchanged; docs/emulator.md#item-stores-and-the-memory-bound), and its memory
    bound (a run that reaches it stops as partial with the emulator's message). Its scale
    is the run's and its tables are ACTIVE at once."""

    def plan(
        self,
        run_id: str,
        playbook: Playbook,
        variant: str,
        table_name: str,
        repeat: int,
        endpoint: str | None,
    ) -> RunPlan:
        """The run plan of one table run driven with these options (the one-shot run and
        the workflow's `run` step both make theirs here)."""
        return RunPlan(
            run_id,
            playbook,
            variant,
            table_name,
            repeat=repeat,
            scale=self.scale,
            workers=self.workers,
            endpoint=endpoint,
            region=self.region,
            timeout_s=self.timeout_s,
            concurrency=self.concurrency,
            drain_s=self.drain_s,
            window_s=self.window_s,
        )


Skip = Callable[[float], None]


@dataclass
class Endpoint:
    """Where a live run sends its requests, and what it can ask of the emulator there."""

    url: str
    skip: Skip | None
    """Advances the emulator's clock: only our in-process emulator has one."""
    stop_check: StopCheck
    """The emulator's memory bound, once it refused a write: a reason to stop."""


def item_store_for(playbook: Playbook, store: str) -> str:
    """The item store a playbook's emulator needs: a mix or scenario reads its items back
    (a collection's sizes) and conditions writes on their attributes (a lock's owner and
    expiry, a version), none of which the `keys` store keeps, so such a playbook's
    emulator keeps whole items."""
    if store == "keys" and any(p.kind.engine == "iterations" for p in playbook.load.phases):
        return "full"
    return store


@contextlib.contextmanager
def _endpoint(options: LiveOptions) -> Iterator[Endpoint]:
    """The endpoint, and a way to advance its clock when it is our in-process emulator."""
    if options.endpoint is not None:
        refuse_if_nothing_listens(options.endpoint)
        yield Endpoint(options.endpoint, None, polled_memory_check(options.endpoint))
        return
    from emulator.server import EmulatorServer  # imported late: only local runs need it

    emulator = dataclasses.replace(options.emulator, scale=options.scale, create_delay_s=0)
    with EmulatorServer(emulator, port=0) as server:
        memory = server.service.state.memory

        def bound_reached() -> str | None:
            return memory.refusal().message if memory.refused else None

        yield Endpoint(str(server.endpoint_url), server.skip, bound_reached)


PROBE_TIMEOUT_S = 5.0
"""How long the probe of an --endpoint waits for a connection (the control client's own
connect timeout)."""


def refuse_if_nothing_listens(endpoint: str) -> None:
    """Refuse at once an endpoint whose port refuses connections. The control client's
    standard retries wait 20-25 s with backoff before giving up on it, and a refused
    connection is not transient: nothing listens there (an emulator not started, a
    wrong port). Any other failure (a name that does not resolve yet, a timeout) is left
    to those retries, which are right for it."""
    url = urllib.parse.urlsplit(endpoint)
    if not url.hostname:
        return
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((url.hostname, port), timeout=PROBE_TIMEOUT_S):
            return
    except ConnectionRefusedError:
        raise ConnectionRefusedError(
            f'Could not connect to the endpoint URL: "{endpoint}" (connection refused: '
            f"nothing listens on {url.hostname}:{port})"
        ) from None
    except OSError:
        return


def polled_memory_check(endpoint: str, every_s: float = 2.0) -> StopCheck:
    """The memory bound of a hotbench emulator at `endpoint`, read from its
    /_hotbench/memory view at most every `every_s` (any other endpoint has no such view:
    then never a reason to stop)."""
    url = endpoint.rstrip("/") + "/_hotbench/memory"
    last_at = -every_s
    last: str | None = None

    def check() -> str | None:
        nonlocal last_at, last
        now = time.monotonic()
        if last is not None or now - last_at < every_s:
            return last
        last_at = now
        try:
            with urllib.request.urlopen(url, timeout=2.0) as reply:
                view = json.loads(reply.read())
        except (OSError, ValueError):
            return None
        if isinstance(view, dict) and view.get("refused_new_items"):
            last = str(view.get("message") or "the emulator reached its memory bound")
        return last

    return check


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
    # Here, not at the top: loadgen.load.seed imports numpy (0.3 s of CPU), and the workflow
    # imports this module for its constants and helpers in every `hotbench` process.
    from loadgen.load.seed import seed_table

    options = options or LiveOptions()
    say = notify or (lambda _m: None)
    run_id = new_run_id()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    wall0 = time.perf_counter()
    result = PlaybookResult(playbook.name, "run", options.scale, started_at=started, target="local")
    store = item_store_for(playbook, options.emulator.store)
    if store != options.emulator.store and options.endpoint is None:
        say("mix and scenario phases read whole items: the emulator keeps them (--store full)")
        emulator = dataclasses.replace(options.emulator, store=store)
        options = dataclasses.replace(options, emulator=emulator)
    with _endpoint(options) as target:
        endpoint, skip = target.url, target.skip
        client = make_client(endpoint, options.region, LOCAL_CREDENTIALS)
        created: list[str] = []
        try:
            results_table = f"{run_id}-results"
            ResultStore(client, results_table, run_id).create_table()
            created.append(results_table)
            for spec_run in playbook.runs():
                spec = playbook.table(spec_run.table)
                table_name = f"{run_id}-{spec.name}"
                if table_name not in created:
                    say(f"creating {table_name}")
                    client.create_table(
                        **spec.create_table_request(table_name, tags={"hotbench:run": run_id})
                    )
                    created.append(table_name)
                    wait_active(client, table_name)
                    for line in put_auto_scaling(endpoint, table_name, spec):
                        say(line)
                    if spec.seed_items:
                        n = seed_table(
                            client,
                            table_name,
                            playbook,
                            spec,
                            options.scale,
                            options.seed_limit,
                            progress=say,
                            skip=skip,  # our emulator: the pace is kept on its clock
                        )
                        say(f"seeded {n:,} items into {table_name}")
                for repeat in range(1, spec_run.repeats + 1):
                    if repeat > 1 and spec_run.pause_s > 0:
                        pause(spec_run.pause_s, options.pause_scale, skip, say)
                    plan = options.plan(
                        f"{run_id}-{spec.name}-{repeat}",
                        playbook,
                        spec.name,
                        table_name,
                        repeat,
                        endpoint,
                    )
                    say(f"running {spec.name} #{repeat} with {options.workers} workers")
                    changer = emulator_changer(client, endpoint, table_name, skip)
                    run = run_one(
                        plan,
                        client,
                        results_table,
                        endpoint,
                        options,
                        say,
                        target.stop_check,
                        changer,
                    )
                    result.runs.append(to_full_scale(run, options.scale))
                    if run.partial and target.stop_check() is not None:
                        # The store cannot take new items: later runs would only be refused.
                        say("the emulator's memory bound stopped the run: later runs skipped")
                        return _finish(result, wall0)
        finally:
            result.left_behind = delete_tables(
                client, created, None if skip is not None else endpoint, say
            )
    return _finish(result, wall0)


def _finish(result: PlaybookResult, wall0: float) -> PlaybookResult:
    result.wall_s = time.perf_counter() - wall0
    return result


def delete_tables(
    client: Any, tables: list[str], endpoint: str | None, say: Notify
) -> list[Leftover]:
    """Delete every table; each one that could not be deleted is said at once (the run
    may be unwinding from an error) and returned with the command that removes it.
    `endpoint` None: the tables live in the in-process emulator, which is stopped next
    and takes them with it, so only the failure itself is reported. A Ctrl-C here stops
    the clean-up, after naming every table it leaves."""
    left: list[Leftover] = []
    for i, table in enumerate(tables):
        try:
            client.delete_table(TableName=table)
        except client.exceptions.ResourceNotFoundException:
            continue  # already gone: nothing is left
        except (Exception, KeyboardInterrupt) as exc:  # reported below, never swallowed
            error = f"{type(exc).__name__}: {exc}"
            rest = tables[i:] if isinstance(exc, KeyboardInterrupt) else [table]
            for name in rest:
                if endpoint is None:
                    say(
                        f"{CLEANUP_FAILED}could not delete table {name} ({error}); the "
                        "in-process emulator that holds it stops now and takes it with it"
                    )
                    continue
                leftover = Leftover(
                    "table",
                    name,
                    f"aws dynamodb delete-table --table-name {name} --endpoint-url {endpoint}",
                    error,
                )
                say(
                    f"{CLEANUP_FAILED}could not delete {leftover.resource} ({error}); "
                    f"remove it with: {leftover.delete_command}"
                )
                left.append(leftover)
            if isinstance(exc, KeyboardInterrupt):
                raise
    return left


def run_one(
    plan: RunPlan,
    client: Any,
    results_table: str,
    endpoint: str | None,
    options: LiveOptions,
    say: Notify,
    stop_check: StopCheck | None = None,
    changer: TableChanger | None = None,
) -> Any:
    """One table run on a fresh fleet (options.fleet_factory, default local processes);
    also the workflow's `run` step on tables it provisioned. `endpoint` None: the
    workers use the region's AWS endpoint (a Fargate fleet). `stop_check` (e.g. the
    emulator's memory bound) stops the run as partial when it gives a reason. A load
    with capacity changes runs in segments, `changer` (the target's) making each change
    between them (loadgen.live.segmented_run)."""
    if has_changes(plan.playbook):
        if changer is None:
            raise ValueError("this load changes the table's capacity: the run needs a changer")

        def segment(playbook: Playbook, number: int) -> Any:
            part = dataclasses.replace(plan, run_id=f"{plan.run_id}-s{number}", playbook=playbook)
            return run_one(part, client, results_table, endpoint, options, say, stop_check)

        return run_in_segments(
            plan.playbook, plan.table, plan.repeat, plan.table_name, segment, changer, say
        )
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
    return run_fleet(plan, store, fleet, env, options.fleet, say, stop_check)
