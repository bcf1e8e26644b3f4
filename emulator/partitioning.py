"""How many partitions a table or index has: the counting rules, each with its source.

A partition serves 1,000 write units and 3,000 read units a second, or a linear
combination of the two [AWS reference.md#partitions]. What differs is what the count has
to carry and how a table gets from one count to the next:

- capacity needed *at once* (a provisioned table's RCU and WCU): the classic formula,
  ceil(RCU/3000 + WCU/1000) [AWS, "Initial allocation of partitions"];
- capacity needed *either way* (warm throughput: what a table takes instantly, reads or
  writes or any linear combination of them): ceil(max(R/3000, W/1000)). A new on-demand
  table, warm at 12,000 reads / 4,000 writes, has 4 [AWS: "up to 4,000 write request
  units or 12,000 read request units, or any linear combination of the two"; measured:
  a Scan of a one-item new on-demand table costs 4 RCU, a read's minimum in each of its
  partitions, reference.md#partitions];
- an UpdateTable the partitions cannot carry doubles the count, every partition
  splitting in two, until they can [AWS: the developer guide's "Increased provisioned
  throughput settings" (4 -> 8 for a rise needing 5) and the DynamoDB paper, section 4
  (4 -> 8 for 3,200 -> 6,000 WCU)]; growth under traffic splits one partition at a time
  [AWS: the paper, sections 4.4-4.5, "split for consumption"];
- partitions are split, never merged [AWS blog, "Scaling DynamoDB", part 3].

Pure functions of numbers; `emulator.keyspace` does the splitting (`KeySpace.grow_to`
one at a time, `KeySpace.double_until` every partition in two).
"""

from __future__ import annotations

import math

from emulator.params import CapacityParams

EPSILON = 1e-9
"""Keeps 3,000.0000001 read units (a float sum) from asking for a second partition."""


def classic_count(read_units_per_s: float, write_units_per_s: float, params: CapacityParams) -> int:
    """Partitions that serve `read` and `write` units a second at the same time: the
    classic formula ceil(RCU/3000 + WCU/1000) for a provisioned table [AWS
    reference.md#partitions]."""
    need = read_units_per_s / params.partition_rcu + write_units_per_s / params.partition_wcu
    return max(1, math.ceil(need - EPSILON))


def either_count(read_units_per_s: float, write_units_per_s: float, params: CapacityParams) -> int:
    """Partitions that serve `read` units a second, or `write` units, or any linear
    combination of the two: what warm throughput promises [AWS reference.md#partitions].
    4 for a new on-demand table (12,000 / 4,000)."""
    need = max(read_units_per_s / params.partition_rcu, write_units_per_s / params.partition_wcu)
    return max(1, math.ceil(need - EPSILON))
