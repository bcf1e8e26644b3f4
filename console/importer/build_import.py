"""From the answers about one table to its import: the definition, auto scaling, the
per-period series, requests per operation, throttles by reason, the key reports with
their fitted tails, the key distributions, and one line per piece of data that was
missing with what the playbook assumes instead. Pure: answers in, numbers out.
"""

from __future__ import annotations

import math
import re
from typing import Any, cast

from console.importer.account_reader import Failure, TableAnswers
from console.importer.import_result import (
    AutoScaling,
    ContributorShare,
    ImportedIndex,
    InsightsState,
    KeyDistribution,
    KeyPart,
    KeyReport,
    KeyType,
    MetricSeries,
    MissingData,
    OperationTraffic,
    ScalingPolicy,
    ScalingTarget,
    TableDefinition,
    TableImport,
    ThrottleTotal,
    TimeWindow,
    UnitsPair,
)
from console.importer.metric_queries import (
    CONSUMED,
    PROVISIONED,
    REASON_METRICS,
    SUCCEEDED,
    THROTTLED_REQUESTS,
    to_series,
)
from console.importer.permissions import permission
from loadgen.analysis.keyfit import fit_keys

RULE_NAME = re.compile(r"^DynamoDBContributorInsights-(PK|SK)(C|T)-")
"""DynamoDB's rule names: DynamoDBContributorInsights-PKC-<resource>-<creation time>
(most accessed partition keys), -PKT- (most throttled partition keys), -SKC- and -SKT-
(partition and sort key pairs, on a table or GSI with a sort key):
https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/contributorinsights_HowItWorks.html."""
ASSUMED_KEYS = 1_000_000
"""Values a key attribute is assumed uniform over when no item count is known."""
MULTI_ITEM_WRITES = frozenset(
    {"BatchWriteItem", "TransactWriteItems", "BatchExecuteStatement", "ExecuteTransaction"}
)
WRITE_UNIT_BYTES = 1024
READ_UNIT_BYTES = 4096


def _key(schema: list[dict[str, Any]], types: dict[str, KeyType], role: str) -> KeyPart | None:
    for part in schema:
        if part["KeyType"] == role:
            return KeyPart(part["AttributeName"], types.get(part["AttributeName"], "S"))
    return None


def _units(d: dict[str, Any] | None, read: str, write: str) -> UnitsPair:
    d = d or {}

    def value(name: str) -> float | None:
        v = d.get(name)
        return float(v) if v is not None and v > 0 else None

    return UnitsPair(value(read), value(write))


def _index(raw: dict[str, Any], kind: str, types: dict[str, KeyType]) -> ImportedIndex:
    pk = _key(raw["KeySchema"], types, "HASH")
    assert pk is not None  # every index has a partition key (DynamoDB's model)
    projection = raw.get("Projection") or {}
    return ImportedIndex(
        name=raw["IndexName"],
        kind=cast(Any, kind),
        partition_key=pk,
        sort_key=_key(raw["KeySchema"], types, "RANGE"),
        projection=projection.get("ProjectionType", "ALL"),
        non_key_attributes=tuple(projection.get("NonKeyAttributes", []) or []),
        provisioned=_units(
            raw.get("ProvisionedThroughput"), "ReadCapacityUnits", "WriteCapacityUnits"
        ),
        on_demand_max=_units(
            raw.get("OnDemandThroughput"), "MaxReadRequestUnits", "MaxWriteRequestUnits"
        ),
        warm_throughput=_units(
            raw.get("WarmThroughput"), "ReadUnitsPerSecond", "WriteUnitsPerSecond"
        ),
        warm_status=(raw.get("WarmThroughput") or {}).get("Status"),
        item_count=raw.get("ItemCount"),
        size_bytes=raw.get("IndexSizeBytes"),
        status=raw.get("IndexStatus"),
    )


def definition(desc: dict[str, Any]) -> TableDefinition:
    """DescribeTable's Table as a TableDefinition."""
    types = cast(
        dict[str, KeyType],
        {a["AttributeName"]: a["AttributeType"] for a in desc.get("AttributeDefinitions", [])},
    )
    pk = _key(desc["KeySchema"], types, "HASH")
    assert pk is not None
    billing = (desc.get("BillingModeSummary") or {}).get("BillingMode", "PROVISIONED")
    throughput = desc.get("ProvisionedThroughput") or {}
    items = int(desc.get("ItemCount") or 0)
    size = int(desc.get("TableSizeBytes") or 0)
    return TableDefinition(
        name=desc["TableName"],
        arn=desc.get("TableArn"),
        partition_key=pk,
        sort_key=_key(desc["KeySchema"], types, "RANGE"),
        attributes=types,
        billing_mode=billing,
        provisioned=_units(throughput, "ReadCapacityUnits", "WriteCapacityUnits")
        if billing == "PROVISIONED"
        else UnitsPair(),
        on_demand_max=_units(
            desc.get("OnDemandThroughput"), "MaxReadRequestUnits", "MaxWriteRequestUnits"
        ),
        warm_throughput=_units(
            desc.get("WarmThroughput"), "ReadUnitsPerSecond", "WriteUnitsPerSecond"
        ),
        warm_status=(desc.get("WarmThroughput") or {}).get("Status"),
        table_class=(desc.get("TableClassSummary") or {}).get("TableClass", "STANDARD"),
        item_count=items,
        size_bytes=size,
        mean_item_bytes=size / items if items > 0 else None,
        created=desc.get("CreationDateTime"),
        last_increase=throughput.get("LastIncreaseDateTime"),
        last_decrease=throughput.get("LastDecreaseDateTime"),
        decreases_today=throughput.get("NumberOfDecreasesToday"),
        gsis=tuple(_index(g, "GSI", types) for g in desc.get("GlobalSecondaryIndexes", []) or []),
        lsis=tuple(_index(i, "LSI", types) for i in desc.get("LocalSecondaryIndexes", []) or []),
    )


def _index_of(resource_id: str) -> str | None:
    parts = resource_id.split("/")
    return parts[3] if len(parts) >= 4 and parts[2] == "index" else None


def auto_scaling(targets: list[dict[str, Any]], policies: list[dict[str, Any]]) -> AutoScaling:
    return AutoScaling(
        targets=tuple(
            ScalingTarget(
                index=_index_of(t["ResourceId"]),
                dimension=t["ScalableDimension"],
                min_capacity=int(t["MinCapacity"]),
                max_capacity=int(t["MaxCapacity"]),
                suspended={k: bool(v) for k, v in (t.get("SuspendedState") or {}).items()},
            )
            for t in targets
        ),
        policies=tuple(_policy(p) for p in policies),
    )


def _policy(p: dict[str, Any]) -> ScalingPolicy:
    tracking = p.get("TargetTrackingScalingPolicyConfiguration") or {}
    predefined = tracking.get("PredefinedMetricSpecification") or {}
    return ScalingPolicy(
        index=_index_of(p["ResourceId"]),
        dimension=p["ScalableDimension"],
        name=p["PolicyName"],
        policy_type=p["PolicyType"],
        target_value=tracking.get("TargetValue"),
        metric=predefined.get("PredefinedMetricType"),
        scale_in_cooldown_s=tracking.get("ScaleInCooldown"),
        scale_out_cooldown_s=tracking.get("ScaleOutCooldown"),
        disable_scale_in=bool(tracking.get("DisableScaleIn", False)),
    )


def _find(
    series: list[MetricSeries], metric: str, index: str | None = None, operation: str | None = None
) -> MetricSeries | None:
    return next(
        (s for s in series if s.metric == metric and s.index == index and s.operation == operation),
        None,
    )


def operations(
    answers: TableAnswers, series: list[MetricSeries], item_bytes: float | None
) -> tuple[list[OperationTraffic], list[MissingData]]:
    """Requests per operation per period: counted (SuccessfulRequestLatency SampleCount
    + ThrottledRequests), else estimated from consumed capacity."""
    out: list[OperationTraffic] = []
    for op in answers.operations:
        ok = _find(series, SUCCEEDED, None, op)
        refused = _find(series, THROTTLED_REQUESTS, None, op)
        if ok is None or (ok.returned == 0 and (refused is None or refused.returned == 0)):
            continue
        throttled = refused.values if refused is not None else tuple(0.0 for _ in ok.values)
        out.append(
            OperationTraffic(
                op,
                tuple(a + b for a, b in zip(ok.values, throttled, strict=True)),
                throttled,
                f"{SUCCEEDED} SampleCount + {THROTTLED_REQUESTS} Sum, Operation={op}",
            )
        )
    if out:
        return out, []
    table = answers.table
    size = item_bytes or WRITE_UNIT_BYTES
    per_write = max(1, math.ceil(size / WRITE_UNIT_BYTES))
    per_read = 0.5 * max(1, math.ceil(size / READ_UNIT_BYTES))
    notes: list[MissingData] = []
    for metric, op, per in (
        ("ConsumedWriteCapacityUnits", "PutItem", per_write),
        ("ConsumedReadCapacityUnits", "GetItem", per_read),
    ):
        consumed = _find(series, metric)
        if consumed is None or consumed.total == 0:
            continue
        out.append(
            OperationTraffic(
                op,
                tuple(v / per for v in consumed.values),
                tuple(0.0 for _ in consumed.values),
                f"estimated: {metric} Sum / {per:g} units per request",
            )
        )
    if out:
        notes.append(
            MissingData(
                table,
                "no requests per operation (SuccessfulRequestLatency by Operation has no "
                "datapoints in the window)",
                f"requests from consumed capacity: PutItem = write units / {per_write}, "
                f"GetItem = read units / {per_read:g} (eventually consistent, "
                f"{size:,.0f}-byte items)",
            )
        )
    return out, notes


def throttles(series: list[MetricSeries], gsis: list[str]) -> list[ThrottleTotal]:
    out = []
    for index in [None, *gsis]:
        for metric, reason in REASON_METRICS.items():
            s = _find(series, metric, index)
            if s is not None and s.total > 0:
                prefix = "Index" if index else "Table"
                out.append(ThrottleTotal(index, prefix + reason, metric, s.total, s.values))
    return out


def _key_names(desc: TableDefinition, index: str | None) -> tuple[KeyPart, KeyPart | None]:
    if index is None:
        return desc.partition_key, desc.sort_key
    gsi = next(g for g in desc.gsis if g.name == index)
    return gsi.partition_key, gsi.sort_key


def reports(answers: TableAnswers, desc: TableDefinition) -> list[KeyReport]:
    out = []
    for index, rule, raw in answers.reports:
        found = RULE_NAME.match(rule)
        scope = {"PK": "partition", "SK": "item"}[found.group(1)] if found else "unknown"
        measure = {"C": "accessed", "T": "throttled"}[found.group(2)] if found else "unknown"
        pk, sk = _key_names(desc, index)
        attrs = (pk.name,) if scope == "partition" or sk is None else (pk.name, sk.name)
        total = float(raw.get("AggregateValue") or 0.0)
        contributors = tuple(
            ContributorShare(
                tuple(str(k) for k in c.get("Keys", [])),
                float(c.get("ApproximateAggregateValue", 0.0)),
                float(c.get("ApproximateAggregateValue", 0.0)) / total if total > 0 else 0.0,
            )
            for c in raw.get("Contributors", [])
        )
        contributors = tuple(sorted(contributors, key=lambda c: -c.value))
        unique = int(raw.get("ApproximateUniqueCount") or len(contributors))
        fit = (
            fit_keys([c.value for c in contributors], total, unique)
            if contributors and total > 0
            else None
        )
        out.append(
            KeyReport(
                index,
                rule,
                cast(Any, scope),
                cast(Any, measure),
                attrs,
                str(raw.get("AggregationStatistic", "")),
                total,
                unique,
                contributors,
                fit,
            )
        )
    return out


def insights(answers: TableAnswers, gsis: list[str]) -> list[InsightsState]:
    out = []
    seen: dict[str | None, dict[str, Any]] = {a.get("IndexName"): a for a in answers.insights}
    for index in [None, *gsis]:
        a = seen.get(index)
        if a is None:
            out.append(InsightsState(index, "UNKNOWN", None, (), None))
            continue
        out.append(
            InsightsState(
                index,
                str(a.get("ContributorInsightsStatus", "DISABLED")),
                a.get("ContributorInsightsMode"),
                tuple(a.get("ContributorInsightsRuleList", []) or []),
                a.get("LastUpdateDateTime"),
            )
        )
    return out


def _where(table: str, index: str | None) -> str:
    return f"{table}/{index}" if index else table


def key_distributions(
    desc: TableDefinition,
    states: list[InsightsState],
    found: list[KeyReport],
    window: TimeWindow,
    failed: set[str | None],
) -> tuple[list[KeyDistribution], list[MissingData]]:
    """One distribution per partition key (the table's, each GSI's): from the accessed
    keys report where there is one, else uniform over the item count, said so."""
    out: list[KeyDistribution] = []
    notes: list[MissingData] = []
    for index in [None, *(g.name for g in desc.gsis)]:
        pk, _ = _key_names(desc, index)
        where = _where(desc.name, index)
        report = next(
            (
                r
                for r in found
                if r.index == index and r.scope == "partition" and r.measure == "accessed"
            ),
            None,
        )
        if report is not None and report.fit is not None:
            out.append(
                KeyDistribution(
                    pk.name,
                    index,
                    report.contributors,
                    report.fit,
                    None,
                    f"Contributor Insights rule {report.rule}, {report.aggregation or 'value'} "
                    f"over {window.start:%Y-%m-%d %H:%M} to {window.end:%Y-%m-%d %H:%M} UTC: "
                    f"top {len(report.contributors)} of ~{report.unique:,} keys, tail fitted",
                )
            )
            continue
        items = (
            desc.item_count
            if index is None
            else next((g.item_count for g in desc.gsis if g.name == index), None)
        )
        count = int(items) if items else ASSUMED_KEYS
        counted = "the item count" if items else "no item count known"
        assumes = (
            f"{pk.name} uniform over {count:,} values ({counted}): no key hotter than the "
            "average, so hot-key throttling is not reproduced"
        )
        out.append(
            KeyDistribution(
                pk.name,
                index,
                (),
                None,
                count,
                f"assumed: uniform over {count:,} values ({counted})",
            )
        )
        state = next((s for s in states if s.index == index), None)
        if report is not None:
            missing = f"Contributor Insights rule {report.rule} reported no keys in the window"
        elif index in failed or state is None or state.status == "UNKNOWN":
            continue  # the failed call has its own line
        elif state.status in ("ENABLED", "DISABLING") and state.mode == "THROTTLED_KEYS":
            missing = (
                "Contributor Insights records throttled keys only (THROTTLED_KEYS mode): no "
                "shares of the accessed keys"
            )
        elif state.status in ("ENABLED", "DISABLING"):
            missing = (
                "Contributor Insights has no most-accessed partition keys rule (rules: "
                f"{', '.join(state.rules) or 'none'})"
            )
        else:
            index_flag = f" --index-name {index}" if index else ""
            missing = (
                f"Contributor Insights is {state.status.lower()}, so there are no hot keys "
                f"(enable it: aws dynamodb update-contributor-insights --table-name "
                f"{desc.name}{index_flag} --contributor-insights-action ENABLE, then import "
                "a later window)"
            )
        notes.append(MissingData(where, missing, assumes))
    for state in states:
        if (
            state.status == "ENABLED"
            and state.last_update is not None
            and state.last_update > window.start
        ):
            notes.append(
                MissingData(
                    _where(desc.name, state.index),
                    f"Contributor Insights was enabled at {state.last_update:%Y-%m-%d %H:%M} "
                    "UTC, after the window's start",
                    "the key shares of the part of the window after that hold for all of it",
                )
            )
    return out, notes


def failure_notes(failures: list[Failure], table: str) -> list[MissingData]:
    out = []
    for f in failures:
        known = permission(f.call.action)
        if f.call.denied:
            missing = f"may not call {f.call.action}, so no {f.about}"
        else:
            missing = f"{f.call.action} answered {f.call.code} ({f.call.message}), so no {f.about}"
        out.append(
            MissingData(
                _where(table, f.index),
                missing,
                known.without if known else "the piece it would have read is left out",
            )
        )
    return out


def metric_notes(
    desc: TableDefinition, series: list[MetricSeries], answers: TableAnswers
) -> list[MissingData]:
    out = []
    for key in answers.metrics.forbidden:
        out.append(
            MissingData(
                _where(desc.name, key.index),
                f"CloudWatch would not give {key.metric} (Forbidden)",
                "that series is zero",
            )
        )
    for message in dict.fromkeys(answers.metrics.messages):
        out.append(
            MissingData(
                desc.name,
                f"CloudWatch GetMetricData said: {message}",
                "the series as CloudWatch returned them",
            )
        )
    consumed = [_find(series, metric) for metric in CONSUMED]
    if all(s is not None and s.returned == 0 for s in consumed):
        out.append(
            MissingData(
                desc.name,
                "no ConsumedReadCapacityUnits or ConsumedWriteCapacityUnits datapoints in the "
                "window (the table served nothing, or the window is before it existed)",
                "no traffic",
            )
        )
    if desc.billing_mode == "PROVISIONED":
        for index in [None, *(g.name for g in desc.gsis)]:
            for metric in PROVISIONED:
                s = _find(series, metric, index)
                if s is not None and s.returned == 0:
                    out.append(
                        MissingData(
                            _where(desc.name, index),
                            f"no {metric} datapoints in the window",
                            "the provisioned capacity constant at what DescribeTable shows now",
                        )
                    )
    return out


def item_size(
    desc: TableDefinition, ops: list[OperationTraffic], series: list[MetricSeries]
) -> tuple[float, str, list[MissingData]]:
    """The mean item size: DescribeTable's, else what the write units per write imply
    (single-item writes only: a batch's request count is not its items'), else 1 KB;
    with where it came from."""
    if desc.mean_item_bytes is not None:
        return desc.mean_item_bytes, "TableSizeBytes / ItemCount", []
    missing = (
        "DescribeTable reports no items (ItemCount and TableSizeBytes are updated about "
        "every six hours), so no mean item size"
    )
    writes = [o for o in ops if o.operation in ("PutItem", "UpdateItem")]
    counted = all(not o.source.startswith("estimated") for o in writes)
    multi = any(o.operation in MULTI_ITEM_WRITES for o in ops)
    consumed = _find(series, "ConsumedWriteCapacityUnits")
    succeeded = sum(o.total - sum(o.throttled) for o in writes)
    if writes and counted and not multi and consumed is not None and succeeded > 0:
        units = consumed.total / succeeded
        size = max(1.0, math.ceil(units - 1e-9)) * WRITE_UNIT_BYTES
        note = MissingData(
            desc.name,
            missing,
            f"items of {size:,.0f} bytes: {units:.2f} write units per write "
            "(ConsumedWriteCapacityUnits / successful PutItem and UpdateItem; an upper bound)",
        )
        return size, f"from {units:.2f} write units per write", [note]
    return (
        1024.0,
        "assumed",
        [MissingData(desc.name, missing, "items of 1 KB: one write unit per write")],
    )


def build(answers: TableAnswers, window: TimeWindow) -> TableImport:
    desc = definition(answers.description)
    gsis = [g.name for g in desc.gsis]
    series = to_series(answers.metrics, window)
    ops, op_notes = operations(answers, series, desc.mean_item_bytes)
    item_bytes, item_source, size_notes = item_size(desc, ops, series)
    states = insights(answers, gsis)
    found = reports(answers, desc)
    failed = {f.index for f in answers.failures if f.part == "hot keys"}
    keys, key_notes = key_distributions(desc, states, found, window, failed)
    missing = [
        *failure_notes(answers.failures, desc.name),
        *key_notes,
        *op_notes,
        *size_notes,
        *metric_notes(desc, series, answers),
    ]
    return TableImport(
        definition=desc,
        auto_scaling=auto_scaling(answers.scalable_targets, answers.scaling_policies),
        series=tuple(series),
        operations=tuple(ops),
        throttles=tuple(throttles(series, gsis)),
        insights=tuple(states),
        reports=tuple(found),
        keys=tuple(keys),
        item_bytes=item_bytes,
        item_bytes_source=item_source,
        missing=tuple(missing),
    )
