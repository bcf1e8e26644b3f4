"""Query and Scan: a page of a key's item collection, or of the whole table, from the
table or one of its GSIs; the page is charged by the bytes it read."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from emulator.server.admission import location
from emulator.server.charging import charge_read, finish, throttle_error
from emulator.server.expr_eval import evaluate
from emulator.server.expr_parse import Node, Placeholders, parse_key_condition
from emulator.server.expr_project import project
from emulator.server.items import KeySchema, Sized, pk_hash_of, sort_value
from emulator.server.members import (
    condition_of,
    consumed_mode,
    enum_of,
    placeholders_of,
    projection_of,
    reject_legacy,
)
from emulator.server.protocol import member, table_name, validation
from emulator.server.state import EmulatorState
from emulator.server.table import Table
from emulator.server.values import Item, check_item, kind_of

PAGE_BYTES: Final = 1024 * 1024
"""[AWS] a Query or Scan page stops at 1 MB of items read."""


@dataclass
class _Source:
    """What a Query or Scan reads: the table or one of its GSIs."""

    index: str | None
    schema: KeySchema
    key_names: tuple[str, ...]
    """Attributes of LastEvaluatedKey: the index keys plus the table keys."""


def _source(table: Table, req: dict[str, Any], consistent: bool) -> _Source:
    index = member(req, "IndexName", str)
    if index is None:
        return _Source(None, table.schema, table.schema.names)
    gsi = table.gsis.get(index)
    if gsi is None:
        raise validation(f"The table does not have the specified index: {index}")
    if consistent:
        raise validation("Consistent reads are not supported on global secondary indexes")
    names = tuple(dict.fromkeys((*gsi.schema.names, *table.schema.names)))
    return _Source(index, gsi.schema, names)


def _start_key(req: dict[str, Any], source: _Source) -> Item | None:
    raw = member(req, "ExclusiveStartKey", dict)
    if raw is None:
        return None
    start = check_item(raw, "ExclusiveStartKey")
    if set(start) != set(source.key_names):
        raise validation(
            "The provided starting key is invalid: The provided key element does "
            "not match the schema"
        )
    return start


def _limit(req: dict[str, Any]) -> int | None:
    limit = member(req, "Limit", int)
    if limit is not None and limit < 1:
        raise validation(
            f"1 validation error detected: Value '{limit}' at 'limit' failed to "
            "satisfy constraint: Member must have value greater than or equal to 1"
        )
    return limit


def _index_order(source: _Source, table: Table, item: Item) -> tuple[Any, ...]:
    parts: list[Any] = []
    if source.schema.sk is not None:
        parts.append(sort_value(item[source.schema.sk.name]))
    parts.append(pk_hash_of(item[table.schema.pk.name]))
    parts.append(repr(sort_value(item[table.schema.pk.name])))
    if table.schema.sk is not None:
        parts.append(sort_value(item[table.schema.sk.name]))
    return tuple(parts)


def _sk_matches(test: Node | None, item: Item) -> bool:
    return test is None or evaluate(test, item)


def _query_items(
    table: Table, source: _Source, pk_value: dict[str, Any], forward: bool, start: Item | None
) -> Iterator[Sized]:
    if source.index is None:
        sk = table.schema.sk
        after = sort_value(start[sk.name]) if start is not None and sk is not None else None
        if start is not None and sk is None:
            return
        yield from table.store.collection(pk_value, forward, after, start is not None)
        return
    pk_name = source.schema.pk.name
    wanted = sort_value(pk_value)
    matches = [
        (i, n)
        for i, n in table.store.all_items()
        if source.schema.in_index(i) and sort_value(i[pk_name]) == wanted
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


def _page(
    state: EmulatorState,
    req: dict[str, Any],
    table: Table,
    source: _Source,
    items: Iterator[Sized],
    where: tuple[int, Any] | None,
    consistent: bool,
    sk_test: Node | None,
    ph: Placeholders,
) -> dict[str, Any]:
    filt = condition_of(req, ph, "FilterExpression")
    paths = projection_of(req, ph)
    ph.check_all_used()
    select = enum_of(
        req,
        "Select",
        ("ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES", "SPECIFIC_ATTRIBUTES", "COUNT"),
        "SPECIFIC_ATTRIBUTES" if paths else "ALL_ATTRIBUTES",
    )
    limit = _limit(req)
    mode = consumed_mode(req)
    now = state.tick()
    scanned: list[Item] = []
    size = 0
    stopped = False
    for item, item_bytes in items:
        if not _sk_matches(sk_test, item):
            continue
        scanned.append(item)
        size += item_bytes  # the stored size: what DynamoDB reads, whatever the store keeps
        if (limit is not None and len(scanned) >= limit) or size >= PAGE_BYTES:
            stopped = True
            break
    if where is None:
        where = location(source.schema, scanned[0]) if scanned else (0, 0.0)
    decision, charge = charge_read(
        state, table, where[0], where[1], size, consistent, source.index, now
    )
    if decision.throttle is not None:
        raise throttle_error(decision.throttle)
    matched = [i for i in scanned if filt is None or evaluate(filt, i)]
    out: dict[str, Any] = {"Count": len(matched), "ScannedCount": len(scanned)}
    if select != "COUNT":
        out["Items"] = [project(i, paths) if paths else i for i in matched]
    if stopped and scanned:
        last = scanned[-1]
        out["LastEvaluatedKey"] = {n: last[n] for n in source.key_names}
    return finish(out, mode, table, charge)


def query(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    table = state.table(table_name(req))
    reject_legacy(req)
    consistent = member(req, "ConsistentRead", bool, default=False)
    source = _source(table, req, consistent)
    ph = placeholders_of(req)
    text = member(req, "KeyConditionExpression", str)
    if text is None:
        raise validation(
            "Either the KeyConditions or KeyConditionExpression parameter must be "
            "specified in the request."
        )
    pk, sk = source.schema.pk, source.schema.sk
    cond = parse_key_condition(text, ph, pk.name, sk.name if sk else None)
    if kind_of(cond.pk_value) != pk.type:
        raise validation(
            "One or more parameter values were invalid: Condition parameter type "
            "does not match schema type"
        )
    forward = member(req, "ScanIndexForward", bool, default=True)
    start = _start_key(req, source)
    items = _query_items(table, source, cond.pk_value, forward, start)
    where = (pk_hash_of(cond.pk_value), 0.0 if sk is None or sk.type == "N" else b"")
    return _page(
        state, req, table, source, items, None if sk else where, consistent, cond.sk_test, ph
    )


def _in_segment(items: Iterator[Sized], pk_name: str, total: int, part: int) -> Iterator[Sized]:
    """The items of one parallel-Scan segment, lazily: a generator function, not a
    generator expression, which mypyc would turn into a list (a Scan page with a Limit
    must not walk the whole table)."""
    for sized in items:
        if pk_hash_of(sized[0][pk_name]) * total >> 64 == part:
            yield sized


def scan(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    table = state.table(table_name(req))
    reject_legacy(req)
    consistent = member(req, "ConsistentRead", bool, default=False)
    source = _source(table, req, consistent)
    ph = placeholders_of(req)
    start = _start_key(req, source)
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
    items: Iterator[Sized]
    if source.index is None:
        items = table.store.scan(start)
    else:
        pk_name = source.schema.pk.name
        pool = sorted(
            (m for m in table.store.all_items() if source.schema.in_index(m[0])),
            key=lambda m: (pk_hash_of(m[0][pk_name]), _index_order(source, table, m[0])),
        )
        if start is not None:
            mark = (pk_hash_of(start[pk_name]), _index_order(source, table, start))
            pool = [
                m
                for m in pool
                if (pk_hash_of(m[0][pk_name]), _index_order(source, table, m[0])) > mark
            ]
        items = iter(pool)
    if segments is not None and segment is not None:
        items = _in_segment(items, table.schema.pk.name, segments, segment)
    return _page(state, req, table, source, items, None, consistent, None, ph)
