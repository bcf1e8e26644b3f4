"""DynamoDB Streams: the change records of each table with a stream, kept in shards that
follow the table's partitions, for 24 hours of emulator time and within a memory budget.

What DynamoDB documents (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html):
every write that changes an item appears once, in order per item, as an INSERT, MODIFY
or REMOVE record carrying what the stream's view type asks for (the keys, the new image,
the old image, or both); a write that changes nothing writes no record; records are kept
for 24 hours; a stream's shards are tied to the table's partitions, a shard is closed and
children with it as parent are opened when its partition splits, and a closed shard goes
24 hours after it closed; deletions by Time to Live carry the service's identity. Here a
stream's shards are the capacity model's partitions of the table (`KeySpace.serving`),
so DescribeStream shows a client the partition map and its splits.

Memory: each record holds the images it shows (the item dicts the store holds or held),
so a busy stream keeps old images alive. The records of all streams count against one
budget (`RecordBudget`, `--stream-memory`, default 256 MiB) of their size as DynamoDB
counts it (`SizeBytes`: keys and images) plus RECORD_OVERHEAD each for the emulator's own
objects. Past it the oldest records of all streams are trimmed, as retention trims them:
a reader that comes for them gets TrimmedDataAccessException, as it would after 24 hours.
"""

from __future__ import annotations

import collections
import datetime
from collections.abc import Callable
from typing import Any, Final

from emulator.itemsize import item_size
from emulator.keyspace import KeySpace, Partition

VIEW_TYPES: Final = ("NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY")
RETENTION_S: Final = 24 * 3600.0
"""[AWS] stream records are kept 24 hours; so is a closed shard, and a disabled stream."""
ITERATOR_LIFETIME_S: Final = 15 * 60.0
"""[AWS API_streams_GetShardIterator] "A shard iterator expires 15 minutes after it is
returned to the requester"."""
DEFAULT_BUDGET_BYTES: Final = 256 * 1024 * 1024
"""What the records of all streams may take (their SizeBytes plus RECORD_OVERHEAD each)
before the oldest are trimmed; `--stream-memory` changes it."""
RECORD_OVERHEAD: Final = 200
"""Bytes counted per record beyond its SizeBytes: its record object and deque slot."""
SEQUENCE_BASE: Final = 10**20
"""Sequence numbers are 21-digit decimals (botocore's model asks 21 to 40 characters),
increasing in the order of the writes."""
SERVICE_IDENTITY: Final = {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
"""[AWS time-to-live-ttl-streams] the userIdentity of a deletion by Time to Live."""


class StreamRecord:
    """One change: what was written, where, and when. Rendered as DynamoDB's record only
    when read (GetRecords), so a write pays for no JSON."""

    __slots__ = ("at", "epoch", "event", "keys", "new", "old", "seq", "service", "shard", "size")

    def __init__(
        self,
        seq: int,
        at: float,
        epoch: float,
        event: str,
        keys: dict[str, Any],
        new: dict[str, Any] | None,
        old: dict[str, Any] | None,
        size: int,
        service: bool,
        shard: Shard,
    ) -> None:
        self.seq = seq
        self.at = at
        self.epoch = epoch
        self.event = event
        self.keys = keys
        self.new = new
        self.old = old
        self.size = size
        self.service = service
        self.shard = shard


class Shard:
    """The records of one partition of the table while it serves: open until the
    partition splits (or stops serving), then closed, its children taking over."""

    __slots__ = (
        "closed_at",
        "first_seq",
        "hi",
        "lo",
        "parent_id",
        "pid",
        "records",
        "shard_id",
        "trimmed",
    )

    def __init__(
        self, shard_id: str, part: Partition, first_seq: int, parent_id: str | None
    ) -> None:
        self.shard_id = shard_id
        self.pid = part.pid
        self.lo = part.lo
        self.hi = part.hi
        self.parent_id = parent_id
        self.first_seq = first_seq
        self.records: collections.deque[StreamRecord] = collections.deque()
        self.closed_at: float | None = None
        self.trimmed = 0
        """The sequence number of the last record trimmed from the shard (0: none)."""

    def horizon(self) -> int:
        """The first sequence number a read may start at (what TRIM_HORIZON reads): after
        the last record trimmed."""
        return self.trimmed + 1 if self.trimmed else self.first_seq

    def last_seq(self) -> int:
        """EndingSequenceNumber of a closed shard: its last record's, or its first."""
        return self.records[-1].seq if self.records else max(self.first_seq, self.trimmed)


class RecordBudget:
    """The records of every stream of one emulator, oldest first, and what they weigh:
    the one place trimming happens, by age (24 hours) or by the budget."""

    def __init__(self, limit_bytes: int = DEFAULT_BUDGET_BYTES) -> None:
        self.limit_bytes = limit_bytes
        self.bytes = 0
        self.records: collections.deque[StreamRecord] = collections.deque()
        self.trimmed_for_memory = 0
        """Records trimmed before their 24 hours because the budget was full."""

    def add(self, record: StreamRecord, now: float) -> None:
        self.records.append(record)
        self.bytes += record.size + RECORD_OVERHEAD
        if self.bytes > self.limit_bytes:
            self.trim(now)

    def trim(self, now: float) -> None:
        """Drop records past their 24 hours, and the oldest while over the budget. Each
        is its shard's oldest (records enter both in write order), so a shard keeps the
        contiguous run of its newest records."""
        records = self.records
        horizon = now - RETENTION_S
        while records and (records[0].at <= horizon or self.bytes > self.limit_bytes):
            record = records.popleft()
            if record.at > horizon:
                self.trimmed_for_memory += 1
            self.bytes -= record.size + RECORD_OVERHEAD
            shard = record.shard
            if shard.records and shard.records[0] is record:
                shard.records.popleft()
            shard.trimmed = record.seq


class Stream:
    """One stream of one table: its identity, view type, and shards."""

    def __init__(
        self,
        arn: str,
        label: str,
        table_name: str,
        key_schema: list[dict[str, Any]],
        view_type: str,
        created_epoch: float,
        budget: RecordBudget,
    ) -> None:
        self.arn = arn
        self.label = label
        self.table_name = table_name
        self.key_schema = key_schema
        self.view_type = view_type
        self.created_epoch = created_epoch
        self.budget = budget
        self.disabled_at: float | None = None
        self.shards: list[Shard] = []
        """Every shard kept, in the order opened (DescribeStream's order)."""
        self.open: dict[int, Shard] = {}
        """The open shard of each serving partition, by partition id."""
        self.next_seq = SEQUENCE_BASE + 1
        self.by_id: dict[str, Shard] = {}
        self._shards_made = 0

    @property
    def status(self) -> str:
        return "ENABLED" if self.disabled_at is None else "DISABLED"

    # shards ----------------------------------------------------------------------------
    def _open(self, part: Partition, parent: Shard | None, now: float) -> Shard:
        self._shards_made += 1
        shard_id = f"shardId-{int(self.created_epoch * 1000):020d}-{self._shards_made:08x}"
        shard = Shard(shard_id, part, self.next_seq, parent.shard_id if parent else None)
        self.shards.append(shard)
        self.by_id[shard_id] = shard
        self.open[part.pid] = shard
        return shard

    def follow(self, keyspace: KeySpace, now: float) -> None:
        """Bring the shards in line with the partitions that serve now: a partition new
        since the last look opens a shard whose parent is the shard of the partition it
        came from (the one whose hash range holds it: a gone partition's first, else the
        narrowest), and that parent closes; a partition that continues after a split
        (one hot key's items moved out of it) gets a new shard too, child of its old one,
        so a reader that finishes a parent before its children misses nothing."""
        if self.disabled_at is not None:
            return
        serving = keyspace.serving()
        if len(serving) == len(self.open) and all(p.pid in self.open for p in serving):
            return
        live = {p.pid for p in serving}
        before = dict(self.open)
        closing = {pid: shard for pid, shard in before.items() if pid not in live}
        children: list[tuple[Partition, Shard | None]] = []
        for part in serving:
            if part.pid in before:
                continue
            parent = None
            if before:
                holders = [
                    s
                    for s in before.values()
                    if s.lo <= part.lo and part.hi <= s.hi and s.pid != part.pid
                ]
                if holders:
                    parent = min(holders, key=lambda s: (s.pid in live, s.hi - s.lo))
                    closing[parent.pid] = parent
            children.append((part, parent))
        by_pid = {p.pid: p for p in serving}
        for pid, shard in closing.items():
            shard.closed_at = now
            del self.open[pid]
            if pid in live:  # the partition serves on, under a new shard
                children.append((by_pid[pid], shard))
        for part, parent in sorted(children, key=lambda c: (c[0].lo, c[0].pid)):
            self._open(part, parent, now)

    def shard_for(self, keyspace: KeySpace, part: Partition, now: float) -> Shard:
        shard = self.open.get(part.pid)
        if shard is None:
            self.follow(keyspace, now)
            shard = self.open[part.pid]
        return shard

    def close(self, now: float) -> None:
        """The stream is disabled (or its table deleted): every shard closes; records
        stay readable for their 24 hours."""
        self.disabled_at = now
        for shard in self.open.values():
            shard.closed_at = now
        self.open.clear()

    def forget_old_shards(self, now: float) -> None:
        """[AWS] a closed shard is removed 24 hours after it closed (its records are
        gone by then)."""
        horizon = now - RETENTION_S
        if any(s.closed_at is not None and s.closed_at <= horizon for s in self.shards):
            kept = [s for s in self.shards if s.closed_at is None or s.closed_at > horizon]
            for shard in self.shards:
                if shard not in kept:
                    del self.by_id[shard.shard_id]
            self.shards = kept

    # records ---------------------------------------------------------------------------
    def add(
        self,
        shard: Shard,
        keys: dict[str, Any],
        old: dict[str, Any] | None,
        new: dict[str, Any] | None,
        sizes: tuple[int, int],
        at: float,
        epoch: float,
        service: bool,
    ) -> None:
        """One record of a write from `old` to `new` (either None: an insert or a
        remove) with the images the view type keeps; `sizes` the old and new item's."""
        view = self.view_type
        keep_new = new if view in ("NEW_IMAGE", "NEW_AND_OLD_IMAGES") else None
        keep_old = old if view in ("OLD_IMAGE", "NEW_AND_OLD_IMAGES") else None
        size = item_size(keys)
        if keep_new is not None:
            size += sizes[1]
        if keep_old is not None:
            size += sizes[0]
        event = "INSERT" if old is None else "REMOVE" if new is None else "MODIFY"
        seq = self.next_seq
        self.next_seq = seq + 1
        record = StreamRecord(seq, at, epoch, event, keys, keep_new, keep_old, size, service, shard)
        shard.records.append(record)
        self.budget.add(record, at)


def stream_label(epoch: float, taken: Callable[[str], bool]) -> str:
    """[AWS] a stream's label is the time it was enabled, to the millisecond
    (2026-10-08T23:07:31.275); one a millisecond later when that label is taken."""
    millis = int(epoch * 1000)
    while True:
        moment = datetime.datetime.fromtimestamp(millis / 1000, tz=datetime.UTC)
        label = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{millis % 1000:03d}"
        if not taken(label):
            return label
        millis += 1
