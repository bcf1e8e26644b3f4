"""A table's capacity-relevant settings, read from a CreateTable-shaped request.

The DynamoDB API shape is the one format every path speaks: the endpoint receives it
over HTTP, and a playbook's table spec turns itself into it (`TableSpec.create_table_request`),
so the model never learns a second description of a table.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Final

from emulator.autoscaling import AutoScalingSpec

PROVISIONED: Final = "PROVISIONED"
PAY_PER_REQUEST: Final = "PAY_PER_REQUEST"


class TableConfigError(ValueError):
    """A table description the model cannot accept; the text names the field."""


MAX_KEY_PARTS: Final = 4
"""[AWS] a GSI's partition key and its sort key are each at most four attributes
(multi-attribute keys, November 2025:
https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.DesignPattern.MultiAttributeKeys.html);
a table's and an LSI's are one attribute each. Here, beside the model's reading of a
KeySchema and away from numpy: the endpoint and the playbook format check the same
limit (the format without loading the model or the server)."""


def _key_names(schema: Any, where: str) -> tuple[list[str], list[str]]:
    """The partition-key and sort-key attribute names of a KeySchema, in order (a GSI may
    have up to four of each: multi-attribute keys)."""
    if not isinstance(schema, list) or not schema:
        raise TableConfigError(f"{where}.KeySchema must be a non-empty list")
    hash_keys: list[str] = []
    range_keys: list[str] = []
    for element in schema:
        if not isinstance(element, dict):
            raise TableConfigError(f"{where}.KeySchema entries must be objects")
        kind = element.get("KeyType")
        name = element.get("AttributeName")
        if not isinstance(name, str) or not name:
            raise TableConfigError(f"{where}.KeySchema entry needs an AttributeName")
        if kind == "HASH":
            hash_keys.append(name)
        elif kind == "RANGE":
            range_keys.append(name)
        else:
            raise TableConfigError(f"{where}.KeySchema KeyType must be HASH or RANGE, got {kind!r}")
    if not hash_keys:
        raise TableConfigError(f"{where}.KeySchema needs a HASH key")
    return hash_keys, range_keys


def _opt_units(block: Any, key: str) -> float | None:
    if not isinstance(block, dict):
        return None
    value = block.get(key)
    if value is None or value == -1:
        return None
    if not isinstance(value, int | float) or value < 0:
        raise TableConfigError(f"{key} must be a non-negative number, got {value!r}")
    return float(value)


HISTORY_TAG: Final = "hotbench:history"
"""The CreateTable tag that carries a table's history (`TableHistory.tag`): how a table
that existed before the run reaches the model through the one request format every path
speaks. Its value, `name=units` pairs separated by spaces, keeps to the characters AWS
allows in a tag value, so the same request is valid on AWS (where the tag is only a label:
a real table's history is its own)."""


@dataclass(frozen=True)
class TableHistory:
    """What a table did before the run, as far as its partitions and its on-demand
    ceiling are concerned (full-scale units per second; None: not known, as for a new
    table). Each value raises the warm throughput the table starts with, the partitions
    that carry it and, on demand, its ceiling; none lowers anything
    (docs/model.md#how-partitions-are-made, rule 3):

    - `previous_on_demand_peak_*`: the highest rate the table served on demand. It
      absorbs up to double that at once [AWS reference.md#on-demand-mode].
    - `previous_provisioned_*`: the highest capacity it was provisioned at. Its
      partitions stay (never merged), and switched to on demand it takes that rate at
      once (its previous peak is half of it, doubled) [AWS reference.md#on-demand-mode].
    - `previous_warm_*`: warm throughput set earlier, which cannot be lowered [AWS
      reference.md#warm-throughput].

    Frozen: a table's past does not change during a run."""

    previous_on_demand_peak_read: float | None = None
    previous_on_demand_peak_write: float | None = None
    previous_provisioned_read: float | None = None
    previous_provisioned_write: float | None = None
    previous_warm_read: float | None = None
    previous_warm_write: float | None = None

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise TableConfigError(
                    f"history {f.name} must be a non-negative number of units per second, "
                    f"got {value!r}"
                )
            if value != value or value == float("inf"):
                raise TableConfigError(f"history {f.name} must be a finite number, got {value!r}")

    def warm_floor(self) -> tuple[float, float]:
        """The (read, write) warm throughput this history leaves a table with: what it
        takes at once, whatever its mode now."""
        read = max(
            2.0 * (self.previous_on_demand_peak_read or 0.0),
            self.previous_provisioned_read or 0.0,
            self.previous_warm_read or 0.0,
        )
        write = max(
            2.0 * (self.previous_on_demand_peak_write or 0.0),
            self.previous_provisioned_write or 0.0,
            self.previous_warm_write or 0.0,
        )
        return read, write

    def provisioned(self) -> tuple[float, float]:
        """The (read, write) capacity the table was provisioned at, both at once: its
        partitions carried them and are still there."""
        return self.previous_provisioned_read or 0.0, self.previous_provisioned_write or 0.0

    def known(self) -> dict[str, float]:
        """The values given, by field name."""
        out: dict[str, float] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = float(value)
        return out

    def tag_value(self) -> str:
        """This history as the value of the `hotbench:history` tag."""
        pairs = []
        for name, value in self.known().items():
            number = str(int(value)) if value == int(value) else repr(value)
            pairs.append(f"{name}={number}")
        return " ".join(pairs)

    def tag(self) -> dict[str, str]:
        """A CreateTable `Tags` entry carrying this history (`TableHistory.from_request`
        reads it back)."""
        return {"Key": HISTORY_TAG, "Value": self.tag_value()}

    @classmethod
    def from_tag_value(cls, value: Any) -> TableHistory:
        """Parse `name=units name=units ...`; every fault is named."""
        if not isinstance(value, str):
            raise TableConfigError(f"the tag {HISTORY_TAG} needs a string value")
        known = {f.name for f in fields(cls)}
        values: dict[str, float] = {}
        for pair in value.split():
            name, sep, number = pair.partition("=")
            if not sep or name not in known:
                raise TableConfigError(
                    f"the tag {HISTORY_TAG}: {pair!r} is not NAME=UNITS with NAME one of "
                    f"{', '.join(sorted(known))}"
                )
            try:
                values[name] = float(number)
            except ValueError:
                raise TableConfigError(
                    f"the tag {HISTORY_TAG}: {name} must be a number of units per second, "
                    f"got {number!r}"
                ) from None
        return cls(**values)

    @classmethod
    def from_request(cls, req: dict[str, Any]) -> TableHistory | None:
        """The history a CreateTable request's `hotbench:history` tag carries, if any."""
        tags = req.get("Tags")
        if not isinstance(tags, list):
            return None
        for entry in tags:
            if isinstance(entry, dict) and entry.get("Key") == HISTORY_TAG:
                return cls.from_tag_value(entry.get("Value"))
        return None


@dataclass
class IndexConfig:
    """A GSI's keys and capacity settings. `pk` and `sk` are its first partition-key
    and sort-key attributes; `pk_parts` and `sk_parts` all of them, in key-schema order
    (several for a multi-attribute key)."""

    name: str
    pk: str
    sk: str | None
    projection: str = "ALL"
    non_key_attributes: list[str] = field(default_factory=list)
    rcu: float | None = None
    wcu: float | None = None
    max_read: float | None = None
    max_write: float | None = None
    warm_read: float | None = None
    warm_write: float | None = None
    pk_parts: tuple[str, ...] = ()
    sk_parts: tuple[str, ...] = ()
    auto_scaling: AutoScalingSpec | None = None
    """Target tracking on this GSI's capacity (Application Auto Scaling, not part of
    CreateTable: `CapacityModel.create_table(..., auto_scaling=...)` or
    `CapacityModel.set_auto_scaling` set it)."""

    @classmethod
    def from_request(cls, raw: Any, billing: str) -> IndexConfig:
        if not isinstance(raw, dict) or not isinstance(raw.get("IndexName"), str):
            raise TableConfigError("GlobalSecondaryIndexes entries need an IndexName")
        name = raw["IndexName"]
        hash_keys, range_keys = _key_names(raw.get("KeySchema"), f"GlobalSecondaryIndexes[{name}]")
        projection = raw.get("Projection") or {"ProjectionType": "ALL"}
        ptype = projection.get("ProjectionType", "ALL") if isinstance(projection, dict) else None
        if ptype not in ("ALL", "KEYS_ONLY", "INCLUDE"):
            raise TableConfigError(
                f"GlobalSecondaryIndexes[{name}].Projection.ProjectionType "
                "must be ALL, KEYS_ONLY or INCLUDE"
            )
        throughput = raw.get("ProvisionedThroughput")
        if billing == PROVISIONED and not isinstance(throughput, dict):
            raise TableConfigError(
                f"GlobalSecondaryIndexes[{name}] needs ProvisionedThroughput on a PROVISIONED table"
            )
        return cls(
            name=name,
            pk=hash_keys[0],
            sk=range_keys[0] if range_keys else None,
            pk_parts=tuple(hash_keys),
            sk_parts=tuple(range_keys),
            projection=ptype,
            non_key_attributes=list(projection.get("NonKeyAttributes", []) or []),
            rcu=_opt_units(throughput, "ReadCapacityUnits") if billing == PROVISIONED else None,
            wcu=_opt_units(throughput, "WriteCapacityUnits") if billing == PROVISIONED else None,
            max_read=_opt_units(raw.get("OnDemandThroughput"), "MaxReadRequestUnits"),
            max_write=_opt_units(raw.get("OnDemandThroughput"), "MaxWriteRequestUnits"),
            warm_read=_opt_units(raw.get("WarmThroughput"), "ReadUnitsPerSecond"),
            warm_write=_opt_units(raw.get("WarmThroughput"), "WriteUnitsPerSecond"),
        )


@dataclass
class TableConfig:
    """A table's keys and capacity settings."""

    name: str
    pk: str
    sk: str | None
    billing: str = PROVISIONED
    rcu: float | None = None
    wcu: float | None = None
    max_read: float | None = None
    max_write: float | None = None
    warm_read: float | None = None
    warm_write: float | None = None
    gsis: list[IndexConfig] = field(default_factory=list)
    has_lsi: bool = False
    history: TableHistory | None = None
    auto_scaling: AutoScalingSpec | None = None
    """Target tracking on the table's capacity (as on IndexConfig)."""

    @classmethod
    def from_request(cls, req: dict[str, Any]) -> TableConfig:
        name = req.get("TableName")
        if not isinstance(name, str) or not name:
            raise TableConfigError("TableName is required")
        hash_keys, range_keys = _key_names(req.get("KeySchema"), "CreateTable")
        if len(hash_keys) > 1 or len(range_keys) > 1:
            raise TableConfigError("CreateTable.KeySchema has one HASH and at most one RANGE key")
        pk, sk = hash_keys[0], (range_keys[0] if range_keys else None)
        billing = req.get("BillingMode") or PROVISIONED
        if billing not in (PROVISIONED, PAY_PER_REQUEST):
            raise TableConfigError(
                f"BillingMode must be PROVISIONED or PAY_PER_REQUEST, got {billing!r}"
            )
        throughput = req.get("ProvisionedThroughput")
        if billing == PROVISIONED:
            if not isinstance(throughput, dict):
                raise TableConfigError(
                    "ProvisionedThroughput is required when BillingMode is PROVISIONED"
                )
            rcu = _opt_units(throughput, "ReadCapacityUnits")
            wcu = _opt_units(throughput, "WriteCapacityUnits")
            if not rcu or not wcu:
                raise TableConfigError(
                    "ProvisionedThroughput needs ReadCapacityUnits and "
                    "WriteCapacityUnits of at least 1"
                )
        else:
            rcu = wcu = None
        gsis = [
            IndexConfig.from_request(g, billing) for g in req.get("GlobalSecondaryIndexes") or []
        ]
        return cls(
            name=name,
            pk=pk,
            sk=sk,
            billing=billing,
            rcu=rcu,
            wcu=wcu,
            max_read=_opt_units(req.get("OnDemandThroughput"), "MaxReadRequestUnits"),
            max_write=_opt_units(req.get("OnDemandThroughput"), "MaxWriteRequestUnits"),
            warm_read=_opt_units(req.get("WarmThroughput"), "ReadUnitsPerSecond"),
            warm_write=_opt_units(req.get("WarmThroughput"), "WriteUnitsPerSecond"),
            gsis=gsis,
            has_lsi=bool(req.get("LocalSecondaryIndexes")),
            history=TableHistory.from_request(req),
        )


def with_auto_scaling(
    config: TableConfig, index: str | None, spec: AutoScalingSpec | None
) -> TableConfig:
    """`config` with the auto scaling of the table (`index` None) or of one GSI replaced."""
    if index is None:
        return replace(config, auto_scaling=spec)
    gsis = [replace(g, auto_scaling=spec) if g.name == index else g for g in config.gsis]
    return replace(config, gsis=gsis)
