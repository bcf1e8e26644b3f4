"""The record of a simulated or live run, from its results: what `check` prices."""

from __future__ import annotations

from collections.abc import Callable

from console.cost import rules
from console.cost.capacity_moves import moves_from_series
from console.cost.expected_usage import table_use
from console.cost.price import price
from console.cost.prices import PriceTable, price_table
from console.cost.record import CapacityMove, RequestUnits, Span, UsageRecord
from console.cost.setup import FARGATE_START_S, WorkerCost
from loadgen.format.playbook import Playbook, TableSpec
from loadgen.results.records import PlaybookResult, RunResult


def run_units(name: str, run: RunResult) -> list[RequestUnits]:
    """Request units one run consumed: the table's, and each GSI's by the charging rule's
    per-index counts (a throttled request consumes nothing)."""
    totals = run.totals()
    table_writes, per_index = rules.billed_write_units(totals)
    return [RequestUnits(name, None, table_writes, totals.consumed_rcu)] + [
        RequestUnits(name, index, units) for index, units in sorted(per_index.items())
    ]


CapacityOf = Callable[[RunResult], tuple[CapacityMove, ...]]
"""How a run's provisioned capacity moved, on the run's clock (console.cost.capacity_moves
reads it from a capacity series)."""


def record_of_run(
    spec: TableSpec, run: RunResult, moves: tuple[CapacityMove, ...] = ()
) -> UsageRecord:
    """One run alone: the table standing for the run's seconds (its capacity moving by
    `moves`) and what it consumed."""
    table = table_use(spec, spec.name, (Span(spec.name, run.duration_s),), moves)
    return UsageRecord(tables=[table], requests=run_units(spec.name, run))


def record_of_result(
    playbook: Playbook, result: PlaybookResult, fleet: WorkerCost | None = None
) -> UsageRecord:
    """Every run of `result`: each table standing through its runs and the pauses between
    its repeats, what they consumed, and (given a fleet) the workers as that fleet bills
    them, launched its start time before each run."""
    record = UsageRecord()
    stood: dict[str, float] = {}
    moves: dict[str, list[CapacityMove]] = {}
    t = 0.0
    for run in result.runs:
        spec = playbook.table(run.table)
        pause = next((r.pause_s for r in playbook.runs() if r.table == run.table), 0.0)
        if run.capacity:  # auto scaling moved it: its steps on the table's clock
            moves.setdefault(spec.name, []).extend(
                moves_from_series(run.capacity, stood.get(spec.name, 0.0))
            )
        stood[spec.name] = stood.get(spec.name, 0.0) + run.duration_s
        stood[spec.name] += pause if run.repeat > 1 else 0.0
        record.requests += run_units(spec.name, run)
        if fleet is not None:
            record.add_workers(fleet.table_run(f"{spec.name}#{run.repeat}", t, run.duration_s))
        t += (fleet.start_s if fleet is not None else FARGATE_START_S) + run.duration_s
    record.tables = [
        table_use(s, s.name, (Span(s.name, stood[s.name]),), tuple(moves.get(s.name, ())))
        for s in playbook.tables
        if s.name in stood
    ]
    return record


def run_cost_in(region: str) -> Callable[[TableSpec, RunResult], float]:
    """`run_cost_at` with `region`'s recorded prices, looked up when a cost criterion is
    first priced (a check without one never needs prices)."""

    def run_cost(spec: TableSpec, run: RunResult) -> float:
        return run_cost_at(price_table(region))(spec, run)

    return run_cost


def run_cost_at(
    prices: PriceTable, capacity_of: CapacityOf | None = None
) -> Callable[[TableSpec, RunResult], float]:
    """The `cost_usd` criterion's pricing (loadgen.analysis.criteria.evaluate): what one run would
    cost on AWS at `prices`, kept to what the run itself decides so variants compare
    fairly: the table standing for the run's seconds (provisioned capacity, Contributor
    Insights rules) and the request units it consumed, GSIs included; `capacity_of`: how
    the run's provisioned capacity moved (auto scaling), priced step by step (default:
    the run's own `capacity`, what the simulation recorded). Not
    included: the setup around it and the fleet (docs/checks.md#cost)."""

    def run_cost(spec: TableSpec, run: RunResult) -> float:
        moves = (
            capacity_of(run) if capacity_of is not None else moves_from_series(run.capacity or {})
        )
        return price(record_of_run(spec, run, moves), prices).total_usd

    return run_cost
