"""The DynamoDB Streams API (X-Amz-Target `DynamoDBStreams_20120810.<Operation>`):
ListStreams, DescribeStream, GetShardIterator and GetRecords, as the API reference
documents them (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Operations_Amazon_DynamoDB_Streams.html)
and botocore's `dynamodbstreams` model shapes them. The streams themselves: streams.py.

A shard iterator is the stream's ARN, `|1|`, and an opaque token of the shard, the
position (the first sequence number it reads) and when it was issued: the shape of
DynamoDB's own (`arn|1|...`), nothing kept on the server per iterator, so a client that
leaks iterators costs the emulator nothing.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import zlib
from typing import Any, Final

from emulator.server.emulator_state import EmulatorState
from emulator.server.protocol import DynamoError, member, not_found, validation
from emulator.server.streams import (
    ITERATOR_LIFETIME_S,
    RETENTION_S,
    SEQUENCE_BASE,
    SERVICE_IDENTITY,
    Shard,
    Stream,
    StreamRecord,
)

MAX_STREAMS_PAGE: Final = 100
MAX_SHARDS_PAGE: Final = 100
MAX_RECORDS: Final = 1000
"""[AWS API_streams_GetRecords] up to 1,000 records, or 1 MB, a call."""
MAX_RECORDS_BYTES: Final = 1024 * 1024


def _streams(state: EmulatorState, now: float) -> dict[str, Stream]:
    """The namespace's streams, those disabled more than 24 hours ago forgotten."""
    streams = state.streams
    gone = [
        arn
        for arn, s in streams.items()
        if s.disabled_at is not None and s.disabled_at <= now - RETENTION_S
    ]
    for arn in gone:
        del streams[arn]
    return streams


def _stream(state: EmulatorState, arn: str, now: float) -> Stream:
    stream = _streams(state, now).get(arn)
    if stream is None:
        raise not_found(f"Stream: {arn} not found")
    table = state.tables.get(stream.table_name)
    if table is not None and table.stream is stream:
        stream.follow(state.model.tables[table.name].base.keyspace, now)
    stream.forget_old_shards(now)
    return stream


def _shard(stream: Stream, shard_id: str) -> Shard:
    shard = stream.by_id.get(shard_id)
    if shard is None:
        raise not_found(f"Shard: {shard_id} in Stream: {stream.arn} not found")
    return shard


def _seq(number: int) -> str:
    return str(number)


# --- ListStreams and DescribeStream ----------------------------------------------------------


def list_streams(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    table_name = member(req, "TableName", str)
    limit = member(req, "Limit", int, default=MAX_STREAMS_PAGE)
    start = member(req, "ExclusiveStartStreamArn", str)
    now = state.tick()
    streams = [
        s
        for s in sorted(_streams(state, now).values(), key=lambda s: s.arn)
        if table_name is None or s.table_name == table_name
    ]
    if table_name is not None and not streams and table_name not in state.tables:
        raise not_found(f"Table: {table_name} not found")
    if start is not None:
        streams = [s for s in streams if s.arn > start]
    page = streams[: min(limit, MAX_STREAMS_PAGE)]
    out: dict[str, Any] = {
        "Streams": [
            {"StreamArn": s.arn, "TableName": s.table_name, "StreamLabel": s.label} for s in page
        ]
    }
    if len(streams) > len(page):
        out["LastEvaluatedStreamArn"] = page[-1].arn
    return out


def describe_stream(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    arn = member(req, "StreamArn", str, required=True)
    limit = member(req, "Limit", int, default=MAX_SHARDS_PAGE)
    start = member(req, "ExclusiveStartShardId", str)
    wanted = member(req, "ShardFilter", dict)
    now = state.tick()
    stream = _stream(state, arn, now)
    shards = stream.shards
    if wanted is not None:
        # [AWS] CHILD_SHARDS: the shards whose parent is ShardId.
        parent = wanted.get("ShardId")
        if wanted.get("Type") != "CHILD_SHARDS" or not isinstance(parent, str):
            raise validation("ShardFilter needs Type CHILD_SHARDS and a ShardId")
        shards = [s for s in shards if s.parent_id == parent]
    if start is not None:
        ids = [s.shard_id for s in shards]
        shards = shards[ids.index(start) + 1 :] if start in ids else []
    page = shards[: min(limit, MAX_SHARDS_PAGE)]
    table = state.tables.get(stream.table_name)
    status = stream.status
    if status == "ENABLED" and table is not None and table.creating(now):
        status = "ENABLING"
    description: dict[str, Any] = {
        "StreamArn": stream.arn,
        "StreamLabel": stream.label,
        "StreamStatus": status,
        "StreamViewType": stream.view_type,
        "CreationRequestDateTime": stream.created_epoch,
        "TableName": stream.table_name,
        "KeySchema": stream.key_schema,
        "Shards": [_shard_description(s) for s in page],
    }
    if len(shards) > len(page):
        description["LastEvaluatedShardId"] = page[-1].shard_id
    return {"StreamDescription": description}


def _shard_description(shard: Shard) -> dict[str, Any]:
    numbers = {"StartingSequenceNumber": _seq(shard.first_seq)}
    if shard.closed_at is not None:
        numbers["EndingSequenceNumber"] = _seq(shard.last_seq())
    out: dict[str, Any] = {"ShardId": shard.shard_id, "SequenceNumberRange": numbers}
    if shard.parent_id is not None:
        out["ParentShardId"] = shard.parent_id
    return out


# --- iterators -------------------------------------------------------------------------------


def _iterator(stream: Stream, shard: Shard, position: int, now: float) -> str:
    token = f"{shard.shard_id}/{position}/{now!r}".encode()
    return f"{stream.arn}|1|{base64.urlsafe_b64encode(token).decode()}"


def _invalid_iterator() -> DynamoError:
    return validation("Invalid ShardIterator")


def _read_iterator(text: str) -> tuple[str, str, int, float]:
    """(stream ARN, shard id, position, issued at) of a shard iterator."""
    arn, sep, token = text.rpartition("|1|")
    if not sep:
        raise _invalid_iterator()
    try:
        shard_id, position, issued = base64.urlsafe_b64decode(token.encode()).decode().split("/")
        return arn, shard_id, int(position), float(issued)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise _invalid_iterator() from None


def _sequence_number(req: dict[str, Any], kind: str) -> int:
    text = member(req, "SequenceNumber", str)
    if text is None:
        raise validation(f"SequenceNumber is required for ShardIteratorType {kind}")
    if not text.isdigit():
        raise validation(f"Invalid SequenceNumber: {text}")
    return int(text)


def _trimmed() -> DynamoError:
    return DynamoError(
        "TrimmedDataAccessException",
        "The operation attempted to read past the oldest stream record in a shard.",
    )


def get_shard_iterator(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    arn = member(req, "StreamArn", str, required=True)
    shard_id = member(req, "ShardId", str, required=True)
    kind = member(req, "ShardIteratorType", str, required=True)
    now = state.tick()
    stream = _stream(state, arn, now)
    shard = _shard(stream, shard_id)
    if kind == "TRIM_HORIZON":
        position = shard.horizon()
    elif kind == "LATEST":
        position = stream.next_seq
    elif kind in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"):
        seq = _sequence_number(req, kind)
        ending = shard.last_seq() if shard.closed_at is not None else stream.next_seq - 1
        if not shard.first_seq <= seq <= max(ending, shard.first_seq):
            raise validation(
                f"Invalid SequenceNumber: {seq} is not in the range of shard {shard_id}"
            )
        if seq < shard.horizon():
            raise _trimmed()
        position = seq if kind == "AT_SEQUENCE_NUMBER" else seq + 1
    else:  # AT_TIMESTAMP (the enum was checked with the request's shape)
        at = req.get("Timestamp")
        if not isinstance(at, int | float) or isinstance(at, bool):
            raise validation("Timestamp is required for ShardIteratorType AT_TIMESTAMP")
        position = next((r.seq for r in shard.records if r.epoch >= at), stream.next_seq)
    return {"ShardIterator": _iterator(stream, shard, position, now)}


# --- GetRecords ------------------------------------------------------------------------------


def get_records(state: EmulatorState, req: dict[str, Any]) -> dict[str, Any]:
    text = member(req, "ShardIterator", str, required=True)
    limit = member(req, "Limit", int, default=MAX_RECORDS)
    if limit > MAX_RECORDS:
        raise validation(
            f"1 validation error detected: Value '{limit}' at 'limit' failed to satisfy "
            f"constraint: Member must have value less than or equal to {MAX_RECORDS}"
        )
    arn, shard_id, position, issued = _read_iterator(text)
    now = state.tick()
    if now - issued > ITERATOR_LIFETIME_S:
        raise DynamoError(
            "ExpiredIteratorException",
            f"Iterator expired. The iterator was created {now - issued:.0f} seconds ago, "
            f"more than the {ITERATOR_LIFETIME_S:.0f} seconds an iterator lasts",
        )
    stream = _stream(state, arn, now)
    shard = stream.by_id.get(shard_id)
    if shard is None:
        raise not_found("Invalid ShardId in ShardIterator")
    if position < shard.horizon():
        raise _trimmed()
    records: list[StreamRecord] = []
    size = 0
    kept = shard.records
    # Sequence numbers rise along a shard: the first record at or after the position by
    # bisection, not a walk of every record kept.
    first = bisect.bisect_left(kept, position, key=_sequence_of)
    for i in range(first, len(kept)):
        record = kept[i]
        if len(records) >= limit or (records and size + record.size > MAX_RECORDS_BYTES):
            break
        records.append(record)
        size += record.size
    if records:
        position = records[-1].seq + 1
    out: dict[str, Any] = {"Records": [_render(stream, r, state.region) for r in records]}
    ended = shard.closed_at is not None and (not shard.records or shard.records[-1].seq < position)
    if not ended:
        # [AWS] a closed shard read to its end has no NextShardIterator: the reader moves
        # on to its children.
        out["NextShardIterator"] = _iterator(stream, shard, position, now)
    return out


def _sequence_of(record: StreamRecord) -> int:
    return record.seq


def _render(stream: Stream, record: StreamRecord, region: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "ApproximateCreationDateTime": int(record.epoch),
        "Keys": record.keys,
        "SequenceNumber": _seq(record.seq),
        "SizeBytes": record.size,
        "StreamViewType": stream.view_type,
    }
    if record.new is not None:
        body["NewImage"] = record.new
    if record.old is not None:
        body["OldImage"] = record.old
    out: dict[str, Any] = {
        "eventID": f"{zlib.crc32(stream.arn.encode()):08x}{record.seq - SEQUENCE_BASE:024x}",
        "eventName": record.event,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": region,
        "dynamodb": body,
    }
    if record.service:
        out["userIdentity"] = dict(SERVICE_IDENTITY)
    return out
