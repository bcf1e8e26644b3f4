"""The `optimize:` section of a playbook: what `hotbench optimize` may vary, within which
bounds, and how the playbook's load becomes a month of traffic (docs/optimize.md).

Every field is optional: a playbook without the section is optimized over every table
that takes load, with bounds from `hotbench advise`'s arithmetic and a month of the
playbook's load repeated all day. The checks that need the whole playbook (a table that
exists, a key that is a partition key, a distribution that can be sharded) are in
`optimize_problems`, located at the field that is wrong so the message names its line.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from pydantic import Field, model_validator

from loadgen.format.workload_spec import StrictSpec

if TYPE_CHECKING:
    from loadgen.format.playbook import Playbook, Problem, TableSpec

HOURS_PER_MONTH = 730.0
"""AWS's month for hourly prices (https://aws.amazon.com/calculator/): 730 h = 30.42 days."""

MAX_UNITS = 40_000
"""The default per-table quota of read and of write units per second [AWS]: no capacity,
warm throughput or maximum above it is searched (a quota increase lifts it)."""

Dimension = Literal[
    "billing_mode",
    "capacity",
    "gsi_capacity",
    "warm_throughput",
    "on_demand_max",
    "table_class",
    "write_shards",
    "reserved",
    "auto_scaling",
]
"""What `keep:` may name: a dimension left as the playbook has it."""

BillingMode = Literal["PROVISIONED", "PAY_PER_REQUEST"]
TableClass = Literal["STANDARD", "STANDARD_INFREQUENT_ACCESS"]


class UnitRange(StrictSpec):
    """Units per second from `min` to `max`, both included."""

    min: int = Field(ge=1, le=MAX_UNITS)
    max: int = Field(ge=1, le=MAX_UNITS)

    @model_validator(mode="after")
    def _ordered(self) -> UnitRange:
        if self.min > self.max:
            raise ValueError(f"min {self.min:,} is above max {self.max:,}")
        return self


class ReadWrite(StrictSpec):
    """A range for each side; a side left out gets the default range (or, where nothing
    uses it, its least value)."""

    read: UnitRange | None = None
    write: UnitRange | None = None


class WriteShards(StrictSpec):
    """A partition key the application may shard: it appends `suffix` (with `{shard}`
    replaced by a number from 0) to the key's value when it writes, and reads all the
    shards back. `hotbench optimize` then searches the shard count from 1 to `max_shards`,
    as the `composite` distribution writes it (playbooks/write-sharding.yaml)."""

    key: str = Field(min_length=1)
    """The attribute whose values are sharded: the table's (or a GSI's) partition key."""
    suffix: str = "#{shard}"
    """What is appended to the value; `{shard}` is the shard number."""
    max_shards: int = Field(ge=2, le=1000)
    """The most shards the application accepts (each read of a key reads them all)."""
    attribute: str | None = Field(default=None, min_length=1, max_length=255)
    """The sharded key attribute's name in the best playbook (default `<key>Shard`)."""

    @model_validator(mode="after")
    def _one_shard_field(self) -> WriteShards:
        fields = re.findall(r"\{([^{}]*)\}", self.suffix)
        if fields != ["shard"] or self.suffix.count("{") != 1 or self.suffix.count("}") != 1:
            raise ValueError(
                f"suffix {self.suffix!r} must hold {{shard}} once and no other braces, "
                "e.g. '#{shard}'"
            )
        return self

    @property
    def sharded_attribute(self) -> str:
        return self.attribute or f"{self.key}Shard"

    @property
    def format(self) -> str:
        """The composite distribution's format: the key's value, then the suffix."""
        return "{key}" + self.suffix


class TargetRange(StrictSpec):
    """Target utilization, percent, searched in steps of 5 (Application Auto Scaling takes
    20 to 90 for DynamoDB, as the emulator checks)."""

    min: int = Field(default=20, ge=20, le=90)
    max: int = Field(default=90, ge=20, le=90)

    @model_validator(mode="after")
    def _ordered(self) -> TargetRange:
        if self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self


class ScalingSide(StrictSpec):
    """What target tracking of one side may be: its target, its minimum (MinCapacity, the
    capacity the table is created with) and its maximum (MaxCapacity); a range left out
    is searched within defaults (the minimum from what the lag arithmetic proves)."""

    target_pct: TargetRange = Field(default_factory=TargetRange)
    min: UnitRange | None = None
    max: UnitRange | None = None


class ScalingSearch(StrictSpec):
    """`auto_scaling:` of a table's search: the sides whose policy may vary; each is
    searched with and without a policy (docs/optimize.md#auto-scaling)."""

    read: ScalingSide | None = None
    write: ScalingSide | None = None

    @model_validator(mode="after")
    def _one_side(self) -> ScalingSearch:
        if self.read is None and self.write is None:
            raise ValueError("auto_scaling needs read, write or both, e.g. {write: {}}")
        return self


def _one_year() -> list[Literal[1, 3]]:
    return [1]


class TableSearch(StrictSpec):
    """What may vary on one table, and within which bounds; anything left out is searched
    within the default bounds (docs/optimize.md#the-search-space)."""

    keep: list[Dimension] = Field(default_factory=list)
    """Dimensions left as the playbook has them."""
    billing_modes: list[BillingMode] | None = Field(default=None, min_length=1)
    capacity: ReadWrite | None = None
    """Provisioned read and write capacity of the table."""
    gsis: dict[str, ReadWrite] = Field(default_factory=dict)
    """Provisioned capacity of each GSI, by name."""
    warm_throughput: ReadWrite | None = None
    on_demand_max: ReadWrite | None = None
    table_classes: list[TableClass] | None = Field(default=None, min_length=1)
    write_shards: WriteShards | None = None
    reserved_terms_years: list[Literal[1, 3]] = Field(default_factory=_one_year)
    """Terms of reserved capacity offered for a provisioned base; [] offers none."""
    step: int = Field(default=100, ge=1, le=10_000)
    """Capacity, warm throughput and maxima are searched in multiples of this."""
    auto_scaling: ScalingSearch | None = None
    """Target tracking searched for the sides it names (provisioned only); without it the
    search keeps capacity fixed."""


class MonthSpec(StrictSpec):
    """How the playbook's load becomes a month of traffic for the monthly price: the
    load's mean units per second (as simulated) for `peak_hours_per_day` hours a day,
    `off_peak_fraction` of it the rest of the day, for `days` days. Provisioned capacity
    stands the whole month; on-demand is billed for the units."""

    peak_hours_per_day: float = Field(default=24.0, gt=0, le=24)
    off_peak_fraction: float = Field(default=0.0, ge=0, le=1)
    days: float = Field(default=HOURS_PER_MONTH / 24, gt=0, le=31)
    stored_gb: float | None = Field(default=None, ge=0)
    """The table's size for storage (default: what the playbook's run leaves stored)."""

    @property
    def peak_s(self) -> float:
        return self.peak_hours_per_day * 3600.0 * self.days

    @property
    def off_peak_s(self) -> float:
        return (24.0 - self.peak_hours_per_day) * 3600.0 * self.days

    @property
    def seconds(self) -> float:
        return 24.0 * 3600.0 * self.days

    def words(self) -> str:
        rest = (
            f", {self.off_peak_fraction * 100:g} % of it the other "
            f"{24 - self.peak_hours_per_day:g} h"
            if self.peak_hours_per_day < 24 and self.off_peak_fraction > 0
            else (", idle the rest of the day" if self.peak_hours_per_day < 24 else "")
        )
        return (
            f"the playbook's load {self.peak_hours_per_day:g} h a day{rest}, {self.days:.4g} days"
        )


class OptimizeSpec(StrictSpec):
    """The `optimize:` section (docs/optimize.md)."""

    tables: dict[str, TableSearch] | None = None
    """The tables to vary, by name (default: every table that takes load)."""
    month: MonthSpec = Field(default_factory=MonthSpec)
    trials: int = Field(default=40, ge=1, le=10_000)
    """Configurations simulated per group of tables (the playbook's own and the naive fix
    are extra)."""
    seed: int = 1
    """The search's random seed: the same seed and trials give the same result."""
    max_throttle_rate: float = Field(default=0.01, ge=0, le=1)
    """Without criteria: the throttle rate each varied table must stay under."""


def optimize_problems(playbook: Playbook, warm_minimum: dict[str, int]) -> list[Problem]:
    """The optimize section against the rest of the playbook, each problem located
    (`warm_minimum`: the least warm throughput DynamoDB accepts, playbook.WARM_MINIMUM)."""
    spec = playbook.optimize
    if spec is None or spec.tables is None:
        return []
    loaded = {run.table for run in playbook.runs()}
    problems: list[Problem] = []
    for name, search in spec.tables.items():
        loc: tuple[int | str, ...] = ("optimize", "tables", name)
        table = next((t for t in playbook.tables if t.name == name), None)
        if table is None:
            names = ", ".join(t.name for t in playbook.tables)
            problems.append((loc, f"no table {name!r} (tables: {names})"))
            continue
        if name not in loaded:
            problems.append((loc, f"table {name} takes no load (load.runs), so nothing decides"))
        warm = search.warm_throughput
        for side in ("read", "write"):
            bounds = getattr(warm, side) if warm is not None else None
            if bounds is not None and bounds.min < warm_minimum[side]:
                problems.append(
                    (
                        (*loc, "warm_throughput", side, "min"),
                        f"{bounds.min:,} is below DynamoDB's least warm throughput of "
                        f"{warm_minimum[side]:,} {side} units per second",
                    )
                )
        for gsi in search.gsis:
            if gsi not in {g.name for g in table.gsis}:
                have = ", ".join(g.name for g in table.gsis) or "none"
                problems.append(((*loc, "gsis", gsi), f"table {name} has no GSI {gsi!r} ({have})"))
        if search.write_shards is not None:
            problems += _shard_problems(
                playbook, table, search.write_shards, (*loc, "write_shards")
            )
    return problems


def _shard_problems(
    playbook: Playbook, table: TableSpec, shards: WriteShards, loc: tuple[int | str, ...]
) -> list[Problem]:
    """A shardable key must be a partition key of the table or one of its GSIs, drawn from
    a finite distribution in load.attributes by one-operation phases (a mix's or
    scenario's steps name their keys themselves), and the sharded attribute new."""
    # A GSI's key of one attribute (a multi-attribute key spreads by its other
    # attributes: shard one of them by adding an attribute to the key instead).
    keys = [table.partition_key.name] + [
        g.partition_keys[0].name for g in table.gsis if len(g.partition_keys) == 1
    ]
    if shards.key not in keys:
        return [
            (
                (*loc, "key"),
                f"{shards.key!r} is no partition key of table {table.name} or its GSIs "
                f"({', '.join(dict.fromkeys(keys))})",
            )
        ]
    dist = playbook.load.attributes.get(shards.key)
    if dist is None:
        return [((*loc, "key"), f"{shards.key} has no distribution in load.attributes")]
    if dist.dist in ("uuid", "monotonic", "composite"):
        return [
            (
                (*loc, "key"),
                f"{shards.key} is drawn from a {dist.dist} distribution; sharding needs a "
                "finite one (weighted, uniform, zipf or constant) to append a suffix to",
            )
        ]
    problems: list[Problem] = []
    for phase in playbook.load.phases:
        if shards.key in phase.attributes:
            problems.append(
                (
                    (*loc, "key"),
                    f"phase {phase.name} overrides {shards.key} (phase attributes); sharding "
                    "appends the suffix to load.attributes' distribution only",
                )
            )
        elif not phase.kind.iterations.one_request:
            problems.append(
                (
                    (*loc, "key"),
                    f"phase {phase.name} runs a mix or scenario, whose steps write their own "
                    "keys: write the suffix in the steps' templates instead",
                )
            )
    taken = {k.name for t in playbook.tables for k in t.key_attributes()}
    taken |= set(playbook.load.attributes)
    if shards.sharded_attribute in taken:
        problems.append(
            (
                (*loc, "attribute"),
                f"attribute {shards.sharded_attribute!r} exists already; name the sharded "
                "key another way (attribute: ...)",
            )
        )
    return problems
