"""The plan: what a playbook's run creates and what it costs, before anything exists.

The cost is console.cost's: the record the run is expected to leave (console.cost.expected_usage,
AWS setup included for both targets) priced by the one function that also prices the
check and the tally, so the estimate accepted before `up` and the figure after `down`
can be compared line by line.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from console.cost.estimate import Estimate, estimate_run
from console.cost.expected_usage import seeding_s, table_use
from console.cost.price import capacity_per_hour, price
from console.cost.prices import PriceTable, price_table
from console.cost.record import UsageRecord
from console.cost.setup import IMAGE_S, AwsSetup
from console.run.models import (
    FleetCost,
    PlannedIndex,
    PlannedTable,
    PlanReport,
    SetupSpan,
)
from console.run.options import UpOptions
from console.run.settings import FleetName, Settings
from console.run.tables import variants_in_runs
from console.targets import Target, cloudwatch, target_named
from console.targets.fleets import AWS_FLEETS, chosen_fleet, fleet_named, planned_fleet
from loadgen.format.playbook import Playbook, TableSpec, load_playbook

if TYPE_CHECKING:
    from console.targets.worker_image import ImagePlan


def planned_table(spec: TableSpec, name: str, prices: PriceTable) -> PlannedTable:
    def pair(t: object, attr: str) -> int | None:
        return getattr(t, attr) if t is not None else None

    return PlannedTable(
        variant=spec.name,
        name=name,
        billing_mode=spec.billing_mode,
        read_capacity=spec.read_capacity,
        write_capacity=spec.write_capacity,
        warm_read=pair(spec.warm_throughput, "read"),
        warm_write=pair(spec.warm_throughput, "write"),
        on_demand_max_read=pair(spec.on_demand_max, "read"),
        on_demand_max_write=pair(spec.on_demand_max, "write"),
        contributor_insights=spec.contributor_insights,
        auto_scaling=bool(spec.auto_scaling_specs()),
        gsis=[
            PlannedIndex(
                name=g.name,
                read_capacity=g.read_capacity,
                write_capacity=g.write_capacity,
                warm_read=pair(g.warm_throughput, "read"),
                warm_write=pair(g.warm_throughput, "write"),
                on_demand_max_read=pair(g.on_demand_max, "read"),
                on_demand_max_write=pair(g.on_demand_max, "write"),
            )
            for g in spec.gsis
        ],
        seed_items=spec.seed_items,
        per_hour_usd=capacity_per_hour(table_use(spec, name, ()), prices),
    )


def make_plan(
    playbook_path: str | Path,
    settings: Settings,
    options: UpOptions,
    run_id: str = "<run-id>",
    prices: PriceTable | None = None,
) -> PlanReport:
    """The plan of `playbook_path` on `settings.target` with the run's fleet
    (console.targets.fleets.chosen_fleet); its cost is what the run would be billed on
    AWS (`prices`, or the recorded table of the prices region, refused with a clear
    message when there is none), beside what each other AWS fleet would cost."""
    playbook = load_playbook(playbook_path)
    target = target_named(settings)  # builds no client: it only names and scales
    prices = prices or price_table(settings.prices_region)
    specs = variants_in_runs(playbook)
    names = {s.name: target.table_name(run_id, s.name) for s in specs}
    tables = [planned_table(s, names[s.name], prices) for s in specs]
    chosen = chosen_fleet(settings, playbook)
    kind = target.fleet_kind(chosen)
    kind.check_options(options, playbook)
    estimates = {
        name: _estimate(playbook, specs, names, target, name, settings, options, prices)
        for name in (chosen, *(f for f in AWS_FLEETS if f != chosen))
    }
    est, image, _setup, _start = estimates[chosen]
    scale = target.run_scale(options)  # seeding's wait runs at it
    notes = list(est.bill.notes)
    if any(t.billing_mode != "PROVISIONED" and t.gsis for t in specs):
        notes.append(
            "on-demand GSI writes: one index entry per put of a new item; a rewrite that "
            "moves an index key costs that index two (`hotbench check` simulates it)"
        )
    if image is not None:
        pinned = "" if image.kind == "given" else ", pinned by digest"
        notes.append(f"worker image: {image.label}{pinned}")
    notes.append(f"setup: apply, image and destroy times are estimates; {kind.start_note()}")
    if not target.billed:
        notes.append(
            "local target: the emulator is free; these are the prices of the same run on "
            f"AWS at full scale ({prices.region}), AWS setup included"
        )
    sizing = kind.sizing(options, playbook)
    return PlanReport(
        target=settings.target,
        region=settings.region,
        playbook_path=str(playbook_path),
        playbook_name=playbook.name,
        tables=tables,
        fleet=planned_fleet(kind, sizing, est.per_hour_while_running),
        fleets=[
            _fleet_cost(name, name == chosen, estimate, fleet_setup, start_s, prices)
            for name, (estimate, _image, fleet_setup, start_s) in estimates.items()
        ],
        load_s=est.expected.load_s,
        pauses_s=est.expected.pauses_s,
        setup_s=est.expected.setup_s,
        seed_s=sum(seeding_s(playbook, s, scale, target.skips_pauses) for s in specs),
        setup=[SetupSpan(label=s.label, seconds=s.seconds) for s in est.expected.spans],
        per_hour_while_up=est.per_hour_while_up,
        per_hour_while_running=est.per_hour_while_running,
        lines=est.bill.lines,
        estimated_cost_usd=est.total_usd,
        prices_region=prices.region,
        prices_as_of=prices.as_of,
        prices_source=prices.source,
        hypothetical=not target.billed,
        notes=notes,
    )


def _estimate(
    playbook: Playbook,
    specs: list[TableSpec],
    names: dict[str, str],
    target: Target,
    fleet: FleetName,
    settings: Settings,
    options: UpOptions,
    prices: PriceTable,
) -> tuple[Estimate, ImagePlan | None, AwsSetup, float]:
    """The run on `target` with `fleet`: its estimate, the image path it takes (None: no
    image), its setup. A target whose workers are no containers (local) prices an image
    fleet's build span as before, not a builder this machine happens to have."""
    kind = target.fleet_kind(fleet)
    image = target.worker_image_plan(fleet, lambda _line: None)
    if not kind.needs_image:  # no container image: no build, nothing stored
        setup = AwsSetup(
            image_s=0.0,
            metrics_per_index_minute=len(cloudwatch.METRICS),
            image_builder="given",
            architecture=options.cpu_architecture,
        )
    else:
        setup = AwsSetup(
            image_s=0.0 if image and image.kind == "given" else IMAGE_S,
            metrics_per_index_minute=len(cloudwatch.METRICS),
            image_builder=image.kind if image else "given",
            architecture=options.cpu_architecture,
        )
    cost = kind.cost(options, playbook)
    return estimate_run(playbook, specs, names, cost, setup, prices), image, setup, cost.start_s


def _fleet_cost(
    name: FleetName,
    chosen: bool,
    est: Estimate,
    setup: AwsSetup,
    start_s: float,
    prices: PriceTable,
) -> FleetCost:
    """One fleet's line of the plan's comparison: its total and what makes it differ
    (how long the tables stand with it, what its workers are billed)."""
    record = est.expected.record
    workers = price(
        UsageRecord(tasks=record.tasks, invocations=record.invocations),
        prices,
    ).total_usd
    kind = fleet_named(name)
    return FleetCost(
        name=name,
        worker_kind=kind.worker_kind,
        total_usd=est.total_usd,
        chosen=chosen,
        stand_s=sum(s.seconds for s in est.expected.spans),
        workers_usd=workers,
        start_s=start_s,
        image_s=setup.image_s,
    )
