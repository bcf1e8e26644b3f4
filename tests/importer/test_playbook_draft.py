"""The import as a playbook that replays its window: valid playbooks, each minute's
recorded requests offered per operation, the measured hot keys by name with the fitted
tail, FORMAT 34's capacity blocks, launch what-ifs, and a playbook that simulates: a hot
key imported from Contributor Insights throttles its partition in the model as it did in
the account."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from console.importer.aws_calls import LiveCalls
from console.importer.import_run import ImportOptions, run_import
from console.importer.playbook_draft import (
    CSV_MINUTES,
    WEIGHTED_KEYS_MAX,
    WhatIf,
    distribution,
    fold_tail,
    minutes_of,
    render,
)
from loadgen.analysis.keyfit import fit_keys
from loadgen.format.kinds.rate_curve import PerMinuteRate, write_rate_csv
from loadgen.format.playbook import (
    Playbook,
    UniformDist,
    WeightedDist,
    load_playbook,
    parse_playbook,
)
from loadgen.load.arrivals import Schedule
from loadgen.runners import SimulatedRunner
from tests.importer import scenarios
from tests.importer.fake_account import FakeAccount, Scenario


def offered_per_minute(playbook: Playbook) -> dict[str, np.ndarray]:
    """Requests each minute offers per operation, from the schedule the runners follow
    (a mix's arrivals shared by its weights)."""
    out: dict[str, list[float]] = {}
    minute = 0
    for phase in playbook.load.phases:
        schedule = Schedule.for_phase(phase)
        minutes = round(phase.duration_s / 60)
        due = np.array([schedule.due_by(60.0 * (m + 1)) for m in range(minutes)], dtype=float)
        arrivals = np.diff(due, prepend=0.0)
        entries = phase.kind.iterations.entries
        weights = {e.op: float(e.weight or 1.0) for e in entries}
        total = sum(weights.values())
        for op, weight in weights.items():
            series = out.setdefault(op, [])
            series += [0.0] * (minute - len(series))
            series += list(arrivals * weight / total)
        minute += minutes
    return {op: np.array(v + [0.0] * (minute - len(v))) for op, v in out.items()}


def _uncommented(text: str) -> dict[str, Any]:
    """The YAML with any commented capacity blocks taken in (playbook_draft writes them
    as comments for a format without them, CAPACITY_BLOCKS_LIVE False)."""
    lines = [
        line.replace("# ", "", 1) if line.startswith(" ") and line.lstrip()[:2] == "# " else line
        for line in text.splitlines()
    ]
    return yaml.safe_load("\n".join(lines))


def test_the_day_replays_minute_by_minute_with_its_hot_keys() -> None:
    """Must show: from the saved day (two GSIs, auto scaling, a daily curve, one hot key,
    Contributor Insights on) each minute's offered requests follow the recorded counts
    within 5 % per operation, and the hot key's share is the report's."""
    result = run_import(ImportOptions(from_saved=scenarios.ORDERS_SNAPSHOT))
    rendered = render(result)
    playbook = rendered.playbook
    assert parse_playbook(yaml.safe_load(rendered.text), "<reparsed>") == playbook
    table = result.tables[0]
    offered = offered_per_minute(playbook)
    names = {"PutItem": "put", "GetItem": "get", "Query": "query"}
    totals = np.zeros(1440)
    for o in table.operations:
        recorded = np.array(o.requests)
        got = offered[names[o.operation]]
        totals += recorded
        minute_total = np.array(table.requests_per_period())
        allowed = np.maximum(0.05 * recorded, 0.005 * minute_total) + 1.0
        assert (np.abs(got - recorded) <= allowed).all(), o.operation
    assert sum(offered.values()) == pytest.approx(totals, rel=1e-3)
    assert sum(sum(v) for v in offered.values()) == pytest.approx(totals.sum(), rel=1e-6)
    # Shares hold for hours (a constant 20 queries/s against the daily curve moves the
    # query share past half a point only a few times a day).
    assert 2 <= len(playbook.load.phases) <= 12
    assert sum(p.duration_s for p in playbook.load.phases) == 86_400
    spec = playbook.tables[0]
    # Under auto scaling: where the window started (its policy moves it from there).
    assert (spec.read_capacity, spec.write_capacity) == (1000, 1000)
    assert [g.name for g in spec.gsis] == ["bySku", "byCourier"]
    assert spec.auto_scaling is not None and spec.auto_scaling.write is not None
    assert (spec.auto_scaling.write.min, spec.auto_scaling.write.max) == (1000, 10000)
    assert spec.auto_scaling.write.target_pct == 70.0
    assert spec.history is not None and spec.history.previous_provisioned is not None
    assert spec.history.previous_provisioned.write == 5850
    assert spec.gsis[0].auto_scaling is not None
    customer = playbook.load.attributes["customerId"]
    assert isinstance(customer, WeightedDist) and len(customer.weights) == WEIGHTED_KEYS_MAX
    report = next(r for r in table.reports if r.index is None and r.measure == "accessed")
    measured = report.contributors[0]
    assert measured.keys == (scenarios.HOT_CUSTOMER,)
    share = customer.weights[scenarios.HOT_CUSTOMER] / sum(customer.weights.values())
    assert share == pytest.approx(measured.share, rel=1e-9)
    assert share == pytest.approx(scenarios.HOT_SHARE, rel=1e-3)
    sku = playbook.load.attributes["sku"]
    sku_report = next(r for r in table.reports if r.index == "bySku" and r.measure == "accessed")
    assert isinstance(sku, WeightedDist)
    top = sku_report.contributors[0]
    assert sku.weights[top.keys[0]] / sum(sku.weights.values()) == pytest.approx(top.share)
    # Where each number came from.
    assert "# customerId (table): Contributor Insights rule DynamoDBContributorInsights-PKC-" in (
        rendered.text
    )
    assert "SuccessfulRequestLatency SampleCount + ThrottledRequests Sum" in rendered.text
    # FORMAT 34's blocks in the YAML (loadgen/format/capacity_spec.py validates them).
    assert "# auto_scaling: Application Auto Scaling's scalable targets" in rendered.text
    blocks = _uncommented(rendered.text)["tables"][0]
    write = blocks["auto_scaling"]["write"]
    assert (write["target_pct"], write["min"], write["max"]) == (70.0, 1000, 10000)
    assert blocks["auto_scaling"]["read"]["max"] == 20000
    assert blocks["history"]["previous_provisioned"] == {"read": 4450, "write": 5850}
    assert blocks["history"]["previous_warm"] == {"read": 30000, "write": 10000}
    by_sku = next(g for g in blocks["gsis"] if g["name"] == "bySku")
    assert by_sku["auto_scaling"]["read"]["max"] == 1000


def test_long_curves_go_to_csv_files_beside_the_playbook(tmp_path: Path) -> None:
    result = run_import(ImportOptions(from_saved=scenarios.ORDERS_SNAPSHOT))
    rendered = render(result, csv_stem="orders")
    assert rendered.csvs and all(len(v) > CSV_MINUTES for v in rendered.csvs.values())
    (tmp_path / "orders.yaml").write_text(rendered.text)
    for name, rates in rendered.csvs.items():
        write_rate_csv(tmp_path / name, rates)
    loaded = load_playbook(tmp_path / "orders.yaml")
    assert [p.rate for p in loaded.load.phases if isinstance(p.rate, PerMinuteRate)] != []
    for got, want in zip(loaded.load.phases, rendered.playbook.load.phases, strict=True):
        assert isinstance(got.rate, PerMinuteRate) and isinstance(want.rate, PerMinuteRate)
        assert got.rate.per_minute == want.rate.per_minute and got.mix == want.mix


@pytest.mark.slow(realtime=False)
def test_a_minute_of_the_imported_day_simulates() -> None:
    """The imported day simulates (its first minute: 75,000 requests on the mix engine
    take half a minute here; the whole day is a long run, docs/import.md)."""
    result = run_import(ImportOptions(from_saved=scenarios.ORDERS_SNAPSHOT))
    playbook = minutes_of(render(result).playbook, 0, 1)
    (run,) = SimulatedRunner().run(playbook).runs
    recorded = sum(o.requests[0] for o in result.tables[0].operations)
    assert run.phases[0].offered == pytest.approx(recorded, abs=1)
    assert run.phases[0].counts.sent == run.phases[0].offered


def test_without_contributor_insights_a_clear_line_a_uniform_key_still_a_playbook() -> None:
    result = run_import(ImportOptions(from_saved=scenarios.SESSIONS_SNAPSHOT))
    rendered = render(result)
    playbook = rendered.playbook
    (phase,) = playbook.load.phases
    assert phase.operation == "put" and isinstance(phase.rate, PerMinuteRate)
    assert phase.rate.per_minute[0] == 500.0 and phase.rate.per_minute[-1] == 1500.0
    assert sum(phase.rate.per_minute) * 60 == pytest.approx(21_600_000)
    session = playbook.load.attributes["sessionId"]
    assert isinstance(session, UniformDist) and session.count == 1_000_000
    spec = playbook.tables[0]
    assert spec.billing_mode == "PAY_PER_REQUEST"
    assert spec.on_demand_max is not None and spec.on_demand_max.write == 8000
    assert spec.item_size_bytes == 2048
    assert "# left out: LSIs byExpiry (the format has none)" in rendered.text
    assert "# missing: sessions: Contributor Insights is disabled, so there are no hot keys" in (
        rendered.text
    )
    history = _uncommented(rendered.text)["tables"][0]["history"]
    assert history["previous_on_demand_peak"] == {"write": 3000}  # 1,500 puts/s x 2 WCU
    assert spec.history is not None and spec.history.previous_on_demand_peak is not None
    assert spec.history.previous_on_demand_peak.write == 3000


def test_launch_what_ifs_scale_the_day_and_sharpen_its_peak() -> None:
    result = run_import(ImportOptions(from_saved=scenarios.ORDERS_SNAPSHOT))
    base = render(result).offered.sum(axis=1)
    tripled = render(result, what_if=WhatIf(scale=3)).offered.sum(axis=1)
    assert tripled == pytest.approx(3 * base)
    peaked = render(result, what_if=WhatIf(peak=2)).offered.sum(axis=1)
    assert peaked.max() == pytest.approx(2 * base.max())
    assert peaked.min() == pytest.approx(base.min())
    both = render(result, what_if=WhatIf(scale=3, peak=1.5))
    assert both.offered.sum(axis=1).max() == pytest.approx(4.5 * base.max())
    assert "# what-if: every minute x3; the peak x1.5" in both.text


def _hot_writes() -> Scenario:
    """Ten minutes of 2,000 writes/s on an on-demand table warmed to 10,000, one key
    holding 60 % of them (1,200/s against a partition's 1,000 WCU), 50 keys in all."""
    start = datetime(2026, 11, 30, 9, tzinfo=UTC)
    minutes = 10
    total = 2000.0 * 60 * minutes
    series = {
        ("SuccessfulRequestLatency", "SampleCount", None, "PutItem"): [120_000.0] * minutes,
        ("ConsumedWriteCapacityUnits", "Sum", None, None): [120_000.0] * minutes,
    }
    return scenarios.hot_key_writes(start, minutes, 0.6, total, series)


def test_an_imported_hot_key_throttles_its_partition_in_the_simulation() -> None:
    scenario = _hot_writes()
    result = run_import(
        ImportOptions(
            tables=("hot",), start=scenario.start.isoformat(), end=scenario.end.isoformat()
        ),
        now=scenario.end + timedelta(minutes=3),
        live=LiveCalls(FakeAccount([scenario]).session()),
    )
    playbook = render(result).playbook
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
