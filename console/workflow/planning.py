"""The plan: what a playbook's run creates and what it costs, before anything exists.

The same arithmetic (console.workflow.costing) prices the plan and the tally, so the
estimate accepted before `up` and the figure after `down` can be compared line by line.
"""

from __future__ import annotations

from pathlib import Path

from console.infra.cost import provisioned_units
from console.infra.prices import HOURS_PER_MONTH, PriceTable, price_table
from console.workflow.costing import (
    BilledUsage,
    ProvisionedUse,
    TaskUse,
    price_usage,
    read_request_units,
    warm_excess,
    write_request_units,
)
from console.workflow.models import PlannedFleet, PlannedIndex, PlannedTable, PlanReport
from console.workflow.options import UpOptions
from console.workflow.settings import Settings
from loadgen.arrivals import Schedule
from loadgen.playbook import Playbook, TableSpec, load_playbook
from loadgen.seed import seed_rate

TASK_START_S = 60.0
"""Seconds a Fargate task is billed before the barrier opens (image pull, start):
an estimate; tally uses each task's real pull-start and stop times."""


def variants_in_runs(playbook: Playbook) -> list[TableSpec]:
    """The tables the load touches, in playbook order (only these are created)."""
    used = {r.table for r in playbook.runs()}
    return [t for t in playbook.tables if t.name in used]


def _raises_warm(spec: TableSpec) -> bool:
    on_demand = spec.billing_mode != "PROVISIONED"
    owners = [(spec.warm_throughput, spec.read_capacity, spec.write_capacity)] + [
        (g.warm_throughput, g.read_capacity, g.write_capacity) for g in spec.gsis
    ]
    return any(
        warm is not None and any(warm_excess(on_demand, warm.read, warm.write, rcu, wcu))
        for warm, rcu, wcu in owners
    )


def table_per_hour(spec: TableSpec, prices: PriceTable) -> float:
    if spec.billing_mode != "PROVISIONED":
        return 0.0
    rcu, wcu = provisioned_units(spec)
    return wcu * prices.provisioned_wcu_hour + rcu * prices.provisioned_rcu_hour


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
        per_hour_usd=table_per_hour(spec, prices),
    )


def fargate_per_hour(options: UpOptions, prices: PriceTable) -> float:
    arch = options.cpu_architecture
    vcpu, gb = options.task_cpu / 1024, options.task_memory / 1024
    return options.workers * (
        vcpu * prices.fargate_vcpu_hour.get(arch, 0.0) + gb * prices.fargate_gb_hour.get(arch, 0.0)
    )


def make_plan(
    playbook_path: str | Path,
    settings: Settings,
    options: UpOptions,
    run_id: str = "<run-id>",
    prices: PriceTable | None = None,
) -> PlanReport:
    from console.targets import target_named

    playbook = load_playbook(playbook_path)
    target = target_named(settings)
    notes: list[str] = []
    if prices is None:
        prices, fallback = price_table(settings.prices_region)
        if fallback:
            notes.append(fallback)
    specs = variants_in_runs(playbook)
    tables = [planned_table(s, target.table_name(run_id, s.name), prices) for s in specs]
    load_s = pauses_s = 0.0
    usage = BilledUsage()
    vcpu, gb = options.task_cpu / 1024, options.task_memory / 1024
    for run in playbook.runs():
        spec = playbook.table(run.table)
        run_s = sum(p.duration_s for p in playbook.load.phases)
        load_s += run_s * run.repeats
        pauses_s += run.pause_s * (run.repeats - 1)
        usage.tasks += [
            TaskUse(
                f"{run.table}#{repeat} worker {w}",
                vcpu,
                gb,
                run_s + TASK_START_S,
                options.cpu_architecture,
            )
            for repeat in range(1, run.repeats + 1)
            for w in range(options.workers)
        ]
        if spec.billing_mode == "PROVISIONED":
            continue
        for phase in playbook.load.phases:
            requests = Schedule.for_phase(phase, 1.0).total * run.repeats
            if phase.operation in ("put", "update"):
                # each GSI write is billed like a table write (upper bound: every item
                # projects into every index)
                usage.write_request_units += write_request_units(requests, spec.item_size_bytes) * (
                    1 + len(spec.gsis)
                )
            else:
                usage.read_request_units += read_request_units(
                    requests, spec.item_size_bytes, phase.consistent_read
                )
    setup_s = target.setup_s
    up_hours = (load_s + pauses_s + setup_s) / 3600
    scale = target.run_scale(options)  # the scale the run will be recorded at
    seed_s = sum(s.seed_items / seed_rate(playbook, s, scale) for s in specs if s.seed_items)
    usage.provisioned = []
    for spec, table in zip(specs, tables, strict=True):
        if spec.billing_mode == "PROVISIONED":
            read, write = provisioned_units(spec)
            usage.provisioned.append(ProvisionedUse(table.name, write, read, up_hours))
    usage.dashboard_hours = up_hours
    usage.contributor_insights_rule_hours = sum(
        (2 if t.sort_key is None else 4) * up_hours for t in specs if t.contributor_insights
    )
    if any(_raises_warm(t) for t in specs):
        notes.append(
            "warm throughput above the defaults is billed once per raise; its price is "
            "not recorded (not in the estimate)"
        )
    if any(t.billing_mode != "PROVISIONED" and t.gsis for t in specs):
        notes.append("on-demand GSI writes priced as if every item projects into every GSI")
    if any(t.seed_items for t in specs):
        notes.append("seeding writes are not in the estimate")
    if not target.billed:
        notes.append(
            "local target: the emulator is free; these are the prices of the same run on "
            f"AWS at full scale ({settings.prices_region})"
        )
    lines, price_notes = price_usage(usage, prices)
    per_hour_up = sum(t.per_hour_usd for t in tables) + (
        (prices.dashboard_month or 0) / HOURS_PER_MONTH
    )
    return PlanReport(
        target=target.name,
        region=settings.region,
        playbook_path=str(playbook_path),
        playbook_name=playbook.name,
        tables=tables,
        fleet=PlannedFleet(
            workers=options.workers,
            vcpu=vcpu,
            memory_gb=gb,
            architecture=options.cpu_architecture,
            per_hour_usd=fargate_per_hour(options, prices),
        ),
        load_s=load_s,
        pauses_s=pauses_s,
        setup_s=setup_s,
        seed_s=seed_s,
        per_hour_while_up=per_hour_up,
        per_hour_while_running=fargate_per_hour(options, prices),
        lines=lines,
        estimated_cost_usd=sum(line.usd for line in lines),
        prices_region=prices.region,
        prices_as_of=prices.as_of,
        prices_source=prices.source,
        hypothetical=not target.billed,
        notes=notes + price_notes,
    )
