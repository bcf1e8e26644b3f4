"""Every number the capacity model uses, each with where it comes from.

One parameter set serves every experiment: the fidelity tests run the published
measurements M1, M2 and M3 with exactly these values. A figure marked [AWS] is documented
by AWS; [3P] is a third-party measurement; [fit] is a modelling choice calibrated to the
named measurement because AWS documents no number for it. Each mark names the section of
docs/reference.md (`reference.md#...`) that holds the figure and its source; which
measured figures the model is calibrated to and which it predicts is tabled there
(reference.md#which-figures-the-model-is-calibrated-to-and-which-it-predicts).

Each parameter's bounds sit next to its source tag (`tag(source, low, high)`): a params
file (`--params FILE`) or a calibration may set it only within them. The [fit] defaults
are checked by code, not by eye (docs/model.md#calibration-fitting-the-parameters-to-results):

    hotbench calibrate docs/reference-results/m1-hot-partition.json \
        docs/reference-results/m2-new-table-ceiling.json \
        docs/reference-results/m3-ondemand-growth.json

Run on 2026-12-01 with the compiled emulator (`python -m emulator.nativebuild build`) on a
shared 2-core machine, load average 5.3 at the start and 3.8 at the end, it finished: 314
simulations in 8 min 47 s wall, 327 s CPU (an earlier run under load 2.6-6.9: 12 min 15 s,
390 s CPU, the same fit). Distance 2.68 at these defaults -> 2.67 fitted; 0 of 29 figures
outside tolerance. It fits one parameter, `gsi_intake_factor`: 2.40 +/- 0.15 against the
hand-chosen 2.42 (0.13 standard deviations); its `--out` file, `gsi_intake_factor: 2.4`,
is now the default, so the [fit] defaults are what this command produces (the golden M1
simulation moved with it: goodGsi's 1-minute peak 3,258 -> 3,238 WCU/s, its rate 26.72 %
-> 26.74 %; nothing else). It flags every other [fit] parameter as not
constrained by M1-M3 at their tolerances and leaves it at its value here: `grace_s`,
`split_monotonic_fraction`, `split_heat_s`, `split_delay_s` and `isolate_heat_s` because
the figures barely move within a tenth of the prior width of the fit (though the screen
rules out far values: a distance of 652 at grace 0.25 s and 50.6 at 4 s, 81.3 at a
monotonic fraction of 0.5, 1,080 at four times the split heat or delay, against 2.76 at
the defaults); `gsi_backlog_s` because only together with `gsi_intake_factor`
(correlation -0.99); `ondemand_growth_step_rcu`, `pressure_gap_s` and `warm_update_s`
because no figure moves with them. The reduced
rerun (tests/loadgen/test_calibrate.py: M1's goodGsi figures, `--fit gsi_intake_factor`)
gives 2.39 +/- 0.15. After the partition rules (docs/model.md#how-partitions-are-made: a
new on-demand table has four partitions, which empty before its ceiling) the distance at
these defaults is 2.79 (M2's first throttle at 6,000/s: 2.10 -> 1.78 s), and
`--fit isolate_heat_s grace_s` gives grace 1.081 +/- 0.23 (kept at 1: 0.36 standard
deviations) and leaves isolate_heat_s unconstrained. Details and timings:
docs/model.md#the-default-fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

SOURCES = ("AWS", "3P", "fit", "?")
"""The source tags, as in the docstrings: documented (or measured and published) by AWS,
a third-party measurement, a modelling choice calibrated to a named measurement, and a
choice no source pins down, written down with its reason (docs/reference.md).
`hotbench calibrate` fits only [fit] by default."""


def tag(source: str, low: float, high: float) -> dict[str, Any]:
    """A parameter's source tag and the bounds a params file or a calibration may set it
    within. The bounds are physical plausibility, not a fit: wide enough for any table and
    region, narrow enough to catch a typo (a grace of 100 s, a negative delay)."""
    assert source in SOURCES, source
    return {"source": source, "bounds": (low, high)}


@dataclass(frozen=True)
class CapacityParams:
    """The capacity model's constants. Frozen so a run cannot drift mid-way."""

    # --- partitions -----------------------------------------------------------------
    partition_wcu: float = field(default=1000.0, metadata=tag("AWS", 100, 10000))
    """[AWS reference.md#partitions] write units per second one partition serves."""
    partition_rcu: float = field(default=3000.0, metadata=tag("AWS", 300, 30000))
    """[AWS reference.md#partitions] read units per second one partition serves (linear
    combination with writes)."""
    grace_s: float = field(default=1.0, metadata=tag("fit", 0.05, 10))
    """[fit: M2 first throttle 0.9-3.8 s into each over-ceiling window,
    reference.md#m2-new-on-demand-table-ceiling; M1 bad 54.8 % vs 55.2 % theoretical,
    reference.md#m1-hot-partition-by-key-design] depth of every hard-limit token bucket, in seconds
    of its rate: the short burst of grace before the first throttle."""
    eventual_read_factor: float = field(default=1.5, metadata=tag("AWS", 1.0, 3.0))
    """[AWS reference.md#which-replica-serves-a-read] how many times a partition's 3,000
    RCU/s its eventually consistent reads may take. Only a partition's leader replica
    serves strongly consistent reads; any of its three replicas serves eventually
    consistent ones (the DynamoDB paper, USENIX ATC 2022, sections 3 and 6.1). AWS's own
    measurement of one hot partition of an on-demand table served 9,000 eventually
    consistent queries a second, 4,500 RCU/s: 1.5 times the partition's 3,000 (Scaling
    DynamoDB, part 2, Figure 1). How the replicas share the load is not documented [?]:
    an eventually consistent read costs 1/1.5 of a strongly consistent one in the
    partition's budget, which writes and strongly consistent reads share linearly as
    before."""
    partition_bytes: int = field(
        default=10 * 1024**3, metadata=tag("AWS", 1 * 1024**3, 100 * 1024**3)
    )
    """[AWS reference.md#partitions] ~10 GB per partition before a size split."""

    # --- item units -----------------------------------------------------------------
    write_unit_bytes: int = field(default=1024, metadata=tag("AWS", 256, 4096))
    """[AWS reference.md#item-size-and-units] 1 WCU per 1 KB (rounded up) per standard write."""
    read_unit_bytes: int = field(default=4096, metadata=tag("AWS", 1024, 16384))
    """[AWS reference.md#item-size-and-units] 1 RCU per 4 KB (rounded up) per strongly
    consistent read; half if eventual."""

    # --- provisioned mode -------------------------------------------------------------
    burst_s: float = field(default=300.0, metadata=tag("AWS", 0, 3600))
    """[AWS reference.md#burst-and-adaptive-capacity] unused provisioned capacity kept for
    bursts, in seconds of the provisioned rate. The pool starts full [fit: the M1 tables
    sat idle while being seeded, reference.md#m1-hot-partition-by-key-design]."""

    # --- on-demand mode ------------------------------------------------------------------
    ondemand_initial_wcu: float = field(default=4000.0, metadata=tag("AWS", 100, 100000))
    """[AWS reference.md#on-demand-mode] warm write throughput of a new on-demand table."""
    ondemand_initial_rcu: float = field(default=12000.0, metadata=tag("AWS", 300, 300000))
    """[AWS reference.md#on-demand-mode] warm read throughput of a new on-demand table."""
    ondemand_headroom: float = field(default=4130.0 / 4000.0, metadata=tag("3P", 1.0, 1.5))
    """[3P: M2 flat ceiling 4,130 +/- 2 writes/s on a table whose warm value is 4,000,
    reference.md#m2-new-on-demand-table-ceiling] the served ceiling is the warm value times this
    factor."""
    ondemand_growth_first_s: float = field(default=480.0, metadata=tag("3P", 10, 7200))
    """[3P: M3 first ceiling stays for a full 8 minutes of continuous overload,
    reference.md#m3-on-demand-growth-under-sustained-pressure]."""
    ondemand_growth_next_s: float = field(default=600.0, metadata=tag("3P", 10, 7200))
    """[3P: M3 7,000/s after 34 min at 8,000 offered, and the 2019 study's ~7,000/s,
    reference.md#m3-on-demand-growth-under-sustained-pressure]: the next steps need 10 more minutes
    of continuous overload each (steps at 8, 18, 28 min)."""
    ondemand_growth_step_wcu: float = field(default=1000.0, metadata=tag("3P", 0, 10000))
    """[3P: M3 abrupt steps of about 1,000 writes/s,
    reference.md#m3-on-demand-growth-under-sustained-pressure]."""
    ondemand_growth_step_rcu: float = field(default=3000.0, metadata=tag("fit", 0, 30000))
    """[fit, no measurement: reference.md#on-demand-mode] reads grow with the same partition
    step as writes (one partition's worth)."""
    pressure_gap_s: float = field(default=5.0, metadata=tag("fit", 0, 120))
    """[fit: M3's continuous overload, reference.md#m3-on-demand-growth-under-sustained-pressure] a
    pause in overload shorter than this does not reset 'continuous' pressure."""
    table_quota_units: float = field(default=40000.0, metadata=tag("AWS", 1000, 1000000))
    """[AWS reference.md#on-demand-mode] default per-table quota of read and of write units
    (on-demand)."""

    # --- warm throughput -------------------------------------------------------------------
    warm_update_s: float = field(default=60.0, metadata=tag("fit", 0, 3600))
    """[fit, undocumented: reference.md#warm-throughput] how long WarmThroughput.Status stays
    UPDATING while pre-splitting."""

    # --- split for heat --------------------------------------------------------------------
    split_heat_s: float = field(default=60.0, metadata=tag("fit", 1, 1800))
    """[fit: M1 badOnDemand runs 2 and 3, reference.md#m1-hot-partition-by-key-design;
    reference.md#split-for-heat] seconds of continuous throttling on a partition before a split for
    heat is decided."""
    split_delay_s: float = field(default=420.0, metadata=tag("fit", 0, 3600))
    """[fit: M1 badOnDemand run 1 shows no split within 120 s,
    reference.md#m1-hot-partition-by-key-design; chosen so heat-to-split is 480 s, the same 8
    minutes as the first on-demand growth step of M3,
    reference.md#m3-on-demand-growth-under-sustained-pressure]."""
    isolate_heat_s: float = field(default=2.0, metadata=tag("fit", 0, 600))
    """[AWS: adaptive capacity isolates frequently accessed items "instantly",
    reference.md#burst-and-adaptive-capacity; a partition is split for consumption at the key
    distribution it observed, reference.md#split-for-consumption; fit: M1 bad consumed 1,805
    WCU/s = 1,000 + 400 + 400, so the hot key took no neighbour down with it,
    reference.md#m1-hot-partition-by-key-design, and M2's flat 4,130 writes/s from the first
    window above 4,000, more than the four partitions of a new on-demand table carry, so they
    had split within seconds of their first throttle, reference.md#m2-new-on-demand-table-ceiling]
    seconds of throttling before a partition shared by several keys splits by the keys it
    served: a key carrying half its traffic gets a partition of its own (isolation, which adds
    no capacity to that key), otherwise the hash range splits at the median key."""
    split_monotonic_fraction: float = field(default=0.8, metadata=tag("fit", 0.5, 1.0))
    """[fit, no measurement] an item collection whose recent writes rise in sort-key order at
    least this often is treated as monotonic, which AWS documents cannot be split by sort
    key (reference.md#burst-and-adaptive-capacity)."""

    # --- GSI write propagation -------------------------------------------------------------
    gsi_intake_factor: float = field(default=2.4, metadata=tag("fit", 1.0, 10.0))
    """[fit: M1 goodGsi plateau, consumed WCU 19 % under the good table,
    reference.md#m1-hot-partition-by-key-design; 2.4 +/- 0.15 is what the default
    calibration in the module docstring fits (it was 2.42 by hand)] GSIs are written
    asynchronously [AWS reference.md#gsis]; a GSI partition takes writes into its
    propagation log at up to this multiple of its partition rate, and applies them at the
    partition rate."""
    gsi_backlog_s: float = field(default=130.0, metadata=tag("fit", 1, 1800))
    """[fit: M1 goodGsi 26.6 % throttled over 120 s, reference.md#m1-hot-partition-by-key-design]
    how far (seconds of its partition rate) a GSI partition's propagation log may run behind before
    base-table writes throttle."""

    # --- capacity changes: UpdateTable as DynamoDB applies it --------------------------------
    update_throughput_s: float = field(default=2.0, metadata=tag("3P", 0, 3600))
    """[3P reference.md#capacity-changes-updatetable: UPDATING 1.0-2.0 s after a change of
    provisioned capacity, increase ~2 s, decrease ~1 s, measured on AWS] how long an
    UpdateTable of provisioned capacity keeps TableStatus (a GSI's: IndexStatus) UPDATING
    when the partitions in place can serve the new capacity. The old capacity serves
    until it ends [AWS reference.md#capacity-changes-updatetable]."""
    update_split_s: float = field(default=300.0, metadata=tag("?", 0, 7200))
    """[? reference.md#capacity-changes-updatetable] the same when the new capacity needs
    more partitions than the table or GSI has: AWS says an auto-scaling UpdateTable "takes
    several minutes" [AWS]; the one measured pre-split, a raise of warm throughput, took
    272-514 s [3P]. No measurement of a provisioned increase that splits exists."""
    switch_to_on_demand_s: float = field(default=150.0, metadata=tag("3P", 0, 3600))
    """[3P reference.md#capacity-changes-updatetable: 128.6-171.6 s, n=4] UPDATING while a
    table created PROVISIONED switches to PAY_PER_REQUEST; it serves its provisioned
    capacity meanwhile [AWS]."""
    switch_back_to_on_demand_s: float = field(default=5.0, metadata=tag("3P", 0, 3600))
    """[3P reference.md#capacity-changes-updatetable: 4.1-5.1 s, n=4] the same for a table
    that was PAY_PER_REQUEST before."""
    switch_to_provisioned_s: float = field(default=80.0, metadata=tag("3P", 0, 3600))
    """[3P reference.md#capacity-changes-updatetable: 60.5-98.2 s, n=5] UPDATING while a
    table switches from PAY_PER_REQUEST to PROVISIONED; it serves its on-demand capacity
    meanwhile [?]."""
    switches_to_on_demand: int = field(default=4, metadata=tag("AWS", 1, 100))
    """[AWS reference.md#capacity-changes-updatetable] switches from PROVISIONED to
    PAY_PER_REQUEST allowed in any `switch_window_s` (a rolling window); the other way
    is allowed at any time."""
    switch_window_s: float = field(default=86400.0, metadata=tag("AWS", 60, 864000))
    """[AWS reference.md#capacity-changes-updatetable] the rolling 24-hour window."""
    decreases_anytime: int = field(default=4, metadata=tag("AWS", 0, 1000))
    """[AWS reference.md#capacity-changes-updatetable] decreases of a table's (and,
    separately, each GSI's) provisioned capacity allowed at any time in a UTC day; the
    count resets at 00:00 UTC [3P]."""
    decrease_interval_s: float = field(default=3600.0, metadata=tag("AWS", 0, 86400))
    """[AWS reference.md#capacity-changes-updatetable; 3P: measured from the last ACCEPTED
    decrease, not the top of the hour] past `decreases_anytime`, one more decrease once
    this long after the last one (27 a day at most)."""

    # --- Application Auto Scaling target tracking --------------------------------------------
    autoscale_period_s: float = field(default=60.0, metadata=tag("AWS", 1, 3600))
    """[AWS reference.md#auto-scaling-target-tracking] the period of the consumed-capacity
    datapoints the alarms evaluate: DynamoDB publishes 1-minute sums."""
    autoscale_out_datapoints: int = field(default=2, metadata=tag("AWS", 1, 60))
    """[AWS reference.md#auto-scaling-target-tracking] consecutive datapoints above the
    target utilization that set off the scale-out alarm (AlarmHigh)."""
    autoscale_in_datapoints: int = field(default=15, metadata=tag("AWS", 1, 120))
    """[AWS reference.md#auto-scaling-target-tracking] consecutive datapoints below the
    target minus `autoscale_in_margin_pct` that set off the scale-in alarm (AlarmLow)."""
    autoscale_in_margin_pct: float = field(default=20.0, metadata=tag("AWS", 0, 90))
    """[AWS reference.md#auto-scaling-target-tracking] the scale-in alarm's threshold lies
    this many percentage points under the target (70 % -> 50 %)."""
    autoscale_alarm_delay_s: float = field(default=60.0, metadata=tag("?", 0, 900))
    """[? reference.md#auto-scaling-target-tracking] from the end of a datapoint's minute to
    the alarm acting on it: AWS documents "a short delay of up to a few minutes" [AWS]
    and no figure; a 2017 measurement of the whole reaction, with 5-minute alarms then,
    was 10-15 minutes [3P]."""

    # --- emulator service ------------------------------------------------------------------
    create_table_s: float = field(default=7.4, metadata=tag("3P", 0, 600))
    """[3P: M2 CreateTable -> ACTIVE took 7.4 s and 22 s,
    reference.md#m2-new-on-demand-table-ceiling] CREATING duration on the emulator."""

    scale: float = field(default=1.0, metadata={"source": "run"})
    """Multiplies every capacity figure so a full-size experiment can be rehearsed at a
    fraction of its rate; results are reported back in full-scale units."""

    def scaled(self, scale: float) -> CapacityParams:
        """The same physics at `scale` times the throughput (time constants unchanged)."""
        return replace(self, scale=scale)


DEFAULT_PARAMS = CapacityParams()


@dataclass(frozen=True)
class ParamInfo:
    """One settable parameter: its name, default, source tag and bounds."""

    name: str
    default: float
    source: str
    low: float
    high: float
    integer: bool


def settable() -> dict[str, ParamInfo]:
    """Every parameter a params file may set, in declaration order (not `scale`, which
    is a run's choice: --scale)."""
    out = {}
    for f in fields(CapacityParams):
        if "bounds" not in f.metadata:
            continue
        low, high = f.metadata["bounds"]
        default = getattr(DEFAULT_PARAMS, f.name)
        integer = isinstance(default, int)
        out[f.name] = ParamInfo(f.name, default, f.metadata["source"], low, high, integer)
    return out


@dataclass(frozen=True)
class LatencyParams:
    """How long a request takes in the virtual-time simulation of closed loops and
    retries (a live run measures latency instead). Each number is marked as above:
    [3P] a published measurement, [fit] calibrated to the named one, [?] a modelling
    choice no source pins down (change it with care; docs/playbooks.md#latency-model)."""

    write_s: float = 0.0037
    """[3P reference.md#m5-a-datastore-sync-protocol-over-hours] average PutItem latency
    of M5 v4 (3.7 ms, 100 workers, in-region): a put, update, delete or lock attempt."""
    read_s: float = 0.003
    """[3P reference.md#m2-new-on-demand-table-ceiling] GetItem p50 2-4 ms: the midpoint,
    for a get and a query or scan page of one item."""
    throttled_s: float = 0.0045
    """[3P reference.md#m2-new-on-demand-table-ceiling] write p50 4-5 ms "throttled or
    not": a refused attempt takes as long as an accepted one (the midpoint)."""
    per_mb_s: float = 0.010
    """[?] extra time per MB a query or scan page returns (a full 1 MB page ~13 ms):
    no source gives page latency; transfer at ~100 MB/s in-region is the assumption."""
    batch_item_s: float = 0.0002
    """[?] extra time per item of a batch (BatchWriteItem/BatchGetItem): a 25-item batch
    ~ 8.7 ms, served in parallel on the service's side."""
    transaction_factor: float = 2.0
    """[?] a transaction's latency over a single write's per item group: two phases
    (prepare, commit), as it is charged [AWS reference.md#what-each-operation-costs]."""


DEFAULT_LATENCY = LatencyParams()
