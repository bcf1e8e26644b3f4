"""The one function that prices a usage record with a region's price table."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace

from console.cost import rules
from console.cost.lines import CostLine, line
from console.cost.prices import HOURS_PER_MONTH, ClassPrices, PriceTable
from console.cost.record import Span, TableUse, UsageRecord
from console.exitcodes import USAGE
from console.output import UserError

SECONDS_PER_MONTH = HOURS_PER_MONTH * rules.SECONDS_PER_HOUR


@dataclass
class Bill:
    """Cost lines (quantity x unit price = amount), their total, and what was not priced."""

    lines: list[CostLine] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def total_usd(self) -> float:
        return sum(x.usd for x in self.lines)


INFREQUENT_ACCESS = "STANDARD_INFREQUENT_ACCESS"


def class_prices(table_class: str, prices: PriceTable) -> ClassPrices:
    """The capacity and request prices of a table class (Standard's are the table's own
    fields); NoClassPrices for a class the table has no prices of."""
    if table_class != INFREQUENT_ACCESS:
        return ClassPrices(
            prices.provisioned_wcu_hour,
            prices.provisioned_rcu_hour,
            prices.on_demand_per_million_write_units,
            prices.on_demand_per_million_read_units,
        )
    if prices.infrequent_access is None:
        raise NoClassPrices(table_class, prices.region)
    return prices.infrequent_access


class NoClassPrices(UserError):
    """A table class the price table has no figures for."""

    def __init__(self, table_class: str, region: str) -> None:
        super().__init__(
            f"no recorded prices of table class {table_class} in {region}: price a "
            "STANDARD table, or a region whose prices are recorded (docs/cost.md)",
            USAGE,
        )


def capacity_per_hour(table: TableUse, prices: PriceTable) -> float:
    """What a provisioned table and its GSIs cost per hour standing, used or not, at its
    table class's prices; units covered by reserved capacity are priced by `_reserved`."""
    if table.on_demand:
        return 0.0
    wcu = (table.write_capacity or 0) + sum(g.write_capacity or 0 for g in table.gsis)
    rcu = (table.read_capacity or 0) + sum(g.read_capacity or 0 for g in table.gsis)
    rates = class_prices(table.table_class, prices)
    return (
        max(0, wcu - table.reserved_write) * rates.provisioned_wcu_hour
        + max(0, rcu - table.reserved_read) * rates.provisioned_rcu_hour
    )


def capacity_levels(table: TableUse) -> list[tuple[float, float, float]]:
    """The provisioned (start second, RCU, WCU) of a table and its GSIs together, step by
    step as it moved, from 0 (the capacity it was created with) on."""
    units: dict[str | None, tuple[float, float]] = {
        None: (float(table.read_capacity or 0), float(table.write_capacity or 0))
    }
    for g in table.gsis:
        units[g.name] = (float(g.read_capacity or 0), float(g.write_capacity or 0))
    levels = [
        (0.0, float(sum(r for r, _ in units.values())), float(sum(w for _, w in units.values())))
    ]
    for move in sorted(table.moves, key=lambda m: m.at_s):
        units[move.index] = (move.read, move.write)
        level = (
            max(0.0, move.at_s),
            float(sum(r for r, _ in units.values())),
            float(sum(w for _, w in units.values())),
        )
        if levels[-1][0] == level[0]:
            levels[-1] = level
        else:
            levels.append(level)
    return levels


def moving_capacity_usd(table: TableUse, prices: PriceTable) -> tuple[float, float]:
    """What a provisioned table whose capacity moved costs over the time it stood: priced
    by the second at the capacity in force (as a fixed table is), and the upper bound if
    every started hour were billed in full at the most provisioned during it."""
    if table.on_demand:
        return 0.0, 0.0
    stood = table.stood_s
    levels = capacity_levels(table)
    ends = [t for t, _, _ in levels[1:]] + [stood]
    rates = class_prices(table.table_class, prices)  # Standard-IA's capacity costs more
    per_second = 0.0
    for (start, rcu, wcu), end in zip(levels, ends, strict=True):
        seconds = max(0.0, min(end, stood) - start)
        per_second += seconds * (
            rcu * rates.provisioned_rcu_hour + wcu * rates.provisioned_wcu_hour
        )
    upper = 0.0
    first = 0  # levels are in order: each hour's scan starts where the last one's began
    for hour in range(int(rules.started_hours(stood))):
        h0, h1 = hour * rules.SECONDS_PER_HOUR, (hour + 1) * rules.SECONDS_PER_HOUR
        while first < len(levels) and ends[first] <= h0:
            first += 1
        during = []
        i = first
        while i < len(levels) and levels[i][0] < h1:
            if ends[i] > h0:
                during.append((levels[i][1], levels[i][2]))
            i += 1
        if during:
            upper += max(r for r, _ in during) * rates.provisioned_rcu_hour
            upper += max(w for _, w in during) * rates.provisioned_wcu_hour
    return per_second / rules.SECONDS_PER_HOUR, upper


def _capacity(record: UsageRecord, prices: PriceTable, bill: Bill) -> None:
    """One line per span label: the hours it lasted x what stood through it per hour; a
    table whose capacity moved gets a line of its own, priced step by step."""
    per_hour: dict[tuple[str, float], float] = defaultdict(float)
    moved = [t for t in record.tables if t.moves and not t.on_demand]
    upper = 0.0
    for table in record.tables:
        if table in moved:
            usd, most = moving_capacity_usd(table, prices)
            hours = rules.provisioned_hours(table.stood_s)
            if hours > 0:
                bill.lines.append(
                    line(f"capacity as it moved, {table.name}", hours, "h", usd / hours)
                )
            upper += most
            continue
        rate = capacity_per_hour(table, prices)
        if rate:
            for span in table.spans:
                per_hour[(span.label, span.seconds)] += rate
        upper += rules.started_hours(table.stood_s) * rate
    for (label, seconds), rate in per_hour.items():
        if seconds > 0:
            bill.lines.append(
                line(f"capacity, {label}", rules.provisioned_hours(seconds), "h", rate)
            )
    pro_rata = sum(x.usd for x in bill.lines)
    if upper - pro_rata >= 0.005:
        how = "in full" if not moved else "in full at the most provisioned during it"
        bill.notes.append(
            f"provisioned capacity is priced by the second it stands (${pro_rata:,.2f}); "
            f"if AWS bills every started hour {how} it is ${upper:,.2f}"
        )


def _requests(record: UsageRecord, prices: PriceTable, bill: Bill) -> None:
    """On-demand request units, the table's and every GSI's; provisioned tables' requests
    are covered by their capacity (https://aws.amazon.com/dynamodb/pricing/on-demand/)."""
    writes: dict[tuple[str, bool, str], float] = defaultdict(float)
    reads: dict[tuple[str, str], float] = defaultdict(float)
    for units in record.requests:
        table = record.table(units.table)
        if table is None or not table.on_demand:
            continue
        writes[(units.label, units.index is not None, table.table_class)] += units.write_units
        reads[(units.label, table.table_class)] += units.read_units
    for (label, on_index, table_class), wru in writes.items():
        if wru:
            what = f"writes, {label}, " + ("GSIs" if on_index else "tables") + _ia(table_class)
            rate = class_prices(table_class, prices).on_demand_per_million_write_units
            bill.lines.append(line(what, wru / 1e6, "M WRU", rate))
    for (label, table_class), rru in reads.items():
        if rru:
            rate = class_prices(table_class, prices).on_demand_per_million_read_units
            bill.lines.append(line(f"reads, {label}{_ia(table_class)}", rru / 1e6, "M RRU", rate))


def _ia(table_class: str) -> str:
    """What a line of a Standard-IA table says of it."""
    return " (Standard-IA)" if table_class == INFREQUENT_ACCESS else ""


def _reserved(record: UsageRecord, prices: PriceTable, bill: Bill) -> None:
    """Reserved capacity: every hour the table stood at the term's hourly rate, and the
    upfront payment's share of those hours (the payment is made once, for the term)."""
    for t in record.tables:
        if t.on_demand or not (t.reserved_write or t.reserved_read):
            continue
        term = prices.reserved.get(t.reserved_term_years)
        if term is None:
            bill.notes.append(
                f"{t.name}: no recorded price of {t.reserved_term_years}-year reserved "
                "capacity; its reserved units are not priced"
            )
            continue
        hours = t.stood_s / rules.SECONDS_PER_HOUR
        share = hours / (t.reserved_term_years * 8760.0)
        years = f"{t.reserved_term_years}-year"
        for units, unit, hourly, upfront in (
            (t.reserved_write, "WCU", term.hour_per_100_wcu, term.upfront_per_100_wcu),
            (t.reserved_read, "RCU", term.hour_per_100_rcu, term.upfront_per_100_rcu),
        ):
            if not units:
                continue
            blocks = units / 100
            bill.lines.append(
                line(f"reserved {unit}, {years}, hourly", blocks * hours, f"100 {unit}-h", hourly)
            )
            bill.lines.append(
                line(
                    f"reserved {unit}, {years}, upfront share",
                    blocks * share,
                    f"100 {unit}-term",
                    upfront,
                    f"${blocks * upfront:,.2f} paid once for the term",
                )
            )


def upfront_usd(record: UsageRecord, prices: PriceTable) -> float:
    """Reserved capacity's upfront payments for the record's tables, each made once for
    its whole term (a bill carries only their share of the hours it prices)."""
    total = 0.0
    for t in record.tables:
        term = prices.reserved.get(t.reserved_term_years)
        if t.on_demand or term is None:
            continue
        total += t.reserved_write / 100 * term.upfront_per_100_wcu
        total += t.reserved_read / 100 * term.upfront_per_100_rcu
    return total


def _storage(record: UsageRecord, prices: PriceTable, bill: Bill) -> None:
    """Data stored, per GB-month of its table class, for the time the table stood."""
    by_class: dict[str, float] = defaultdict(float)
    for t in record.tables:
        if t.stored_gb:
            by_class[t.table_class] += t.stored_gb * t.stood_s / SECONDS_PER_MONTH
    for table_class, gb_months in by_class.items():
        rate = prices.storage_gb_month.get(table_class)
        if rate is None:
            bill.notes.append(f"storage of {table_class}: no price recorded")
            continue
        bill.lines.append(
            line(
                f"storage{_ia(table_class)}",
                gb_months,
                "GB-month",
                rate,
                "the account's first 25 GB-month of Standard storage are free: not deducted"
                if table_class != INFREQUENT_ACCESS
                else None,
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


def _lambda(record: UsageRecord, prices: PriceTable, bill: Bill) -> None:
    """Lambda invocations: one request each, and GB-seconds of memory x billed duration
    (https://aws.amazon.com/lambda/pricing/), by architecture."""
    for arch in sorted({i.architecture for i in record.invocations}):
        calls = [i for i in record.invocations if i.architecture == arch]
        gb_s = sum(i.memory_gb * i.billed_s for i in calls)
        rate = prices.lambda_gb_second.get(arch)
        kind = "" if arch == "X86_64" else f" {arch}"
        n = f"{len(calls)} invocation" + ("s" if len(calls) != 1 else "")
        if rate is None or prices.lambda_per_million_requests is None:
            bill.notes.append(f"Lambda{kind}: no price recorded; {gb_s:,.4g} GB-s not priced")
            continue
        bill.lines.append(
            line(
                f"Lambda{kind} requests, {n}",
                len(calls) / 1e6,
                "M req",
                prices.lambda_per_million_requests,
            )
        )
        # per thousand GB-seconds: the price per GB-second has five zeros after the point
        bill.lines.append(line(f"Lambda{kind} duration, {n}", gb_s / 1000, "k GB-s", rate * 1000))


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
    """What the record's workers cost per hour while they all run: its tasks (Fargate)
    and invocations (Lambda) each running for the hour (requests not counted)."""
    running = UsageRecord(
        tasks=[replace(t, pull_start_s=0.0, stop_s=rules.SECONDS_PER_HOUR) for t in record.tasks]
    )
    hour = sum(
        i.memory_gb * rules.SECONDS_PER_HOUR * prices.lambda_gb_second.get(i.architecture, 0.0)
        for i in record.invocations
    )
    return price(running, prices).total_usd + hour


def price(record: UsageRecord, prices: PriceTable) -> Bill:
    """Every billed quantity of `record` at `prices`: provisioned capacity by the span it
    stood through (at its table class's prices; reserved units at the term's hourly rate
    and a share of its upfront payment), on-demand request units (tables and GSIs),
    storage, Fargate tasks, Lambda invocations,
    Contributor Insights, the dashboard, GetMetricData, warm-throughput raises, the
    worker image (build minutes, ECR and S3 storage), the backstop's schedules."""
    bill = Bill()
    _capacity(record, prices, bill)
    _reserved(record, prices, bill)
    _requests(record, prices, bill)
    _storage(record, prices, bill)
    _fargate(record, prices, bill)
    _lambda(record, prices, bill)
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
