"""The record a plan expects: what a playbook's run on AWS would use, before it exists.

Used for `--target aws` and for a local plan's "would cost on AWS" line alike: both
price the AWS setup (console.cost.setup) around the load, because that is what the same
run would be billed on AWS.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from console.cost import rules
from console.cost.capacity_moves import moves_from_records
from console.cost.record import (
    CapacityMove,
    ImageUse,
    IndexUse,
    RequestUnits,
    Span,
    TableUse,
    UsageRecord,
)
from console.cost.setup import IMAGE_GB, SOURCE_GB, AwsSetup, WorkerCost
from loadgen.format.playbook import Distribution, Playbook, TableSpec

if TYPE_CHECKING:
    from loadgen.results.records import PlaybookResult


@dataclass(frozen=True)
class ExpectedUse:
    """The expected record and the timeline its tables stand through."""

    record: UsageRecord
    spans: tuple[Span, ...]
    load_s: float
    pauses_s: float

    @property
    def setup_s(self) -> float:
        """Everything but load and pauses: apply, image, seeding, fleet starts, destroy."""
        return sum(s.seconds for s in self.spans) - self.load_s - self.pauses_s


def table_use(
    spec: TableSpec, name: str, spans: tuple[Span, ...], moves: tuple[CapacityMove, ...] = ()
) -> TableUse:
    """A table of the playbook as the record holds it (capacity, keys, warm throughput;
    `moves`: how its provisioned capacity moved, console.cost.capacity_moves)."""
    return TableUse(
        name=name,
        billing_mode=spec.billing_mode,
        has_sort_key=spec.sort_key is not None,
        spans=spans,
        moves=moves,
        read_capacity=spec.read_capacity,
        write_capacity=spec.write_capacity,
        warm_read=spec.warm_throughput.read if spec.warm_throughput else None,
        warm_write=spec.warm_throughput.write if spec.warm_throughput else None,
        contributor_insights=spec.contributor_insights is not None,
        table_class=spec.table_class,
        reserved_write=spec.reserved_capacity.write if spec.reserved_capacity else 0,
        reserved_read=spec.reserved_capacity.read if spec.reserved_capacity else 0,
        reserved_term_years=spec.reserved_capacity.term_years if spec.reserved_capacity else 1,
        gsis=tuple(
            IndexUse(
                name=g.name,
                has_sort_key=g.sort_key is not None,
                read_capacity=g.read_capacity,
                write_capacity=g.write_capacity,
                warm_read=g.warm_throughput.read if g.warm_throughput else None,
                warm_write=g.warm_throughput.write if g.warm_throughput else None,
            )
            for g in spec.gsis
        ),
    )


def predicted_moves(
    playbook: Playbook, spec: TableSpec, load_at_s: float
) -> tuple[CapacityMove, ...]:
    """How a variant with auto scaling is expected to move, from the model's own policy
    run on one pass of the load (loadgen.analysis.scaling_lag.run_policy, what `advise`
    reports), placed at the table's first load; after it the capacity is taken to stay
    where the pass left it. Empty for a fixed-capacity variant (no model is run)."""
    if not spec.auto_scaling_specs():
        return ()
    from emulator.params import DEFAULT_PARAMS
    from loadgen.analysis.scaling_lag import run_policy

    run = run_policy(playbook, spec, DEFAULT_PARAMS)
    return () if run is None else moves_from_records(run.records, load_at_s)


def put_units(
    spec: TableSpec,
    attributes: dict[str, Distribution],
    name: str,
    puts: float,
    label: str,
) -> list[RequestUnits]:
    """The table's and every GSI's write units of `puts` new items drawn from `attributes`
    (rules.expected_put_units)."""
    plan = rules.write_plan(spec, attributes, False, True)
    table, per_index = rules.expected_put_units(plan, puts)
    return [RequestUnits(name, None, write_units=table, label=label)] + [
        RequestUnits(name, index, write_units=units, label=label)
        for index, units in per_index.items()
    ]


def simulated_units(
    simulated: PlaybookResult, variant: str, index: int, name: str
) -> list[RequestUnits]:
    """The units phase `index` consumed on `variant` in every simulated run of it (its
    repeats included): table writes and reads, and each GSI's writes."""
    write = read = 0.0
    by_index: dict[str, float] = {}
    for run in simulated.runs:
        if run.table != variant or index >= len(run.phases):
            continue
        counts = run.phases[index].counts
        write += counts.consumed_wcu
        read += counts.consumed_rcu
        for gsi, units in counts.consumed_wcu_by_index.items():
            by_index[gsi] = by_index.get(gsi, 0.0) + units
    return [RequestUnits(name, None, write_units=write, read_units=read, label="load")] + [
        RequestUnits(name, gsi, write_units=units, label="load") for gsi, units in by_index.items()
    ]


def seed_units(playbook: Playbook, spec: TableSpec, name: str, items: float) -> list[RequestUnits]:
    """The write units of seeding `items` items into the table (and each GSI): new items
    drawn from the load's attributes with the seed's own on top. The plan expects them;
    the tally records them once seeding ended (BatchWriteItem reports no consumption)."""
    seed = {**playbook.load.attributes, **playbook.load.seed_attributes}
    return put_units(spec, seed, name, items, "seeding")


def seeding_s(
    playbook: Playbook, spec: TableSpec, scale: float = 1.0, skips: bool = False
) -> float:
    """Seconds seeding takes at the rate the seeder really paces itself (loadgen.load.seed;
    at full scale on AWS); `skips`: the target keeps that pace on a skipped clock, so
    the wait is only as long as the emulator takes to write the items."""
    if not spec.seed_items:
        return 0.0
    # Here, not at the top: loadgen.load.seed imports numpy (0.3 s of CPU), and bringup
    # imports this module for table_use in every process that may take a run down.
    from loadgen.load.seed import seed_rate, seeding_wall_s

    return seeding_wall_s(spec.seed_items, seed_rate(playbook, spec, scale), skips)


def expected_image(setup: AwsSetup, run_s: float) -> ImageUse | None:
    """The image the run builds: stored from its push (after apply and the build) to the
    end of destroy; an in-account build also bills its minutes and the archive."""
    if setup.image_builder == "given":
        return None
    stored_s = max(0.0, run_s - setup.apply_s - setup.image_s)
    if setup.image_builder == "local":
        return ImageUse(architecture=setup.architecture, image_gb=IMAGE_GB, stored_s=stored_s)
    return ImageUse(
        build_minutes=rules.codebuild_billed_minutes(setup.image_s),
        architecture=setup.architecture,
        image_gb=IMAGE_GB,
        stored_s=stored_s,
        source_gb=SOURCE_GB,
        source_stored_s=max(0.0, run_s - setup.apply_s),
        source_puts=1,
        source_gets=1,
    )


def expected_use(
    playbook: Playbook,
    specs: list[TableSpec],
    names: Mapping[str, str],
    fleet: WorkerCost,
    setup: AwsSetup,
) -> ExpectedUse:
    """The run of `playbook` on AWS, second by second as the workflow runs it: apply (and
    the worker image), then per table run: seeding (first run of a seeded table), the
    fleet's start, the load, the pause before a repeat; then destroy. Every table stands
    from apply to destroy; the workers as their fleet is billed (`fleet`: Fargate tasks
    from their pull start to the load's end, Lambda invocations per window)."""
    record = UsageRecord()
    t = setup.apply_s + setup.image_s
    seed_s = starts_s = load_s = pauses_s = 0.0
    seeded: set[str] = set()
    run_s = sum(p.duration_s for p in playbook.load.phases)
    simulated: PlaybookResult | None = None
    first_load: dict[str, float] = {}
    """When each table's first load starts, on the tables' clock (from apply)."""
    for run in playbook.runs():
        spec = playbook.table(run.table)
        name = names[spec.name]
        if spec.name not in seeded:
            seeded.add(spec.name)
            seconds = seeding_s(playbook, spec)
            seed_s += seconds
            t += seconds
            if spec.seed_items:
                record.requests += seed_units(playbook, spec, name, spec.seed_items)
        first_load.setdefault(spec.name, t + fleet.start_s)
        for repeat in range(1, run.repeats + 1):
            record.add_workers(fleet.table_run(f"{spec.name}#{repeat}", t, run_s))
            t += fleet.start_s + run_s
            starts_s += fleet.start_s
            load_s += run_s
            if repeat < run.repeats:
                t += run.pause_s
                pauses_s += run.pause_s
        for index, phase in enumerate(playbook.load.phases):
            expected = phase.kind.expected_requests(phase.duration_s)
            if expected is None:
                # users, a mix or a scenario schedule no requests: what they consume is
                # what the one model says they do (the closed-loop simulation), once
                # imported here: the simulation (the capacity model under its clock) is
                # ~0.4 s of imports every `hotbench` process would pay, the reaper's too,
                # for a plan that only a closed-loop playbook needs
                from loadgen.runners import SimulatedRunner

                simulated = simulated or SimulatedRunner().run(playbook)
                record.requests += simulated_units(simulated, spec.name, index, name)
                continue
            requests = expected * run.repeats
            attributes = {**playbook.load.attributes, **phase.attributes}
            if phase.operation in ("put", "update"):
                record.requests += put_units(spec, attributes, name, requests, "load")
            else:
                plan = rules.write_plan(spec, attributes, phase.consistent_read, False)
                reads = rules.expected_read_units(plan, requests)
                record.requests.append(RequestUnits(name, None, read_units=reads, label="load"))
    named = [
        ("apply (est.)", setup.apply_s),
        ("image (est.)", setup.image_s),
        ("seeding", seed_s),
        ("fleet starts", starts_s),
        ("load", load_s),
        ("pauses", pauses_s),
        ("destroy (est.)", setup.destroy_s),
    ]
    spans = tuple(Span(label, s) for label, s in named if s > 0)
    record.image = expected_image(setup, sum(s.seconds for s in spans))
    record.tables = [
        table_use(
            s, names[s.name], spans, predicted_moves(playbook, s, first_load.get(s.name, 0.0))
        )
        for s in specs
    ]
    record.dashboard_s = sum(s.seconds for s in spans)
    # the backstop deletes each table, the results table and the dashboard, and stops
    # each task (an invocation ends by itself): priced as if it acted
    # (terraform/modules/backstop)
    record.backstop_invocations = len(specs) + 2 + len(record.tasks)
    if setup.metrics_per_index_minute:
        indexes = sum(1 + len(s.gsis) for s in specs)
        minutes = math.ceil((starts_s + load_s + pauses_s) / 60)
        record.get_metric_data_metrics = setup.metrics_per_index_minute * indexes * minutes
    return ExpectedUse(record, spans, load_s, pauses_s)
