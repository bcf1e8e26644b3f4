"""The simulation's growing state (loadgen.simulation.item_collections): a collection's count and
bytes follow the writes, its read cost grows with it by the one charging rule, a
watermark reads only what is newer, and memory stays bounded over a long run."""

from __future__ import annotations

import pytest

from emulator.params import DEFAULT_PARAMS as P
from emulator.units import CollectionRead, PagedReadCost, collection_read_cost
from loadgen.simulation.item_collections import CollectionStats, EntryWrite, ItemCollections


def _put(t: ItemCollections, pk: str, size: int, now: float, index: str | None = "gsi") -> None:
    t.write(EntryWrite("files", index, pk, 0, size, now))


def test_a_constant_gsi_key_collection_costs_more_every_write() -> None:
    # M5 v1: every file's GSI entry under one key ("FILE"); the query reads all of them
    t = ItemCollections()
    t.track("files", "gsi")
    costs = []
    for i in range(3000):
        _put(t, "FILE", 1024, now=i * 0.1)
        if (i + 1) % 1000 == 0:
            costs.append(t.read_cost("files", "gsi", "FILE", True, P))
    assert t.stats("files", "gsi", "FILE") == CollectionStats(3000, 3000 * 1024)
    # 1,000 / 2,000 / 3,000 entries of 1 KB: 250, 500 and 750 RCU, over 1, 2 and 3 pages
    assert costs == [PagedReadCost(1, 250.0), PagedReadCost(2, 500.0), PagedReadCost(3, 750.0)]
    assert costs[-1] == collection_read_cost(CollectionRead(3000, 3000 * 1024, True), P)
    # the other keys' collections are their own
    _put(t, "FILE#a", 100, now=400.0)
    assert t.stats("files", "gsi", "FILE#a") == CollectionStats(1, 100)
    assert t.largest("files", "gsi") == ("FILE", CollectionStats(3000, 3000 * 1024))


def test_overwrites_and_deletes_change_bytes_and_count() -> None:
    t = ItemCollections()
    t.track("files", None)
    _put(t, "ns", 1000, 0.0, index=None)
    _put(t, "ns", 1000, 0.0, index=None)
    t.write(EntryWrite("files", None, "ns", 1000, 3000, 1.0))  # rewritten bigger
    assert t.stats("files", None, "ns") == CollectionStats(2, 4000)
    t.write(EntryWrite("files", None, "ns", 3000, 0, 2.0))  # deleted
    assert t.stats("files", None, "ns") == CollectionStats(1, 1000)
    assert t.totals("files") == CollectionStats(1, 1000)
    t.write(EntryWrite("files", None, "ns", 1000, 0, 3.0))
    assert t.stats("files", None, "ns") == CollectionStats(0, 0)
    assert t.largest("files") == (None, CollectionStats(0, 0))


def test_untracked_sources_keep_totals_only() -> None:
    # a table no query reads as a collection: its totals grow (a Scan, YCSB's latest) but
    # no per-key state is kept, however many keys are written
    t = ItemCollections()
    for i in range(10_000):
        t.write(EntryWrite("usertable", None, f"user{i}", 0, 1000, float(i)))
    assert t.totals("usertable") == CollectionStats(10_000, 10_000_000)
    assert not t.tracks("usertable")
    with pytest.raises(KeyError, match="not tracked"):
        t.stats("usertable", None, "user1")


def test_a_watermark_reads_only_the_entries_written_since() -> None:
    # M5 v2: GSI sort key "<updatedAt>|<path>", "what changed since my last sync"
    t = ItemCollections(resolution_s=1.0)
    t.track("files", "gsi", ordered=True)
    t.seed("files", "gsi", "FILE#m1", CollectionStats(50_000, 50_000 * 400), now=0.0)
    for i in range(60):
        _put(t, "FILE#m1", 400, now=100.0 + i)  # one new file a second
    assert t.stats("files", "gsi", "FILE#m1").items == 50_060
    assert t.stats("files", "gsi", "FILE#m1", since=130.0) == CollectionStats(30, 30 * 400)
    # a watermark inside an interval reads that whole interval (one second's grain)
    assert t.stats("files", "gsi", "FILE#m1", since=130.5) == CollectionStats(30, 30 * 400)
    # rewriting a file moves its entry to now: the old interval loses it
    t.write(EntryWrite("files", "gsi", "FILE#m1", 400, 400, 200.0, old_stamp=100.0))
    assert t.stats("files", "gsi", "FILE#m1", since=150.0) == CollectionStats(11, 11 * 400)
    assert t.stats("files", "gsi", "FILE#m1", since=100.0).items == 60
    cost = t.read_cost("files", "gsi", "FILE#m1", False, P, since=150.0)
    assert cost == PagedReadCost(1, 1.0)  # 4.4 KB rounded up to 8 KB, eventually consistent
    with pytest.raises(ValueError, match="not time-ordered"):
        t.track("files", None)
        t.stats("files", None, "x", since=1.0)


def test_memory_stays_bounded_over_a_long_run() -> None:
    # a write every 30 s for 3 virtual days into one time-ordered collection: 8,640
    # one-second intervals written, at most max_buckets kept; the newest keep their grain,
    # the total stays exact
    t = ItemCollections(resolution_s=1.0, max_buckets=64)
    t.track("files", "gsi", ordered=True)
    seconds = 3 * 86_400
    for now in range(0, seconds, 30):
        _put(t, "FILE", 100, float(now))
    assert t.interval_count() <= 64
    held = t.stats("files", "gsi", "FILE")
    assert held == CollectionStats(seconds // 30, seconds // 30 * 100)
    assert t.stats("files", "gsi", "FILE", since=seconds - 300.0).items == 10
    # since the start: everything, whatever the merging did
    assert t.stats("files", "gsi", "FILE", since=0.0) == held
