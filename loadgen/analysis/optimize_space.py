"""The configurations `hotbench optimize` searches, one table at a time.

A table's space is a list of dimensions. Each dimension suggests its values through
the optimiser (or, when it changes only the bill, lists its options for the pricing to
try every one), writes its values into the playbook's table entry, and says them in
words. A simulated dimension changes the physics (billing mode, capacity, warm
throughput, on-demand maximum, write shards); a priced one only the bill (table class,
reserved capacity), so every simulated configuration is priced with each of its
options without another simulation. A new dimension (auto scaling: target, minimum,
maximum: `AutoScalingPolicy`) is one more class here and one more entry in `table_space`.

Bounds come from `optimize_bounds` (what the advice's arithmetic proves); values are
multiples of the table's `step`. Pure: no I/O.
"""

from __future__ import annotations

import copy
import math
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from emulator.params import CapacityParams
from loadgen.analysis.advise import TableAdvice
from loadgen.analysis.optimize_bounds import (
    PhaseDemand,
    Refusal,
    TableDemand,
    index_shard_refused,
    on_demand_refused,
    provisioned_refused,
    round_down,
    round_up,
    scaling_refused,
    shard_refused,
    table_demand,
)
from loadgen.format.optimize_spec import (
    MAX_UNITS,
    MonthSpec,
    ScalingSide,
    TableSearch,
    UnitRange,
    WriteShards,
)
from loadgen.format.playbook import WARM_MINIMUM, Playbook, TableSpec

Values = dict[str, Any]
"""One table's configuration: each dimension's values by key."""

PROVISIONED = "PROVISIONED"
ON_DEMAND = "PAY_PER_REQUEST"
NAIVE_UTILISATION = 0.7
"""The naive fix provisions the peak at 70 % utilisation: Application Auto Scaling's
default target for DynamoDB, the rule of thumb teams size by."""


class Suggest(Protocol):
    """What a dimension asks of the optimiser's trial (optuna.Trial has these)."""

    def suggest_int(self, name: str, low: int, high: int, *, step: int = 1) -> int: ...

    def suggest_categorical(self, name: str, choices: Any) -> Any: ...


class Dimension(ABC):
    """One thing that may vary on a table."""

    keep_name: str
    """Its name in `keep:` (loadgen.format.optimize_spec.Dimension)."""
    simulated: bool = True

    def active(self, values: Values) -> bool:
        """Whether it applies given the values chosen before it (e.g. capacity only on
        a provisioned table)."""
        return True

    def suggest(self, trial: Suggest, prefix: str, values: Values) -> None:  # noqa: B027
        """Choose this dimension's values (simulated dimensions; a priced one has none)."""

    def options(self, values: Values) -> list[Values]:
        """Every choice of this dimension (priced dimensions), as partial values."""
        return [{}]

    def params(self, prefix: str, values: Values) -> dict[str, Any]:
        """The optimiser's parameters that `suggest` would read as `values` (to seed a
        trial with them)."""
        return {}

    @abstractmethod
    def written(self, spec: TableSpec) -> Values:
        """The values the playbook has."""

    @abstractmethod
    def least(self, values: Values) -> Values:
        """The values at the bound the arithmetic proves (a seed of the search)."""

    @abstractmethod
    def apply(self, values: Values, entry: dict[str, Any], data: dict[str, Any]) -> None:
        """Write the values into the table's entry (and the playbook, for a new key)."""

    @abstractmethod
    def words(self, values: Values) -> str | None:
        """The values for people; None where there is nothing to say."""

    def edge(self, values: Values) -> str | None:
        """Where the values sit at a bound the user may widen: what to widen."""
        return None


# --- the dimensions -------------------------------------------------------------------------


class BillingMode(Dimension):
    keep_name = "billing_mode"

    def __init__(self, choices: list[str], table: str) -> None:
        self.choices = choices
        self.table = table

    def suggest(self, trial: Suggest, prefix: str, values: Values) -> None:
        values["billing_mode"] = (
            trial.suggest_categorical(prefix + "billing_mode", self.choices)
            if len(self.choices) > 1
            else self.choices[0]
        )

    def params(self, prefix: str, values: Values) -> dict[str, Any]:
        return {prefix + "billing_mode": values["billing_mode"]} if len(self.choices) > 1 else {}

    def written(self, spec: TableSpec) -> Values:
        return {"billing_mode": spec.billing_mode}

    def least(self, values: Values) -> Values:
        return {}

    def apply(self, values: Values, entry: dict[str, Any], data: dict[str, Any]) -> None:
        mode = values["billing_mode"]
        entry["billing_mode"] = mode
        owners = [entry, *(entry.get("gsis") or [])]
        for owner in owners:
            if mode == ON_DEMAND:
                owner.pop("read_capacity", None)
                owner.pop("write_capacity", None)
            else:
                owner.pop("on_demand_max", None)
        if mode == ON_DEMAND:
            entry.pop("reserved_capacity", None)

    def words(self, values: Values) -> str:
        return "on-demand" if values["billing_mode"] == ON_DEMAND else "provisioned"

    def edge(self, values: Values) -> str | None:
        missing = [m for m in (PROVISIONED, ON_DEMAND) if m not in self.choices]
        if missing:
            return (
                f"allow {missing[0]} in optimize.tables.{self.table}.billing_modes "
                "(or drop billing_mode from keep)"
            )
        return None


@dataclass
class Range:
    """Values low..high in steps, and where the bounds came from (for the hint)."""

    low: int
    high: int
    step: int
    field: str
    """Its field in the optimize section, e.g. optimize.tables.t.capacity.write."""
    proven: str = ""
    """Why the low end is where it is, when the arithmetic moved it."""

    def __post_init__(self) -> None:
        self.high = max(self.low, self.low + (self.high - self.low) // self.step * self.step)

    @property
    def fixed(self) -> bool:
        return self.low == self.high

    def draw(self, trial: Suggest, name: str) -> int:
        if self.fixed:
            return self.low
        return int(trial.suggest_int(name, self.low, self.high, step=self.step))


class Capacity(Dimension):
    """Provisioned read or write capacity of the table, or of one GSI."""

    keep_name = "capacity"

    def __init__(self, side: str, bounds: Range, gsi: str | None = None) -> None:
        self.side = side
        self.bounds = bounds
        self.gsi = gsi
        self.key = (f"gsi.{gsi}." if gsi else "") + f"{side}_capacity"
        if gsi is not None:
            self.keep_name = "gsi_capacity"

    def active(self, values: Values) -> bool:
        # under auto scaling the side's capacity is the policy's minimum (AutoScalingPolicy)
        scaled = self.gsi is None and bool(values.get(f"scaling_{self.side}"))
        return bool(values.get("billing_mode") == PROVISIONED) and not scaled

    def suggest(self, trial: Suggest, prefix: str, values: Values) -> None:
        values[self.key] = self.bounds.draw(trial, prefix + self.key)

    def params(self, prefix: str, values: Values) -> dict[str, Any]:
        return {} if self.bounds.fixed else {prefix + self.key: values[self.key]}

    def written(self, spec: TableSpec) -> Values:
        owner: Any = spec if self.gsi is None else next(g for g in spec.gsis if g.name == self.gsi)
        value = getattr(owner, f"{self.side}_capacity")
        return {self.key: value} if value is not None else {self.key: self.bounds.low}

    def least(self, values: Values) -> Values:
        return {self.key: self.bounds.low}

    def apply(self, values: Values, entry: dict[str, Any], data: dict[str, Any]) -> None:
        owner = entry if self.gsi is None else _gsi_entry(entry, self.gsi)
        owner[f"{self.side}_capacity"] = int(values[self.key])

    def words(self, values: Values) -> str:
        unit = "WCU" if self.side == "write" else "RCU"
        where = f" {self.gsi}" if self.gsi else ""
        return f"{values[self.key]:,} {unit}{where}"

    def edge(self, values: Values) -> str | None:
        b = self.bounds
        if b.field and not b.fixed and values.get(self.key) == b.high and b.high < MAX_UNITS:
            return f"raise {b.field}.max (the closest sits at {b.high:,})"
        return None


class WarmSetting(Dimension):
    """Warm throughput of one side of the table (or one GSI), in a range per billing
    mode: on demand from the bound that lifts the new table's ceiling enough, provisioned
    from the default (it pre-splits partitions beyond the capacity's). The least value,
    DynamoDB's default, means "unset"."""

    keep_name = "warm_throughput"

    def __init__(self, side: str, ranges: dict[str, Range], gsi: str | None = None) -> None:
        self.side = side
        self.ranges = ranges
        self.gsi = gsi
        self.key = (f"gsi.{gsi}." if gsi else "") + f"warm_{side}"
        self.default = WARM_MINIMUM[side]

    def _range(self, values: Values) -> Range:
        mode = values.get("billing_mode")
        return self.ranges.get(str(mode)) or next(iter(self.ranges.values()))

    def active(self, values: Values) -> bool:
        return bool(values.get("billing_mode") in self.ranges)

    def suggest(self, trial: Suggest, prefix: str, values: Values) -> None:
        # One optimiser parameter per mode: a parameter's range may not change.
        mode = "od" if values.get("billing_mode") == ON_DEMAND else "pv"
        values[self.key] = self._range(values).draw(trial, f"{prefix}{self.key}.{mode}")

    def params(self, prefix: str, values: Values) -> dict[str, Any]:
        if self._range(values).fixed:
            return {}
        mode = "od" if values.get("billing_mode") == ON_DEMAND else "pv"
        return {f"{prefix}{self.key}.{mode}": values[self.key]}

    def written(self, spec: TableSpec) -> Values:
        owner: Any = spec if self.gsi is None else next(g for g in spec.gsis if g.name == self.gsi)
        warm = owner.warm_throughput
        value = getattr(warm, self.side) if warm is not None else None
        return {self.key: value or self.default}

    def least(self, values: Values) -> Values:
        return {self.key: self._range(values).low}

    def apply(self, values: Values, entry: dict[str, Any], data: dict[str, Any]) -> None:
        owner = entry if self.gsi is None else _gsi_entry(entry, self.gsi)
        value = int(values[self.key])
        warm = {k: v for k, v in dict(owner.get("warm_throughput") or {}).items() if v is not None}
        if value > self.default:
            warm[self.side] = value
        else:
            warm.pop(self.side, None)
        if warm:
            owner["warm_throughput"] = warm
        else:
            owner.pop("warm_throughput", None)

    def words(self, values: Values) -> str | None:
        value = values[self.key]
        if value <= self.default:
            return None
        where = f" on {self.gsi}" if self.gsi else ""
        return f"warm {self.side} {value:,}{where}"

    def edge(self, values: Values) -> str | None:
        r = self._range(values)
        if values.get(self.key) == r.high and r.high < MAX_UNITS and r.field and not r.fixed:
            return f"raise {r.field}.max (the closest sits at {r.high:,})"
        return None


class OnDemandMax(Dimension):
    """An on-demand maximum (a cost guard that throttles above it); its value above the
    range means no maximum."""

    keep_name = "on_demand_max"

    def __init__(self, side: str, bounds: Range | None) -> None:
        self.side = side
        self.bounds = bounds
        """None: no maximum (the criteria let the table throttle nothing, so a maximum
        at or above the peak costs the same as none)."""
        self.key = f"on_demand_max_{side}"

    def active(self, values: Values) -> bool:
        return bool(values.get("billing_mode") == ON_DEMAND)

    def suggest(self, trial: Suggest, prefix: str, values: Values) -> None:
        if self.bounds is None:
            values[self.key] = None
            return
        top = self.bounds.high + self.bounds.step
        value = int(
            trial.suggest_int(prefix + self.key, self.bounds.low, top, step=self.bounds.step)
        )
        values[self.key] = None if value >= top else value

    def params(self, prefix: str, values: Values) -> dict[str, Any]:
        if self.bounds is None:
            return {}
        value = values.get(self.key)
        return {prefix + self.key: self.bounds.high + self.bounds.step if value is None else value}

    def written(self, spec: TableSpec) -> Values:
        cap = spec.on_demand_max
        return {self.key: getattr(cap, self.side) if cap is not None else None}

    def least(self, values: Values) -> Values:
        return {self.key: None}

    def apply(self, values: Values, entry: dict[str, Any], data: dict[str, Any]) -> None:
        value = values.get(self.key)
        cap = {k: v for k, v in dict(entry.get("on_demand_max") or {}).items() if v is not None}
        if value is None:
            cap.pop(self.side, None)
        else:
            cap[self.side] = int(value)
        if cap:
            entry["on_demand_max"] = cap
        else:
            entry.pop("on_demand_max", None)

    def words(self, values: Values) -> str | None:
        value = values.get(self.key)
        return None if value is None else f"max {self.side} {value:,}"


class WriteShardCount(Dimension):
    """How many shards the application writes a partition key's values under."""

    keep_name = "write_shards"

    def __init__(self, shards: WriteShards, low: int, table: str, proven: str) -> None:
        self.shards = shards
        self.low = low
        self.table = table
        self.proven = proven

    def suggest(self, trial: Suggest, prefix: str, values: Values) -> None:
        high = self.shards.max_shards
        values["shards"] = (
            self.low
            if self.low >= high
            else int(trial.suggest_int(prefix + "shards", self.low, high))
        )

    def params(self, prefix: str, values: Values) -> dict[str, Any]:
        return {} if self.low >= self.shards.max_shards else {prefix + "shards": values["shards"]}

    def written(self, spec: TableSpec) -> Values:
        return {"shards": 1}

    def least(self, values: Values) -> Values:
        return {"shards": self.low}

    def apply(self, values: Values, entry: dict[str, Any], data: dict[str, Any]) -> None:
        count = int(values["shards"])
        if count <= 1:
            return
        key, attribute = self.shards.key, self.shards.sharded_attribute
        attrs = data["load"]["attributes"]
        original = copy.deepcopy(attrs[key])
        original.pop("type", None)
        attrs[attribute] = {
            "dist": "composite",
            "format": self.shards.format,
            "parts": {"key": original, "shard": {"dist": "uniform", "count": count}},
        }
        for owner in [entry, *(entry.get("gsis") or [])]:
            if owner["partition_key"]["name"] == key:
                owner["partition_key"] = {"name": attribute, "type": "S"}
        # The key is sharded now: the section's mark refers to the key it replaced.
        section = ((data.get("optimize") or {}).get("tables") or {}).get(self.table)
        if isinstance(section, dict):
            section.pop("write_shards", None)

    def words(self, values: Values) -> str | None:
        count = values["shards"]
        return f"{self.shards.key} in {count} shards" if count > 1 else None

    def edge(self, values: Values) -> str | None:
        if values.get("shards") == self.shards.max_shards:
            return (
                f"raise optimize.tables.{self.table}.write_shards.max_shards (the application "
                f"accepts {self.shards.max_shards} now), if it can read that many back"
            )
        return None


class AutoScalingPolicy(Dimension):
    """Target tracking of one side of the table: none (the capacity stays as the Capacity
    dimension draws it), or a policy of target, minimum and maximum, the table created at
    its minimum. Simulated: the model runs the policy as Application Auto Scaling does."""

    keep_name = "auto_scaling"

    def __init__(self, side: str, low: Range, high: Range, targets: tuple[int, int]) -> None:
        self.side = side
        self.low = low
        """The minimum's range (its low end what the lag arithmetic proves)."""
        self.high = high
        """The maximum's range (its low end the peak at the highest target)."""
        self.targets = targets
        self.key = f"scaling_{side}"

    def keys(self) -> list[str]:
        k = self.key
        return [k, f"{k}_target", f"{k}_min", f"{k}_max"]

    def active(self, values: Values) -> bool:
        return bool(values.get("billing_mode") == PROVISIONED)

    def suggest(self, trial: Suggest, prefix: str, values: Values) -> None:
        on = bool(trial.suggest_categorical(prefix + self.key, [False, True]))
        values[self.key] = on
        if not on:
            return
        lo, hi = self.targets
        target = (
            lo
            if lo == hi
            else int(trial.suggest_int(prefix + self.key + "_target", lo, hi, step=5))
        )
        values[self.key + "_target"] = target
        values[self.key + "_min"] = self.low.draw(trial, prefix + self.key + "_min")
        values[self.key + "_max"] = max(
            values[self.key + "_min"], self.high.draw(trial, prefix + self.key + "_max")
        )
        values[f"{self.side}_capacity"] = values[self.key + "_min"]

    def params(self, prefix: str, values: Values) -> dict[str, Any]:
        out: dict[str, Any] = {prefix + self.key: bool(values.get(self.key))}
        if not values.get(self.key):
            return out
        if self.targets[0] != self.targets[1]:
            out[prefix + self.key + "_target"] = values[self.key + "_target"]
        if not self.low.fixed:
            out[prefix + self.key + "_min"] = values[self.key + "_min"]
        if not self.high.fixed:
            out[prefix + self.key + "_max"] = values[self.key + "_max"]
        return out

    def written(self, spec: TableSpec) -> Values:
        policy = getattr(spec.auto_scaling, self.side) if spec.auto_scaling else None
        if policy is None:
            return {self.key: False}
        return {
            self.key: True,
            self.key + "_target": policy.target_pct,
            self.key + "_min": policy.min,
            self.key + "_max": policy.max,
        }

    def least(self, values: Values) -> Values:
        return {self.key: False}

    def on_at(self, min_units: int) -> Values:
        """A policy at the highest target, the minimum at `min_units` (on the minimum's
        grid and in its range), the maximum as high as it may go: a seed."""
        low = min(self.low.high, max(self.low.low, round_up(min_units, self.low.step)))
        return {
            self.key: True,
            self.key + "_target": self.targets[1],
            self.key + "_min": low,
            self.key + "_max": max(low, self.high.high),
            f"{self.side}_capacity": low,
        }

    def apply(self, values: Values, entry: dict[str, Any], data: dict[str, Any]) -> None:
        scaling = dict(entry.get("auto_scaling") or {})
        if values.get(self.key) and values.get("billing_mode") == PROVISIONED:
            scaling[self.side] = {
                "target_pct": values[self.key + "_target"],
                "min": int(values[self.key + "_min"]),
                "max": int(values[self.key + "_max"]),
            }
            entry[f"{self.side}_capacity"] = int(values[self.key + "_min"])
        else:
            scaling.pop(self.side, None)
        if scaling:
            entry["auto_scaling"] = scaling
        else:
            entry.pop("auto_scaling", None)

    def words(self, values: Values) -> str | None:
        if not values.get(self.key):
            return None
        unit = "WCU" if self.side == "write" else "RCU"
        return (
            f"{self.side} auto scaling at {values[self.key + '_target']:g} % from "
            f"{values[self.key + '_min']:,} to {values[self.key + '_max']:,} {unit}"
        )

    def edge(self, values: Values) -> str | None:
        high = self.high
        at_top = values.get(self.key) and values.get(self.key + "_max") == high.high
        if at_top and high.field and not high.fixed and high.high < MAX_UNITS:
            return f"raise {self.high.field}.max (the closest sits at {self.high.high:,})"
        return None


class TableClass(Dimension):
    """STANDARD or STANDARD_INFREQUENT_ACCESS: the bill only."""

    keep_name = "table_class"
    simulated = False

    def __init__(self, choices: list[str]) -> None:
        self.choices = choices

    def options(self, values: Values) -> list[Values]:
        return [{"table_class": c} for c in self.choices]

    def written(self, spec: TableSpec) -> Values:
        return {"table_class": spec.table_class}

    def least(self, values: Values) -> Values:
        return {"table_class": self.choices[0]}

    def apply(self, values: Values, entry: dict[str, Any], data: dict[str, Any]) -> None:
        if values["table_class"] == "STANDARD":
            entry.pop("table_class", None)
        else:
            entry["table_class"] = values["table_class"]

    def words(self, values: Values) -> str | None:
        return "Standard-IA" if values["table_class"] != "STANDARD" else None


class Reserved(Dimension):
    """Reserved capacity for the provisioned base (table and GSIs, in blocks of 100):
    the bill only, and only for the Standard table class."""

    keep_name = "reserved"
    simulated = False

    def __init__(self, terms: list[int]) -> None:
        self.terms = terms

    def options(self, values: Values) -> list[Values]:
        out: list[Values] = [{"reserved_term": 0}]
        if values.get("billing_mode") != PROVISIONED or values.get("table_class") not in (
            None,
            "STANDARD",
        ):
            return out
        if any(v is True for k, v in values.items() if k.startswith("scaling_")):
            return out  # capacity that moves is priced step by step, reservations aside
        write, read = _reservable(values)
        if write or read:
            out += [{"reserved_term": t} for t in self.terms]
        return out

    def written(self, spec: TableSpec) -> Values:
        reserved = spec.reserved_capacity
        return {"reserved_term": reserved.term_years if reserved else 0}

    def least(self, values: Values) -> Values:
        return {"reserved_term": 0}

    def apply(self, values: Values, entry: dict[str, Any], data: dict[str, Any]) -> None:
        term = values.get("reserved_term", 0)
        if not term or values.get("billing_mode") != PROVISIONED:
            entry.pop("reserved_capacity", None)
            return
        write, read = _reservable(values)
        entry["reserved_capacity"] = {"write": write, "read": read, "term_years": term}

    def words(self, values: Values) -> str | None:
        term = values.get("reserved_term", 0)
        if not term:
            return None
        write, read = _reservable(values)
        parts = [f"{write:,} WCU"] if write else []
        parts += [f"{read:,} RCU"] if read else []
        return f"reserved {' + '.join(parts)} for {term} year{'s' if term > 1 else ''}"


def _reservable(values: Values) -> tuple[int, int]:
    """The provisioned base in whole blocks of 100 units: what a reservation covers."""
    write = sum(v for k, v in values.items() if k.endswith("write_capacity") and v)
    read = sum(v for k, v in values.items() if k.endswith("read_capacity") and v)
    return round_down(write, 100), round_down(read, 100)


def _gsi_entry(entry: dict[str, Any], name: str) -> dict[str, Any]:
    return next(g for g in entry.get("gsis") or [] if g["name"] == name)


# --- one table's space ----------------------------------------------------------------------


@dataclass
class TableSpace:
    """The dimensions of one table, in the order they are chosen."""

    name: str
    spec: TableSpec
    search: TableSearch
    demand: TableDemand
    dims: list[Dimension]
    notes: list[str] = field(default_factory=list)
    """What the arithmetic proved (bounds moved, modes left out), for the report."""
    naive_values: Values = field(default_factory=dict)

    @property
    def simulated(self) -> list[Dimension]:
        return [d for d in self.dims if d.simulated]

    @property
    def modes(self) -> list[str]:
        """The billing modes left to search: none when the arithmetic rules every one
        out within the bounds (the notes say why)."""
        return next((d.choices for d in self.dims if isinstance(d, BillingMode)), [])

    def suggest(self, trial: Suggest, prefix: str) -> Values:
        values: Values = {}
        for dim in self.simulated:
            if dim.active(values):
                dim.suggest(trial, prefix, values)
        return normalized(values)

    def params(self, prefix: str, values: Values) -> dict[str, Any]:
        """The optimiser's parameters of a configuration (to seed a trial with it)."""
        out: dict[str, Any] = {}
        for dim in self.simulated:
            if dim.active(values) and _has(dim, values):
                out.update(dim.params(prefix, values))
        return out

    def priced(self, values: Values) -> list[Values]:
        """`values` completed by every combination of the priced dimensions' options."""
        combos: list[Values] = [dict(values)]
        for dim in self.dims:
            if dim.simulated:
                continue
            combos = [{**c, **o} for c in combos for o in dim.options(c)]
        return combos

    def written(self) -> Values:
        values: Values = {}
        for dim in self.dims:
            if dim.active(values):
                values.update(dim.written(self.spec))
        return values

    def seeds(self) -> list[Values]:
        """Every billing mode at the proven bounds, and 20 % above them: where the search
        starts."""
        out: list[Values] = []
        modes = next((d.choices for d in self.dims if isinstance(d, BillingMode)), [])
        for mode in modes:
            for lift in (1.0, 1.2):
                values: Values = {"billing_mode": mode}
                for dim in self.simulated:
                    if isinstance(dim, BillingMode) or not dim.active(values):
                        continue
                    least = dim.least(values)
                    values.update({k: _lifted(dim, v, lift) for k, v in least.items()})
                out.append(values)
                if mode == PROVISIONED:
                    out += self._scaled_seeds(values, lift)
        return out

    def _scaled_seeds(self, values: Values, lift: float) -> list[Values]:
        """The provisioned seed with each side's policy on, at the highest target: its
        minimum at the proven bound (lift 1), or halfway up its range on a log scale
        (the burst pool must carry the load until the scaler acts, which the bound only
        counts for its first datapoints)."""
        scaled = dict(values)
        found = False
        for dim in self.simulated:
            if isinstance(dim, AutoScalingPolicy):
                low = dim.low.low if lift == 1.0 else math.sqrt(dim.low.low * dim.low.high)
                scaled.update(dim.on_at(int(low)))
                found = True
        return [scaled] if found else []

    def apply(self, values: Values, data: dict[str, Any]) -> None:
        entry = next(t for t in data["tables"] if t["name"] == self.name)
        for dim in self.dims:
            if dim.active(values) and _has(dim, values):
                dim.apply(values, entry, data)

    def words(self, values: Values) -> str:
        parts = [
            said
            for dim in self.dims
            if dim.active(values) and _has(dim, values)
            for said in [dim.words(values)]
            if said
        ]
        return ", ".join(parts)

    def sim_key(self, values: Values) -> tuple[tuple[str, Any], ...]:
        keys = {k for d in self.simulated for k in _keys(d)}
        return tuple(sorted((k, v) for k, v in values.items() if k in keys))

    def edges(self, values: Values) -> list[str]:
        return [
            hint
            for dim in self.dims
            if dim.active(values) and _has(dim, values)
            for hint in [dim.edge(values)]
            if hint
        ]


def normalized(values: Values) -> Values:
    """The same configuration said one way: a provisioned table's (or GSI's) warm
    throughput at or below its capacity is what DynamoDB gives it anyway (unset), so two
    suggestions that differ only there are one simulation."""
    if values.get("billing_mode") != PROVISIONED:
        return values
    out = dict(values)
    for key, value in values.items():
        if not key.endswith(("warm_write", "warm_read")) or value is None:
            continue
        side = "write" if key.endswith("write") else "read"
        capacity = values.get(key.replace(f"warm_{side}", f"{side}_capacity"))
        if capacity is not None and value <= max(capacity, WARM_MINIMUM[side]):
            out[key] = WARM_MINIMUM[side]
    return out


def _keys(dim: Dimension) -> list[str]:
    if isinstance(dim, BillingMode):
        return ["billing_mode"]
    if isinstance(dim, WriteShardCount):
        return ["shards"]
    if isinstance(dim, AutoScalingPolicy):
        return dim.keys()
    return [dim.key] if hasattr(dim, "key") else []


def _has(dim: Dimension, values: Values) -> bool:
    keys = _keys(dim)
    if isinstance(dim, AutoScalingPolicy):
        keys = [dim.key]
    elif isinstance(dim, TableClass):
        keys = ["table_class"]
    elif isinstance(dim, Reserved):
        keys = ["reserved_term"]
    return all(k in values for k in keys)


def _lifted(dim: Dimension, value: Any, lift: float) -> Any:
    """A seed's value `lift` times the bound, on the dimension's grid and in its range."""
    bounds: Range | None = getattr(dim, "bounds", None)
    if lift == 1.0 or value is None:
        return value
    if isinstance(dim, WriteShardCount):
        return min(dim.shards.max_shards, value + 1)
    if bounds is None:
        return value
    return min(bounds.high, round_up(value * lift, bounds.step))


# --- building it ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Peaks:
    """Peak units per second the table's load asks for (or, where the advice cannot say,
    what the playbook as written consumed), for the upper bounds and the naive fix."""

    write: float
    read: float
    index_write: dict[str, float]
    index_read: dict[str, float]


def table_space(
    playbook: Playbook,
    name: str,
    search: TableSearch,
    advice: TableAdvice,
    p: CapacityParams,
    measured: Peaks | None = None,
    month: MonthSpec | None = None,
) -> TableSpace:
    """The dimensions of table `name` with their bounds: the optimize section's where it
    gives them, else from the advice's arithmetic (`measured`: the peaks the playbook as
    written consumed, for loads the arithmetic does not cover: mixes and scenarios)."""
    spec = playbook.table(name)
    demand = table_demand(playbook, name, advice, p)
    step = search.step
    keep = set(search.keep)
    space = TableSpace(name, spec, search, demand, [])
    peaks = _peaks(spec, demand, measured)
    field_of = f"optimize.tables.{name}"

    modes: list[str] = (
        [spec.billing_mode]
        if "billing_mode" in keep
        else [str(m) for m in search.billing_modes or (ON_DEMAND, PROVISIONED)]
    )

    run_s = sum(ph.duration_s for ph in playbook.load.phases)
    sustained = (
        month is not None and month.peak_hours_per_day * 3600 > run_s + p.burst_s and run_s > 0
    )

    def mean(units: Callable[[PhaseDemand], float]) -> float:
        """The run's mean units per second: what a month of repeats must sustain."""
        if not sustained:
            return 0.0
        return sum(ph.requests * units(ph) for ph in demand.phases) / run_s

    def bounds(
        given: UnitRange | None,
        refused: Refusal,
        peak: float,
        floor: int,
        where: str,
        scale: float = 1.0,
        sustain: float = 0.0,
    ) -> Range | None:
        """The range of one limit: the user's, raised to the proven bound; or from that
        bound to twice the peak. None when the proven bound is above the range."""
        least = max(demand.least(refused, MAX_UNITS * scale), sustain) / scale
        low_proven = max(floor, round_up(least, step)) if least > 0 else floor
        high = given.max if given is not None else max(low_proven, round_up(2 * peak / scale, step))
        high = min(high, MAX_UNITS)
        low = max(given.min if given is not None else floor, low_proven)
        if low > high:
            space.notes.append(
                f"{where}: at least {low:,} is needed for the criteria (the arithmetic of "
                f"`hotbench advise`), above the range's {high:,}"
            )
            return None
        proven = f"at least {low_proven:,} (arithmetic)" if low_proven > floor else ""
        return Range(low, high, step, f"{field_of}.{where}", proven)

    dims: list[Dimension] = []
    capacity_dims: list[Dimension] = []
    ok_modes = list(modes)
    # Provisioned capacity of the table and each GSI: a dimension for each even where
    # provisioned is not searched (then fixed), so the naive fix can be written.
    owners_of_capacity: list[tuple[str | None, str]] = [(None, "write"), (None, "read")] + [
        (g.name, side) for g in spec.gsis for side in ("write", "read")
    ]
    for gsi_name, side in owners_of_capacity:
        gsi = next((g for g in spec.gsis if g.name == gsi_name), None)
        owner_spec: Any = spec if gsi is None else gsi
        written_value = getattr(owner_spec, f"{side}_capacity")
        kept = ("capacity" if gsi is None else "gsi_capacity") in keep
        if kept and written_value is not None:
            fixed = Range(written_value, written_value, step, "")
            capacity_dims.append(Capacity(side, fixed, gsi=gsi_name))
            continue
        if gsi is None:
            given = getattr(search.capacity, side) if search.capacity else None
            peak = getattr(peaks, side)
            units = _units_of(side)
            backlog = 0.0
            where = f"capacity.{side}"
        else:
            given_gsi = search.gsis.get(gsi.name)
            given = getattr(given_gsi, side) if given_gsi else None
            peak = (peaks.index_write if side == "write" else peaks.index_read).get(gsi.name, 0.0)
            units = _index_units(gsi.name)
            backlog = p.gsi_backlog_s
            where = f"gsis.{gsi.name}.{side}"
        if peak <= 0 and given is None:
            capacity_dims.append(Capacity(side, Range(1, 1, step, ""), gsi=gsi_name))
            if side == "read" and gsi is None and PROVISIONED in modes:
                space.notes.append(
                    "read capacity 1: the playbook offers no reads; add them to the load to "
                    "size them"
                )
            continue
        r = None
        if PROVISIONED in ok_modes:
            r = bounds(
                given,
                provisioned_refused(p, units, backlog),
                peak,
                step,
                where,
                sustain=mean(units),
            )
            if r is None:
                ok_modes.remove(PROVISIONED)
        capacity_dims.append(Capacity(side, r or Range(step, step, step, ""), gsi=gsi_name))
    scaling_dims: list[Dimension] = []
    if search.auto_scaling is not None and PROVISIONED in ok_modes and "auto_scaling" not in keep:
        for side in ("write", "read"):
            wanted: ScalingSide | None = getattr(search.auto_scaling, side)
            if wanted is None:
                continue
            dim = _scaling_dim(
                side, wanted, getattr(peaks, side), demand, p, step, f"{field_of}.auto_scaling"
            )
            if isinstance(dim, str):
                space.notes.append(dim)
            else:
                scaling_dims.append(dim)
                if dim.low.proven:
                    space.notes.append(
                        f"auto scaling {side}: the minimum {dim.low.proven}: the table stands "
                        f"at it for the scaler's first {p.autoscale_out_datapoints} datapoints"
                    )
    # warm throughput (on demand: it lifts the new table's ceiling; provisioned: it
    # pre-splits partitions beyond the capacity's), of the table and of each GSI
    warm_dims: list[Dimension] = []
    owners: list[tuple[str | None, float, float]] = [(None, peaks.write, peaks.read)] + [
        (g.name, peaks.index_write.get(g.name, 0.0), 0.0) for g in spec.gsis
    ]
    for owner, write_peak, read_peak in owners:
        for side, peak in (("write", write_peak), ("read", read_peak)):
            floor = WARM_MINIMUM[side]
            if "warm_throughput" in keep:
                fixed = WarmSetting(side, {}, owner).written(spec)[
                    (f"gsi.{owner}." if owner else "") + f"warm_{side}"
                ]
                warm_dims.append(
                    WarmSetting(side, {m: Range(fixed, fixed, step, "") for m in modes}, owner)
                )
                continue
            given = (
                getattr(search.warm_throughput, side)
                if search.warm_throughput and owner is None
                else None
            )
            if peak <= 0 and given is None:
                if owner is None:  # fixed as written (the naive fix writes its default)
                    fixed = WarmSetting(side, {}).written(spec)[f"warm_{side}"]
                    warm_dims.append(
                        WarmSetting(side, {m: Range(fixed, fixed, step, "") for m in modes})
                    )
                continue
            where = f"warm_throughput.{side}" if owner is None else f"gsis.{owner}.warm_{side}"
            ranges: dict[str, Range] = {}
            if ON_DEMAND in ok_modes:
                units = _units_of(side) if owner is None else _index_units(owner)
                od = bounds(
                    given,
                    on_demand_refused(p, units),
                    peak,
                    floor,
                    where,
                    scale=p.ondemand_headroom,
                )
                if od is None:
                    ok_modes.remove(ON_DEMAND)
                    space.notes.append(
                        f"on demand left out: {where} cannot be warmed enough within its range"
                    )
                else:
                    ranges[ON_DEMAND] = od
            if PROVISIONED in ok_modes and owner is None:
                high = given.max if given is not None else max(floor, round_up(2 * peak, step))
                ranges[PROVISIONED] = Range(floor, max(floor, high), step, f"{field_of}.{where}")
            if owner is None:
                for m in modes:  # a mode searched without warming: its value as written
                    if m not in ranges:
                        fixed = WarmSetting(side, {}).written(spec)[f"warm_{side}"]
                        ranges[m] = Range(fixed, fixed, step, "")
            if ranges:
                warm_dims.append(WarmSetting(side, ranges, owner))
    # an on-demand maximum: only where the criteria let the table throttle (else a cap
    # at or above the peak costs the same as none)
    odm_dims: list[Dimension] = []
    if ON_DEMAND in ok_modes and "on_demand_max" not in keep:
        for side in ("write", "read"):
            given = getattr(search.on_demand_max, side) if search.on_demand_max else None
            peak = getattr(peaks, side)
            least = demand.least(on_demand_refused(p, _units_of(side)), MAX_UNITS)
            if given is None and (peak <= 0 or least >= peak):
                odm_dims.append(OnDemandMax(side, None))
                continue
            low = max(step, round_up(least, step))
            high = given.max if given is not None else max(low, round_up(peak, step))
            low = max(low, given.min) if given is not None else low
            if low <= high:
                odm_dims.append(
                    OnDemandMax(side, Range(low, high, step, f"{field_of}.on_demand_max.{side}"))
                )
    # write shards
    shard_dims: list[Dimension] = []
    if search.write_shards is not None and "write_shards" not in keep:
        shards = search.write_shards
        low, proven = _least_shards(shards, spec, demand, p)
        if low > shards.max_shards:
            space.notes.append(
                f"write shards: at least {low} are needed for the criteria, more than the "
                f"application accepts ({shards.max_shards}): {proven}"
            )
            ok_modes = []
        else:
            shard_dims.append(WriteShardCount(shards, low, name, proven))
            if low > 1:
                space.notes.append(f"write shards: {proven}")
    dims.append(BillingMode(ok_modes, name))
    dims += shard_dims + scaling_dims + capacity_dims + warm_dims + odm_dims
    classes: list[str] = (
        [spec.table_class]
        if "table_class" in keep
        else [str(c) for c in search.table_classes or ("STANDARD", "STANDARD_INFREQUENT_ACCESS")]
    )
    dims.append(TableClass(classes))
    terms: list[int] = [] if "reserved" in keep else list(search.reserved_terms_years)
    dims.append(Reserved(terms))
    space.dims = dims
    space.naive_values = _naive(spec, peaks, step)
    return space


def _scaling_dim(
    side: str,
    wanted: ScalingSide,
    peak: float,
    demand: TableDemand,
    p: CapacityParams,
    step: int,
    where: str,
) -> AutoScalingPolicy | str:
    """One side's policy with its ranges, or why it is left out: the minimum from what
    the scaler's lag proves (`scaling_refused`) to the naive fixed size (a minimum there
    is fixed capacity), the maximum from the peak at the highest target."""
    targets = (wanted.target_pct.min // 5 * 5 or 20, wanted.target_pct.max // 5 * 5)
    targets = (max(20, targets[0]), max(max(20, targets[0]), targets[1]))
    least = demand.least(scaling_refused(p, _units_of(side), demand.phases), MAX_UNITS)
    proven = max(step, round_up(least, step)) if least > 0 else step
    naive = max(step, round_up(peak / NAIVE_UTILISATION, step)) if peak > 0 else step
    low = max(wanted.min.min if wanted.min else step, proven)
    high = min(MAX_UNITS, wanted.min.max if wanted.min else naive)
    if low > high:
        return (
            f"auto scaling {side} left out: its minimum must be at least {low:,} (the "
            f"scaler's first {p.autoscale_out_datapoints} datapoints), above the range's {high:,}"
        )
    reach = max(step, round_up(peak / (targets[1] / 100.0), step)) if peak > 0 else step
    top_low = max(low, wanted.max.min if wanted.max else reach)
    top_high = min(MAX_UNITS, wanted.max.max if wanted.max else max(top_low, 2 * naive))
    if top_low > top_high:
        return (
            f"auto scaling {side} left out: its maximum must reach {top_low:,} for the "
            f"peak at {targets[1]} %, above the range's {top_high:,}"
        )
    low_range = Range(
        low,
        high,
        step,
        f"{where}.{side}.min",
        f"at least {low:,} (arithmetic)" if low > step else "",
    )
    return AutoScalingPolicy(
        side, low_range, Range(top_low, top_high, step, f"{where}.{side}.max"), targets
    )


def _units_of(side: str) -> Callable[[PhaseDemand], float]:
    if side == "write":
        return lambda ph: ph.write_units
    return lambda ph: ph.read_units


def _index_units(gsi: str) -> Callable[[PhaseDemand], float]:
    return lambda ph: ph.index_write_units.get(gsi, 0.0)


def _least_shards(
    shards: WriteShards, spec: TableSpec, demand: TableDemand, p: CapacityParams
) -> tuple[int, str]:
    """The fewest shards the criteria allow (1 when the key is not hot enough), and why."""
    low, why = 1, ""
    refusals: list[tuple[Refusal, str]] = []
    if spec.partition_key.name == shards.key:
        refusals.append(
            (shard_refused(p, lambda ph: ph.hot_share * ph.write_units), "the table's key")
        )
    for gsi in spec.gsis:
        if [k.name for k in gsi.partition_keys] == [shards.key]:  # a key of one attribute
            refusals.append((index_shard_refused(p, gsi.name), f"index {gsi.name}'s key"))
    for refused, what in refusals:
        least = math.ceil(demand.least(refused, float(shards.max_shards + 1)) - 1e-9)
        if least > low:
            low = least
            hot = max(
                (ph.hot_share * ph.write_units * ph.peak_rate for ph in demand.phases),
                default=0.0,
            )
            why = (
                f"{shards.key}'s hottest value takes {hot:,.0f} WCU/s on {what} against one "
                f"partition's {p.partition_wcu:,.0f}, so no capacity keeps it within the "
                f"criteria with fewer than {least} shards"
            )
    return low, why


def _peaks(spec: TableSpec, demand: TableDemand, measured: Peaks | None) -> Peaks:
    write = demand.peak_units(lambda ph: ph.write_units)
    read = demand.peak_units(lambda ph: ph.read_units)
    index_write = {g.name: demand.peak_units(_index_units(g.name)) for g in spec.gsis}
    index_read: dict[str, float] = {g.name: 0.0 for g in spec.gsis}
    if measured is not None:
        write = max(write, measured.write)
        read = max(read, measured.read)
        for g in spec.gsis:
            index_write[g.name] = max(index_write[g.name], measured.index_write.get(g.name, 0.0))
            index_read[g.name] = max(index_read[g.name], measured.index_read.get(g.name, 0.0))
    return Peaks(write, read, index_write, index_read)


def _naive(spec: TableSpec, peaks: Peaks, step: int) -> Values:
    """The naive fix: provisioned for the peak at 70 % utilisation, table and GSIs,
    nothing else changed (no warm throughput, no shards, Standard, no reservation)."""

    def size(peak: float) -> int:
        return max(1, round_up(peak / NAIVE_UTILISATION, step)) if peak > 0 else 1

    values: Values = {
        "billing_mode": PROVISIONED,
        "write_capacity": size(peaks.write),
        "read_capacity": size(peaks.read),
        "shards": 1,
        "warm_write": WARM_MINIMUM["write"],
        "warm_read": WARM_MINIMUM["read"],
        "table_class": "STANDARD",
        "reserved_term": 0,
        "scaling_write": False,
        "scaling_read": False,
    }
    for g in spec.gsis:
        values[f"gsi.{g.name}.write_capacity"] = size(peaks.index_write.get(g.name, 0.0))
        values[f"gsi.{g.name}.read_capacity"] = size(peaks.index_read.get(g.name, 0.0))
    return values


def apply_all(
    data: dict[str, Any], spaces: list[TableSpace], configs: dict[str, Values]
) -> dict[str, Any]:
    """A deep copy of the playbook's data with each table's configuration written in."""
    out = copy.deepcopy(data)
    for space in spaces:
        if space.name in configs:
            space.apply(configs[space.name], out)
    return out
