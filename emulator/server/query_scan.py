"""Query and Scan: a page of a key's item collection, or of the whole table, from the
table or one of its GSIs; the page is charged by the bytes it read."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from emulator.compositekey import composite_partition_hash
from emulator.itemsize import item_size
from emulator.keyspace import HASH_SPACE
from emulator.server.admission import location, projected
from emulator.server.charging import charge_read, finish, throttle_error
from emulator.server.emulator_state import EmulatorState
from emulator.server.expr_eval import evaluate
from emulator.server.expr_parse import (
    MAX_KEY_CONDITIONS,
    KeyCondition,
    Node,
    Path,
    Placeholders,
    check_key_shape,
    key_condition,
    parse_condition,
)
from emulator.server.expr_project import project
from emulator.server.items import KeySchema, Sized, key_hash, pk_hash_of, sort_value
from emulator.server.legacy import filter_condition, key_conditions, uses_expressions
from emulator.server.protocol import invalid_parameter, member, table_name, validation
from emulator.server.request_validators import (
    consumed_mode,
    enum_of,
    placeholders_of,
    projection_of,
)
from emulator.server.table import IndexDef, Table
from emulator.server.values import Item, check_item, typed
from emulator.units import PAGE_BYTES


@dataclass
class _Source:
    """What a Query or Scan reads: the table or one of its GSIs."""

    index: str | None
    schema: KeySchema
    gsi: IndexDef | None
    """The GSI read (None: the table): its projection is what a read returns and pays."""
    key_names: tuple[str, ...]
    """Attributes of LastEvaluatedKey: the index keys plus the table keys."""
    local: bool = False
    """An LSI: read on the table's partition and capacity, consistent reads allowed."""

    @property
    def model_index(self) -> str | None:
        """The index the capacity model charges: a GSI's own, an LSI's the table's."""
        return None if self.local else self.index


def _source(table: Table, req: dict[str, Any], consistent: bool) -> _Source:
    index = member(req, "IndexName", str)
    if index is None:
        return _Source(None, table.schema, None, table.schema.names)
    gsi = table.gsis.get(index)
    if gsi is None:
        local = table.lsis.get(index)
        if local is None:
            raise validation(f"The table does not have the specified index: {index}")
        names = tuple(dict.fromkeys((*local.schema.names, *table.schema.names)))
        return _Source(index, local.schema, local, names, local=True)
    if consistent:
        raise validation("Consistent reads are not supported on global secondary indexes")
    names = tuple(dict.fromkeys((*gsi.schema.names, *table.schema.names)))
    return _Source(index, gsi.schema, gsi, names)


def _start_values(req: dict[str, Any]) -> Item | None:
    """The ExclusiveStartKey's attribute values, checked before the table is looked up
    (whether it fits the key schema is `_start_key`'s, after)."""
    raw = member(req, "ExclusiveStartKey", dict)
    return None if raw is None else check_item(raw, "ExclusiveStartKey")


def _start_key(start: Item | None, source: _Source, table: Table) -> Item | None:
    """The ExclusiveStartKey, checked against the keys of the table or index read."""
    if start is None:
        return None
    if set(start) != set(source.key_names) or any(
        key.type not in start[key.name] for key in (*source.schema.keys, *table.schema.keys)
    ):
        raise validation(
            "The provided starting key is invalid: The provided key element does "
            "not match the schema"
        )
    return start


def condition_hash(schema: KeySchema, cond: KeyCondition) -> int:
    """Where the partition-key value(s) a key condition names land (all of a
    multi-attribute key's together)."""
    if not schema.more_pk:
        return pk_hash_of(cond.pk_value)
    return composite_partition_hash([typed(v) for v in cond.pk_values])


def _check_start_in_condition(
    start: Item, source: _Source, pk_hash: int, sk_test: Node | None
) -> None:
    """[AWS] a Query's ExclusiveStartKey must lie inside its key condition; DynamoDB's
    words for the two ways it can lie outside (as it answers dynalite's tests on AWS)."""
    if key_hash(source.schema, start) != pk_hash:
        raise validation(
            "The provided starting key is outside query boundaries based on provided conditions"
        )
    if not _sk_matches(sk_test, start):
        raise validation("The provided starting key does not match the range key predicate")


def page_limit(req: dict[str, Any]) -> int | None:
    """A Query's or Scan's Limit, checked (PartiQL's reads over several partitions count
    it down across their Queries)."""
    limit = member(req, "Limit", int)
    if limit is not None and limit < 1:
        raise validation(
            f"1 validation error detected: Value '{limit}' at 'limit' failed to "
            "satisfy constraint: Member must have value greater than or equal to 1"
        )
    return limit


def _index_order(source: _Source, table: Table, item: Item) -> tuple[Any, ...]:
    parts: list[Any] = []
    for key in source.schema.range_keys:  # a multi-attribute sort key: left to right
        parts.append(sort_value(item[key.name]))
    parts.append(pk_hash_of(item[table.schema.pk.name]))
    parts.append(repr(sort_value(item[table.schema.pk.name])))
    if table.schema.sk is not None:
        parts.append(sort_value(item[table.schema.sk.name]))
    return tuple(parts)


def _sk_matches(test: Node | None, item: Item) -> bool:
    return test is None or evaluate(test, item)


def _query_items(
    table: Table, source: _Source, cond: KeyCondition, forward: bool, start: Item | None
) -> Iterator[Sized]:
    pk_value = cond.pk_value
    if source.index is None:
        sk = table.schema.sk
        after = sort_value(start[sk.name]) if start is not None and sk is not None else None
        if start is not None and sk is None:
            return
        yield from table.store.collection(pk_value, forward, after, start is not None)
        return
    if source.local:  # an LSI's items are the table's of one partition-key value
        matches = [(i, n) for i, n in table.store.collection(pk_value) if source.schema.in_index(i)]
    else:
        # Every partition-key attribute equal (one, or several of a multi-attribute key).
        wanted = [
            (key.name, sort_value(value))
            for key, value in zip(source.schema.hash_keys, cond.pk_values, strict=True)
        ]
        matches = [
            (i, n)
            for i, n in table.store.all_items()
            if source.schema.in_index(i) and all(sort_value(i[k]) == v for k, v in wanted)
        ]
    matches.sort(key=lambda m: _index_order(source, table, m[0]), reverse=not forward)
    if start is not None:
        mark = _index_order(source, table, start)
        matches = [
            m
            for m in matches
            if (_index_order(source, table, m[0]) > mark) == forward
            and _index_order(source, table, m[0]) != mark
        ]
    yield from matches


@dataclass
class _Reading:
    """What a Query or Scan asks of the items it reads, from either form of the
    request: its filter (from FilterExpression, or a legacy QueryFilter/ScanFilter),
    its projection (ProjectionExpression or AttributesToGet) and Select (None until
    `_read_from` settles the default of the table or index read)."""

    filt: Node | None
    paths: list[Path] | None
    select: str | None
    kind: str
    """How the filter was given, in DynamoDB's words for it."""


SELECTS: Final = ("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "SPECIFIC_ATTRIBUTES", "COUNT")


def _reading(req: dict[str, Any], ph: Placeholders | None, legacy_filter: str) -> _Reading:
    """The filter, projection and Select of a Query or Scan, checked as far as the
    request alone allows (before its table is looked up, as DynamoDB checks them);
    `ph` the request's placeholders (None: a legacy request), every one of them used
    once the key condition, if any, has been parsed."""
    if ph is None:
        filt = filter_condition(req, legacy_filter)
        paths = projection_of(req, None)
        kind = legacy_filter
    else:
        text = member(req, "FilterExpression", str)
        filt = None if text is None else parse_condition(text, ph, "FilterExpression")
        paths = projection_of(req, ph)
        ph.check_all_used()
        kind = "Filter Expression"
    given = "AttributesToGet" if "AttributesToGet" in req else "ProjectionExpression"
    select = None
    if req.get("Select") is not None:
        select = enum_of(req, "Select", SELECTS, "")
    if paths and select is not None and select != "SPECIFIC_ATTRIBUTES":
        raise validation(f"Cannot specify the {given} when choosing to get {select}")
    if select == "SPECIFIC_ATTRIBUTES" and not paths:
        raise validation(
            "Must specify the AttributesToGet or ProjectionExpression when choosing to "
            "get SPECIFIC_ATTRIBUTES"
        )
    if select == "ALL_PROJECTED_ATTRIBUTES" and req.get("IndexName") is None:
        raise validation(
            "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName"
        )
    return _Reading(filt, paths, select, kind)


def _read_from(reading: _Reading, source: _Source, legacy_filter: str) -> _Reading:
    """`reading` checked against the table or index it reads, its Select settled."""
    if reading.filt is not None and legacy_filter == "QueryFilter":
        # [AWS] a Query's filter may not name the key attributes it queries by
        # (Query.FilterExpression: "A filter expression cannot contain partition key
        # or sort key attributes").
        for name in _paths_named(reading.filt):
            if name in source.schema.names:
                raise validation(
                    f"{reading.kind} can only contain non-primary key attributes: "
                    f"Primary key attribute: {name}"
                )
    # [AWS Query.Select] the default: the projection's attributes if one is given, else
    # all of a table's, or all of an index's projected ones.
    select = reading.select or (
        "SPECIFIC_ATTRIBUTES"
        if reading.paths
        else "ALL_ATTRIBUTES"
        if source.gsi is None
        else "ALL_PROJECTED_ATTRIBUTES"
    )
    if (
        select == "ALL_ATTRIBUTES"
        and source.gsi is not None
        and source.gsi.projection != "ALL"
        and not source.local  # [AWS] an LSI fetches the other attributes from the table
    ):
        raise invalid_parameter(
            f"Select type ALL_ATTRIBUTES is not supported for global secondary index "
            f"{source.gsi.name} because its projection type is not ALL"
        )
    return _Reading(reading.filt, reading.paths, select, reading.kind)


def _paths_named(node: Any) -> Iterator[str]:
    """The top-level attribute names a parsed condition reads."""
    if isinstance(node, tuple):
        if node and node[0] == "path":
            yield str(node[1][0])
            return
        for part in node[1:]:
            yield from _paths_named(part)
    elif isinstance(node, list):
        for part in node:
            yield from _paths_named(part)


def _page(
    state: EmulatorState,
    req: dict[str, Any],
    table: Table,
    source: _Source,
    items: Iterator[Sized],
    where: tuple[int, Any] | None,
    consistent: bool,
    sk_test: Node | None,
    reading: _Reading,
    limit: int | None,
    scan_range: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """One page of at most `limit` items; `scan_range`, for a Scan, the partition-hash
    range it may walk."""
    mode = consumed_mode(req)
    now = state.tick()
    gsi = source.gsi
    narrow = gsi is not None and gsi.projection != "ALL"
    if source.local and reading.select == "ALL_ATTRIBUTES":
        narrow = False  # fetched from the table: read and charged whole
    scanned: list[Item] = []
    size = 0
    stopped = False
    for item, item_bytes in items:
        if not _sk_matches(sk_test, item):
            continue
        if narrow:
            assert gsi is not None
            # [AWS] an index holds only its projected attributes: a read of a KEYS_ONLY
            # or INCLUDE index returns them and is charged on their size (exact under the
            # keys store too, which keeps every key and INCLUDE attribute).
            item = projected(gsi, item)
            item_bytes = item_size(item)
        scanned.append(item)
        size += item_bytes  # the stored size: what DynamoDB reads, whatever the store keeps
        if (limit is not None and len(scanned) >= limit) or size >= PAGE_BYTES:
            stopped = True
            break
    if where is None:
        where = location(source.schema, scanned[0]) if scanned else (0, 0.0)
    walked = 1
    if scan_range is not None:
        low, high = scan_range
        if stopped and scanned:
            high = key_hash(source.schema, scanned[-1]) + 1
        walked = _partitions_between(state, table, source.model_index, low, high)
    decision, charge = charge_read(
        state, table, where[0], where[1], size, consistent, source.model_index, now, walked
    )
    if source.local and source.index is not None:
        charge.lsi_units = {source.index: charge.table_units}
    if decision.throttle is not None:
        raise throttle_error(decision.throttle)
    filt, paths = reading.filt, reading.paths
    matched = [i for i in scanned if filt is None or evaluate(filt, i)]
    out: dict[str, Any] = {"Count": len(matched), "ScannedCount": len(scanned)}
    if reading.select != "COUNT":
        out["Items"] = [project(i, paths) if paths else i for i in matched]
    if stopped and scanned:
        last = scanned[-1]
        out["LastEvaluatedKey"] = {n: last[n] for n in source.key_names}
    return finish(out, mode, table, charge)


def query(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    # The request's own members first, the table and its key schema after (see
    # single_item.py): a malformed Query of a missing table is a ValidationException.
    name = table_name(req)
    expressions = uses_expressions(req, "query")
    consistent = member(req, "ConsistentRead", bool, default=False)
    raw_start = _start_values(req)
    text = member(req, "KeyConditionExpression", str)
    ph = placeholders_of(req) if expressions else None
    expression = ph is not None and text is not None
    if ph is None or text is None:
        node = key_conditions(req)
    else:
        node = parse_condition(text, ph, "KeyConditionExpression")
    reading = _reading(req, ph, "QueryFilter")
    if expression:
        # Up to eight conditions on an index (its key may have several attributes), two
        # on a table; the index's schema settles the count once it is known.
        check_key_shape(node, 2 if req.get("IndexName") is None else MAX_KEY_CONDITIONS)
    forward = member(req, "ScanIndexForward", bool, default=True)
    limit = page_limit(req)
    table = state.table(name)
    source = _source(table, req, consistent)
    if not expression and source.schema.composite:
        # [AWS] the legacy KeyConditions cannot query an index with a multi-attribute key
        # (refused by DynamoDB: ScyllaDB's test_gsi_composite_keys.py, written against
        # AWS, test_gsi_composite_keyconditions_blocked; the words are the emulator's).
        raise validation(
            "Query key condition not supported: an index whose key has several "
            "attributes is queried with a KeyConditionExpression"
        )
    cond = key_condition(node, source.schema)
    reading = _read_from(reading, source, "QueryFilter")
    sk = source.schema.sk
    start = _start_key(raw_start, source, table)
    pk_hash = condition_hash(source.schema, cond)
    if start is not None:
        _check_start_in_condition(start, source, pk_hash, cond.sk_test)
    items = _query_items(table, source, cond, forward, start)
    where = (pk_hash, 0.0 if sk is None or sk.type == "N" else b"")
    return _page(
        state,
        req,
        table,
        source,
        items,
        None if sk else where,
        consistent,
        cond.sk_test,
        reading,
        limit,
    )


def _in_segment(items: Iterator[Sized], pk_name: str, total: int, part: int) -> Iterator[Sized]:
    """The items of one parallel-Scan segment, lazily: a generator function, not a
    generator expression, which mypyc would turn into a list (a Scan page with a Limit
    must not walk the whole table)."""
    for sized in items:
        if _segment_of(sized[0][pk_name], total) == part:
            yield sized


def _partitions_between(
    state: EmulatorState, table: Table, index: str | None, low: int, high: int
) -> int:
    """How many partitions holding hashes in [low, high) a Scan page walked. DynamoDB
    charges a Scan at least a read's minimum in each partition it reads, empty or not:
    a one-item new on-demand table costs 4 RCU to Scan consistently and 2 eventually
    (measured against DynamoDB by ScyllaDB's Alternator tests,
    test_returnconsumedcapacity.py test_scan_consumed_capacity;
    https://stackoverflow.com/questions/70121087), where a small provisioned table costs
    the usual 1 and 0.5. The partitions counted are those the table's capacity needs, by
    the rules the capacity model makes its partitions with
    (`PartitionedCapacity.partitions_needed`: 4 for a new on-demand table), split evenly
    over the hash space; the model's own map, which splits further under traffic, is not
    used, so a Scan's charge does not depend on the traffic before it."""
    capacity = state.model.tables[table.name]
    space = capacity.base if index is None else capacity.gsis.get(index)
    if space is None or high <= low:
        return 1
    count = space.partitions_needed()
    first = low * count >> 64
    last = (high - 1) * count >> 64
    return max(1, last - first + 1)


def _segment_of(pk_value: Any, total: int) -> int:
    """The parallel-Scan segment (of `total`) a partition-key value falls in."""
    return pk_hash_of(pk_value) * total >> 64


def scan(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    # The request's own members first, the table after, as for a Query.
    name = table_name(req)
    expressions = uses_expressions(req, "scan")
    consistent = member(req, "ConsistentRead", bool, default=False)
    raw_start = _start_values(req)
    reading = _reading(req, placeholders_of(req) if expressions else None, "ScanFilter")
    segment = member(req, "Segment", int)
    segments = member(req, "TotalSegments", int)
    if (segment is None) != (segments is None):
        raise validation(
            "The Segment parameter is required but was not present in the request "
            "when parameter TotalSegments is present"
            if segment is None
            else "The TotalSegments parameter is required but was not present in the "
            "request when Segment parameter is present"
        )
    if segments is not None and segment is not None and not 0 <= segment < segments <= 1000000:
        raise validation(
            "The Segment parameter is zero-based and must be less than parameter "
            f"TotalSegments: Segment: {segment} is not less than TotalSegments: "
            f"{segments}"
        )
    limit = page_limit(req)
    table = state.table(name)
    source = _source(table, req, consistent)
    reading = _read_from(reading, source, "ScanFilter")
    start = _start_key(raw_start, source, table)
    if (
        start is not None
        and segments is not None
        and segments > 1
        and _segment_of(start[table.schema.pk.name], segments) != segment
    ):
        # [AWS] a parallel Scan's ExclusiveStartKey must lie in its own segment.
        raise validation(
            "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use "
            f"ExclusiveStartKey with correct Segment. TotalSegments: {segments} "
            f"Segment: {segment}"
        )
    items: Iterator[Sized]
    if source.index is None:
        items = table.store.scan(start)
    else:
        schema = source.schema
        pool = sorted(
            (m for m in table.store.all_items() if schema.in_index(m[0])),
            key=lambda m: (key_hash(schema, m[0]), _index_order(source, table, m[0])),
        )
        if start is not None:
            mark = (key_hash(schema, start), _index_order(source, table, start))
            pool = [
                m
                for m in pool
                if (key_hash(schema, m[0]), _index_order(source, table, m[0])) > mark
            ]
        items = iter(pool)
    if segments is not None and segment is not None:
        items = _in_segment(items, table.schema.pk.name, segments, segment)
    scan_range = (0, HASH_SPACE)
    if segments is not None and segment is not None:
        # The hashes h with h * segments >> 64 == segment (see `_segment_of`), ceilings.
        scan_range = (
            -(-segment * HASH_SPACE // segments),
            -(-(segment + 1) * HASH_SPACE // segments),
        )
    if start is not None:
        scan_range = (key_hash(source.schema, start), scan_range[1])
    return _page(
        state, req, table, source, items, None, consistent, None, reading, limit, scan_range
    )
