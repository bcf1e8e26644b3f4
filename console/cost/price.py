"""The one function that prices a usage record with a region's price table."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace

from console.cost import rules
from console.cost.lines import CostLine, line
from console.cost.prices import HOURS_PER_MONTH, PriceTable
from console.cost.record import Span, TableUse, UsageRecord

SECONDS_PER_MONTH = HOURS_PER_MONTH * rules.SECONDS_PER_HOUR


@dataclass
class Bill:
    """Cost lines (quantity x unit price = amount), their total, and what was not priced."""

    lines: list[CostLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def total_usd(self) -> float:
        return sum(x.usd for x in self.lines)


def capacity_per_hour(table: TableUse, prices: PriceTable) -> float:
    """What a provisioned table and its GSIs cost per hour standing, used or not."""
    if table.on_demand:
        return 0.0
    wcu = (table.write_capacity or 0) + sum(g.write_capacity or 0 for g in table.gsis)
    rcu = (table.read_capacity or 0) + sum(g.read_capacity or 0 for g in table.gsis)
    return wcu * prices.provisioned_wcu_hour + rcu * prices.provisioned_rcu_hour


def _capacity(record: UsageRecord, prices: PriceTable, bill: Bill) -> None:
    """One line per span label: the hours it lasted x what stood through it per hour."""
    per_hour: dict[tuple[str, float], float] = defaultdict(float)
    for table in record.tables:
        rate = capacity_per_hour(table, prices)
        if rate:
            for span in table.spans:
                per_hour[(span.label, span.seconds)] += rate
    for (label, seconds), rate in per_hour.items():
        if seconds > 0:
            bill.lines.append(
                line(f"capacity, {label}", rules.provisioned_hours(seconds), "h", rate)
            )
    pro_rata = sum(x.usd for x in bill.lines)
    upper = sum(
        rules.started_hours(t.stood_s) * capacity_per_hour(t, prices) for t in record.tables
    )
    if upper - pro_rata >= 0.005:
        bill.notes.append(
            f"provisioned capacity is priced by the second it stands (${pro_rata:,.2f}); "
            f"if AWS bills every started hour in full it is ${upper:,.2f}"
        )


def _requests(record: UsageRecord, prices: PriceTable, bill: Bill) -> None:
    """On-demand request units, the table's and every GSI's; provisioned tables' requests
    are covered by their capacity (https://aws.amazon.com/dynamodb/pricing/on-demand/)."""
    writes: dict[tuple[str, bool], float] = defaultdict(float)
    reads: dict[str, float] = defaultdict(float)
    for units in record.requests:
        table = record.table(units.table)
        if table is None or not table.on_demand:
            continue
        writes[(units.label, units.index is not None)] += units.write_units
        reads[units.label] += units.read_units
    for (label, on_index), wru in writes.items():
        if wru:
            what = f"writes, {label}, " + ("GSIs" if on_index else "tables")
            bill.lines.append(
                line(what, wru / 1e6, "M WRU", prices.on_demand_per_million_write_units)
            )
    for label, rru in reads.items():
        if rru:
            bill.lines.append(
                line(
                    f"reads, {label}",
                    rru / 1e6,
                    "M RRU",
                    prices.on_demand_per_million_read_units,
                )
            )


def _fargate(record: UsageRecord, prices: PriceTable, bill: Bill) -> None:
    for arch in sorted({t.architecture for t in record.tasks}):
        tasks = [t for t in record.tasks if t.architecture == arch]
        billed = [rules.fargate_billed_s(t.pull_start_s, t.stop_s) for t in tasks]
        vcpu_h = sum(t.vcpu * s for t, s in zip(tasks, billed, strict=True)) / 3600
        gb_h = sum(t.memory_gb * s for t, s in zip(tasks, billed, strict=True)) / 3600
        vcpu_price = prices.fargate_vcpu_hour.get(arch)
        gb_price = prices.fargate_gb_hour.get(arch)
        if vcpu_price is None or gb_price is None:
            bill.notes.append(f"Fargate {arch}: no price recorded; {vcpu_h:,.4g} vCPU-h not priced")
            continue
        n = f"{len(tasks)} task" + ("s" if len(tasks) != 1 else "")
        kind = "" if arch == "X86_64" else f" {arch}"
        bill.lines.append(line(f"Fargate{kind} vCPU, {n}", vcpu_h, "vCPU-h", vcpu_price))
        bill.lines.append(line(f"Fargate{kind} memory, {n}", gb_h, "GB-h", gb_price))


def _contributor_insights(record: UsageRecord, prices: PriceTable, bill: Bill) -> None:
    rule_s = sum(
        t.stood_s
        * (
            rules.contributor_insights_rules(t.has_sort_key)
            + sum(rules.contributor_insights_rules(g.has_sort_key) for g in t.gsis)
        )
        for t in record.tables
        if t.contributor_insights
    )
    if rule_s:
        if prices.contributor_insights_rule_month is None:
            bill.notes.append("Contributor Insights rules: no price recorded")
        else:
            bill.lines.append(
                line(
                    "Contributor Insights rules",
                    rule_s / SECONDS_PER_MONTH,
                    "rule-month",
                    prices.contributor_insights_rule_month,
                )
            )
    if record.contributor_insights_events and prices.contributor_insights_per_million_events:
        bill.lines.append(
            line(
                "Contributor Insights events",
                record.contributor_insights_events / 1e6,
                "M events",
                prices.contributor_insights_per_million_events,
            )
        )


def _cloudwatch(record: UsageRecord, prices: PriceTable, bill: Bill) -> None:
    if record.dashboard_s and prices.dashboard_month is not None:
        bill.lines.append(
            line(
                "CloudWatch dashboard",
                record.dashboard_s / SECONDS_PER_MONTH,
                "month",
                prices.dashboard_month,
                "free if among the account's first 3 dashboards",
            )
        )
    if record.get_metric_data_metrics and prices.get_metric_data_per_1000_metrics is not None:
        bill.lines.append(
            line(
                "CloudWatch GetMetricData",
                record.get_metric_data_metrics / 1000,
                "1k metrics",
                prices.get_metric_data_per_1000_metrics,
            )
        )


def _warm(record: UsageRecord, prices: PriceTable, bill: Bill) -> None:
    for t in record.tables:
        owners = [(t.name, t.warm_read, t.warm_write, t.read_capacity, t.write_capacity)] + [
            (f"{t.name}/{g.name}", g.warm_read, g.warm_write, g.read_capacity, g.write_capacity)
            for g in t.gsis
        ]
        for name, warm_read, warm_write, rcu, wcu in owners:
            extra_read, extra_write = rules.warm_excess(
                t.on_demand, warm_read, warm_write, rcu, wcu
            )
            if not (extra_read or extra_write):
                continue
            if prices.warm_throughput_per_unit is None:
                bill.notes.append(
                    f"{name}: warm throughput raised above the defaults by "
                    f"{extra_read:,.0f} read and {extra_write:,.0f} write units/s is billed "
                    "once; no sourced price per unit, so it is not in the total"
                )
            else:
                bill.lines.append(
                    line(
                        f"{name}: warm throughput raise",
                        extra_read + extra_write,
                        "unit/s",
                        prices.warm_throughput_per_unit,
                    )
                )


def _image(record: UsageRecord, prices: PriceTable, bill: Bill) -> None:
    """The worker image: CodeBuild minutes, its ECR storage, the source archive in S3."""
    image = record.image
    if image is None:
        return
    if image.build_minutes:
        rate = prices.codebuild_minute.get(image.architecture)
        if rate is None:
            bill.notes.append(
                f"CodeBuild {image.architecture}: no price recorded; "
                f"{image.build_minutes:,.0f} build-minutes not priced"
            )
        else:
            bill.lines.append(line("image build (CodeBuild)", image.build_minutes, "min", rate))
    stored = [
        ("image storage (ECR)", image.image_gb, image.stored_s, prices.ecr_gb_month),
        ("image sources (S3)", image.source_gb, image.source_stored_s, prices.s3_gb_month),
    ]
    for what, gb, seconds, per_gb_month in stored:
        if gb and seconds and per_gb_month is not None:
            gb_months = gb * seconds / SECONDS_PER_MONTH
            bill.lines.append(line(what, gb_months, "GB-month", per_gb_month))
    requests = [
        ("PUT", image.source_puts, prices.s3_per_1000_puts),
        ("GET", image.source_gets, prices.s3_per_1000_gets),
    ]
    for verb, count, rate in requests:
        if count and rate is not None:
            bill.lines.append(line(f"image sources (S3 {verb})", count / 1000, "1k req", rate))


def _backstop(record: UsageRecord, prices: PriceTable, bill: Bill) -> None:
    """The backstop's schedules, priced as if they acted (each one invocation)."""
    if record.backstop_invocations and prices.scheduler_per_million_invocations is not None:
        bill.lines.append(
            line(
                "backstop (EventBridge Scheduler)",
                record.backstop_invocations / 1e6,
                "M invocations",
                prices.scheduler_per_million_invocations,
                "only if it acts; free within 14 million invocations a month",
            )
        )


def while_up_per_hour(record: UsageRecord, prices: PriceTable) -> float:
    """What the record's tables (capacity, Contributor Insights rules) and dashboard cost
    per hour of standing, idle or not: the same rules as `price`, for one hour."""
    hour = (Span("hour", rules.SECONDS_PER_HOUR),)
    standing = UsageRecord(
        tables=[
            replace(
                t,
                spans=hour,
                warm_read=None,
                warm_write=None,
                gsis=tuple(replace(g, warm_read=None, warm_write=None) for g in t.gsis),
            )
            for t in record.tables
        ],
        dashboard_s=rules.SECONDS_PER_HOUR if record.dashboard_s else 0.0,
    )
    return price(standing, prices).total_usd


def while_running_per_hour(record: UsageRecord, prices: PriceTable) -> float:
    """What the record's tasks cost per hour while they all run (Fargate)."""
    running = UsageRecord(
        tasks=[replace(t, pull_start_s=0.0, stop_s=rules.SECONDS_PER_HOUR) for t in record.tasks]
    )
    return price(running, prices).total_usd


def price(record: UsageRecord, prices: PriceTable) -> Bill:
    """Every billed quantity of `record` at `prices`: provisioned capacity by the span it
    stood through, on-demand request units (tables and GSIs), Fargate tasks,
    Contributor Insights, the dashboard, GetMetricData, warm-throughput raises, the
    worker image (build minutes, ECR and S3 storage), the backstop's schedules."""
    bill = Bill()
    _capacity(record, prices, bill)
    _requests(record, prices, bill)
    _fargate(record, prices, bill)
    _contributor_insights(record, prices, bill)
    _cloudwatch(record, prices, bill)
    _warm(record, prices, bill)
    _image(record, prices, bill)
    _backstop(record, prices, bill)
    if prices.kept:
        bill.notes.append(
            f"kept from the table dated {prices.kept_as_of} (the Price List API did not "
            "answer for them): " + ", ".join(prices.kept)
        )
    return bill
