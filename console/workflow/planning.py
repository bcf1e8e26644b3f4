"""The plan: what a playbook's run creates and what it costs, before anything exists.

The cost is console.cost's: the record the run is expected to leave (console.cost.expected_usage,
AWS setup included for both targets) priced by the one function that also prices the
check and the tally, so the estimate accepted before `up` and the figure after `down`
can be compared line by line.
"""

from __future__ import annotations

from pathlib import Path

from console.cost.estimate import estimate_run
from console.cost.expected_usage import seeding_s, table_use
from console.cost.price import capacity_per_hour
from console.cost.prices import PriceTable, price_table
from console.cost.setup import IMAGE_S, AwsSetup, FleetShape
from console.run.models import (
    PlannedFleet,
    PlannedIndex,
    PlannedTable,
    PlanReport,
    SetupSpan,
)
from console.run.options import UpOptions
from console.run.settings import Settings
from console.run.tables import variants_in_runs
from console.targets import cloudwatch, target_named
from loadgen.analysis.scale_rule import scale_notes
from loadgen.format.playbook import Playbook, TableSpec
from loadgen.format.trim import load_trimmed


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


def fleet_of(options: UpOptions) -> FleetShape:
    return FleetShape(
        options.workers,
        options.task_cpu / 1024,
        options.task_memory / 1024,
        options.cpu_architecture,
    )


def seeded_as_run(playbook: Playbook, seed_items: int | None) -> Playbook:
    """The playbook with each table's seed_items as the run will seed it (at most
    `seed_items`, run's --seed-items): what the plan shows, times and prices."""
    if seed_items is None:
        return playbook
    tables = [
        t.model_copy(update={"seed_items": min(t.seed_items, seed_items)}) for t in playbook.tables
    ]
    return playbook.model_copy(update={"tables": tables})


def make_plan(
    playbook_path: str | Path,
    settings: Settings,
    options: UpOptions,
    run_id: str = "<run-id>",
    prices: PriceTable | None = None,
) -> PlanReport:
    """The plan of `playbook_path` on `settings.target`; its cost is what the run would
    be billed on AWS (`prices`, or the recorded table of the prices region, refused with
    a clear message when there is none)."""
    trimmed = load_trimmed(playbook_path, options.trim)
    playbook = seeded_as_run(trimmed.playbook, options.seed_items)
    target = target_named(settings)  # builds no client: it only names and scales
    prices = prices or price_table(settings.prices_region)
    specs = variants_in_runs(playbook)
    names = {s.name: target.table_name(run_id, s.name) for s in specs}
    tables = [planned_table(s, names[s.name], prices) for s in specs]
    fleet = fleet_of(options)
    # the image a run on this target gets; a target whose workers are no containers
    # (local) prices the build's span as before, not a builder this machine happens to have
    image = target.worker_image_plan(lambda _line: None)
    setup = AwsSetup(
        image_s=0.0 if image and image.kind == "given" else IMAGE_S,
        metrics_per_index_minute=len(cloudwatch.METRICS),
        image_builder=image.kind if image else "given",
        architecture=fleet.architecture,
    )
    est = estimate_run(playbook, specs, names, fleet, setup, prices)
    scale = target.run_scale(options)  # seeding's wait runs at it
    notes = ([trimmed.words()] if options.trim else []) + list(est.bill.notes)
    if any(t.billing_mode != "PROVISIONED" and t.gsis for t in specs):
        notes.append(
            "on-demand GSI writes: one index entry per put of a new item; a rewrite that "
            "moves an index key costs that index two (`hotbench check` simulates it)"
        )
    if image is not None:
        pinned = "" if image.kind == "given" else ", pinned by digest"
        notes.append(f"worker image: {image.label}{pinned}")
    notes.append(
        "setup: apply, image and destroy times are estimates; each fleet start is priced at "
        f"{setup.fleet_start_s:.0f} s (tasks are billed from their image pull)"
    )
    if not target.billed:
        notes.append(
            "local target: the emulator is free; these are the prices of the same run on "
            f"AWS at full scale ({prices.region}), AWS setup included"
        )
    return PlanReport(
        target=settings.target,
        region=settings.region,
        playbook_path=str(playbook_path),
        playbook_name=playbook.name,
        tables=tables,
        fleet=PlannedFleet(
            workers=fleet.workers,
            vcpu=fleet.vcpu,
            memory_gb=fleet.memory_gb,
            architecture=fleet.architecture,
            per_hour_usd=est.per_hour_while_running,
        ),
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
        warnings=[n.words for n in scale_notes(playbook, scale)],
    )
