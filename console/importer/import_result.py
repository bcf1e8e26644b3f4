"""What `hotbench import` read from an account, as numbers: the typed result a playbook
is rendered from.

Everything here is what was read or fitted, with where it came from; nothing here knows
the playbook format (console/importer/playbook_draft.py renders it). Times are aware
UTC datetimes. A piece of data the account did not give is never silently filled: it is
a `MissingData` saying what is missing and what the playbook assumes instead.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from loadgen.analysis.keyfit import KeyFit

KeyType = Literal["S", "N", "B"]


@dataclass(frozen=True)
class TimeWindow:
    """[start, end) in aware UTC, cut into periods of `period_s` (60: CloudWatch's
    one-minute data, kept 15 days; older windows get 300 or 3600, see time_window.py)."""

    start: datetime
    end: datetime
    period_s: int = 60

    @property
    def periods(self) -> int:
        return int((self.end - self.start).total_seconds()) // self.period_s

    def period_start(self, i: int) -> datetime:
        return self.start + timedelta(seconds=i * self.period_s)


@dataclass(frozen=True)
class KeyPart:
    """A key attribute: its name and DynamoDB type."""

    name: str
    type: KeyType


@dataclass(frozen=True)
class UnitsPair:
    """A read and a write figure (capacity units, request units, units per second);
    None where DynamoDB gave none."""

    read: float | None = None
    write: float | None = None


@dataclass(frozen=True)
class ImportedIndex:
    """A GSI or an LSI as DescribeTable shows it."""

    name: str
    kind: Literal["GSI", "LSI"]
    partition_key: KeyPart
    sort_key: KeyPart | None
    projection: str
    """ALL, KEYS_ONLY or INCLUDE."""
    non_key_attributes: tuple[str, ...] = ()
    provisioned: UnitsPair = UnitsPair()
    """GSI on a provisioned table: its read and write capacity units."""
    on_demand_max: UnitsPair = UnitsPair()
    warm_throughput: UnitsPair = UnitsPair()
    warm_status: str | None = None
    item_count: int | None = None
    size_bytes: int | None = None
    status: str | None = None


@dataclass(frozen=True)
class TableDefinition:
    """A table as DescribeTable shows it, now (not as it was during the window: the
    auto scaling targets and the Provisioned*CapacityUnits series say how it moved)."""

    name: str
    arn: str | None
    partition_key: KeyPart
    sort_key: KeyPart | None
    attributes: dict[str, KeyType]
    """Every AttributeDefinition: the table's and its indexes' key attributes."""
    billing_mode: Literal["PROVISIONED", "PAY_PER_REQUEST"]
    provisioned: UnitsPair
    on_demand_max: UnitsPair
    warm_throughput: UnitsPair
    warm_status: str | None
    table_class: str
    """STANDARD or STANDARD_INFREQUENT_ACCESS."""
    item_count: int
    size_bytes: int
    mean_item_bytes: float | None
    """size_bytes / item_count (DynamoDB updates both about every six hours); None
    without items."""
    created: datetime | None
    last_increase: datetime | None
    last_decrease: datetime | None
    decreases_today: int | None
    gsis: tuple[ImportedIndex, ...] = ()
    lsis: tuple[ImportedIndex, ...] = ()


@dataclass(frozen=True)
class ScalingTarget:
    """An Application Auto Scaling scalable target of the table or a GSI."""

    index: str | None
    """None: the table; else the GSI (ResourceId table/NAME/index/INDEX)."""
    dimension: str
    """dynamodb:table:ReadCapacityUnits, ...:WriteCapacityUnits, dynamodb:index:..."""
    min_capacity: int
    max_capacity: int
    suspended: dict[str, bool] = field(default_factory=dict)
    """DynamicScalingInSuspended, DynamicScalingOutSuspended, ScheduledScalingSuspended."""


@dataclass(frozen=True)
class ScalingPolicy:
    """A scaling policy; DynamoDB's are target tracking on its utilization metric."""

    index: str | None
    dimension: str
    name: str
    policy_type: str
    """TargetTrackingScaling (DynamoDB's) or StepScaling."""
    target_value: float | None
    """Target utilization in per cent (target tracking)."""
    metric: str | None
    """DynamoDBReadCapacityUtilization / DynamoDBWriteCapacityUtilization, or None for a
    customized metric."""
    scale_in_cooldown_s: int | None
    scale_out_cooldown_s: int | None
    disable_scale_in: bool


@dataclass(frozen=True)
class AutoScaling:
    targets: tuple[ScalingTarget, ...] = ()
    policies: tuple[ScalingPolicy, ...] = ()


@dataclass(frozen=True)
class MetricSeries:
    """One CloudWatch series over the window, one value per period from window.start."""

    metric: str
    statistic: str
    """Sum, SampleCount or Maximum."""
    index: str | None
    operation: str | None
    values: tuple[float, ...]
    """A period CloudWatch returned no datapoint for is 0.0 here (DynamoDB publishes no
    datapoint for a minute without requests); `returned` says how many it did return."""
    returned: int

    @property
    def total(self) -> float:
        return float(sum(self.values))


@dataclass(frozen=True)
class OperationTraffic:
    """Requests of one operation per period: succeeded (SuccessfulRequestLatency's
    SampleCount) plus throttled (ThrottledRequests' Sum), or estimated from consumed
    capacity when those are missing (`source` says which)."""

    operation: str
    """DynamoDB's name: PutItem, GetItem, Query, ..."""
    requests: tuple[float, ...]
    throttled: tuple[float, ...]
    source: str

    @property
    def total(self) -> float:
        return float(sum(self.requests))


@dataclass(frozen=True)
class ThrottleTotal:
    """Throttle events of one DynamoDB reason over the window, per period too."""

    index: str | None
    reason: str
    """DynamoDB's reason: TableWriteKeyRangeThroughputExceeded, IndexRead..., ..."""
    metric: str
    events: float
    per_period: tuple[float, ...]


@dataclass(frozen=True)
class InsightsState:
    """DescribeContributorInsights of the table or a GSI."""

    index: str | None
    status: str
    """ENABLED, DISABLED, ENABLING, DISABLING, FAILED, or UNKNOWN (not readable)."""
    mode: str | None
    """ACCESSED_AND_THROTTLED_KEYS or THROTTLED_KEYS."""
    rules: tuple[str, ...]
    last_update: datetime | None


@dataclass(frozen=True)
class ContributorShare:
    """One top contributor of a report: its key value(s) and share of the total."""

    keys: tuple[str, ...]
    """Partition key value, or partition and sort key values (item rules); hashed with
    --anonymize."""
    value: float
    share: float


@dataclass(frozen=True)
class KeyReport:
    """A Contributor Insights report (GetInsightRuleReport on a rule DynamoDB made)."""

    index: str | None
    rule: str
    scope: Literal["partition", "item", "unknown"]
    """PK rules count partition keys, SK rules partition and sort key pairs."""
    measure: Literal["accessed", "throttled", "unknown"]
    """C rules: most accessed; T rules: most throttled."""
    attributes: tuple[str, ...]
    """The key attributes the contributor keys are values of (from the key schema)."""
    aggregation: str
    """The rule's statistic as reported (COUNT or SUM): shares are of that."""
    total: float
    unique: int
    contributors: tuple[ContributorShare, ...]
    fit: KeyFit | None
    """None when the report had no contributors or no total."""


@dataclass(frozen=True)
class KeyDistribution:
    """How one key attribute's values are drawn, as the import concluded: measured hot
    keys with a fitted tail (from an accessed-keys report), or an assumption."""

    attribute: str
    index: str | None
    """None: the table's partition key; else the GSI whose partition key it is."""
    hot: tuple[ContributorShare, ...]
    fit: KeyFit | None
    assumed_count: int | None
    """Without a report: the number of values assumed equally likely."""
    source: str
    """Where it came from, e.g. "Contributor Insights rule ...-PKC-..., Sum over the
    window", or "assumed: uniform over the item count"."""


@dataclass(frozen=True)
class MissingData:
    """One thing the account did not give, in one line with what the playbook assumes."""

    subject: str
    """The table, index or metric it is about."""
    missing: str
    assumes: str

    def line(self) -> str:
        return f"{self.subject}: {self.missing}; assumes {self.assumes}"


@dataclass(frozen=True)
class TableImport:
    definition: TableDefinition
    auto_scaling: AutoScaling
    series: tuple[MetricSeries, ...]
    operations: tuple[OperationTraffic, ...]
    throttles: tuple[ThrottleTotal, ...]
    insights: tuple[InsightsState, ...]
    reports: tuple[KeyReport, ...]
    keys: tuple[KeyDistribution, ...]
    item_bytes: float
    """The mean item size the load should write: DescribeTable's, else estimated."""
    item_bytes_source: str
    missing: tuple[MissingData, ...]

    def series_of(
        self, metric: str, index: str | None = None, operation: str | None = None
    ) -> MetricSeries | None:
        for s in self.series:
            if s.metric == metric and s.index == index and s.operation == operation:
                return s
        return None

    def requests_per_period(self) -> tuple[float, ...]:
        """Every operation's requests added up, per period."""
        if not self.operations:
            return ()
        return tuple(
            float(sum(v)) for v in zip(*(o.requests for o in self.operations), strict=True)
        )


@dataclass(frozen=True)
class ImportResult:
    region: str
    window: TimeWindow
    tables: tuple[TableImport, ...]
    missing: tuple[MissingData, ...]
    """Not about one table: permissions not checked, the window's resolution."""
    source: str
    """"account" (read live) or "snapshot DIR"."""
    anonymized: str | None
    """The keyed hash the key values were replaced by, or None."""


def to_jsonable(value: Any) -> Any:
    """The result as JSON-ready data: dataclasses as objects, datetimes in ISO 8601."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
        if isinstance(value, KeyFit):
            out["rest"] = value.rest
        return out
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    return value
