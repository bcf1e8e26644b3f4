"""The playbook format: tables to test and the load to offer them, in YAML.

A playbook's `tables` list is the variant spec shared by every path: the simulation,
the live run against the emulator and the Terraform stack all build their tables from
it. Validation errors name the file, the field and what was expected, because a
playbook is written by hand and read by people under time pressure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,200}$"


class PlaybookError(ValueError):
    """A playbook that cannot be used; the message says where and how to fix it."""


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


class GsiSpec(Strict):
    name: str = Field(pattern=NAME_PATTERN)
    partition_key: KeyAttribute
    sort_key: KeyAttribute | None = None
    projection: Literal["ALL", "KEYS_ONLY", "INCLUDE"] = "ALL"
    non_key_attributes: list[str] = Field(default_factory=list)
    read_capacity: int | None = Field(default=None, ge=1)
    """Provisioned RCU (PROVISIONED tables only)."""
    write_capacity: int | None = Field(default=None, ge=1)
    """Provisioned WCU (PROVISIONED tables only)."""
    on_demand_max: Throughput | None = None
    warm_throughput: WarmThroughput | None = None


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
    gsis: list[GsiSpec] = Field(default_factory=list)
    item_size_bytes: int = Field(default=1000, ge=1, le=400 * 1024)
    """Size of each written item, attribute names included (it decides the WCU)."""
    seed_items: int = Field(default=0, ge=0, le=10_000_000)
    """Items written before the load starts (live runs)."""

    @model_validator(mode="after")
    def _capacity_matches_billing(self) -> TableSpec:
        provisioned = self.billing_mode == "PROVISIONED"
        owners: list[tuple[str, int | None, int | None]] = [
            ("table", self.read_capacity, self.write_capacity)
        ] + [(f"gsi {g.name}", g.read_capacity, g.write_capacity) for g in self.gsis]
        for where, rcu, wcu in owners:
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
            keys += [g.partition_key] + ([g.sort_key] if g.sort_key else [])
        return keys

    def create_table_request(
        self, table_name: str, tags: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """This variant as a DynamoDB CreateTable request (boto3 keyword arguments)."""

        def schema(pk: KeyAttribute, sk: KeyAttribute | None) -> list[dict[str, str]]:
            out = [{"AttributeName": pk.name, "KeyType": "HASH"}]
            if sk is not None:
                out.append({"AttributeName": sk.name, "KeyType": "RANGE"})
            return out

        def throughput(t: Throughput | None, read: str, write: str) -> dict[str, int] | None:
            if t is None:
                return None
            return {k: v for k, v in ((read, t.read), (write, t.write)) if v is not None}

        attrs: dict[str, str] = {}
        for key in self.key_attributes():
            attrs[key.name] = key.type
        req: dict[str, Any] = {
            "TableName": table_name,
            "KeySchema": schema(self.partition_key, self.sort_key),
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
        if self.gsis:
            gsis = []
            for g in self.gsis:
                proj: dict[str, Any] = {"ProjectionType": g.projection}
                if g.projection == "INCLUDE":
                    proj["NonKeyAttributes"] = list(g.non_key_attributes)
                entry: dict[str, Any] = {
                    "IndexName": g.name,
                    "KeySchema": schema(g.partition_key, g.sort_key),
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
        if tags:
            req["Tags"] = [{"Key": k, "Value": v} for k, v in tags.items()]
        return req


# --- key distributions ---------------------------------------------------------------------


class _Dist(Strict):
    type: Literal["S", "N"] = "S"
    """DynamoDB type of the generated values."""
    per_item: bool = False
    """Fixed per item: derived from the item's primary key instead of drawn per request
    (a SKU's shelf number), so rewriting an item never moves it within a GSI."""


class WeightedDist(_Dist):
    """A few named values with weights, e.g. 80/10/10 over warehouses."""

    dist: Literal["weighted"]
    weights: dict[str, float] = Field(min_length=1)

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


class ZipfDist(_Dist):
    """Zipf(s) over `count` ranked values: value k has weight 1/k^s."""

    dist: Literal["zipf"]
    count: int = Field(ge=1, le=10_000_000)
    s: float = Field(default=1.1, gt=0)
    start: int = 0
    format: str | None = None


class UuidDist(_Dist):
    """A fresh random UUID per request: a key that never repeats."""

    dist: Literal["uuid"]


class MonotonicDist(_Dist):
    """Timestamp-like: every request's value is larger than the last."""

    dist: Literal["monotonic"]
    start: int = 1_764_460_800_000
    format: str | None = None


class ConstantDist(_Dist):
    """One value for every request."""

    dist: Literal["constant"]
    value: str


class CompositeDist(_Dist):
    """A value built from parts, e.g. '{warehouse}#{shard}' for write sharding."""

    dist: Literal["composite"]
    format: str
    parts: dict[str, Distribution] = Field(min_length=1)


Distribution = Annotated[
    WeightedDist | UniformDist | ZipfDist | UuidDist | MonotonicDist | ConstantDist | CompositeDist,
    Field(discriminator="dist"),
]
CompositeDist.model_rebuild()


# --- load ----------------------------------------------------------------------------------


class Ramp(Strict):
    """A rate that moves from `start` to `end` over the phase, linearly or in `steps`."""

    start: float = Field(ge=0)
    end: float = Field(ge=0)
    steps: int | None = Field(default=None, ge=1)
    """Equal-length constant windows instead of a linear ramp."""


class Phase(Strict):
    name: str = "phase"
    operation: Literal["put", "update", "get", "query"] = "put"
    rate: float | None = Field(default=None, ge=0, le=1_000_000)
    """Requests per second offered (open loop); 0 for an idle pause."""
    ramp: Ramp | None = None
    duration_s: float = Field(gt=0, le=7 * 24 * 3600)
    consistent_read: bool = False
    attributes: dict[str, Distribution] = Field(default_factory=dict)
    """Overrides of load.attributes for this phase (e.g. reads over seeded keys)."""

    @model_validator(mode="after")
    def _one_rate(self) -> Phase:
        if (self.rate is None) == (self.ramp is None):
            raise ValueError("give exactly one of rate or ramp")
        return self


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


class Playbook(Strict):
    name: str = Field(pattern=NAME_PATTERN)
    description: str = ""
    tables: list[TableSpec] = Field(min_length=1)
    load: LoadSpec

    @model_validator(mode="after")
    def _references(self) -> Playbook:
        names = [t.name for t in self.tables]
        if len(set(names)) != len(names):
            raise ValueError("table names must be unique")
        for run in self.runs():
            if run.table not in names:
                raise ValueError(
                    f"load.runs names table {run.table!r}, which is not in "
                    f"tables ({', '.join(names)})"
                )
        for table in self.tables:
            for phase in self.load.phases:
                attrs = {**self.load.attributes, **phase.attributes}
                for key in table.key_attributes():
                    if key.name not in attrs:
                        raise ValueError(
                            f"table {table.name} needs key attribute "
                            f"{key.name!r}, which has no distribution in "
                            "load.attributes"
                        )
        return self

    def runs(self) -> list[RunSpec]:
        return self.load.runs or [RunSpec(table=t.name) for t in self.tables]

    def table(self, name: str) -> TableSpec:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(name)


def _field_path(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in (
            "weighted",
            "uniform",
            "zipf",
            "uuid",
            "monotonic",
            "constant",
            "composite",
            "function-after",
        ):
            continue
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def parse_playbook(data: Any, source: str = "<playbook>") -> Playbook:
    """Validate parsed YAML; errors name the source, the field and what was expected."""
    if not isinstance(data, dict):
        raise PlaybookError(f"{source}: a playbook is a mapping with name, tables and load")
    try:
        return Playbook.model_validate(data)
    except ValidationError as exc:
        lines = [f"{source}: invalid playbook ({exc.error_count()} problem(s))"]
        for err in exc.errors():
            msg = err["msg"].removeprefix("Value error, ")
            lines.append(f"  {_field_path(tuple(err['loc']))}: {msg}")
        raise PlaybookError("\n".join(lines)) from None


def load_playbook(path: str | Path) -> Playbook:
    """Read and validate a playbook file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PlaybookError(
            f"{path}: no such playbook file (built-in ones are in playbooks/)"
        ) from None
    except OSError as exc:
        raise PlaybookError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" at line {where.line + 1}, column {where.column + 1}" if where else ""
        raise PlaybookError(f"{path}: not valid YAML{at}: {getattr(exc, 'problem', exc)}") from None
    return parse_playbook(data, str(path))
