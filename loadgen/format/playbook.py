"""The playbook format: tables to test and the load to offer them, in YAML.

A playbook's `tables` list is the variant spec shared by every path: the simulation,
the live run against the emulator and the Terraform stack all build their tables from
it. Validation errors name the file, the field and what was expected, because a
playbook is written by hand and read by people under time pressure.
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from emulator.autoscaling import AutoScalingSpec
from emulator.itemsize import MAX_ITEM_BYTES
from emulator.tableconfig import MAX_KEY_PARTS, TableHistory
from loadgen.format.capacity_spec import AutoScalingSettings, History
from loadgen.format.kinds import PhaseKind, RateField, kind_of, prepare_phase
from loadgen.format.kinds.rate_curve import DIRECTORY
from loadgen.format.kinds.rate_ramp import Ramp as Ramp  # the ramp form's field, named there
from loadgen.format.optimize_spec import OptimizeSpec, TableClass, optimize_problems
from loadgen.format.playbook_error import PlaybookError as PlaybookError  # raised here, named there
from loadgen.format.workload_checks import did_you_mean, workload_problems
from loadgen.format.workload_spec import AnyStep, FailureReason, RetrySpec, Step, Think, Users

if TYPE_CHECKING:
    import yaml

NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,200}$"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class KeyAttribute(Strict):
    name: str = Field(min_length=1, max_length=255)
    """Attribute name, as in the items."""
    type: Literal["S", "N", "B"] = "S"
    """DynamoDB scalar type of the key attribute."""


class Throughput(Strict):
    read: int | None = Field(default=None, ge=1)
    """Read units per second; omit to leave unset."""
    write: int | None = Field(default=None, ge=1)
    """Write units per second; omit to leave unset."""


WARM_MINIMUM = {"read": 12_000, "write": 4_000}
"""The least warm throughput (units per second) DynamoDB accepts for a table or GSI of
either billing mode, and what a new on-demand one starts with [AWS]. The Terraform kit
(terraform/modules/spec) refuses less too, so a playbook valid here is valid there."""


class WarmThroughput(Throughput):
    """Warm throughput to request: each side omitted or at least DynamoDB's minimum."""

    @model_validator(mode="after")
    def _at_least_the_minimum(self) -> WarmThroughput:
        low = [
            f"{side} {value:,} is below DynamoDB's minimum of {WARM_MINIMUM[side]:,}"
            for side, value in (("read", self.read), ("write", self.write))
            if value is not None and value < WARM_MINIMUM[side]
        ]
        if low:
            raise ValueError(
                "warm throughput "
                + " and ".join(low)
                + " units per second; raise it, or omit that side to keep DynamoDB's own value"
            )
        return self


def _key_form(data: Any) -> str:
    """The tag of a GSI key's form: a list of attributes, or one attribute's mapping."""
    return "key=list" if isinstance(data, list) else "key=one"


GsiKey = Annotated[
    Annotated[KeyAttribute, Tag("key=one")] | Annotated[list[KeyAttribute], Tag("key=list")],
    Discriminator(_key_form),
]
"""A GSI's partition or sort key: one attribute, or a list of up to MAX_KEY_PARTS
(DynamoDB's multi-attribute keys, November 2025). A list picks its form by its shape,
so an error inside it names the attribute (`partition_key[1].name`), not the union."""


class ReservedCapacity(Strict):
    """Reserved capacity bought for a provisioned base, in blocks of 100 units for a one-
    or three-year term, a partial upfront payment plus an hourly rate
    (https://aws.amazon.com/dynamodb/pricing/provisioned/, "Reserved capacity"). It
    changes the bill, never the throughput."""

    write: int = Field(default=0, ge=0, multiple_of=100)
    read: int = Field(default=0, ge=0, multiple_of=100)
    term_years: Literal[1, 3] = 1


class GsiSpec(Strict):
    name: str = Field(pattern=NAME_PATTERN)
    partition_key: GsiKey
    """One attribute, or up to four (a multi-attribute key: hashed together)."""
    sort_key: GsiKey | None = None
    """One attribute, or up to four (ordered by the first, then the second, ...)."""
    projection: Literal["ALL", "KEYS_ONLY", "INCLUDE"] = "ALL"
    non_key_attributes: list[str] = Field(default_factory=list)
    read_capacity: int | None = Field(default=None, ge=1)
    """Provisioned RCU (PROVISIONED tables only)."""
    write_capacity: int | None = Field(default=None, ge=1)
    """Provisioned WCU (PROVISIONED tables only)."""
    on_demand_max: Throughput | None = None
    warm_throughput: WarmThroughput | None = None
    auto_scaling: AutoScalingSettings | None = None
    """Target tracking on this GSI's provisioned capacity (PROVISIONED tables only)."""

    @field_validator("partition_key", "sort_key")
    @classmethod
    def _within_dynamodbs_limits(
        cls, key: KeyAttribute | list[KeyAttribute] | None, info: ValidationInfo
    ) -> KeyAttribute | list[KeyAttribute] | None:
        # DynamoDB's limits, said here with the field's line rather than by CreateTable.
        if not isinstance(key, list):
            return key
        if not 1 <= len(key) <= MAX_KEY_PARTS:
            raise ValueError(
                f"a GSI's {info.field_name} takes 1 to {MAX_KEY_PARTS} attributes "
                f"(DynamoDB's limit for multi-attribute keys), got {len(key)}"
            )
        names = [k.name for k in key]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"attribute {twice[0]!r} is named twice; each key attribute once")
        return key

    @property
    def partition_keys(self) -> list[KeyAttribute]:
        """The partition-key attributes in key-schema order (one for a classic key)."""
        key = self.partition_key
        return list(key) if isinstance(key, list) else [key]

    @property
    def sort_keys(self) -> list[KeyAttribute]:
        """The sort-key attributes in key-schema order (none, one, or up to four)."""
        key = self.sort_key
        if key is None:
            return []
        return list(key) if isinstance(key, list) else [key]

    @property
    def multi_attribute(self) -> bool:
        """Whether either key has more than one attribute (DynamoDB's multi-attribute
        keys: the Terraform kit's AWS provider must support them)."""
        return len(self.partition_keys) > 1 or len(self.sort_keys) > 1

    def key_names(self) -> list[str]:
        """The index's key attributes: partition keys, then sort keys."""
        return [k.name for k in (*self.partition_keys, *self.sort_keys)]

    @model_validator(mode="after")
    def _include_names_attributes(self) -> GsiSpec:
        # DynamoDB refuses an INCLUDE projection without NonKeyAttributes at CreateTable:
        # said here, before a run, rather than by the table that fails to create.
        if self.projection == "INCLUDE" and not self.non_key_attributes:
            raise ValueError(
                "projection INCLUDE needs non_key_attributes (at least one name); "
                "use KEYS_ONLY to project the keys alone"
            )
        if self.projection != "INCLUDE" and self.non_key_attributes:
            raise ValueError(
                f"non_key_attributes apply to projection INCLUDE, not {self.projection}"
            )
        return self


class GsiCapacityChange(Strict):
    """One GSI's part of a phase's `update_table` (GlobalSecondaryIndexUpdates' Update)."""

    read_capacity: int | None = Field(default=None, ge=1)
    write_capacity: int | None = Field(default=None, ge=1)
    """Provisioned units; one side alone keeps the other as it is in force."""
    warm_throughput: WarmThroughput | None = None

    @model_validator(mode="after")
    def _something(self) -> GsiCapacityChange:
        if not self.model_fields_set:
            raise ValueError("give read_capacity, write_capacity or warm_throughput")
        return self


class CapacityChange(Strict):
    """A phase's `update_table`: the capacity settings an UpdateTable asks for, of the
    table and its GSIs (docs/playbooks.md#capacity-changes-during-a-run). A side left out
    keeps what is in force when the phase starts (DynamoDB's ProvisionedThroughput takes
    both: the runner fills the other from the table as it stands)."""

    read_capacity: int | None = Field(default=None, ge=1)
    write_capacity: int | None = Field(default=None, ge=1)
    billing_mode: Literal["PROVISIONED", "PAY_PER_REQUEST"] | None = None
    warm_throughput: WarmThroughput | None = None
    on_demand_max: Throughput | None = None
    gsis: dict[str, GsiCapacityChange] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> CapacityChange:
        if not self.model_fields_set - {"gsis"} and not self.gsis:
            raise ValueError(
                "give at least one of read_capacity, write_capacity, billing_mode, "
                "warm_throughput, on_demand_max or gsis"
            )
        units = self.read_capacity is not None or self.write_capacity is not None
        if self.billing_mode == "PAY_PER_REQUEST" and units:
            raise ValueError(
                "billing_mode PAY_PER_REQUEST takes no read_capacity/write_capacity "
                "(use on_demand_max to cap it)"
            )
        if self.billing_mode == "PROVISIONED" and (
            self.read_capacity is None or self.write_capacity is None
        ):
            raise ValueError(
                "billing_mode PROVISIONED needs read_capacity and write_capacity (and each "
                "GSI's under gsis)"
            )
        if self.billing_mode == "PROVISIONED" and self.on_demand_max is not None:
            raise ValueError("on_demand_max applies to PAY_PER_REQUEST, not PROVISIONED")
        return self

    def request(self, table_name: str, in_force: Mapping[str, Any]) -> dict[str, Any]:
        """The change as a DynamoDB UpdateTable request (boto3 keyword arguments), one
        for every target and the simulation. `in_force`: the table as DescribeTable
        describes it when the phase starts; a provisioned side left out is taken from
        it (ProvisionedThroughput carries both)."""

        def units(entry: Mapping[str, Any], read: int | None, write: int | None) -> dict[str, int]:
            now = entry.get("ProvisionedThroughput") or {}
            return {
                "ReadCapacityUnits": int(
                    read if read is not None else now.get("ReadCapacityUnits", 0)
                ),
                "WriteCapacityUnits": int(
                    write if write is not None else now.get("WriteCapacityUnits", 0)
                ),
            }

        def pair(t: Throughput | None, read: str, write: str) -> dict[str, int] | None:
            if t is None:
                return None
            return {k: v for k, v in ((read, t.read), (write, t.write)) if v is not None}

        req: dict[str, Any] = {"TableName": table_name}
        if self.billing_mode is not None:
            req["BillingMode"] = self.billing_mode
        if self.read_capacity is not None or self.write_capacity is not None:
            req["ProvisionedThroughput"] = units(in_force, self.read_capacity, self.write_capacity)
        if warm := pair(self.warm_throughput, "ReadUnitsPerSecond", "WriteUnitsPerSecond"):
            req["WarmThroughput"] = warm
        if odt := pair(self.on_demand_max, "MaxReadRequestUnits", "MaxWriteRequestUnits"):
            req["OnDemandThroughput"] = odt
        described = {g.get("IndexName"): g for g in in_force.get("GlobalSecondaryIndexes") or []}
        updates = []
        for name, gsi in self.gsis.items():
            body: dict[str, Any] = {"IndexName": name}
            if gsi.read_capacity is not None or gsi.write_capacity is not None:
                body["ProvisionedThroughput"] = units(
                    described.get(name) or {}, gsi.read_capacity, gsi.write_capacity
                )
            if warm := pair(gsi.warm_throughput, "ReadUnitsPerSecond", "WriteUnitsPerSecond"):
                body["WarmThroughput"] = warm
            updates.append({"Update": body})
        if updates:
            req["GlobalSecondaryIndexUpdates"] = updates
        return req

    def words(self) -> str:
        """The change for people: `write 8,000, read 100 WCU/RCU`, `billing PAY_PER_REQUEST`."""
        parts = []
        if self.billing_mode is not None:
            parts.append(f"billing {self.billing_mode}")
        for side, value in (("read", self.read_capacity), ("write", self.write_capacity)):
            if value is not None:
                parts.append(f"{side} {value:,}")
        for what, pair in (("warm", self.warm_throughput), ("on-demand max", self.on_demand_max)):
            if pair is not None:
                sides = [f"{s} {v:,}" for s, v in (("read", pair.read), ("write", pair.write)) if v]
                parts.append(f"{what} {' '.join(sides)}")
        for name, gsi in self.gsis.items():
            sides = [
                f"{s} {v:,}"
                for s, v in (("read", gsi.read_capacity), ("write", gsi.write_capacity))
                if v is not None
            ]
            if gsi.warm_throughput is not None:
                sides.append("warm")
            parts.append(f"{name}: {' '.join(sides)}")
        return ", ".join(parts)


class TableSpec(Strict):
    """One table variant."""

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    """Variant name; the physical table is named `<prefix>-<run id>-<name>` on AWS."""
    partition_key: KeyAttribute
    sort_key: KeyAttribute | None = None
    billing_mode: Literal["PROVISIONED", "PAY_PER_REQUEST"] = "PROVISIONED"
    read_capacity: int | None = Field(default=None, ge=1)
    write_capacity: int | None = Field(default=None, ge=1)
    on_demand_max: Throughput | None = None
    warm_throughput: WarmThroughput | None = None
    contributor_insights: Literal["THROTTLED_KEYS", "ACCESSED_AND_THROTTLED_KEYS"] | None = None
    auto_scaling: AutoScalingSettings | None = None
    """Application Auto Scaling target tracking on the table's provisioned capacity
    (PROVISIONED only; each GSI has its own)."""
    history: History | None = None
    """What the table did before the run (its previous on-demand peak, provisioned
    capacity, warm throughput): it starts with the partitions and ceiling that left."""
    gsis: list[GsiSpec] = Field(default_factory=list)
    item_size_bytes: int = Field(default=1000, ge=1, le=MAX_ITEM_BYTES)
    """Size of each written item, attribute names included (it decides the WCU)."""
    seed_items: int = Field(default=0, ge=0, le=10_000_000)
    """Items written before the load starts (live runs)."""
    table_class: TableClass = "STANDARD"
    """STANDARD, or STANDARD_INFREQUENT_ACCESS (storage cheaper, requests and capacity
    dearer: docs/cost.md); the same throughput either way."""
    reserved_capacity: ReservedCapacity | None = None
    """Reserved capacity bought for this table's provisioned base: billing only."""

    @model_validator(mode="after")
    def _reservation_fits(self) -> TableSpec:
        reserved = self.reserved_capacity
        if reserved is None:
            return self
        if self.billing_mode != "PROVISIONED" or self.table_class != "STANDARD":
            raise ValueError(
                "reserved_capacity applies to PROVISIONED tables of table_class STANDARD "
                "(https://aws.amazon.com/dynamodb/pricing/provisioned/)"
            )
        wcu = (self.write_capacity or 0) + sum(g.write_capacity or 0 for g in self.gsis)
        rcu = (self.read_capacity or 0) + sum(g.read_capacity or 0 for g in self.gsis)
        if reserved.write > wcu or reserved.read > rcu:
            raise ValueError(
                f"reserved_capacity ({reserved.write:,} write, {reserved.read:,} read) is more "
                f"than the table and its GSIs provision ({wcu:,} write, {rcu:,} read)"
            )
        return self

    @field_validator("partition_key", "sort_key", mode="before")
    @classmethod
    def _one_attribute(cls, key: Any, info: ValidationInfo) -> Any:
        # [AWS] only a GSI's key may have several attributes; a table's is one each.
        if isinstance(key, list):
            raise ValueError(
                f"a table's {info.field_name} is one attribute ({{name: ..., type: ...}}); "
                "a list of attributes (a multi-attribute key) is for a GSI's keys"
            )
        return key

    @model_validator(mode="after")
    def _capacity_matches_billing(self) -> TableSpec:
        provisioned = self.billing_mode == "PROVISIONED"
        owners: list[tuple[str, int | None, int | None, AutoScalingSettings | None]] = [
            ("table", self.read_capacity, self.write_capacity, self.auto_scaling)
        ] + [
            (f"gsi {g.name}", g.read_capacity, g.write_capacity, g.auto_scaling) for g in self.gsis
        ]
        for where, rcu, wcu, scaling in owners:
            if not provisioned and scaling is not None:
                raise ValueError(
                    f"{where}: auto_scaling applies to PROVISIONED capacity; a "
                    "PAY_PER_REQUEST table scales by itself (use on_demand_max to cap it)"
                )
            if provisioned and (rcu is None or wcu is None):
                raise ValueError(f"{where}: PROVISIONED needs read_capacity and write_capacity")
            if not provisioned and (rcu is not None or wcu is not None):
                raise ValueError(
                    f"{where}: PAY_PER_REQUEST takes no read_capacity/"
                    "write_capacity (use on_demand_max to cap it)"
                )
        types: dict[str, str] = {}
        for key in self.key_attributes():
            if types.setdefault(key.name, key.type) != key.type:
                raise ValueError(
                    f"attribute {key.name} is typed both {types[key.name]} and {key.type}"
                )
        if len({g.name for g in self.gsis}) != len(self.gsis):
            raise ValueError("GSI names must be unique")
        return self

    def primary_key_names(self) -> list[str]:
        """The table's own key attributes: partition key, then sort key if any."""
        return [self.partition_key.name] + ([self.sort_key.name] if self.sort_key else [])

    def key_attributes(self) -> list[KeyAttribute]:
        keys = [self.partition_key] + ([self.sort_key] if self.sort_key else [])
        for g in self.gsis:
            keys += [*g.partition_keys, *g.sort_keys]
        return keys

    def auto_scaling_specs(self) -> dict[str | None, AutoScalingSpec]:
        """The emulator's auto scaling of the table (key None) and of each GSI that has
        one (by name): what `CapacityModel.create_table` and the emulator's
        `/_hotbench/tables/T/auto-scaling` route take."""
        out: dict[str | None, AutoScalingSpec] = {}
        if self.auto_scaling is not None:
            out[None] = self.auto_scaling.spec()
        for g in self.gsis:
            if g.auto_scaling is not None:
                out[g.name] = g.auto_scaling.spec()
        return out

    def table_history(self) -> TableHistory | None:
        """The emulator's `TableHistory` of this variant (None: a new table)."""
        return None if self.history is None else self.history.table_history()

    def create_table_request(
        self, table_name: str, tags: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """This variant as a DynamoDB CreateTable request (boto3 keyword arguments). A
        history travels as the `hotbench:history` tag (`TableHistory.tag`): the emulator
        reads it, AWS keeps it as a label."""

        def schema(pks: list[KeyAttribute], sks: list[KeyAttribute]) -> list[dict[str, str]]:
            # A multi-attribute key: every HASH element, in order, then every RANGE one.
            return [{"AttributeName": k.name, "KeyType": "HASH"} for k in pks] + [
                {"AttributeName": k.name, "KeyType": "RANGE"} for k in sks
            ]

        def throughput(t: Throughput | None, read: str, write: str) -> dict[str, int] | None:
            if t is None:
                return None
            return {k: v for k, v in ((read, t.read), (write, t.write)) if v is not None}

        attrs: dict[str, str] = {}
        for key in self.key_attributes():
            attrs[key.name] = key.type
        req: dict[str, Any] = {
            "TableName": table_name,
            "KeySchema": schema([self.partition_key], [self.sort_key] if self.sort_key else []),
            "AttributeDefinitions": [
                {"AttributeName": n, "AttributeType": t} for n, t in attrs.items()
            ],
            "BillingMode": self.billing_mode,
        }
        if self.billing_mode == "PROVISIONED":
            req["ProvisionedThroughput"] = {
                "ReadCapacityUnits": self.read_capacity,
                "WriteCapacityUnits": self.write_capacity,
            }
        if odt := throughput(self.on_demand_max, "MaxReadRequestUnits", "MaxWriteRequestUnits"):
            req["OnDemandThroughput"] = odt
        if warm := throughput(self.warm_throughput, "ReadUnitsPerSecond", "WriteUnitsPerSecond"):
            req["WarmThroughput"] = warm
        if self.table_class != "STANDARD":
            req["TableClass"] = self.table_class
        if self.gsis:
            gsis = []
            for g in self.gsis:
                proj: dict[str, Any] = {"ProjectionType": g.projection}
                if g.projection == "INCLUDE":
                    proj["NonKeyAttributes"] = list(g.non_key_attributes)
                entry: dict[str, Any] = {
                    "IndexName": g.name,
                    "KeySchema": schema(g.partition_keys, g.sort_keys),
                    "Projection": proj,
                }
                if self.billing_mode == "PROVISIONED":
                    entry["ProvisionedThroughput"] = {
                        "ReadCapacityUnits": g.read_capacity,
                        "WriteCapacityUnits": g.write_capacity,
                    }
                if godt := throughput(
                    g.on_demand_max, "MaxReadRequestUnits", "MaxWriteRequestUnits"
                ):
                    entry["OnDemandThroughput"] = godt
                if gwarm := throughput(
                    g.warm_throughput, "ReadUnitsPerSecond", "WriteUnitsPerSecond"
                ):
                    entry["WarmThroughput"] = gwarm
                gsis.append(entry)
            req["GlobalSecondaryIndexes"] = gsis
        tag_list = [{"Key": k, "Value": v} for k, v in (tags or {}).items()]
        history = self.table_history()
        if history is not None:
            tag_list.append(history.tag())
        if tag_list:
            req["Tags"] = tag_list
        return req


# --- key distributions ---------------------------------------------------------------------


class _Dist(Strict):
    type: Literal["S", "N"] = "S"
    """DynamoDB type of the generated values."""
    per_item: bool = False
    """Fixed per item: derived from the item's primary key instead of drawn per request
    (a SKU's shelf number), so rewriting an item never moves it within a GSI."""

    def describe(self) -> str:
        """The distribution in words, for people (the console's plan, reports)."""
        return self._words() + (", fixed per item" if self.per_item else "")

    def _words(self) -> str:
        return str(getattr(self, "dist", "?"))


def _values(count: int, start: int, format: str | None) -> str:
    """`100,000 values SKU-000000..SKU-099999` (or the numbers when unformatted)."""
    first, last = start, start + count - 1
    if format:
        with contextlib.suppress(ValueError, IndexError, KeyError):
            return f"{count:,} values {format.format(first)}..{format.format(last)}"
    return f"{count:,} values {first}..{last}"


class WeightedDist(_Dist):
    """A few named values with weights, e.g. 80/10/10 over warehouses."""

    dist: Literal["weighted"]
    weights: dict[str, float] = Field(min_length=1)

    def _words(self) -> str:
        total = sum(self.weights.values())
        ranked = sorted(self.weights.items(), key=lambda kv: -kv[1])
        shown = [f"{k} {v / total * 100:.3g} %" for k, v in ranked[:3]]
        return ", ".join(shown + (["..."] if len(ranked) > 3 else []))

    @model_validator(mode="after")
    def _positive(self) -> WeightedDist:
        if any(w < 0 for w in self.weights.values()) or sum(self.weights.values()) <= 0:
            raise ValueError("weights must be non-negative and not all zero")
        return self


class UniformDist(_Dist):
    """Uniform over `count` values start..start+count-1, rendered with `format`."""

    dist: Literal["uniform"]
    count: int = Field(ge=1, le=1_000_000_000)
    start: int = 0
    format: str | None = None
    """Python format for the number, e.g. 'SKU-{:05d}' (strings only)."""

    def _words(self) -> str:
        return "uniform over " + _values(self.count, self.start, self.format)


class ZipfDist(_Dist):
    """Zipf(s) over `count` ranked values: value k has weight 1/k^s."""

    dist: Literal["zipf"]
    count: int = Field(ge=1, le=10_000_000)
    s: float = Field(default=1.1, gt=0)
    start: int = 0
    format: str | None = None

    def _words(self) -> str:
        return f"zipf (s {self.s:g}) over " + _values(self.count, self.start, self.format)


class UuidDist(_Dist):
    """A fresh random UUID per request: a key that never repeats."""

    dist: Literal["uuid"]

    def _words(self) -> str:
        return "a new UUID per request"


class MonotonicDist(_Dist):
    """Timestamp-like: every request's value is larger than the last."""

    dist: Literal["monotonic"]
    start: int = 1_764_460_800_000
    format: str | None = None

    def _words(self) -> str:
        return "increasing with every request (timestamp-like)"


class ConstantDist(_Dist):
    """One value for every request."""

    dist: Literal["constant"]
    value: str

    def _words(self) -> str:
        return f"always {self.value}"


class CompositeDist(_Dist):
    """A value built from parts, e.g. '{warehouse}#{shard}' for write sharding."""

    dist: Literal["composite"]
    format: str
    parts: dict[str, Distribution] = Field(min_length=1)

    def _words(self) -> str:
        parts = "; ".join(f"{name}: {part.describe()}" for name, part in self.parts.items())
        return f"{self.format} with {parts}"


Distribution = Annotated[
    WeightedDist | UniformDist | ZipfDist | UuidDist | MonotonicDist | ConstantDist | CompositeDist,
    Field(discriminator="dist"),
]
CompositeDist.model_rebuild()


# --- load ----------------------------------------------------------------------------------


class Scenario(Strict):
    """Named, ordered steps a user runs as one iteration, with per-user variables
    (docs/playbooks.md#scenarios)."""

    description: str = ""
    vars: dict[str, str | int | float | Distribution] = Field(default_factory=dict)
    """Variable -> a value, a template such as "ns-{user}" (evaluated at the start of
    every iteration), or a distribution (drawn at the start of every iteration)."""
    steps: list[Step] = Field(min_length=1, max_length=200)


class Phase(Strict):
    """One phase of the load. Which kind of phase it is (how arrivals come x what an
    iteration does) is read from these fields once, at validation, into `kind`
    (loadgen.format.kinds), which is all that anything above the format asks."""

    name: str = "phase"
    operation: Literal["put", "update", "get", "query"] = "put"
    rate: RateField | None = None
    """Requests per second offered (open loop); 0 for an idle pause. With a mix or a
    scenario: iterations started per second. Or a per-minute curve of rates."""
    ramp: Ramp | None = None
    users: Annotated[int, Field(ge=0, le=100_000)] | Users | None = None
    """A closed population instead of a rate: each user starts its next iteration when
    the last one ended (plus `think_s`, or on the `pacing_s` beat)."""
    think_s: Think | None = None
    """Closed loop: pause between a user's iterations."""
    pacing_s: float | None = Field(default=None, gt=0)
    """Closed loop: a user starts an iteration every pacing_s seconds (or at once when
    the last took longer), instead of a think time."""
    max_users: int | None = Field(default=None, ge=1, le=100_000)
    """Open arrivals of a mix or scenario: users available to run iterations (k6's
    maxVUs); an arrival with none free is a dropped iteration. Default 1000."""
    mix: list[Step] | None = Field(default=None, min_length=1, max_length=100)
    """Weighted operations: each iteration is one entry, chosen by `weight`."""
    scenario: str | None = None
    """The name of a scenario in load.scenarios that each iteration runs."""
    retry: RetrySpec = Field(default_factory=RetrySpec)
    """The application's SDK retry policy (none, standard, legacy, adaptive)."""
    duration_s: float = Field(gt=0, le=7 * 24 * 3600)
    """Seconds the phase lasts (a per-minute curve sets it: a minute per rate)."""
    consistent_read: bool = False
    attributes: dict[str, Distribution] = Field(default_factory=dict)
    """Overrides of load.attributes for this phase (e.g. reads over seeded keys)."""
    update_table: CapacityChange | None = None
    """A capacity change instead of load: an UpdateTable of the table taking the run,
    made when the phase starts (docs/playbooks.md#capacity-changes-during-a-run)."""
    wait: Literal["active", "none"] | None = None
    """With update_table: `active` (the default) holds the next phase until the table
    and its GSIs are ACTIVE again; `none` goes on when `duration_s` has passed."""

    _kind: PhaseKind | None = PrivateAttr(default=None)

    @model_validator(mode="before")
    @classmethod
    def _form_defaults(cls, data: Any, info: ValidationInfo) -> Any:
        return prepare_phase(data, info.context)

    @model_validator(mode="after")
    def _derive_kind(self) -> Phase:
        self._kind = kind_of(self)
        return self

    @property
    def kind(self) -> PhaseKind:
        """What the phase is: its arrivals x its iterations (loadgen.format.kinds)."""
        if self._kind is None:  # a phase built without validation (model_construct)
            self._kind = kind_of(self)
        return self._kind

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy, whose kind is derived again when `update` changes its fields."""
        copied = super().model_copy(update=update, deep=deep)
        if update:
            copied._kind = kind_of(copied)
        return copied


class RunSpec(Strict):
    table: str
    repeats: int = Field(default=1, ge=1, le=100)
    pause_s: float = Field(default=0.0, ge=0)
    """Idle time before each repeat after the first."""


class LoadSpec(Strict):
    attributes: dict[str, Distribution] = Field(default_factory=dict)
    phases: list[Phase] = Field(min_length=1)
    runs: list[RunSpec] | None = None
    """Which tables take the load, in order; default every table once."""
    seed_attributes: dict[str, Distribution] = Field(default_factory=dict)
    """Distributions that enumerate the seeded items' keys (default: load.attributes);
    seeding takes the first `seed_items` combinations of the finite primary-key values."""
    seed: int = 20261130
    """Random seed: the same playbook gives the same keys."""
    scenarios: dict[str, Scenario] = Field(default_factory=dict)
    """Named scenarios that phases run (`scenario: NAME`)."""

    def iteration_steps(self, phase: Phase) -> tuple[list[AnyStep], list[str]]:
        """Every step `phase`'s iterations can run, in order (its mix's entries or its
        scenario's steps, then the steps of each scenario a mix entry calls, once), the
        calling entries included (results name them too); and the scenarios run, in the
        same order (their variables are what the steps' templates may name). For the
        criteria's step names and advise's findings, which must see the same steps."""
        steps: list[AnyStep] = []
        pending, run = phase.kind.iterations.own_steps(self.scenarios)
        called: set[str] = set()
        while pending:
            step = pending.pop(0)
            steps.append(step)
            if step.op == "scenario":
                name = step.scenario
                if name in self.scenarios and name not in called:
                    called.add(name)
                    pending += self.scenarios[name].steps
                    run.append(name)
        return steps, run


# --- criteria ------------------------------------------------------------------------------

Metric = Literal[
    "throttle_rate",
    "achieved_rate",
    "p99_latency_ms",
    "first_throttle_s",
    "consumed_wcu_peak",
    "consumed_rcu_peak",
    "cost_usd",
    "iteration_rate",
    "scenario_failure_rate",
    "step_p99_ms",
    "app_error_rate",
]
"""What a criterion measures (docs/checks.md has the exact definition of each)."""

ITERATION_METRICS = frozenset(
    {"iteration_rate", "scenario_failure_rate", "step_p99_ms", "app_error_rate"}
)
"""Metrics of a mix's or scenario's iterations (the application's view of a run)."""

THROTTLE_REASON_PATTERN = (
    r"^(Table|Index)(Read|Write)"
    r"(KeyRange|Provisioned|AccountLimit|MaxOnDemand)ThroughputExceeded$"
)
"""DynamoDB's throttle reasons, as the results count them (docs/results.md)."""


class CriterionComparison(Strict):
    """The measured value against the same metric on another variant or run:
    `measured / other <= max_ratio` (and/or `>= min_ratio`)."""

    table: str
    repeat: int | None = Field(default=None, ge=1)
    """One repeat of that table; default all its runs taken together."""
    max_ratio: float | None = Field(default=None, ge=0)
    min_ratio: float | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _a_bound(self) -> CriterionComparison:
        if self.max_ratio is None and self.min_ratio is None:
            raise ValueError("give max_ratio and/or min_ratio")
        return self


class Criterion(Strict):
    """One thing that must hold for the check to pass; `name` is what the report shows."""

    name: str = Field(min_length=1, max_length=200)
    metric: Metric
    table: str | None = None
    """The variant it is about; default every run of the playbook taken together."""
    repeat: int | None = Field(default=None, ge=1)
    """One run (repeat) of the table; default all its repeats taken together."""
    phase: str | None = None
    """One phase of the load; default the whole run."""
    reason: str | None = Field(default=None, pattern=THROTTLE_REASON_PATTERN)
    """throttle_rate only: count just this DynamoDB throttle reason."""
    window_s: Literal[1, 60] = 60
    """Peaks only: the averaging window (60 = CloudWatch's 1-minute Sum/60)."""
    failure: FailureReason | None = None
    """scenario_failure_rate only: count just the iterations that failed for this reason."""
    step: str | None = None
    """step_p99_ms only (required): the step, by its name in the scenario or mix."""
    trend: bool = False
    """iteration_rate only: measure the rate of the last `trend_window_s` divided by the
    rate of the first (1.0 = flat; 0.1 = fell to a tenth), instead of the rate."""
    trend_window_s: float = Field(default=3600, gt=0)
    """The windows a trend compares (default an hour: the last hour against the first)."""
    max: float | None = None
    min: float | None = None
    compare: CriterionComparison | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Criterion:
        bounds = self.max is not None or self.min is not None
        if bounds == (self.compare is not None):
            raise ValueError("give max and/or min, or compare (not both)")
        if self.max is not None and self.min is not None and self.min > self.max:
            raise ValueError(f"min {self.min:g} is above max {self.max:g}")
        if self.reason is not None and self.metric != "throttle_rate":
            raise ValueError("reason applies to throttle_rate only")
        if self.repeat is not None and self.table is None:
            raise ValueError("repeat needs table")
        if self.phase is not None and self.metric in ("p99_latency_ms", "cost_usd"):
            raise ValueError(f"{self.metric} is measured per run, not per phase: drop phase")
        if self.compare is not None and self.metric == "first_throttle_s":
            raise ValueError("first_throttle_s takes max or min seconds, not compare")
        if self.failure is not None and self.metric != "scenario_failure_rate":
            raise ValueError("failure applies to scenario_failure_rate only")
        if (self.step is not None) != (self.metric == "step_p99_ms"):
            raise ValueError("step_p99_ms needs step (the step's name); other metrics take none")
        if self.trend and self.metric != "iteration_rate":
            raise ValueError("trend applies to iteration_rate only")
        if self.trend and self.compare is not None:
            raise ValueError("a trend is a ratio already: give max and/or min, not compare")
        return self


class Playbook(Strict):
    name: str = Field(pattern=NAME_PATTERN)
    description: str = ""
    tables: list[TableSpec] = Field(min_length=1)
    load: LoadSpec
    criteria: list[Criterion] = Field(default_factory=list)
    """What must hold for `hotbench check` to pass (docs/checks.md)."""
    fleet: Literal["lambda", "ecs"] | None = None
    """Which AWS fleet runs this playbook's workers on `--target aws` (and prices a local
    run's "would cost on AWS"): Lambda invocations or ECS Fargate tasks. `--fleet` and
    HOTBENCH_FLEET override it; None: the default (docs/terraform.md#the-fleet)."""
    optimize: OptimizeSpec | None = None
    """What `hotbench optimize` may vary, and how the load becomes a month
    (docs/optimize.md)."""

    @model_validator(mode="after")
    def _unique_tables(self) -> Playbook:
        names = [t.name for t in self.tables]
        if len(set(names)) != len(names):
            raise ValueError("table names must be unique")
        return self

    def runs(self) -> list[RunSpec]:
        return self.load.runs or [RunSpec(table=t.name) for t in self.tables]

    def table(self, name: str) -> TableSpec:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)


Problem = tuple[tuple[int | str, ...], str]
"""A located problem: the field path (as pydantic's `loc`) and the message."""


def reference_problems(playbook: Playbook) -> list[Problem]:
    """Runs that name an unknown table and tables whose key attributes have no
    distribution, each located at the field that is wrong (the table's key line), which
    a model validator cannot do: its errors sit at the level of the model."""
    names = [t.name for t in playbook.tables]
    problems: list[Problem] = []
    for i, run in enumerate(playbook.load.runs or []):
        if run.table not in names:
            problems.append(
                (
                    ("load", "runs", i, "table"),
                    f"names table {run.table!r}, which is not in tables ({', '.join(names)})",
                )
            )
    for i, table in enumerate(playbook.tables):
        keys: list[tuple[tuple[int | str, ...], KeyAttribute]] = [
            (("tables", i, "partition_key"), table.partition_key)
        ]
        if table.sort_key is not None:
            keys.append((("tables", i, "sort_key"), table.sort_key))
        for g, gsi in enumerate(table.gsis):
            for field_name in ("partition_key", "sort_key"):
                key = getattr(gsi, field_name)
                at: tuple[int | str, ...] = ("tables", i, "gsis", g, field_name)
                if isinstance(key, list):  # each attribute at its own line
                    keys += [((*at, a), attribute) for a, attribute in enumerate(key)]
                elif key is not None:
                    keys.append((at, key))
        for loc, key in keys:
            # A mix's or scenario's steps name their keys themselves (workload_checks);
            # a closed loop of one operation draws its primary key, and writes an item
            # without a GSI's attributes into no entry of that (sparse) index.
            drawing = [p for p in playbook.load.phases if p.kind.draws_key("gsis" in loc)]
            missing = [
                phase.name
                for phase in drawing
                if key.name not in {**playbook.load.attributes, **phase.attributes}
            ]
            if missing:
                where = (
                    "load.attributes"
                    if len(missing) == len(drawing)
                    else f"load.attributes or phase(s) {', '.join(missing)}"
                )
                problems.append(
                    (
                        loc,
                        f"table {table.name} needs key attribute {key.name!r}, which has no "
                        f"distribution in {where}; add `{key.name}: {{dist: ...}}` there",
                    )
                )
    return problems


def criteria_problems(playbook: Playbook) -> list[tuple[tuple[int | str, ...], str]]:
    """Criteria that name a table, repeat or phase the load never produces, each with its
    location, so the message can point at the line (a model validator cannot)."""
    repeats: dict[str, int] = {}
    for run in playbook.runs():
        repeats[run.table] = repeats.get(run.table, 0) + run.repeats
    phases = [p.name for p in playbook.load.phases]
    problems: list[tuple[tuple[int | str, ...], str]] = []
    seen: set[str] = set()

    def check_run(loc: tuple[int | str, ...], table: str | None, repeat: int | None) -> None:
        if table is None:
            return
        if table not in repeats:
            problems.append(
                (
                    (*loc, "table"),
                    f"table {table!r} takes no load (load.runs: {', '.join(repeats)})",
                )
            )
        elif repeat is not None and repeat > repeats[table]:
            problems.append(
                ((*loc, "repeat"), f"table {table} runs {repeats[table]} time(s), not {repeat}")
            )

    for i, criterion in enumerate(playbook.criteria):
        loc: tuple[int | str, ...] = ("criteria", i)
        if criterion.name in seen:
            problems.append(((*loc, "name"), f"criterion names must be unique: {criterion.name!r}"))
        seen.add(criterion.name)
        check_run(loc, criterion.table, criterion.repeat)
        if criterion.phase is not None and criterion.phase not in phases:
            problems.append(
                ((*loc, "phase"), f"no phase {criterion.phase!r} (phases: {', '.join(phases)})")
            )
        if criterion.compare is not None:
            check_run((*loc, "compare"), criterion.compare.table, criterion.compare.repeat)
        problems += _iteration_criterion_problems(playbook, criterion, loc)
    return problems


def _iteration_criterion_problems(
    playbook: Playbook, criterion: Criterion, loc: tuple[int | str, ...]
) -> list[tuple[tuple[int | str, ...], str]]:
    """An iteration metric needs a mix or scenario phase (in its phase, if it names one);
    step_p99_ms a step of that name in one of them."""
    if criterion.metric not in ITERATION_METRICS:
        return []
    phases = [
        p
        for p in playbook.load.phases
        if not p.kind.iterations.one_request
        and (criterion.phase is None or p.name == criterion.phase)
    ]
    if not phases:
        where = f"phase {criterion.phase}" if criterion.phase else "the load"
        return [
            (
                (*loc, "metric"),
                f"{criterion.metric} measures iterations, and {where} runs no mix or scenario",
            )
        ]
    if criterion.step is None:
        return []
    steps = {step.label for phase in phases for step in playbook.load.iteration_steps(phase)[0]}
    if criterion.step not in steps:
        return [((*loc, "step"), f"no step {criterion.step!r} (steps: {', '.join(sorted(steps))})")]
    return []


# Tags pydantic adds to an error's location that are not playbook fields.
_LOCATION_TAGS = frozenset(
    {
        "weighted",
        "uniform",
        "zipf",
        "uuid",
        "monotonic",
        "constant",
        "composite",
        "function-after",
    }
)


# Tags of the forms a value may take (a step's op, a rate's shape): not playbook fields.
_FORM_TAGS = ("op=", "rate=", "key=")


# Names pydantic puts in a (non-discriminated) union's error location: the member types.
_UNION_MEMBER_TAGS = frozenset(
    {"int", "float", "str", "bool", "Users", "ThinkRange", "RetrySpec", "constrained-int"}
)


def _field_path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in _LOCATION_TAGS or part.startswith(_FORM_TAGS) or part in _UNION_MEMBER_TAGS:
            continue
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


class LineMap:
    """Where each field of a YAML document sits, from PyYAML's composed node tree, so a
    validation error can name the line as well as the field."""

    def __init__(self, root: yaml.Node | None) -> None:
        self.root = root

    def line_of(self, loc: tuple[int | str, ...]) -> int | None:
        """The 1-based line of the deepest node `loc` reaches (a missing field points at
        the mapping that lacks it)."""
        import yaml  # loaded already: the root came from it

        node = self.root
        if node is None:
            return None
        line = node.start_mark.line + 1
        for part in loc:
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                        node, line = value, key.start_mark.line + 1
                        break
            elif (
                isinstance(node, yaml.SequenceNode)
                and isinstance(part, int)
                and 0 <= part < len(node.value)
            ):
                node = node.value[part]
                line = node.start_mark.line + 1
        return line


def _unwrap(annotation: Any, tag: int | str | None) -> Any:
    """The type behind Annotated/Optional; of a union of models, the one whose `dist`
    literal is `tag` (pydantic puts a discriminated union's tag in the location)."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            members = [a for a in get_args(annotation) if a is not type(None)]
            tagged = [
                m
                for m in members
                if isinstance(m, type)
                and issubclass(m, BaseModel)
                and "dist" in m.model_fields
                and tag in get_args(m.model_fields["dist"].annotation)
            ]
            if tagged:
                return tagged[0]
            stepped = [
                get_args(m)[0]
                for m in members
                if get_origin(m) is Annotated
                and any(getattr(meta, "tag", None) == tag for meta in get_args(m)[1:])
            ]
            if stepped:
                return stepped[0]
            named = [m for m in members if isinstance(m, type) and m.__name__ == tag]
            if named:
                return named[0]
            if len(members) != 1:
                return None
            annotation = members[0]
        else:
            return annotation


def _model_at(loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The playbook model that the location `loc` points into, by walking the field
    annotations from `Playbook` down (None where the walk leaves the models)."""
    current: Any = Playbook
    for i, part in enumerate(loc):
        tag = loc[i + 1] if i + 1 < len(loc) else None
        if isinstance(part, str) and part.startswith(_FORM_TAGS):
            continue  # the form a union took (resolved from it at the field before)
        if isinstance(current, type) and issubclass(current, BaseModel):
            if not isinstance(part, str) or part not in current.model_fields:
                continue  # a union tag such as "weighted": already resolved
            current = current.model_fields[part].annotation
        elif get_origin(current) is list and isinstance(part, int):
            current = get_args(current)[0]
        elif get_origin(current) is dict and isinstance(part, str):
            current = get_args(current)[1]
        else:
            return None
        current = _unwrap(current, tag)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unknown_field(loc: tuple[int | str, ...]) -> str:
    """ "unknown field" with the fields that are valid there and the closest one, since a
    typo is the usual cause and the valid names are what the writer needs to see."""
    name = str(loc[-1])
    model = _model_at(loc[:-1])
    if model is None:
        return f"unknown field {name!r}"
    valid = list(model.model_fields)
    hint = did_you_mean(name, valid)
    return f"unknown field {name!r}{hint}; valid fields here: {', '.join(valid)}"


def _problem(loc: tuple[int | str, ...], message: str, lines: LineMap | None) -> str:
    line = lines.line_of(loc) if lines is not None else None
    where = f"line {line}: " if line is not None else ""
    return f"  {where}{_field_path(loc)}: {message}"


def _without_union_noise(errors: list[Any]) -> list[Any]:
    """A value of a union such as `users: int | Users` that fits no member gets an error
    per member; when the writer clearly meant the mapping (another error sits under the
    same field), the scalar member's "should be a valid integer" is noise: dropped."""
    scalar = {"int", "float", "str", "bool", "constrained-int"}
    prefixes = {tuple(e["loc"][:-1]) for e in errors if e["loc"] and e["loc"][-1] not in scalar}
    deeper = {p[:i] for p in prefixes for i in range(len(p))}
    return [
        e
        for e in errors
        if not (e["loc"] and e["loc"][-1] in scalar and tuple(e["loc"][:-1]) in deeper)
    ]


def parse_playbook(
    data: Any,
    source: str = "<playbook>",
    lines: LineMap | None = None,
    directory: Path | None = None,
) -> Playbook:
    """Validate parsed YAML; errors name the source, the line (when `lines` maps the
    document), the field and what was expected. `directory`: the playbook file's folder,
    where files it names (a rate curve's CSV) are read from."""
    if not isinstance(data, dict):
        raise PlaybookError(f"{source}: a playbook is a mapping with name, tables and load")
    try:
        context = {DIRECTORY: directory} if directory is not None else None
        playbook = Playbook.model_validate(data, context=context)
    except ValidationError as exc:
        errors = _without_union_noise(exc.errors())
        out = [f"{source}: invalid playbook ({len(errors)} problem(s))"]
        for err in errors:
            if err["type"] == "extra_forbidden":
                msg = _unknown_field(tuple(err["loc"]))
            else:
                msg = err["msg"].removeprefix("Value error, ")
            out.append(_problem(tuple(err["loc"]), msg, lines))
        raise PlaybookError("\n".join(out)) from None
    problems = reference_problems(playbook)
    problems += [] if problems else workload_problems(playbook)
    problems += [] if problems else criteria_problems(playbook)
    problems += [] if problems else optimize_problems(playbook, WARM_MINIMUM)
    if problems:
        out = [f"{source}: invalid playbook ({len(problems)} problem(s))"]
        out += [_problem(loc, msg, lines) for loc, msg in problems]
        raise PlaybookError("\n".join(out))
    return playbook


def _yaml_where(exc: yaml.YAMLError) -> str:
    """Where a YAML error is, for a person: the line that opened the broken construct
    (PyYAML's context mark: the brace or the list that is never closed) first, since
    the problem mark of an unclosed brace is often the end of the file."""
    problem = getattr(exc, "problem", None) or str(exc)
    mark = getattr(exc, "problem_mark", None)
    opened = getattr(exc, "context_mark", None)
    context = getattr(exc, "context", None)
    if opened is not None and context:
        found = f"; {problem} at line {mark.line + 1}" if mark is not None else f"; {problem}"
        return f" at line {opened.line + 1}, column {opened.column + 1}: {context}{found}"
    if mark is not None:
        return f" at line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return f": {problem}"


def load_playbook(path: str | Path) -> Playbook:
    """Read and validate a playbook file."""
    # Here, not at the top: a worker parses its playbook from the plan item's JSON and
    # would import PyYAML (30 ms of CPU) for nothing.
    import yaml

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PlaybookError(
            f"{path}: no such playbook file (built-in ones are in playbooks/)"
        ) from None
    except OSError as exc:
        raise PlaybookError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise PlaybookError(f"{path}: not UTF-8 text; save the playbook as UTF-8") from None
    try:
        # Composed once for the line numbers, constructed once for the values: PyYAML's
        # safe constructor has no hook to keep node positions on plain dicts and lists.
        lines = LineMap(yaml.compose(text, Loader=yaml.SafeLoader))
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PlaybookError(f"{path}: not valid YAML{_yaml_where(exc)}") from None
    return parse_playbook(data, str(path), lines, path.parent)
