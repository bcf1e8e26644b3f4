"""The Terraform estimate: what a saved plan leaves standing, per hour, from the planned
resources themselves (`terraform show -json`), priced by the same function as the rest.

The question before `apply` is "what does this cost per hour while it is up?": the
record holds the planned tables and dashboard standing one hour (provisioned capacity is
billed whether used or not, so it dominates), and the worker tasks running one hour
(Fargate is billed only while the console's tasks run).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from console.cost.lines import CostLine
from console.cost.price import Bill, price
from console.cost.prices import PriceTable, price_table
from console.cost.record import IndexUse, InvocationUse, Span, TableUse, TaskUse, UsageRecord
from console.cost.rules import SECONDS_PER_HOUR

HOUR = (Span("1 h", SECONDS_PER_HOUR),)


@dataclass
class TerraformEstimate:
    """Per hour while up (tables, dashboard) and extra per hour while the workers run
    (printed for the plan's review by console.render.cost_table.estimate_review)."""

    up: Bill
    running: Bill
    region: str
    notes: list[str] = field(default_factory=list)

    @property
    def per_hour_while_up(self) -> float:
        return self.up.total_usd

    @property
    def per_hour_while_running(self) -> float:
        return self.running.total_usd

    @property
    def lines(self) -> list[CostLine]:
        return self.up.lines + self.running.lines


def _num(value: Any, default: float = 0.0) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def _int(value: Any) -> int | None:
    return int(value) if value not in (None, "") else None


def _warm(block: Any) -> tuple[int | None, int | None]:
    warm = (block or [{}])[0] if isinstance(block, list) else (block or {})
    return _int(warm.get("read_units_per_second")), _int(warm.get("write_units_per_second"))


def _table(after: Mapping[str, Any], insights: set[str]) -> TableUse:
    provisioned = after.get("billing_mode", "PROVISIONED") == "PROVISIONED"
    name = str(after.get("name"))
    warm_read, warm_write = _warm(after.get("warm_throughput"))
    gsis = []
    for g in after.get("global_secondary_index") or []:
        g_read, g_write = _warm(g.get("warm_throughput"))
        gsis.append(
            IndexUse(
                name=str(g.get("name")),
                has_sort_key=bool(g.get("range_key")),
                read_capacity=_int(g.get("read_capacity")) if provisioned else None,
                write_capacity=_int(g.get("write_capacity")) if provisioned else None,
                warm_read=g_read,
                warm_write=g_write,
            )
        )
    return TableUse(
        name=name,
        billing_mode="PROVISIONED" if provisioned else "PAY_PER_REQUEST",
        has_sort_key=bool(after.get("range_key")),
        spans=HOUR,
        read_capacity=_int(after.get("read_capacity")) if provisioned else None,
        write_capacity=_int(after.get("write_capacity")) if provisioned else None,
        warm_read=warm_read,
        warm_write=warm_write,
        contributor_insights=name in insights,
        gsis=tuple(gsis),
    )


def _after(plan: Mapping[str, Any]) -> list[tuple[str, str, Mapping[str, Any]]]:
    """(address, type, planned attributes) of every managed resource that exists after."""
    out = []
    for rc in plan.get("resource_changes", []) or []:
        if rc.get("mode", "managed") != "managed":
            continue
        change = rc.get("change") or {}
        after = change.get("after")
        if change.get("actions") == ["delete"] or not isinstance(after, Mapping):
            continue
        out.append((str(rc.get("address")), str(rc.get("type")), after))
    return out


def estimate(
    plan: Mapping[str, Any], task_count: int | None = None, prices: PriceTable | None = None
) -> TerraformEstimate:
    """Price every managed resource that exists after the plan is applied, at the prices
    of the plan's `region` variable (or `prices`). `task_count` defaults to the plan's
    `task_count` variable (1 if absent)."""
    variables = plan.get("variables") or {}
    if task_count is None:
        task_count = int(_num((variables.get("task_count") or {}).get("value"), 1))
    region = str((variables.get("region") or {}).get("value") or "us-east-1")
    prices = prices or price_table(region)
    resources = _after(plan)
    insights = {
        str(a.get("table_name"))
        for _, t, a in resources
        if t == "aws_dynamodb_contributor_insights"
    }
    up = UsageRecord()
    running = UsageRecord()
    notes = []
    for address, rtype, after in resources:
        if rtype == "aws_dynamodb_table":
            table = _table(after, insights)
            up.tables.append(table)
            if table.on_demand:
                notes.append(f"{table.name} is on-demand: billed per request unit, not per hour")
        elif rtype == "aws_ecs_task_definition":
            platform = (after.get("runtime_platform") or [{}])[0] or {}
            running.tasks += [
                TaskUse(
                    f"{address} #{i}",
                    _num(after.get("cpu"), 1024) / 1024,
                    _num(after.get("memory"), 2048) / 1024,
                    0.0,
                    SECONDS_PER_HOUR,
                    platform.get("cpu_architecture") or "X86_64",
                )
                for i in range(task_count)
            ]
        elif rtype == "aws_lambda_function":
            running.invocations += [
                InvocationUse(
                    f"{address} #{i}",
                    _num(after.get("memory_size"), 128) / 1024,
                    SECONDS_PER_HOUR,
                    (after.get("architectures") or ["x86_64"])[0].upper(),
                )
                for i in range(task_count)
            ]
        elif rtype == "aws_cloudwatch_dashboard":
            up.dashboard_s += SECONDS_PER_HOUR
    return TerraformEstimate(price(up, prices), price(running, prices), prices.region, notes)
