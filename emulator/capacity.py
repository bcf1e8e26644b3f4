"""The capacity of one table or GSI: its partitions and its table-level limits.

Table-level limits are token buckets: the provisioned rate with its 300-second burst
pool (adaptive capacity lets any partition draw on it, up to the partition's own hard
limit), or, on demand, the current ceiling, which grows in steps under sustained
pressure, and the optional OnDemandThroughput maximum. Per-partition limits live in
`keyspace`. Everything here is pure: time comes in as an argument.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from emulator.autoscaling import DimensionScaler, run_scalers
from emulator.buckets import MeteredBucket, Resource, TokenBucket
from emulator.capacity_changes import DecreaseBudget, SwitchBudget
from emulator.capacity_record import CEILING_SERIES, PROVISIONED_SERIES, CapacityRecord
from emulator.keyspace import GsiWriteLog, KeySpace, Partition
from emulator.params import CapacityParams
from emulator.partitioning import classic_count, either_count
from emulator.tableconfig import PROVISIONED, IndexConfig, TableConfig, TableHistory
from emulator.throttle import Cause, ThrottleSite


@dataclass
class Limits:
    """Full-scale capacity settings of a table or index."""

    provisioned: bool
    rcu: float | None
    wcu: float | None
    max_read: float | None
    max_write: float | None
    warm_read: float | None
    warm_write: float | None


class Growth:
    """On-demand ceiling growth under continuous pressure (M3: steps of ~1,000/s after
    8 minutes, then every 10 minutes of continued overload)."""

    __slots__ = ("last_pressure", "last_step", "since", "steps")

    def __init__(self) -> None:
        self.since: float | None = None
        self.last_pressure = -1e18
        self.last_step: float | None = None
        self.steps = 0

    def due(self, pressured_now: bool, now: float, p: CapacityParams) -> bool:
        """Advance the pressure clock by one second; True when a step lands."""
        if pressured_now:
            if self.since is None or now - self.last_pressure > p.pressure_gap_s:
                self.since = now
                self.last_step = None
            self.last_pressure = now
        elif self.since is not None and now - self.last_pressure > p.pressure_gap_s:
            self.since = None
            self.last_step = None
        if self.since is None:
            return False
        if self.last_step is None:
            if now - self.since >= p.ondemand_growth_first_s:
                self.last_step = now
                self.steps += 1
                return True
        elif now - self.last_step >= p.ondemand_growth_next_s:
            self.last_step = now
            self.steps += 1
            return True
        return False


class PartitionedCapacity:
    """One partitioned key space, a base table (`index_name` None) or a GSI: its
    partitions plus the table-level limits over them."""

    def __init__(
        self,
        table_arn: str,
        index_name: str | None,
        has_sort_key: bool,
        limits: Limits,
        params: CapacityParams,
        now: float,
        history: TableHistory | None = None,
    ) -> None:
        self.p = params
        self.index_name = index_name
        self.arn = table_arn if index_name is None else f"{table_arn}/index/{index_name}"
        self.limits = limits
        p = params
        # The warm throughput the table has reached, which nothing lowers: its history
        # (a previous on-demand peak doubled, capacity provisioned or warm throughput set
        # before) and the highest capacity provisioned since, capped by the table quota
        # a table's capacity never exceeds [AWS reference.md#warm-throughput].
        floor_read, floor_write = history.warm_floor() if history is not None else (0.0, 0.0)
        self.floor_read = min(p.table_quota_units, floor_read)
        self.floor_write = min(p.table_quota_units, floor_write)
        self.ceiling_read = 0.0
        self.ceiling_write = 0.0
        self.warm_status = "ACTIVE"
        self.warm_ready_at: float | None = None
        self.pending_warm: tuple[float, float] | None = None
        self.growth_write = Growth()
        self.growth_read = Growth()
        self.pending_limits: Limits | None = None
        """The mode and provisioned units an UpdateTable asked for, in force from
        `pending_at` on; the settings before serve meanwhile (emulator/capacity_changes.py)."""
        self.pending_at = math.inf
        self.budget = DecreaseBudget()
        """Decreases of this table's or GSI's provisioned capacity (DynamoDB counts a GSI's
        apart from its table's)."""
        self.record = CapacityRecord(index_name)
        """The capacity in force over time and every change asked of it."""
        write_log = None
        if index_name is not None:

            def write_log(part: Partition, t: float) -> GsiWriteLog:
                return GsiWriteLog(part, p.gsi_intake_factor, p.gsi_backlog_s, p.grace_s, t)

        initial = self.partitions_needed()
        if history is not None:
            # It was provisioned at these once, both at once: those partitions remain.
            prev_read, prev_write = history.provisioned()
            quota = p.table_quota_units
            initial = max(initial, classic_count(min(quota, prev_read), min(quota, prev_write), p))
        self.keyspace = KeySpace(
            initial,
            p.grace_s,
            now,
            has_sort_key,
            p.split_monotonic_fraction,
            write_log,
        )
        self.read_limit = TokenBucket(1.0, 1.0, now)
        self.write_limit = TokenBucket(1.0, 1.0, now)
        self.max_read_limit: TokenBucket | None = None
        self.max_write_limit: TokenBucket | None = None
        self._apply_limits(now, fresh=True)
        self.partition_site = ThrottleSite(
            index_name is not None, Cause.KEY_RANGE, self.arn, limits.provisioned
        )
        self.max_site = ThrottleSite(
            index_name is not None, Cause.MAX_ON_DEMAND, self.arn, limits.provisioned
        )

    # settings ----------------------------------------------------------------------------
    def warm_values(self) -> tuple[float, float]:
        """Warm throughput in force (full scale): what the table takes instantly. It
        never falls: a provisioned table's rises to its highest provisioned capacity, an
        on-demand table's starts at 12,000 reads / 4,000 writes, and a table's history
        raises either [AWS reference.md#warm-throughput]."""
        lim, p = self.limits, self.p
        if lim.provisioned:
            read = max(lim.rcu or 0.0, lim.warm_read or 0.0, self.floor_read)
            write = max(lim.wcu or 0.0, lim.warm_write or 0.0, self.floor_write)
        else:
            read = max(p.ondemand_initial_rcu, lim.warm_read or 0.0, self.floor_read)
            write = max(p.ondemand_initial_wcu, lim.warm_write or 0.0, self.floor_write)
        return read, write

    def partitions_needed(self) -> int:
        """The partitions the capacity in force needs (emulator.partitioning): its warm
        throughput (which an on-demand ceiling that grew has raised), reads or writes or a
        mix; a provisioned table's RCU and WCU at once."""
        p = self.p
        read, write = self.warm_values()
        count = either_count(read, write, p)
        if self.limits.provisioned:
            count = max(count, classic_count(self.limits.rcu or 0.0, self.limits.wcu or 0.0, p))
        return count

    def _apply_limits(self, now: float, fresh: bool = False, doubling: bool = False) -> None:
        """Put the limits in force. `doubling`: an UpdateTable's change, whose partitions
        double until they carry it; otherwise (creation, growth under traffic) they split
        one at a time (emulator.partitioning)."""
        lim, p, s = self.limits, self.p, self.p.scale
        if lim.provisioned:
            self.floor_read = max(self.floor_read, lim.rcu or 0.0)
            self.floor_write = max(self.floor_write, lim.wcu or 0.0)
            self.read_limit.set_rate((lim.rcu or 0) * s, (lim.rcu or 0) * s * p.burst_s, now)
            self.write_limit.set_rate((lim.wcu or 0) * s, (lim.wcu or 0) * s * p.burst_s, now)
            if fresh:
                self.read_limit.tokens = self.read_limit.depth
                self.write_limit.tokens = self.write_limit.depth
            self.max_read_limit = self.max_write_limit = None
        else:
            warm_read, warm_write = self.warm_values()
            quota = p.table_quota_units
            self.ceiling_read = min(quota, max(self.ceiling_read, warm_read * p.ondemand_headroom))
            self.ceiling_write = min(
                quota, max(self.ceiling_write, warm_write * p.ondemand_headroom)
            )
            self.read_limit.set_rate(self.ceiling_read * s, self.ceiling_read * s * p.grace_s, now)
            self.write_limit.set_rate(
                self.ceiling_write * s, self.ceiling_write * s * p.grace_s, now
            )
            if fresh:
                self.read_limit.tokens = self.read_limit.depth
                self.write_limit.tokens = self.write_limit.depth
            self.max_read_limit = self._max_bucket(lim.max_read, self.max_read_limit, now)
            self.max_write_limit = self._max_bucket(lim.max_write, self.max_write_limit, now)
        target = self.partitions_needed()
        if doubling:
            self.keyspace.double_until(target, now)
        else:
            self.keyspace.grow_to(target, now)
        # Routes are built per request: what they share is prepared once per change.
        self._site_write = self._table_site(True)
        self._site_read = self._table_site(False)
        self._per_partition_w = self.p.partition_wcu * self.p.scale
        self._per_partition_r = self.p.partition_rcu * self.p.scale
        self._per_partition_r_eventual = self._per_partition_r * self.p.eventual_read_factor
        if lim.provisioned:
            self.record.point(now, PROVISIONED_SERIES, lim.rcu or 0.0, lim.wcu or 0.0)
        else:
            self.record.point(now, CEILING_SERIES, self.ceiling_read, self.ceiling_write)

    def _max_bucket(
        self, units: float | None, old: TokenBucket | None, now: float
    ) -> TokenBucket | None:
        if units is None:
            return None
        rate = units * self.p.scale
        if old is None:
            return TokenBucket(rate, rate * self.p.grace_s, now)
        old.set_rate(rate, rate * self.p.grace_s, now)
        return old

    def update_limits(self, limits: Limits, now: float) -> None:
        """UpdateTable: new capacity takes effect at once; raised warm throughput after
        the pre-split (Status UPDATING for `warm_update_s`)."""
        old_read, old_write = self.warm_values()
        pending_read, pending_write = limits.warm_read, limits.warm_write
        raising_warm = (pending_read or 0) > old_read or (pending_write or 0) > old_write
        if raising_warm:
            self.pending_warm = (pending_read or 0.0, pending_write or 0.0)
            self.warm_status = "UPDATING"
            self.warm_ready_at = now + self.p.warm_update_s
            limits = Limits(
                limits.provisioned,
                limits.rcu,
                limits.wcu,
                limits.max_read,
                limits.max_write,
                self.limits.warm_read,
                self.limits.warm_write,
            )
        self.limits = limits
        self.partition_site = ThrottleSite(
            self.index_name is not None, Cause.KEY_RANGE, self.arn, limits.provisioned
        )
        self.max_site = ThrottleSite(
            self.index_name is not None, Cause.MAX_ON_DEMAND, self.arn, limits.provisioned
        )
        self._apply_limits(now, doubling=True)

    def schedule(self, limits: Limits, at: float, provisioned: bool) -> None:
        """An UpdateTable's mode and provisioned units, to be in force from `at` (the
        other settings are taken as they are then)."""
        self.pending_limits = Limits(
            provisioned,
            limits.rcu if provisioned else None,
            limits.wcu if provisioned else None,
            None,
            None,
            None,
            None,
        )
        self.pending_at = at

    def land(self, now: float) -> None:
        """Put the scheduled mode and units in force (the tick calls this when due)."""
        assert self.pending_limits is not None
        landing = self.requested_limits()
        self.pending_limits = None
        self.pending_at = math.inf
        self.update_limits(landing, now)

    def requested_limits(self) -> Limits:
        """The settings asked for last: the scheduled mode and units over those in force
        (what DescribeTable will show once the table is ACTIVE)."""
        pending = self.pending_limits
        if pending is None:
            return self.limits
        lim = self.limits
        return Limits(
            pending.provisioned,
            pending.rcu,
            pending.wcu,
            lim.max_read,
            lim.max_write,
            lim.warm_read,
            lim.warm_write,
        )

    def meter(self) -> tuple[MeteredBucket, MeteredBucket]:
        """The table-level read and write buckets as metered ones, which count the
        consumed units auto scaling watches; swapped in only when a policy needs them."""
        read, write = self.read_limit, self.write_limit
        if not isinstance(read, MeteredBucket):
            read = self.read_limit = MeteredBucket.replacing(read)
        if not isinstance(write, MeteredBucket):
            write = self.write_limit = MeteredBucket.replacing(write)
        return read, write

    def table_site(self, is_write: bool) -> ThrottleSite:
        """Why the table-level bucket refuses: provisioned rate, the per-table quota, or
        [? reference.md#errors-and-throttle-reasons] the on-demand ceiling, which is the
        key-range capacity a table has been given."""
        return self._site_write if is_write else self._site_read

    def _table_site(self, is_write: bool) -> ThrottleSite:
        if self.limits.provisioned:
            cause = Cause.PROVISIONED
        else:
            ceiling = self.ceiling_write if is_write else self.ceiling_read
            cause = Cause.ACCOUNT_LIMIT if ceiling >= self.p.table_quota_units else Cause.KEY_RANGE
        return ThrottleSite(self.index_name is not None, cause, self.arn, self.limits.provisioned)

    # routes ------------------------------------------------------------------------------
    def add_write_route(
        self,
        part: Partition,
        units: float,
        route: list[Resource],
        costs: list[float],
        sites: list[ThrottleSite],
    ) -> None:
        """Append what a write of `units` to `part` needs of this table or GSI to a route
        (appended in place: one write's route spans the table and its GSIs)."""
        # Appends, not `+=` of tuples: no tuple per call, and native list appends once
        # compiled.
        route.append(self.keyspace.write_logs.get(part.pid, part))
        route.append(self.write_limit)
        costs.append(units / self._per_partition_w)
        costs.append(units)
        sites.append(self.partition_site)
        sites.append(self._site_write)
        if self.max_write_limit is not None:
            route.append(self.max_write_limit)
            costs.append(units)
            sites.append(self.max_site)

    def add_index_write_route(
        self,
        part: Partition | None,
        units: float,
        old_part: Partition | None,
        old_units: float,
        route: list[Resource],
        costs: list[float],
        sites: list[ThrottleSite],
    ) -> None:
        """What one table write asks of this GSI: `units` on the new entry's partition
        (`part`) and `old_units` on the old entry's (`old_part`, the delete of an entry
        that moved or went); the index's own limits take both. Each resource appears on
        the route once (a delete and put on one partition are one cost), as `admit`
        checks each entry of a route on its own."""
        if part is None or old_part is None or old_part is part:
            where = part if part is not None else old_part
            assert where is not None
            self.add_write_route(where, units + old_units, route, costs, sites)
            return
        per = self._per_partition_w
        total = units + old_units
        route.append(self.keyspace.write_logs.get(old_part.pid, old_part))
        route.append(self.keyspace.write_logs.get(part.pid, part))
        route.append(self.write_limit)
        costs.append(old_units / per)
        costs.append(units / per)
        costs.append(total)
        sites.append(self.partition_site)
        sites.append(self.partition_site)
        sites.append(self._site_write)
        if self.max_write_limit is not None:
            route.append(self.max_write_limit)
            costs.append(total)
            sites.append(self.max_site)

    def read_route(
        self, part: Partition, units: float, consistent: bool = False
    ) -> tuple[list[Resource], list[float], list[ThrottleSite]]:
        """What a read of `units` needs. A strongly consistent read is served by the
        partition's leader, an eventually consistent one by any replica, so the latter
        takes `eventual_read_factor` times the partition's read rate [AWS
        reference.md#which-replica-serves-a-read]; the table-level limits count units."""
        per = self._per_partition_r if consistent else self._per_partition_r_eventual
        route: list[Resource] = [part, self.read_limit]
        costs = [units / per, units]
        sites = [self.partition_site, self._site_read]
        if self.max_read_limit is not None:
            route.append(self.max_read_limit)
            costs.append(units)
            sites.append(self.max_site)
        return route, costs, sites

    # time --------------------------------------------------------------------------------
    def tick(self, now: float) -> None:
        """Once a second: heat and splits, on-demand growth, warm-throughput completion."""
        p = self.p
        keyspace = self.keyspace
        for part in keyspace.serving():
            if part.hot_since is not None and now - part.last_hot > p.pressure_gap_s:
                part.hot_since = None
            if (
                part.hot_since is not None
                and now - part.hot_since >= p.isolate_heat_s
                and keyspace.split_for_consumption(part, now)
            ):
                continue
            if (
                part.split_at is None
                and part.hot_since is not None
                and now - part.hot_since >= p.split_heat_s
            ):
                part.split_at = now + p.split_delay_s
            if part.split_at is not None and now >= part.split_at:
                part.split_at = None
                if not keyspace.split_for_heat(part, now):
                    part.hot_since = now if part.hot_since is not None else None
        if self.warm_ready_at is not None and now >= self.warm_ready_at:
            assert self.pending_warm is not None
            read, write = self.pending_warm
            lim = self.limits
            self.limits = Limits(
                lim.provisioned,
                lim.rcu,
                lim.wcu,
                lim.max_read,
                lim.max_write,
                max(read, lim.warm_read or 0) or None,
                max(write, lim.warm_write or 0) or None,
            )
            self.pending_warm = None
            self.warm_ready_at = None
            self.warm_status = "ACTIVE"
            self._apply_limits(now, doubling=True)
        if not self.limits.provisioned:
            grew = False
            if self.growth_write.due(self.write_limit.refused_at > now - 1.0, now, p):
                self.ceiling_write = min(
                    p.table_quota_units, self.ceiling_write + p.ondemand_growth_step_wcu
                )
                grew = True
            if self.growth_read.due(self.read_limit.refused_at > now - 1.0, now, p):
                self.ceiling_read = min(
                    p.table_quota_units, self.ceiling_read + p.ondemand_growth_step_rcu
                )
                grew = True
            if grew:
                # What it grew to is warm throughput now: it takes it at once from here on
                # [AWS reference.md#warm-throughput: DynamoDB raises warm values as usage
                # grows], and the partitions that carry it stay.
                self.floor_read = max(self.floor_read, self.ceiling_read / p.ondemand_headroom)
                self.floor_write = max(self.floor_write, self.ceiling_write / p.ondemand_headroom)
                self._apply_limits(now)


def limits_of(config: TableConfig | IndexConfig, provisioned: bool) -> Limits:
    """The capacity settings of a table or GSI, in one shape."""
    return Limits(
        provisioned=provisioned,
        rcu=config.rcu,
        wcu=config.wcu,
        max_read=config.max_read,
        max_write=config.max_write,
        warm_read=config.warm_read,
        warm_write=config.warm_write,
    )


class TableCapacity:
    """A table with its GSIs: the unit the model admits requests against."""

    def __init__(
        self,
        config: TableConfig,
        arn: str,
        params: CapacityParams,
        now: float,
        epoch_s: float = 0.0,
    ) -> None:
        self.config = config
        self.arn = arn
        self.p = params
        self.epoch_s = epoch_s
        """The Unix time of model time 0: the UTC calendar the decrease limit counts by."""
        provisioned = config.billing == PROVISIONED
        self.switches = SwitchBudget()
        self.ever_on_demand = not provisioned
        """Whether the table was ever PAY_PER_REQUEST (a switch back is quicker [3P])."""
        self.scalers: list[DimensionScaler] = []
        """Auto scaling's policies at run time; empty (and no work) without auto scaling."""
        self.base = PartitionedCapacity(
            arn,
            None,
            config.sk is not None and not config.has_lsi,
            limits_of(config, provisioned),
            params,
            now,
            config.history,
        )
        self.gsis: dict[str, PartitionedCapacity] = {
            g.name: PartitionedCapacity(
                arn, g.name, g.sk is not None, limits_of(g, provisioned), params, now
            )
            for g in config.gsis
        }

    def indexes(self) -> list[PartitionedCapacity]:
        return [self.base, *self.gsis.values()]

    def index(self, name: str | None) -> PartitionedCapacity:
        """The table (None) or one of its GSIs; KeyError for an unknown GSI."""
        return self.base if name is None else self.gsis[name]

    def status(self) -> str:
        """TableStatus as far as capacity goes: UPDATING while a change of the table's
        provisioned capacity or billing mode is applied, else ACTIVE (a GSI's own change
        shows in its IndexStatus, warm throughput in WarmThroughput.Status [3P])."""
        return "UPDATING" if self.base.pending_limits is not None else "ACTIVE"

    def tick(self, now: float) -> None:
        for index in self.indexes():
            if index.pending_limits is not None and now >= index.pending_at:
                index.land(now)
            index.tick(now)
        if self.scalers:
            run_scalers(self, now)
