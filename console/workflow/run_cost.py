"""The record of what a run used, from its state: what the tally prices.

Everything comes from the state: when each table was created and deleted, its capacity,
the request units each table and GSI consumed (recorded here as each table run and each
seeding ends), and the workers as the run's fleet records them (each task's pull start
and stop, each invocation's billed duration).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime

from console.cost import rules
from console.cost.expected_usage import seed_units
from console.cost.measured_usage import run_units
from console.cost.price import price
from console.cost.prices import PriceTable, price_table
from console.cost.record import (
    CapacityMove,
    ImageUse,
    IndexUse,
    RequestUnits,
    Span,
    TableUse,
    UsageRecord,
)
from console.run.models import CostTally
from console.run.state import RunState, UnitsUsed, Usage, seconds_between, utc_now
from console.targets import target_class
from loadgen.format.playbook import Playbook, TableSpec
from loadgen.results.records import RunResult


def _add_units(usage: Usage, units: list[RequestUnits]) -> None:
    usage.units += [
        UnitsUsed(
            table=u.table,
            index=u.index,
            label=u.label,
            write_units=u.write_units,
            read_units=u.read_units,
        )
        for u in units
    ]


def record_run_units(usage: Usage, table_name: str, run: RunResult) -> None:
    """Add a finished table run's request units (table and each GSI) to the state."""
    _add_units(usage, run_units(table_name, run))


def record_seed_units(
    usage: Usage, playbook: Playbook, spec: TableSpec, table_name: str, items: int
) -> None:
    """Add the write units of `items` seeded items (table and each GSI) to the state.
    Seeding's BatchWriteItem does not ask for ConsumedCapacity, so the charging rule
    says what they cost (each is a new item: one entry in every GSI), as the plan
    expected them."""
    _add_units(usage, seed_units(playbook, spec, table_name, items))


BILLED_FIELDS = {f.name for f in dataclasses.fields(TableUse)} - {"spans"}
"""The fields of a TableState the record holds (TableUse's, which bringup.table_state
fills from the spec)."""


def record_of_state(state: RunState, now: datetime | None = None) -> UsageRecord:
    """What the run has used so far (everything still up counts until `now`)."""
    now = now or utc_now()
    origin = state.created_at
    record = UsageRecord(
        get_metric_data_metrics=state.usage.get_metric_data_metrics,
        contributor_insights_events=state.usage.contributor_insights_events,
    )
    for t in state.tables.values():
        billed = t.model_dump(include=BILLED_FIELDS)
        billed["gsis"] = tuple(IndexUse(**g) for g in billed["gsis"])
        billed["moves"] = tuple(CapacityMove(**m) for m in billed["moves"])
        # by its variant: the tally's title names the run, and `<run-id>-goodGsi` went
        # on over two lines of an 80-column tally
        spans = (Span(t.variant, seconds_between(t.created_at, t.deleted_at, now)),)
        record.tables.append(TableUse(spans=spans, **billed))
    record.requests = [
        RequestUnits(u.table, u.index, u.write_units, u.read_units, u.label)
        for u in state.usage.units
    ]
    if not state.usage.units and (
        state.usage.write_request_units or state.usage.read_request_units
    ):
        # a state file from before units were kept by table: its totals, on the first
        # on-demand table (they were only counted for on-demand tables)
        first = next((t.name for t in state.tables.values() if t.billing_mode != "PROVISIONED"), "")
        record.requests.append(
            RequestUnits(
                first, None, state.usage.write_request_units, state.usage.read_request_units
            )
        )
    created = [t.created_at for t in state.tables.values() if t.created_at]
    if created:  # locally: the dashboard the same run would have on AWS
        deleted = [t.deleted_at for t in state.tables.values()]
        end = None if any(d is None for d in deleted) else max(d for d in deleted if d)
        record.dashboard_s = seconds_between(min(created), end, now)
    # the run's fleet says what its workers used (locally: what they would have used on
    # the AWS fleet the run is priced as)
    fleet = target_class(state.target).fleet_kind(state.fleet)
    record.add_workers(fleet.used(state, origin, now))
    record.image = _image(state, now)
    return record


def _image(state: RunState, now: datetime) -> ImageUse | None:
    """The run's image as built: CodeBuild's minutes from the build's own start and end,
    ECR storage from the push to the destroy (the repository goes with the stack), the
    source archive from its upload to the destroy. A given image: stored elsewhere."""
    image = state.image
    if image is None or image.builder == "given":
        return None
    gone = state.terraform.destroyed_at if state.terraform else None
    build_s = seconds_between(image.build_started_at, image.build_finished_at, now)
    return ImageUse(
        build_minutes=rules.codebuild_billed_minutes(build_s) if image.build_id else 0.0,
        architecture=str(
            (state.terraform.variables if state.terraform else {}).get("cpu_architecture")
            or "X86_64"
        ),
        image_gb=(image.size_bytes or 0) / 1e9,
        stored_s=seconds_between(image.pushed_at, gone, now),
        source_gb=(image.source_bytes or 0) / 1e9,
        source_stored_s=seconds_between(image.source_uploaded_at, gone, now),
        source_puts=1 if image.source_uploaded_at else 0,
        source_gets=1 if image.build_id else 0,
    )


def tally_state(
    state: RunState,
    prices_region: str | None = None,
    prices: PriceTable | None = None,
    now: datetime | None = None,
) -> CostTally:
    """The tally of `state`: its record priced at `prices` (default: the recorded table of
    `prices_region`, else the run's region; refused when none is recorded)."""
    prices = prices or price_table(prices_region or state.region)
    bill = price(record_of_state(state, now), prices)
    notes = list(bill.notes)
    hypothetical = not target_class(state.target).billed
    if hypothetical:
        fleet = target_class(state.target).fleet_kind(state.fleet)
        notes.append(
            "local target: nothing was billed; this is what the same run would have cost "
            f"on AWS (request units at full scale; workers as {fleet.worker_kind}, "
            f"{fleet.start_note().removeprefix('each fleet start is priced at ')})"
        )
    if state.billable_up:
        notes.append("the run is still up: the total grows until `hotbench down`")
    return CostTally(
        run_id=state.run_id,
        target=state.target,
        lines=bill.lines,
        total_usd=bill.total_usd,
        prices_region=prices.region,
        prices_as_of=prices.as_of,
        prices_source=prices.source,
        hypothetical=hypothetical,
        notes=notes,
    )
