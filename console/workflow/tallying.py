"""The tally: a run's recorded usage turned into cost lines (costing.py does the
arithmetic). Everything comes from the state: when each table was created and deleted,
its capacity, what the on-demand tables consumed, each task's billed span."""

from __future__ import annotations

from datetime import datetime

from console.infra.prices import PriceTable, price_table
from console.targets import Target, target_for
from console.workflow.costing import (
    BilledUsage,
    ProvisionedUse,
    WarmRaise,
    price_usage,
    warm_excess,
)
from console.workflow.models import CostTally
from console.workflow.run_state import RunState, TableState, utc_now
from console.workflow.settings import Settings


def _hours(start: datetime | None, end: datetime | None, now: datetime) -> float:
    if start is None:
        return 0.0
    return max(0.0, ((end or now) - start).total_seconds() / 3600)


def _warm_raises(table: TableState) -> list[WarmRaise]:
    on_demand = table.billing_mode == "PAY_PER_REQUEST"
    owners = [
        (table.name, table.warm_read, table.warm_write, table.read_capacity, table.write_capacity)
    ] + [
        (f"{table.name}/{g.name}", g.warm_read, g.warm_write, g.read_capacity, g.write_capacity)
        for g in table.gsis
    ]
    out = []
    for name, warm_read, warm_write, rcu, wcu in owners:
        extra_read, extra_write = warm_excess(on_demand, warm_read, warm_write, rcu, wcu)
        if extra_read or extra_write:
            out.append(WarmRaise(name, extra_read, extra_write))
    return out


def usage_from_state(state: RunState, target: Target, now: datetime | None = None) -> BilledUsage:
    """The run's usage from its state; the workers' billed spans are the target's to say
    (Fargate tasks from pull start to stop, or local processes priced as tasks)."""
    now = now or utc_now()
    usage = BilledUsage(
        write_request_units=state.usage.write_request_units,
        read_request_units=state.usage.read_request_units,
        get_metric_data_metrics=state.usage.get_metric_data_metrics,
        contributor_insights_events=state.usage.contributor_insights_events,
    )
    up_since = min((t.created_at for t in state.tables.values() if t.created_at), default=None)
    up_until = None
    if state.tables and all(t.deleted_at for t in state.tables.values()):
        up_until = max(t.deleted_at for t in state.tables.values() if t.deleted_at)
    for table in state.tables.values():
        hours = _hours(table.created_at, table.deleted_at, now)
        if table.billing_mode == "PROVISIONED":
            usage.provisioned.append(
                ProvisionedUse(
                    table.name,
                    float(table.write_capacity or 0),
                    float(table.read_capacity or 0),
                    hours,
                )
            )
            usage.provisioned += [
                ProvisionedUse(
                    f"{table.name}/{g.name}",
                    float(g.write_capacity or 0),
                    float(g.read_capacity or 0),
                    hours,
                )
                for g in table.gsis
            ]
        if table.contributor_insights:
            # one rule per table or GSI for throttled keys, two with a sort key: priced as 2
            usage.contributor_insights_rule_hours += 2 * hours * (1 + len(table.gsis))
        usage.warm_raises += _warm_raises(table)
    usage.dashboard_hours = _hours(up_since, up_until, now)
    usage.tasks = target.task_usage(state, now)
    return usage


def tally_state(
    state: RunState,
    settings: Settings,
    prices: PriceTable | None = None,
    now: datetime | None = None,
) -> CostTally:
    notes: list[str] = []
    target = target_for(state, settings)
    if prices is None:
        prices, fallback = price_table(settings.price_region or state.region)
        if fallback:
            notes.append(fallback)
    lines, price_notes = price_usage(usage_from_state(state, target, now), prices)
    if not target.billed:
        notes.append(
            "local target: nothing was billed; this is what the same run would have cost "
            "on AWS (on-demand units at full scale; workers as 1 vCPU / 2 GB Fargate tasks)"
        )
    if state.billable_up:
        notes.append("the run is still up: the total grows until `hotbench down`")
    return CostTally(
        run_id=state.run_id,
        target=state.target,
        lines=lines,
        total_usd=sum(line.usd for line in lines),
        prices_region=prices.region,
        prices_as_of=prices.as_of,
        prices_source=prices.source,
        hypothetical=not target.billed,
        notes=notes + price_notes,
    )
