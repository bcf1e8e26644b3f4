"""The capacity model: every throttling decision hotbench makes comes from here.

One model serves the HTTP endpoint (one request at a time, wall clock) and the
virtual-time simulation (groups of identical requests per tick). Both call `write` and
`read`, with a count; a count of n is exactly n sequential requests at that instant.
The model does no I/O and reads no clock: callers pass `now`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.autoscaling import AutoScalingSpec, DimensionScaler
from emulator.buckets import Resource, admit, admit_on_credit, out_of_credit
from emulator.capacity import Limits, PartitionedCapacity, TableCapacity, limits_of
from emulator.capacity_changes import change_capacity
from emulator.capacity_record import CapacityRecord, ScalingEvent
from emulator.keyspace import Partition
from emulator.params import DEFAULT_PARAMS, CapacityParams
from emulator.tableconfig import (
    PROVISIONED,
    TableConfig,
    TableConfigError,
    TableHistory,
    with_auto_scaling,
)
from emulator.throttle import Throttle, ThrottleSite


class ModelError(ValueError):
    """A request the model refuses as invalid (not a throttle): unknown table, bad update."""


class Decision:
    """The outcome of admitting `accepted + refused` identical requests.

    A plain class, not a dataclass: mypyc compiles this __init__, whereas a dataclass's
    generated one is interpreted, behind a tuple and a dict of arguments (one Decision
    per request)."""

    __slots__ = ("accepted", "refused", "throttle")

    def __init__(self, accepted: int, refused: int, throttle: Throttle | None) -> None:
        self.accepted = accepted
        self.refused = refused
        self.throttle = throttle

    def __repr__(self) -> str:
        return (
            f"Decision(accepted={self.accepted!r}, refused={self.refused!r}, "
            f"throttle={self.throttle!r})"
        )


class GsiWrite:
    """What one table write asks of one GSI: the put of its new entry (`units` at the new
    key) and, when the write moves or removes the entry, the delete of the old one
    (`old_units` at the old key, on the old key's partition). The units come from
    `emulator.units.index_write_units`, the one rule.

    A plain class for the reason given on `Decision` (one per GSI per write)."""

    __slots__ = ("index", "old_pk_hash", "old_sk_pos", "old_units", "pk_hash", "sk_pos", "units")

    def __init__(
        self,
        index: str,
        pk_hash: int,
        sk_pos: Any,
        units: int,
        old_pk_hash: int = 0,
        old_sk_pos: Any = None,
        old_units: int = 0,
    ) -> None:
        self.index = index
        self.pk_hash = pk_hash
        self.sk_pos = sk_pos
        self.units = units
        self.old_pk_hash = old_pk_hash
        self.old_sk_pos = old_sk_pos
        self.old_units = old_units

    def __repr__(self) -> str:
        return (
            f"GsiWrite(index={self.index!r}, pk_hash={self.pk_hash!r}, "
            f"sk_pos={self.sk_pos!r}, units={self.units!r}, old_pk_hash={self.old_pk_hash!r}, "
            f"old_sk_pos={self.old_sk_pos!r}, old_units={self.old_units!r})"
        )


WriteRequest = tuple["TableCapacity", int, Any, int, "list[GsiWrite] | None"]
"""One write of a request admitted with others: (table, partition hash, sort position,
units, its GSI writes), the arguments of `CapacityModel.write`."""
ReadRequest = tuple["TableCapacity", int, Any, float, "str | None"]
"""One read of a request admitted with others: (table, partition hash, sort position,
units, the GSI read or None), the arguments of `CapacityModel.read`."""


class CapacityModel:
    """Tables, their capacity, and the clock-driven changes to it."""

    def __init__(
        self,
        params: CapacityParams = DEFAULT_PARAMS,
        region: str = "us-east-1",
        account: str = "000000000000",
        now: float = 0.0,
        epoch_s: float = 0.0,
    ) -> None:
        self.params = params
        self.region = region
        self.account = account
        self.epoch_s = epoch_s
        """The Unix time of model time 0, for the UTC calendar DynamoDB's daily limits
        count by (the endpoint passes its start; the simulation starts at 00:00 UTC)."""
        self.tables: dict[str, TableCapacity] = {}
        self._next_tick = float(int(now) + 1)
        # A write's route, refilled per call rather than built anew: three new lists and
        # their growth would be a dozen allocations per write. They never outlive a call
        # (the model is used by one thread at a time: the service holds its lock).
        self._route: list[Resource] = []
        self._costs: list[float] = []
        self._sites: list[ThrottleSite] = []

    # control plane ---------------------------------------------------------------------
    def table_arn(self, name: str) -> str:
        return f"arn:aws:dynamodb:{self.region}:{self.account}:table/{name}"

    def create_table(
        self,
        request: dict[str, Any],
        now: float,
        history: TableHistory | None = None,
        auto_scaling: Mapping[str | None, AutoScalingSpec] | None = None,
    ) -> TableCapacity:
        """A table from a CreateTable request. `history`, what the table did before the
        run, sets the partitions and the on-demand ceiling it starts with
        (docs/model.md#how-partitions-are-made, rule 3); without it, the request's
        `hotbench:history` tag does, if it has one (`TableHistory.tag`). `auto_scaling` by
        index (None: the table) puts target tracking on it from the start, as a Terraform
        apply of the table with its aws_appautoscaling_policy would."""
        try:
            config = TableConfig.from_request(request)
        except TableConfigError as exc:
            raise ModelError(str(exc)) from exc
        if history is not None:
            config.history = history
        if config.name in self.tables:
            raise ModelError(f"Table already exists: {config.name}")
        table = TableCapacity(config, self.table_arn(config.name), self.params, now, self.epoch_s)
        self.tables[config.name] = table
        for index, spec in (auto_scaling or {}).items():
            try:
                self.set_auto_scaling(config.name, index, spec, now)
            except ModelError:
                del self.tables[config.name]
                raise
        return table

    def delete_table(self, name: str) -> None:
        self.table(name)
        del self.tables[name]

    def table(self, name: str) -> TableCapacity:
        try:
            return self.tables[name]
        except KeyError:
            raise ModelError(f"Requested resource not found: Table: {name} not found") from None

    def update_capacity(
        self, name: str, config: TableConfig, now: float, cause: str = "UpdateTable"
    ) -> list[ScalingEvent]:
        """Apply a table's new settings as an UpdateTable does (billing-mode switch,
        provisioned capacity of the table and its GSIs, OnDemandThroughput, warm
        throughput, GSIs added or removed), under DynamoDB's rules: a change of mode or of
        provisioned units takes time, during which the old capacity serves; a change while
        the table is UPDATING, a decrease over the day's limit or a switch to on demand
        over the window's limit raise `capacity_changes.ChangeRefused` and change nothing
        (docs/model.md#capacity-that-moves). Returns the changes asked for."""
        table = self.table(name)
        provisioned = config.billing == PROVISIONED
        old_read, old_write = table.base.warm_values()
        if (config.warm_read is not None and config.warm_read < old_read) or (
            config.warm_write is not None and config.warm_write < old_write
        ):
            raise ModelError(
                f"WarmThroughput cannot be decreased (in force: "
                f"{old_read:.0f} reads/s, {old_write:.0f} writes/s)"
            )
        wanted: dict[str | None, Limits] = {None: limits_of(config, provisioned)}
        for gsi in config.gsis:
            if gsi.name in table.gsis:
                wanted[gsi.name] = limits_of(gsi, provisioned)
        events = change_capacity(table, wanted, now, cause)
        for gsi in config.gsis:
            if gsi.name not in table.gsis:
                table.gsis[gsi.name] = PartitionedCapacity(
                    table.arn,
                    gsi.name,
                    gsi.sk is not None,
                    limits_of(gsi, provisioned),
                    self.params,
                    now,
                )
        gone = set(table.gsis) - {g.name for g in config.gsis}
        for name_gone in gone:
            del table.gsis[name_gone]
        if gone:
            table.scalers = [s for s in table.scalers if s.index not in gone]
        # The auto scaling in force stays: UpdateTable does not carry it.
        kept = with_auto_scaling(config, None, table.config.auto_scaling)
        for gsi in table.config.gsis:
            if gsi.name in table.gsis and gsi.auto_scaling is not None:
                kept = with_auto_scaling(kept, gsi.name, gsi.auto_scaling)
        table.config = kept
        return events

    def set_auto_scaling(
        self, name: str, index: str | None, spec: AutoScalingSpec | None, now: float
    ) -> None:
        """Put target tracking on a table (`index` None) or one of its GSIs, replace it,
        or (`spec` None) take it off: what RegisterScalableTarget and PutScalingPolicy do
        through Application Auto Scaling, a service apart from DynamoDB."""
        table = self.table(name)
        if index is not None and index not in table.gsis:
            raise ModelError(f"Requested resource not found: Index: {index} of table {name}")
        target = table.index(index)
        before = _spec_text(table.config, index)
        table.scalers = [s for s in table.scalers if s.index != index]
        if spec is not None:
            read, write = target.meter()
            for dimension, policy in spec.policies():
                bucket = read if dimension == "read" else write
                table.scalers.append(
                    DimensionScaler(index, dimension, policy, bucket, now, self.params)
                )
        table.config = with_auto_scaling(table.config, index, spec)
        target.record.events.append(
            ScalingEvent(
                now,
                index,
                "auto scaling",
                before,
                _spec_text(table.config, index),
                "RegisterScalableTarget / PutScalingPolicy"
                if spec is not None
                else "DeregisterScalableTarget",
                effective_at=now,
            )
        )

    # time --------------------------------------------------------------------------------
    def advance(self, now: float) -> None:
        """Run the once-a-second work (heat, splits, growth) up to `now`. Counting what
        was admitted is the caller's job: the simulation counts as a client does, the
        endpoint per table and GSI."""
        while self._next_tick <= now:
            tick = self._next_tick
            for table in self.tables.values():
                table.tick(tick)
            self._next_tick = tick + 1.0

    # data plane --------------------------------------------------------------------------
    def write(
        self,
        table: TableCapacity,
        pk_hash: int,
        sk_pos: Any,
        units: int,
        gsi_writes: list[GsiWrite] | None = None,
        count: int = 1,
        *,
        now: float,
        part: Partition | None = None,
        gsi_parts: list[Partition] | None = None,
        gsi_old_parts: list[Partition | None] | None = None,
    ) -> Decision:
        """Admit `count` writes of `units` WCU to one key (and the GSI writes they cause:
        each GSI's put on its new key's partition, and a delete on its old key's).

        `part`/`gsi_parts`/`gsi_old_parts` may be given by a caller that located them
        already (the simulation does, in bulk); they must be where the keys live.
        """
        route, costs, sites = self._route, self._costs, self._sites
        route.clear()
        costs.clear()
        sites.clear()
        self._fill_write_route(
            table,
            pk_hash,
            sk_pos,
            units,
            gsi_writes,
            route,
            costs,
            sites,
            part,
            gsi_parts,
            gsi_old_parts,
        )
        return self._decide(route, costs, sites, count, now, True)

    def _fill_write_route(
        self,
        table: TableCapacity,
        pk_hash: int,
        sk_pos: Any,
        units: int,
        gsi_writes: list[GsiWrite] | None,
        route: list[Resource],
        costs: list[float],
        sites: list[ThrottleSite],
        part: Partition | None = None,
        gsi_parts: list[Partition] | None = None,
        gsi_old_parts: list[Partition | None] | None = None,
    ) -> None:
        """What one write asks of the table and its GSIs, appended to a route."""
        base = table.base
        if part is None:
            part = base.keyspace.locate(pk_hash, sk_pos)
        part.observe(pk_hash, sk_pos)
        base.add_write_route(part, units, route, costs, sites)
        if gsi_writes is not None:
            # Indexed, over a list: mypyc compiles this loop to native list access.
            for i in range(len(gsi_writes)):
                gw = gsi_writes[i]
                units = gw.units
                old_units = gw.old_units
                if units <= 0 and old_units <= 0:
                    continue
                index = table.gsis[gw.index]
                gpart: Partition | None = None
                if units > 0:
                    gpart = (
                        gsi_parts[i]
                        if gsi_parts is not None
                        else index.keyspace.locate(gw.pk_hash, gw.sk_pos)
                    )
                    gpart.observe(gw.pk_hash, gw.sk_pos)
                old_part: Partition | None = None
                if old_units > 0:
                    given = gsi_old_parts[i] if gsi_old_parts is not None else None
                    old_part = (
                        given
                        if given is not None
                        else index.keyspace.locate(gw.old_pk_hash, gw.old_sk_pos)
                    )
                    old_part.observe(gw.old_pk_hash, gw.old_sk_pos)
                index.add_index_write_route(gpart, units, old_part, old_units, route, costs, sites)

    def write_together(
        self, writes: list[WriteRequest], *, now: float
    ) -> tuple[int, Throttle | None]:
        """Admit the writes of one request together, as DynamoDB admits one request (a
        transaction's actions): all of them when every resource on their routes has
        capacity left, each charged in full, which may leave a resource in debt that its
        refill repays before anything else is admitted (`buckets.admit_on_credit`).
        Returns (-1, None) when admitted, else the index of the first write whose route
        has a resource out of capacity and that resource's throttle (nothing is taken)."""
        routes: list[tuple[list[Resource], list[float], list[ThrottleSite]]] = []
        for table, pk_hash, sk_pos, units, gsi_writes in writes:
            route: list[Resource] = []
            costs: list[float] = []
            sites: list[ThrottleSite] = []
            self._fill_write_route(table, pk_hash, sk_pos, units, gsi_writes, route, costs, sites)
            routes.append((route, costs, sites))
        return self._decide_together(routes, now, True)

    def read_together(self, reads: list[ReadRequest], *, now: float) -> tuple[int, Throttle | None]:
        """`write_together` for the reads of one request (a read transaction's items)."""
        routes: list[tuple[list[Resource], list[float], list[ThrottleSite]]] = []
        for table, pk_hash, sk_pos, units, index in reads:
            target = table.base if index is None else table.gsis[index]
            part = target.keyspace.locate(pk_hash, sk_pos)
            part.observe(pk_hash, sk_pos)
            routes.append(target.read_route(part, units))
        return self._decide_together(routes, now, False)

    def _decide_together(
        self,
        routes: list[tuple[list[Resource], list[float], list[ThrottleSite]]],
        now: float,
        is_write: bool,
    ) -> tuple[int, Throttle | None]:
        for i, (route, _costs, sites) in enumerate(routes):
            short = out_of_credit(route, now)
            if short >= 0:
                return i, sites[short].throttle(is_write)
        for route, costs, _sites in routes:
            admit_on_credit(route, costs)
        return -1, None

    def read(
        self,
        table: TableCapacity,
        pk_hash: int,
        sk_pos: Any,
        units: float,
        index: str | None = None,
        count: int = 1,
        *,
        now: float,
        part: Partition | None = None,
        consistent: bool = False,
    ) -> Decision:
        """Admit `count` reads of `units` RCU from one key of the table or a GSI.
        `consistent`: a strongly consistent read, which only the partition's leader
        serves; an eventually consistent one (DynamoDB's default, and the only kind a GSI
        serves) may be served by any replica [AWS reference.md#which-replica-serves-a-read].
        `units` are what the read is charged either way (half for eventually consistent)."""
        if index is None:
            target = table.base
        else:
            target = table.gsis[index]
            consistent = False
        if part is None:
            part = target.keyspace.locate(pk_hash, sk_pos)
        part.observe(pk_hash, sk_pos)
        route, costs, sites = target.read_route(part, units, consistent)
        return self._decide(route, costs, sites, count, now, False)

    def _decide(
        self,
        route: list[Resource],
        costs: list[float],
        sites: list[ThrottleSite],
        count: int,
        now: float,
        is_write: bool,
    ) -> Decision:
        accepted, binding = admit(route, costs, count, now)
        throttle = sites[binding].throttle(is_write) if binding >= 0 else None
        return Decision(accepted, count - accepted, throttle)

    # observation -------------------------------------------------------------------------
    def capacity_records(self, name: str) -> dict[str | None, CapacityRecord]:
        """A table's capacity over time, by index (None: the table): the capacity in
        force as it moved and every change asked for, with when, from, to and why."""
        table = self.table(name)
        return {index.index_name: index.record for index in table.indexes()}

    def capacity_view(self, name: str) -> dict[str, Any]:
        """The capacity records as JSON (`/_hotbench/capacity`), with each index's status,
        decreases today and auto scaling."""
        table = self.table(name)
        out: dict[str, Any] = {"table": name, "status": table.status(), "indexes": {}}
        for index in table.indexes():
            key = index.index_name or "$table"
            spec = _spec_of(table.config, index.index_name)
            entry = index.record.as_dict()
            entry["status"] = "UPDATING" if index.pending_limits is not None else "ACTIVE"
            entry["auto_scaling"] = None if spec is None else spec.as_request()
            out["indexes"][key] = entry
        return out

    def partition_map(self, name: str) -> dict[str, Any]:
        """Partitions of a table and its GSIs: key ranges, splits, heat. No AWS API shows
        this; the emulator does, so a user can see why a key throttled."""
        table = self.table(name)
        history = table.config.history
        out: dict[str, Any] = {
            "table": name,
            "history": None if history is None else history.known(),
            "indexes": [],
        }
        for index in table.indexes():
            ks = index.keyspace
            parts = []
            for part in ks.serving():
                entry: dict[str, Any] = {
                    "id": part.pid,
                    "hash_range": [f"{part.lo:016x}", f"{min(part.hi, (1 << 64) - 1):016x}"],
                    "hot_since": part.hot_since,
                    "split_at": part.split_at,
                    "utilisation_total": round(part.taken, 3),
                }
                if part.collection_pk is not None:
                    entry["item_collection_of_hash"] = f"{part.collection_pk:016x}"
                parts.append(entry)
            read, write = index.warm_values()
            out["indexes"].append(
                {
                    "index": index.index_name,
                    "partitions": parts,
                    "partition_count": ks.count,
                    "splits": ks.splits,
                    "warm_throughput": {"read": read, "write": write, "status": index.warm_status},
                    "on_demand_ceiling": None
                    if index.limits.provisioned
                    else {"read": index.ceiling_read, "write": index.ceiling_write},
                }
            )
        return out


def _spec_of(config: TableConfig, index: str | None) -> AutoScalingSpec | None:
    if index is None:
        return config.auto_scaling
    for gsi in config.gsis:
        if gsi.name == index:
            return gsi.auto_scaling
    return None


def _spec_text(config: TableConfig, index: str | None) -> str:
    """Auto scaling of a table or GSI in a few words, for its record."""
    spec = _spec_of(config, index)
    if spec is None:
        return "none"
    parts = []
    for dimension, policy in spec.policies():
        parts.append(
            f"{dimension} {policy.min_capacity}-{policy.max_capacity} at {policy.target_pct:g} %"
        )
    return ", ".join(parts)
