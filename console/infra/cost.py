"""Hourly cost of what a plan leaves standing, from the planned resources themselves.

The question a platform team asks before ``apply`` is "what does this cost per hour while
it is up?". Provisioned capacity is billed whether used or not, so it dominates; Fargate
is billed only while the console's worker tasks run; on-demand tables cost per request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from console.infra import prices
from emulator.params import DEFAULT_PARAMS
from emulator.units import write_units
from loadgen.playbook import TableSpec
from loadgen.results import RunResult
from loadgen.simulate import KEYS_ONLY_BYTES

WHILE_UP = "while up"
WHILE_RUNNING = "while workers run"


@dataclass(frozen=True)
class CostLine:
    """One priced resource."""

    address: str
    description: str
    per_hour: float
    when: str = WHILE_UP


@dataclass
class CostEstimate:
    """Priced lines plus notes for what is usage-based or not priced."""

    lines: list[CostLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def per_hour_while_up(self) -> float:
        """Billed every hour the stack exists, idle or not."""
        return sum(line.per_hour for line in self.lines if line.when == WHILE_UP)

    @property
    def per_hour_while_running(self) -> float:
        """Extra per hour while the worker tasks run."""
        return sum(line.per_hour for line in self.lines if line.when == WHILE_RUNNING)

    def describe(self) -> list[str]:
        """Readable lines for the plan review."""
        out = [
            f"Estimated cost: ${self.per_hour_while_up:,.2f}/h while up"
            + (
                f", plus ${self.per_hour_while_running:,.2f}/h while workers run"
                if self.per_hour_while_running
                else ""
            )
        ]
        out += [
            f"  ${line.per_hour:>9,.4f}/h  {line.address}: {line.description}"
            + ("" if line.when == WHILE_UP else f" ({line.when})")
            for line in sorted(self.lines, key=lambda x: (-x.per_hour, x.address))
        ]
        out += [f"  note: {note}" for note in self.notes]
        out.append(f"  prices: {prices.SOURCE}")
        return out


def _num(value: Any, default: float = 0.0) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def _provisioned(read: float, write: float) -> float:
    return read * prices.PROVISIONED_RCU_HOUR + write * prices.PROVISIONED_WCU_HOUR


def provisioned_units(table: TableSpec) -> tuple[int, int]:
    """Read and write capacity of a table and its GSIs together: each unit is billed alike."""
    read = (table.read_capacity or 0) + sum(g.read_capacity or 0 for g in table.gsis)
    write = (table.write_capacity or 0) + sum(g.write_capacity or 0 for g in table.gsis)
    return read, write


def _table(address: str, after: Mapping[str, Any], est: CostEstimate) -> None:
    name = after.get("name") or address
    if after.get("billing_mode", "PROVISIONED") == "PROVISIONED":
        read, write = _num(after.get("read_capacity")), _num(after.get("write_capacity"))
        est.lines.append(
            CostLine(
                address,
                f"{name}: {write:,.0f} WCU + {read:,.0f} RCU provisioned",
                _provisioned(read, write),
            )
        )
        for gsi in after.get("global_secondary_index") or []:
            g_read, g_write = _num(gsi.get("read_capacity")), _num(gsi.get("write_capacity"))
            est.lines.append(
                CostLine(
                    f"{address} GSI {gsi.get('name')}",
                    f"{g_write:,.0f} WCU + {g_read:,.0f} RCU provisioned",
                    _provisioned(g_read, g_write),
                )
            )
    else:
        est.notes.append(
            f"{name} is on-demand: nothing per hour, "
            f"${prices.ON_DEMAND_PER_MILLION_WRITE_UNITS} per million write units and "
            f"${prices.ON_DEMAND_PER_MILLION_READ_UNITS} per million read units"
        )
    warm = [after.get("warm_throughput")] + [
        g.get("warm_throughput") for g in after.get("global_secondary_index") or []
    ]
    if any(w for w in warm):
        est.notes.append(f"{name} raises warm throughput: a one-time charge, not estimated here")


def _task_definition(
    address: str, after: Mapping[str, Any], task_count: int, est: CostEstimate
) -> None:
    vcpu = _num(after.get("cpu"), 1024) / 1024
    gb = _num(after.get("memory"), 2048) / 1024
    platform = (after.get("runtime_platform") or [{}])[0] or {}
    arch = platform.get("cpu_architecture") or "X86_64"
    per_task = vcpu * prices.FARGATE_VCPU_HOUR.get(arch, prices.FARGATE_VCPU_HOUR["X86_64"])
    per_task += gb * prices.FARGATE_GB_HOUR.get(arch, prices.FARGATE_GB_HOUR["X86_64"])
    est.lines.append(
        CostLine(
            address,
            f"{task_count} Fargate task(s) x {vcpu:g} vCPU / {gb:g} GB {arch}",
            per_task * task_count,
            WHILE_RUNNING,
        )
    )


def estimate(plan: Mapping[str, Any], task_count: int | None = None) -> CostEstimate:
    """Price every managed resource that exists after the plan is applied.

    ``task_count`` defaults to the plan's ``task_count`` variable (1 if absent).
    """
    if task_count is None:
        variables = plan.get("variables") or {}
        task_count = int(_num((variables.get("task_count") or {}).get("value"), 1))
    est = CostEstimate()
    for rc in plan.get("resource_changes", []) or []:
        if rc.get("mode", "managed") != "managed":
            continue
        change = rc.get("change") or {}
        after = change.get("after")
        if change.get("actions") == ["delete"] or not isinstance(after, Mapping):
            continue
        address, rtype = str(rc.get("address")), rc.get("type")
        if rtype == "aws_dynamodb_table":
            _table(address, after, est)
        elif rtype == "aws_ecs_task_definition":
            _task_definition(address, after, task_count, est)
        elif rtype == "aws_cloudwatch_dashboard":
            est.lines.append(
                CostLine(
                    address,
                    f"dashboard ${prices.DASHBOARD_MONTH:g}/month (free if among the first 3)",
                    prices.DASHBOARD_MONTH / prices.HOURS_PER_MONTH,
                )
            )
        elif rtype == "aws_dynamodb_contributor_insights":
            est.notes.append(f"{address}: Contributor Insights is charged per event, not estimated")
    return est


def run_cost(table: TableSpec, run: RunResult) -> float:
    """What one measured run of one table variant would have cost on AWS, in USD.

    Kept to what the run itself decides, so two variants compare fairly: provisioned
    capacity (table and GSIs) pro rata for the run's seconds, billed whether used or not;
    on-demand request units actually consumed (a throttled request costs nothing), plus
    one index write of the projected size per successful table write and GSI [AWS, "GSI
    write units"]. Not included: the time the tables exist before and after the run,
    storage, the warm-throughput charge, the load-generator fleet (docs/checks.md).
    """
    hours = run.duration_s / 3600.0
    if table.billing_mode == "PROVISIONED":
        return _provisioned(*provisioned_units(table)) * hours
    totals = run.totals()
    writes = sum(p.counts.succeeded for p in run.phases if p.operation in ("put", "update"))
    index_units = sum(
        writes
        * write_units(
            KEYS_ONLY_BYTES if g.projection == "KEYS_ONLY" else table.item_size_bytes,
            DEFAULT_PARAMS,
        )
        for g in table.gsis
    )
    write_cost = (totals.consumed_wcu + index_units) / 1e6
    read_cost = totals.consumed_rcu / 1e6
    return (
        write_cost * prices.ON_DEMAND_PER_MILLION_WRITE_UNITS
        + read_cost * prices.ON_DEMAND_PER_MILLION_READ_UNITS
    )
