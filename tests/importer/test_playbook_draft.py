"""The import drafted in today's playbook format (what phase B replaces): valid
playbooks, the recorded requests offered in full, the measured hot keys by name where
the format can hold them, and a draft that simulates: a hot key imported from Contributor
Insights throttles its partition in the model as it did in the account."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
import yaml

from console.importer.aws_calls import LiveCalls
from console.importer.import_run import ImportOptions, run_import
from console.importer.playbook_draft import WEIGHTED_KEYS_MAX, distribution, draft, fold_tail
from loadgen.analysis.keyfit import fit_keys
from loadgen.format.playbook import Phase, WeightedDist, parse_playbook
from loadgen.runners import SimulatedRunner
from tests.importer import scenarios
from tests.importer.fake_account import FakeAccount, Scenario


def _offered(playbook_phases: list[Phase]) -> float:
    return sum(p.rate * p.duration_s for p in playbook_phases)


def test_the_day_drafts_to_a_valid_playbook_offering_what_was_recorded() -> None:
    result = run_import(ImportOptions(from_saved=scenarios.ORDERS_SNAPSHOT))
    text, playbook = draft(result)
    assert parse_playbook(yaml.safe_load(text), "<reparsed>") == playbook
    table = result.tables[0]
    recorded = sum(o.total for o in table.operations)
    assert _offered(playbook.load.phases) == pytest.approx(recorded, rel=1e-6)
    # A day in half hours, those within 5 % of their neighbour merged (near the curve's
    # top and bottom).
    assert 24 <= len(playbook.load.phases) < 48
    assert sum(p.duration_s for p in playbook.load.phases) == 86_400
    starts = [0.0]
    for p in playbook.load.phases:
        starts.append(starts[-1] + p.duration_s)
    noon = next(
        p
        for p, t in zip(playbook.load.phases, starts, strict=False)
        if t <= 43_200 < t + p.duration_s
    )
    assert noon.mix is not None and {s.op for s in noon.mix} == {"put", "get", "query"}
    spec = playbook.tables[0]
    assert (spec.read_capacity, spec.write_capacity) == (4450, 5850)  # the window's highest
    assert spec.item_size_bytes == 900
    attrs = playbook.load.attributes
    customer = attrs["customerId"]
    assert isinstance(customer, WeightedDist) and len(customer.weights) == WEIGHTED_KEYS_MAX
    assert customer.weights[scenarios.HOT_CUSTOMER] == pytest.approx(100 * scenarios.HOT_SHARE)
    assert sum(customer.weights.values()) == pytest.approx(100)
    last_hot = list(customer.weights.values())[99]
    assert max(list(customer.weights.values())[100:]) <= last_hot * (1 + 1e-9)
    assert "the fitted tail's 40.0 % folded onto 1,900 of its 99,900 keys" in text
    couriers = attrs["courierId"]
    assert isinstance(couriers, WeightedDist) and len(couriers.weights) == 400 <= WEIGHTED_KEYS_MAX
    assert sum(couriers.weights.values()) == pytest.approx(100)
    assert text.startswith("# hotbench import of orders (us-east-1), 2026-11-29 00:00 to")


def test_two_constant_stretches_are_two_phases_and_the_missing_lines_are_comments() -> None:
    result = run_import(ImportOptions(from_saved=scenarios.SESSIONS_SNAPSHOT))
    text, playbook = draft(result)
    assert [(p.operation, p.rate, p.duration_s) for p in playbook.load.phases] == [
        ("put", 500.0, 10800),
        ("put", 1500.0, 10800),
    ]
    spec = playbook.tables[0]
    assert spec.billing_mode == "PAY_PER_REQUEST"
    assert spec.on_demand_max is not None and spec.on_demand_max.write == 8000
    assert spec.warm_throughput is not None and spec.warm_throughput.write == 6000
    assert spec.item_size_bytes == 2048
    assert "# left out: LSIs byExpiry (the format has none)" in text
    assert "# missing: sessions: Contributor Insights is disabled" in text


def _hot_writes() -> Scenario:
    """Ten minutes of 2,000 writes/s on an on-demand table warmed to 10,000, one key
    holding 60 % of them (1,200/s against a partition's 1,000 WCU), 50 keys in all."""
    start = datetime(2026, 11, 30, 9, tzinfo=UTC)
    minutes = 10
    rule = "DynamoDBContributorInsights-PKC-hot-1764460800000"
    shares = [0.6] + [0.4 / 49] * 49
    total = 2000.0 * 60 * minutes
    return Scenario(
        name="hot",
        start=start,
        minutes=minutes,
        table={
            "TableName": "hot",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"},
            "WarmThroughput": {
                "ReadUnitsPerSecond": 30000,
                "WriteUnitsPerSecond": 10000,
                "Status": "ACTIVE",
            },
            "ItemCount": 1000,
            "TableSizeBytes": 500_000,
        },
        insights={
            None: {
                "TableName": "hot",
                "ContributorInsightsStatus": "ENABLED",
                "ContributorInsightsRuleList": [rule],
                "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS",
            }
        },
        reports={
            rule: {
                "AggregationStatistic": "Sum",
                "AggregateValue": total,
                "ApproximateUniqueCount": 50,
                "Contributors": [
                    {
                        "Keys": [f"k{i:02d}"],
                        "ApproximateAggregateValue": s * total,
                        "Datapoints": [],
                    }
                    for i, s in enumerate(shares)
                ],
            }
        },
        series={
            ("SuccessfulRequestLatency", "SampleCount", None, "PutItem"): [120_000.0] * minutes,
            ("ConsumedWriteCapacityUnits", "Sum", None, None): [120_000.0] * minutes,
        },
    )


def test_an_imported_hot_key_throttles_its_partition_in_the_simulation() -> None:
    scenario = _hot_writes()
    result = run_import(
        ImportOptions(
            tables=("hot",), start=scenario.start.isoformat(), end=scenario.end.isoformat()
        ),
        now=scenario.end + timedelta(minutes=3),
        live=LiveCalls(FakeAccount([scenario]).session()),
    )
    _, playbook = draft(result)
    weights = playbook.load.attributes["pk"]
    assert isinstance(weights, WeightedDist) and weights.weights["k00"] == pytest.approx(60)
    (run,) = SimulatedRunner().run(playbook).runs
    (phase,) = run.phases
    assert phase.offered == 2000 * 600
    reasons = set(phase.counts.by_reason)
    assert reasons == {"TableWriteKeyRangeThroughputExceeded"}
    # The hot key asks 1,200 WCU/s of a partition that serves 1,000: about a sixth of its
    # writes are refused, a tenth of the table's.
    assert 0.05 < phase.counts.throttled / phase.offered < 0.15


def test_folding_keeps_the_tail_mass_and_the_cap() -> None:
    shares = np.array([0.004, 0.002, 0.001, 0.0005])
    folded = fold_tail(shares, 0.01, 0.003)
    assert folded is not None
    assert folded.sum() == pytest.approx(0.01) and folded.max() <= 0.003
    assert list(folded) == sorted(folded, reverse=True)
    assert fold_tail(shares, 0.02, 0.003) is None  # four keys at the cap hold 1.2 %
    assert fold_tail(shares, float(shares.sum()), 0.1) is shares  # the whole tail: as fitted


def test_a_tail_too_heavy_to_fold_is_one_zipf_said_so() -> None:
    """100 reported keys at 0.01 % each and a million keys in all: the remaining 99 %
    cannot sit on 1,900 keys of at most 0.01 %, so the draft is one Zipf over the
    million, and its comment says how close it comes to the top key."""
    result = run_import(ImportOptions(from_saved=scenarios.ORDERS_SNAPSHOT))
    table = result.tables[0]
    flat = fit_keys([1.0] * 100, 10_000.0, 1_000_000)
    key = dataclasses.replace(table.keys[0], fit=flat, hot=table.keys[0].hot[:100])
    dist, how = distribution(table, key)
    assert dist["dist"] == "zipf" and dist["count"] == 1_000_000
    assert "one Zipf for all (the tail is too heavy to fold onto 1,900 keys)" in how
