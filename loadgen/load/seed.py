"""Seeding a table before a live run: the first N items of the playbook's key space.

Seeding is preparation, not measurement, so it uses boto3's BatchWriteItem and re-sends
UnprocessedItems with backoff. It is paced at half the capacity the table's hottest key
can take, cycling the partition key fastest, so that seeding itself never throttles and
cannot heat a partition (which could start a split for heat and change what the run
measures).

Where the tables' clock can be skipped (the emulator, in-process or over
POST /_hotbench/skip), the pace is kept on that clock, not the wall's: the seeder writes as
fast as the emulator takes the batches and skips the clock ahead by what the pace would
have waited. The tables see the same paced seed (the same buckets, no heat), and a run at
`--scale 0.1` no longer waits the ten-fold longer seeding its scaled capacity implies:
seeding is setup, not the experiment. On AWS the clock is real and the pace is waited out.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from emulator.params import DEFAULT_PARAMS
from emulator.units import write_units
from loadgen.format.playbook import Playbook, TableSpec
from loadgen.load.keys import ItemGenerator
from loadgen.load.requests import padded_item

BATCH = 25
"""BatchWriteItem takes at most 25 items [AWS]."""


def seed_blocks(
    playbook: Playbook, spec: TableSpec, limit: int | None = None
) -> Iterator[tuple[ItemGenerator, dict[str, np.ndarray]]]:
    """The seed items as blocks of value indices (with the generator that renders them):
    the first `limit` (default spec.seed_items) combinations of the finite primary-key
    values (partition key varying fastest), in a well-mixed order (`spread_stride`);
    other key attributes (GSI keys) drawn from the playbook's distributions (or derived
    from the key when `per_item`). The live seeder renders them; the simulation marks the
    same items as existing."""
    count = spec.seed_items if limit is None else min(limit, spec.seed_items)
    attributes = {**playbook.load.attributes, **playbook.load.seed_attributes}
    primary = spec.primary_key_names()
    generator = ItemGenerator(attributes, [k.name for k in spec.key_attributes()], primary)
    radices = []
    for name in primary:
        finite = generator.samplers[name].finite
        if finite is None:
            raise ValueError(
                f"table {spec.name}: cannot seed, key {name} has no finite set of "
                "values (give it one in load.seed_attributes)"
            )
        radices.append(finite)
    count = min(count, math.prod(radices))
    stride = spread_stride(count)
    rng = np.random.default_rng(playbook.load.seed + 1)
    done = 0
    while done < count:
        n = min(1024, count - done)
        block = generator.draw(rng, n, done)
        rest = np.arange(done, done + n, dtype=np.int64) * stride % count
        for name, radix in zip(primary, radices, strict=True):
            block[name] = rest % radix
            rest = rest // radix
        generator.derive(block)
        yield generator, block
        done += n


def seed_items(
    playbook: Playbook, spec: TableSpec, limit: int | None = None
) -> Iterator[dict[str, dict[str, str]]]:
    """The seed items in DynamoDB JSON (`seed_blocks`, rendered and padded)."""
    for generator, block in seed_blocks(playbook, spec, limit):
        for row in range(len(block[spec.partition_key.name])):
            values = generator.render(block, row)
            yield padded_item(values, spec.item_size_bytes)


def spread_stride(count: int) -> int:
    """A stride coprime to `count` near count/phi: stepping through 0..count-1 by it visits
    every index once while every digit of the key (partition key, sort key, and so the
    GSI keys made of them) changes from one item to the next. Writing the seed set in
    this order spreads it over the table's and every index's partitions at once, instead
    of filling one index partition after another (a sort key that is a GSI's partition
    key would otherwise heat that GSI partition and drain its burst before the run)."""
    if count <= 2:
        return 1
    stride = max(1, round(count / 1.618033988749895))
    while math.gcd(stride, count) != 1:
        stride += 1
    return stride


def seed_rate(playbook: Playbook, spec: TableSpec, scale: float) -> float:
    """Items per second that stay at half of what the hottest key and the table take."""
    attributes = {**playbook.load.attributes, **playbook.load.seed_attributes}
    # The fewest distinct partition keys of the table or an index (a multi-attribute
    # key's values combine: as many keys as the product of its attributes' values).
    keys = [[spec.partition_key.name]] + [[k.name for k in g.partition_keys] for g in spec.gsis]
    samplers = ItemGenerator(attributes, [n for key in keys for n in key], []).samplers
    distinct = min(math.prod(samplers[n].finite or 10**9 for n in key) for key in keys)
    units = write_units(spec.item_size_bytes, DEFAULT_PARAMS)
    limits = [DEFAULT_PARAMS.partition_wcu * distinct]
    if spec.billing_mode == "PROVISIONED":
        limits.append(float(spec.write_capacity or 1))
        limits += [float(g.write_capacity or 1) for g in spec.gsis]
    else:
        limits.append(DEFAULT_PARAMS.ondemand_initial_wcu)
        # An on-demand maximum caps the table or index as provisioned capacity does.
        caps = [spec.on_demand_max] + [g.on_demand_max for g in spec.gsis]
        limits += [float(c.write) for c in caps if c is not None and c.write is not None]
    return max(1.0, 0.5 * scale * min(limits) / units)


SeedProgress = Callable[[str], None]
"""Receives a progress line while seeding (every 10 % of the items)."""

SeedSkip = Callable[[float], None]
"""Skips seconds on the tables' clock (EmulatorServer.skip, POST /_hotbench/skip)."""

SKIP_MIN_S = 0.1
"""The least lead over the pace worth a skip: a skip over HTTP costs a request, and a
lead of 0.1 s of the pace is a burst the table's burst capacity takes (300 s of it)."""

EMULATOR_SEED_ITEMS_PER_S = 1_300.0
"""Items per second the pure-Python emulator takes from the seeder on the shared 2-core
machine when the pace is skipped (measured 2026-12-01, 1,343 items/s at load 4.5:
benchmarks/seed_speed.py); the plan's expected seeding time on a target whose clock
skips. The compiled emulator is faster, so this errs long."""


def seeding_wall_s(items: int, rate: float, skips: bool) -> float:
    """Seconds of real time seeding `items` takes: at the pace `rate`, or, where the pace
    is kept on a skipped clock, as fast as the emulator takes them."""
    return items / (EMULATOR_SEED_ITEMS_PER_S if skips else rate)


def progress_line(table_name: str, written: int, total: int, elapsed_s: float) -> str:
    """`seeding T [#####.....] 7,500 of 15,000 items (50 %), ~50 s left`: a bar that
    reads the same in a terminal, a CI log and the console's step log."""
    fraction = written / total if total else 1.0
    bar = "#" * round(fraction * 10) + "." * (10 - round(fraction * 10))
    left = elapsed_s / written * (total - written) if written else 0.0
    return (
        f"seeding {table_name} [{bar}] {written:,} of {total:,} items "
        f"({fraction * 100:.0f} %), ~{left:,.0f} s left"
    )


def seed_count(playbook: Playbook, spec: TableSpec, limit: int | None = None) -> int:
    """How many items `seed_items` yields: seed_items, at most `limit`, at most the
    finite key space (the same arithmetic as seed_blocks, without drawing them)."""
    count = spec.seed_items if limit is None else min(limit, spec.seed_items)
    attributes = {**playbook.load.attributes, **playbook.load.seed_attributes}
    primary = spec.primary_key_names()
    generator = ItemGenerator(attributes, [k.name for k in spec.key_attributes()], primary)
    radices = [generator.samplers[name].finite or 0 for name in primary]
    return min(count, math.prod(radices)) if all(radices) else count


def seed_table(
    client: Any,
    table_name: str,
    playbook: Playbook,
    spec: TableSpec,
    scale: float,
    limit: int | None = None,
    timeout_s: float = 900.0,
    progress: SeedProgress | None = None,
    skip: SeedSkip | None = None,
) -> int:
    """Write the seed items, paced; returns how many were written. `progress` gets a
    line with a bar and the time left at the start and every 10 % of the items. With
    `skip`, the pace is kept on the tables' clock by skipping it ahead (see the module)."""
    rate = seed_rate(playbook, spec, scale)
    start = time.monotonic()
    skipped = 0.0
    """Seconds skipped on the tables' clock so far: it reads wall time + skipped."""
    written = 0
    batch: list[dict[str, Any]] = []
    total = seed_count(playbook, spec, limit) if progress is not None else 0
    if progress is not None:
        paced = f"paced at half of what the table takes at scale {scale:g}"
        if skip is None:
            progress(
                f"seeding {table_name}: {total:,} items at {rate:,.0f} items/s, about "
                f"{total / rate:,.0f} s ({paced})"
            )
        else:
            progress(
                f"seeding {table_name}: {total:,} items, {rate:,.0f} items/s on the "
                f"emulator's clock ({paced}); its {total / rate:,.0f} s are skipped, about "
                f"{seeding_wall_s(total, rate, True):,.0f} s real"
            )
    next_tenth = 1

    def flush() -> None:
        nonlocal written, next_tenth, skipped
        requests: list[dict[str, Any]] = [{"PutRequest": {"Item": i}} for i in batch]
        delay = 0.05
        while requests:
            if time.monotonic() - start > timeout_s:
                raise TimeoutError(f"seeding {table_name} took over {timeout_s:.0f} s")
            out = client.batch_write_item(RequestItems={table_name: requests})
            requests = out.get("UnprocessedItems", {}).get(table_name, [])
            if requests:
                time.sleep(delay)
                delay = min(2.0, delay * 2)
        written += len(batch)
        batch.clear()
        ahead = written / rate - (time.monotonic() - start + skipped)
        if skip is None:
            if ahead > 0:
                time.sleep(ahead)
        elif ahead >= SKIP_MIN_S:
            skip(ahead)
            skipped += ahead
        if progress is not None and total and written * 10 >= next_tenth * total:
            progress(progress_line(table_name, written, total, time.monotonic() - start))
            next_tenth = written * 10 // total + 1

    for item in seed_items(playbook, spec, limit):
        batch.append(item)
        if len(batch) == BATCH:
            flush()
    if batch:
        flush()
    lead = written / rate - (time.monotonic() - start + skipped)
    if skip is not None and lead > 0:
        skip(lead)  # the last lead too: the run starts where a waited-out seed would
    return written
