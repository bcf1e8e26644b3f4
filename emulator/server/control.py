"""Control-plane operations: CreateTable, DescribeTable, UpdateTable, DeleteTable,
ListTables and DescribeLimits (tags and the other per-table settings: table_settings.py).

A table's settings are kept as a CreateTable-shaped request; UpdateTable edits that
request and hands the result to the model (`CapacityModel.update_capacity`), whose rules
(emulator/capacity_changes.py) decide how long the change takes and what DynamoDB
refuses. The capacity itself lives in the model, which auto scaling also changes, so
DescribeTable reads the capacity, its status and its dates from there.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any, Final

from emulator.capacity import PartitionedCapacity
from emulator.capacity_changes import ChangeRefused
from emulator.model import ModelError
from emulator.params import DEFAULT_PARAMS
from emulator.server import lsi, quotas
from emulator.server.emulator_state import EmulatorState
from emulator.server.keystore import STORES, make_store
from emulator.server.lsi import local_index_defs
from emulator.server.protocol import (
    DynamoError,
    check_name,
    in_use,
    invalid_parameter,
    member,
    not_found,
    table_name,
    validation,
)
from emulator.server.streams import Stream, stream_label
from emulator.server.table import (
    Table,
    attribute_types,
    index_attributes,
    index_defs,
    key_schema,
)
from emulator.server.table_settings import tags_of
from emulator.tableconfig import PAY_PER_REQUEST, PROVISIONED, TableConfig, TableConfigError
from emulator.update_request import NOT_FOUND, merged_settings

MAX_TABLES_PAGE = 100
DELETE_DESCRIPTION: Final = (
    "TableName",
    "TableArn",
    "TableId",
    "TableStatus",
    "ProvisionedThroughput",
    "BillingModeSummary",
    "TableSizeBytes",
    "ItemCount",
    "DeletionProtectionEnabled",
)
"""The members of DeleteTable's TableDescription."""
CAPACITY_MEMBERS = ("BillingMode", "ProvisionedThroughput", "OnDemandThroughput", "WarmThroughput")


def _check_capacity_members(req: dict[str, Any]) -> None:
    for name in ("ProvisionedThroughput", "OnDemandThroughput", "WarmThroughput"):
        member(req, name, dict)
    member(req, "BillingMode", str)


def _check_something_to_update(req: dict[str, Any]) -> None:
    """An UpdateTable must change one of the settings it can change, each GSI update
    one action on one index, at most one update per index (DynamoDB's words, as
    dynalite's tests record them against AWS)."""
    if all(k not in req for k in (*CAPACITY_MEMBERS, "GlobalSecondaryIndexUpdates", STREAM_MEMBER)):
        raise validation(
            "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, "
            "GlobalSecondaryIndexUpdates, SSESpecification, OnDemandThroughput or "
            "WarmThroughput is required"
        )
    named: set[Any] = set()
    for update in member(req, "GlobalSecondaryIndexUpdates", list, default=[]):
        bodies = [update.get(k) for k in ("Update", "Create", "Delete") if isinstance(update, dict)]
        given = [b for b in bodies if b is not None]
        if not given:
            raise validation(
                "One or more parameter values were invalid: One of "
                "GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, "
                "GlobalSecondaryIndexUpdate.Delete must not be null"
            )
        index = given[0].get("IndexName") if isinstance(given[0], dict) else None
        if index in named:
            raise validation(
                "One or more parameter values were invalid: Only one global secondary "
                f"index update per index is allowed simultaneously. Index: {index}"
            )
        named.add(index)


def create_table(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    name = table_name(req)
    check_name(name)
    _check_capacity_members(req)
    quotas.check_bounds(req)
    types = attribute_types(req)
    schema = key_schema(req.get("KeySchema"), types, "keySchema")
    now = state.tick()
    gsis = index_defs(req, types, now + state.create_delay_s, schema.names)
    _check_global_indexes(req)
    member(req, "LocalSecondaryIndexes", list)
    lsis = local_index_defs(req, types, schema)
    used = set(schema.names) | {n for g in (*gsis.values(), *lsis.values()) for n in g.schema.names}
    if set(types) != used:
        raise invalid_parameter(
            "Number of attributes in KeySchema does not exactly match "
            "number of attributes defined in AttributeDefinitions"
        )
    view_type = _new_stream(req)
    if name in state.tables:
        raise in_use(f"Table already exists: {name}")
    on_demand = req.get("BillingMode") == PAY_PER_REQUEST
    if on_demand and req.get("ProvisionedThroughput") is not None:
        raise invalid_parameter(
            "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when "
            "BillingMode is PAY_PER_REQUEST"
        )
    _check_new_warm(req.get("WarmThroughput"), "table", on_demand)
    for gsi in req.get("GlobalSecondaryIndexes") or []:
        _check_new_warm(gsi.get("WarmThroughput"), f"index {gsi['IndexName']}", on_demand)
    tags = tags_of(member(req, "Tags", list, default=[]))
    quotas.check_table_count(len(state.tables))
    quotas.check_quotas(req, _other_requests(state, name), state.params.table_quota_units)
    store = make_store(_store_kind(state, tags), schema)
    store.set_indexes(*index_attributes({**gsis, **lsis}))
    stored = copy.deepcopy(req)
    try:
        capacity = state.model.create_table(stored, now)
    except ModelError as exc:
        raise validation(f"One or more parameter values were invalid: {exc}") from None
    table = Table(
        name=name,
        arn=capacity.arn,
        table_id=str(uuid.uuid4()),
        request=stored,
        schema=schema,
        store=store,
        created_epoch=state.epoch(now),
        ready_at=now + state.create_delay_s,
        gsis=gsis,
        lsis=lsis,
        tags=tags,
    )
    if lsis:
        store.weigh = lsi.weigher(lsis)
    if on_demand:
        # [AWS] an on-demand table's BillingModeSummary carries
        # LastUpdateToPayPerRequestDateTime from its creation on (it equals
        # CreationDateTime: Alternator's test_describe_table_billing, run against AWS).
        table.billing_switched_epoch = table.created_epoch
    state.tables[name] = table
    if view_type is not None:
        enable_stream(state, table, view_type, now)
    return {"TableDescription": describe(state, table, now)}


MAX_GSIS: Final = 20
"""[AWS] global secondary indexes per table (default quota)."""


def _check_global_indexes(req: dict[str, Any]) -> None:
    """A CreateTable's GSI list as DynamoDB refuses it: empty, more than 20, or an index
    with its own ProvisionedThroughput on an on-demand table."""
    raw = req.get("GlobalSecondaryIndexes")
    if raw is None:
        return
    if not raw:
        raise invalid_parameter("List of GlobalSecondaryIndexes is empty")
    on_demand = req.get("BillingMode") == PAY_PER_REQUEST
    for gsi in raw:
        if on_demand and gsi.get("ProvisionedThroughput") is not None:
            raise invalid_parameter(
                f"ProvisionedThroughput should not be specified for index: {gsi['IndexName']} "
                "when BillingMode is PAY_PER_REQUEST"
            )
    if len(raw) > MAX_GSIS:
        raise invalid_parameter(
            f"GlobalSecondaryIndex count exceeds the per-table limit of {MAX_GSIS}"
        )


def _other_requests(state: EmulatorState, name: str) -> list[dict[str, Any]]:
    """The settings of every table but `name` (the account quota sums over them), with
    the capacity auto scaling has given them."""
    return [sync_request(state, t) for n, t in state.tables.items() if n != name]


def sync_request(state: EmulatorState, table: Table) -> dict[str, Any]:
    """`table.request` with the provisioned capacity the model holds for the table and
    each GSI (the last asked for: auto scaling changes it in the model alone), written
    back so the next UpdateTable, the quotas and --data-dir see it."""
    capacity = state.model.tables.get(table.name)
    request = table.request
    if capacity is None or (request.get("BillingMode") or PROVISIONED) != PROVISIONED:
        return request
    _sync_throughput(request, capacity.base)
    for gsi in request.get("GlobalSecondaryIndexes") or []:
        index = capacity.gsis.get(gsi.get("IndexName"))
        if index is not None:
            _sync_throughput(gsi, index)
    return request


def _sync_throughput(entry: dict[str, Any], index: PartitionedCapacity) -> None:
    limits = index.requested_limits()
    if limits.provisioned and limits.rcu is not None and limits.wcu is not None:
        entry["ProvisionedThroughput"] = {
            "ReadCapacityUnits": int(limits.rcu),
            "WriteCapacityUnits": int(limits.wcu),
        }


def table_status(state: EmulatorState, table: Table, now: float) -> str:
    """TableStatus: the endpoint's own (CREATING, a GSI being created) and the model's
    (a change of capacity or billing mode being applied)."""
    capacity = state.model.tables.get(table.name)
    return table.status(now, capacity.status() if capacity is not None else "ACTIVE")


def _named_table(state: EmulatorState, name: str) -> Table:
    """A table in any status (control-plane calls see CREATING tables too), by name or
    by its ARN (of this region and account)."""
    table = state.tables.get(name)
    if table is None and name.startswith("arn:") and ":table/" in name:
        found = state.tables.get(name.rsplit("/", 1)[-1])
        if found is not None and found.arn == name:
            return found
    if table is None:
        check_name(name)
        raise not_found(f"Table: {name} not found")
    return table


def describe_table(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    name = table_name(req)
    now = state.tick()
    table = _named_table(state, name)
    return {"Table": describe(state, table, now)}


def delete_table(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    name = table_name(req)
    now = state.tick()
    table = _named_table(state, name)
    status = table_status(state, table, now)
    if status != "ACTIVE":
        raise in_use(
            f"Attempt to change a resource which is still in use: Table is being "
            f"{'created' if status == 'CREATING' else 'updated'}: {name}"
        )
    full = describe(state, table, now)
    # [AWS API_DeleteTable, Examples] DeleteTable answers with a short description:
    # the table's name, identity, status, throughput and size, not its schema or indexes.
    description = {k: full[k] for k in DELETE_DESCRIPTION if k in full}
    description["TableStatus"] = "DELETING"
    if table.stream is not None:
        disable_stream(table, now)  # [AWS] its records stay readable for 24 hours
    del state.tables[name]
    state.model.delete_table(name)
    state.metrics.forget(name)
    return {"TableDescription": description}


def list_tables(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    start = member(req, "ExclusiveStartTableName", str)
    limit = member(req, "Limit", int, default=MAX_TABLES_PAGE)
    if not 1 <= limit <= MAX_TABLES_PAGE:
        raise validation(
            f"1 validation error detected: Value '{limit}' at 'limit' failed to "
            "satisfy constraint: Member must have value less than or equal to "
            "100"
            if limit > MAX_TABLES_PAGE
            else "Member must have value greater than or equal to 1"
        )
    names = sorted(state.tables)
    if start is not None:
        names = [n for n in names if n > start]
    page = names[:limit]
    out: dict[str, Any] = {"TableNames": page}
    if len(names) > limit:
        out["LastEvaluatedTableName"] = page[-1]
    return out


def describe_limits(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    quota = int(state.params.table_quota_units)
    return {
        "AccountMaxReadCapacityUnits": quotas.ACCOUNT_QUOTA_UNITS,
        "AccountMaxWriteCapacityUnits": quotas.ACCOUNT_QUOTA_UNITS,
        "TableMaxReadCapacityUnits": quota,
        "TableMaxWriteCapacityUnits": quota,
    }


# --- tags ------------------------------------------------------------------------------------


STORE_TAG = "hotbench:store"
"""A CreateTable tag choosing this table's item store over the emulator's --store: a
control table (`hotbench run`'s results table) is read back and must be kept whole."""


def _store_kind(state: EmulatorState, tags: dict[str, str]) -> str:
    kind = tags.get(STORE_TAG, state.store_kind)
    if kind not in STORES:
        raise validation(
            f"One or more parameter values were invalid: the tag {STORE_TAG} must be one "
            f"of {', '.join(STORES)}, got {kind!r}"
        )
    return kind


# --- streams ---------------------------------------------------------------------------------

STREAM_MEMBER: Final = "StreamSpecification"


def _new_stream(req: dict[str, Any]) -> str | None:
    """A CreateTable's StreamSpecification (its members' types and the view type's enum
    were checked with the request's shape): the view type of the stream to enable, or
    None. DynamoDB's words (observed on AWS: ack-api-quirks DDB-TABLE-035)."""
    spec = member(req, STREAM_MEMBER, dict)
    if spec is None:
        return None
    view = spec.get("StreamViewType")
    if spec.get("StreamEnabled") is True:
        if view is None:
            raise invalid_parameter(
                "Table is being created with a stream enabled, UpdateViewType is required"
            )
        return str(view)
    if view is not None:
        raise invalid_parameter(
            "Table is being created with a stream disabled, UpdateViewType should not be specified"
        )
    return None


def _stream_update(req: dict[str, Any]) -> tuple[bool, str | None] | None:
    """An UpdateTable's StreamSpecification, checked as far as the request alone allows:
    (enable?, view type), or None when there is none. [AWS] a stream change goes with no
    capacity change, and an enable names its view type, a disable none (DynamoDB's words,
    observed on AWS: ack-api-quirks DDB-TABLE-050 and DDB-TABLE-382)."""
    spec = member(req, STREAM_MEMBER, dict)
    if spec is None:
        return None
    if "ProvisionedThroughput" in req or req.get("BillingMode") == PROVISIONED:
        raise validation("You cannot modify stream status while updating table IOPS")
    if "OnDemandThroughput" in req:
        raise validation(
            "OnDemandThroughput can only be combined with BillingMode in an UpdateTable request"
        )
    enabled = spec.get("StreamEnabled") is True
    view = spec.get("StreamViewType")
    if enabled and view is None:
        raise invalid_parameter("If stream is being enabled then UpdateViewType is required")
    if not enabled and view is not None:
        raise invalid_parameter(
            "If stream is being disabled, then UpdateViewType must not be specified"
        )
    return enabled, None if view is None else str(view)


def _apply_stream_update(
    state: EmulatorState, table: Table, change: tuple[bool, str | None], now: float
) -> None:
    """Enable or disable a table's stream. [AWS] one already enabled cannot be enabled
    again, even with another view type (disable it, then enable it: a new stream with a
    new ARN), and a table without one has none to disable; the table is UPDATING for a
    few seconds (4 to 5 s measured: here the create delay)."""
    enabled, view = change
    if enabled and table.stream is not None:
        raise validation(f"Table already has an enabled stream: TableName: {table.name}")
    if not enabled and table.stream is None:
        raise validation(f"Table has no stream to disable: TableName: {table.name}")
    if enabled:
        assert view is not None
        enable_stream(state, table, view, now)
    else:
        disable_stream(table, now)
    table.settings.updating_until = max(table.settings.updating_until, now + state.create_delay_s)


def enable_stream(state: EmulatorState, table: Table, view_type: str, now: float) -> None:
    """A new stream on `table`, its shards one per partition of the table, its label the
    time it was enabled (streams.py)."""
    epoch = state.epoch(now)
    label = stream_label(epoch, lambda taken: f"{table.arn}/stream/{taken}" in state.streams)
    arn = f"{table.arn}/stream/{label}"
    stream = Stream(
        arn,
        label,
        table.name,
        table.request["KeySchema"],
        view_type,
        epoch,
        state.stream_budget,
    )
    stream.follow(state.model.tables[table.name].base.keyspace, now)
    _forget_old_streams(state.streams)
    state.streams[arn] = stream
    table.stream = table.latest_stream = stream
    table.request[STREAM_MEMBER] = {"StreamEnabled": True, "StreamViewType": view_type}


MAX_DISABLED_STREAMS: Final = 1000
"""Disabled streams a region keeps (each listable for 24 hours) beyond which the oldest
are forgotten: a client enabling and disabling streams in a loop cannot grow the server
without bound (each keeps its shards and records)."""


def _forget_old_streams(streams: dict[str, Stream]) -> None:
    disabled = [s for s in streams.values() if s.disabled_at is not None]
    if len(disabled) >= MAX_DISABLED_STREAMS:
        disabled.sort(key=lambda s: s.disabled_at or 0.0)
        for stream in disabled[: len(disabled) - MAX_DISABLED_STREAMS + 1]:
            del streams[stream.arn]


def disable_stream(table: Table, now: float) -> None:
    """[AWS] a disabled stream stays listable and readable (DISABLED) for 24 hours; the
    table's DescribeTable drops its StreamSpecification and keeps LatestStreamArn."""
    assert table.stream is not None
    table.stream.close(now)
    table.stream = None
    table.request.pop(STREAM_MEMBER, None)


# --- UpdateTable -----------------------------------------------------------------------------


def update_table(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    name = table_name(req)
    _check_capacity_members(req)
    # What the request alone can refuse, before the table is looked up (as DynamoDB:
    # an UpdateTable of nothing, or of too much, to a missing table is refused as such).
    _check_something_to_update(req)
    stream_change = _stream_update(req)
    quotas.check_bounds(req)
    now = state.tick()
    table = _named_table(state, name)
    status = table.status(now)
    if status != "ACTIVE":
        # [AWS API_UpdateTable] "While it's UPDATING, you can't issue another UpdateTable
        # request": https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html
        # (a capacity change being applied is refused by the model, in DynamoDB's words
        # for it: emulator/capacity_changes.py).
        raise in_use(
            "Attempt to change a resource which is still in use: Table is being "
            f"{'created' if status == 'CREATING' else 'updated'}: {name}"
        )
    if stream_change is not None:
        _apply_stream_update(state, table, stream_change, now)
        if all(k not in req for k in (*CAPACITY_MEMBERS, "GlobalSecondaryIndexUpdates")):
            return {"TableDescription": describe(state, table, now)}
    member(req, "BillingMode", str)
    member(req, "AttributeDefinitions", list)
    try:
        new, switching = merged_settings(sync_request(state, table), req)
    except ChangeRefused as exc:
        if exc.error == NOT_FOUND:
            raise not_found(exc.message) from None
        raise validation(exc.message) from None
    mode = new.get("BillingMode") or PROVISIONED
    _check_warm_updates(state, table, req, mode == PAY_PER_REQUEST)
    quotas.check_bounds(new)
    quotas.check_quotas(new, _other_requests(state, name), state.params.table_quota_units)
    types = attribute_types(new)
    gsis = index_defs(new, types, now + state.create_delay_s, table.schema.names, table.gsis)
    if len(gsis) > MAX_GSIS:
        raise invalid_parameter(
            f"GlobalSecondaryIndex count exceeds the per-table limit of {MAX_GSIS}"
        )
    table.store.set_indexes(*index_attributes({**gsis, **table.lsis}))
    try:
        config = TableConfig.from_request(new)
        state.model.update_capacity(name, config, now)
    except ChangeRefused as exc:
        table.store.set_indexes(*index_attributes({**table.gsis, **table.lsis}))  # as it was
        raise DynamoError(exc.error, exc.message) from None
    except (TableConfigError, ModelError) as exc:
        table.store.set_indexes(*index_attributes({**table.gsis, **table.lsis}))  # as it was
        raise validation(f"One or more parameter values were invalid: {exc}") from None
    table.request = new
    table.gsis = gsis
    if switching:
        table.billing_switched_epoch = state.epoch(now)
    return {"TableDescription": describe(state, table, now)}


ON_DEMAND_INITIAL_WARM: Final = {
    "ReadUnitsPerSecond": DEFAULT_PARAMS.ondemand_initial_rcu,
    "WriteUnitsPerSecond": DEFAULT_PARAMS.ondemand_initial_wcu,
}
"""[AWS] a new on-demand table's or index's warm throughput, the least that may be asked
for: the model's own figures, unscaled (an API rule on the numbers a client sends) (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput.html;
docs/reference.md, Warm throughput)."""


def _warm_member(raw: Any, where: str) -> dict[str, Any] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise validation("WarmThroughput must be an object")
    if "ReadUnitsPerSecond" not in raw and "WriteUnitsPerSecond" not in raw:
        raise invalid_parameter(
            "WarmThroughput must have at least one of ReadUnitsPerSecond or "
            f"WriteUnitsPerSecond specified for {where.replace('index ', 'index: ')}"
        )
    return raw


def _check_new_warm(raw: Any, where: str, on_demand: bool) -> None:
    """The warm throughput asked of a new table or index: on demand, at least the
    12,000 reads / 4,000 writes a second it has anyway (DynamoDB's wording, measured)."""
    warm = _warm_member(raw, where)
    if warm is None or not on_demand:
        return
    for unit, least in ON_DEMAND_INITIAL_WARM.items():
        value = warm.get(unit)
        if isinstance(value, (int, float)) and value < least:
            raise invalid_parameter(
                f"Requested {unit} for WarmThroughput for {where} is lower than initial "
                "throughput for OnDemand. See: https://docs.aws.amazon.com/amazondynamodb/"
                "latest/developerguide/on-demand-capacity-mode.html"
            )


def _check_warm_updates(
    state: EmulatorState, table: Table, req: dict[str, Any], on_demand: bool
) -> None:
    """An UpdateTable's warm throughput, of the table and of each GSI it updates or
    creates: never lower than in force (DynamoDB cannot lower it), and for a new index on
    demand, at least the initial 12,000 / 4,000."""
    capacity = state.model.tables[table.name]
    asks: list[tuple[Any, str, Any]] = [(req.get("WarmThroughput"), "table", capacity.base)]
    for update in req.get("GlobalSecondaryIndexUpdates") or []:
        if not isinstance(update, dict):
            continue
        for action, body in update.items():
            if not isinstance(body, dict) or "WarmThroughput" not in body:
                continue
            index = str(body.get("IndexName"))
            if action == "Create":
                _check_new_warm(body["WarmThroughput"], f"index {index}", on_demand)
            else:
                asks.append((body["WarmThroughput"], f"index {index}", capacity.gsis.get(index)))
    for raw, where, space in asks:
        warm = _warm_member(raw, where)
        if warm is None or space is None:
            continue
        in_force = dict(zip(ON_DEMAND_INITIAL_WARM, space.warm_values(), strict=True))
        for unit, current in in_force.items():
            value = warm.get(unit)
            if isinstance(value, (int, float)) and value < current:
                raise invalid_parameter(
                    f"Requested {unit} for WarmThroughput for {where} is lower than current "
                    "WarmThroughput, decreasing WarmThroughput is not supported"
                )


# --- DescribeTable ---------------------------------------------------------------------------


def _throughput(
    state: EmulatorState, index: PartitionedCapacity | None, mode: str, now: float
) -> dict[str, Any]:
    """A table's or GSI's ProvisionedThroughput as DescribeTable shows it: the units in
    force (while an UpdateTable applies, still the old ones [3P]; 0 on demand), the dates
    of the last increase and decrease, and the decreases of this UTC day."""
    out: dict[str, Any] = {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0}
    if index is None:
        out["NumberOfDecreasesToday"] = 0
        return out
    limits = index.limits if index.limits.provisioned else index.requested_limits()
    if mode == PROVISIONED and limits.provisioned:
        out["ReadCapacityUnits"] = int(limits.rcu or 0)
        out["WriteCapacityUnits"] = int(limits.wcu or 0)
    budget = index.budget
    if budget.last_increase is not None:
        out["LastIncreaseDateTime"] = state.epoch(budget.last_increase)
    if budget.last_decrease is not None:
        out["LastDecreaseDateTime"] = state.epoch(budget.last_decrease)
    out["NumberOfDecreasesToday"] = budget.today(now, state.model.epoch_s)
    return out


def _on_demand(request: dict[str, Any]) -> dict[str, int]:
    odt = request.get("OnDemandThroughput") or {}
    return {
        "MaxReadRequestUnits": int(odt.get("MaxReadRequestUnits", -1)),
        "MaxWriteRequestUnits": int(odt.get("MaxWriteRequestUnits", -1)),
    }


def describe(state: EmulatorState, table: Table, now: float) -> dict[str, Any]:
    """A TableDescription as DynamoDB returns it."""
    req = table.request
    capacity = state.model.tables[table.name]
    mode = req.get("BillingMode") or PROVISIONED
    read, write = capacity.base.warm_values()
    out: dict[str, Any] = {
        "TableName": table.name,
        "TableArn": table.arn,
        "TableId": table.table_id,
        "TableStatus": table.status(now, capacity.status()),
        "CreationDateTime": table.created_epoch,
        "KeySchema": req["KeySchema"],
        "AttributeDefinitions": req["AttributeDefinitions"],
        "ItemCount": table.store.count,
        "TableSizeBytes": table.store.bytes,
        "ProvisionedThroughput": _throughput(state, capacity.base, mode, now),
        "BillingModeSummary": {"BillingMode": mode},
        "WarmThroughput": {
            "ReadUnitsPerSecond": int(read),
            "WriteUnitsPerSecond": int(write),
            "Status": capacity.base.warm_status,
        },
        "DeletionProtectionEnabled": False,
    }
    if table.billing_switched_epoch is not None and mode == PAY_PER_REQUEST:
        out["BillingModeSummary"]["LastUpdateToPayPerRequestDateTime"] = (
            table.billing_switched_epoch
        )
    if mode == PAY_PER_REQUEST or "OnDemandThroughput" in req:
        out["OnDemandThroughput"] = _on_demand(req)
    if table.lsis:
        out["LocalSecondaryIndexes"] = lsi.describe(table)
    if table.stream is not None:
        out[STREAM_MEMBER] = {"StreamEnabled": True, "StreamViewType": table.stream.view_type}
    if table.latest_stream is not None:
        out["LatestStreamLabel"] = table.latest_stream.label
        out["LatestStreamArn"] = table.latest_stream.arn
    gsis = []
    for raw in req.get("GlobalSecondaryIndexes") or []:
        name = raw["IndexName"]
        index = table.gsis[name]
        gcap = capacity.gsis.get(name)
        g_read, g_write = gcap.warm_values() if gcap else (0.0, 0.0)
        entry: dict[str, Any] = {
            "IndexName": name,
            "KeySchema": raw["KeySchema"],
            "Projection": raw.get("Projection") or {"ProjectionType": "ALL"},
            "IndexStatus": "CREATING"
            if now < index.ready_at
            else "UPDATING"
            if gcap is not None and gcap.pending_limits is not None
            else "ACTIVE",
            "ProvisionedThroughput": _throughput(state, gcap, mode, now),
            "IndexSizeBytes": 0,
            "ItemCount": 0,
            "IndexArn": f"{table.arn}/index/{name}",
            "WarmThroughput": {
                "ReadUnitsPerSecond": int(g_read),
                "WriteUnitsPerSecond": int(g_write),
                "Status": gcap.warm_status if gcap else "ACTIVE",
            },
        }
        if now < index.ready_at:
            entry["Backfilling"] = False
        if mode == PAY_PER_REQUEST or "OnDemandThroughput" in raw:
            entry["OnDemandThroughput"] = _on_demand(raw)
        gsis.append(entry)
    if gsis:
        out["GlobalSecondaryIndexes"] = gsis
    return out
