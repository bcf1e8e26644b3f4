"""The result format: merging is exact, peaks compare like with like."""

from __future__ import annotations

import json
from collections import Counter

from loadgen.results.records import Counts, PhaseResult, PlaybookResult, RunResult


def _counts(sent: int, ok: int, thr: int, reason: str = "R") -> Counts:
    return Counts(
        sent=sent,
        succeeded=ok,
        throttled=thr,
        consumed_wcu=float(ok),
        by_reason=Counter({reason: thr}) if thr else Counter(),
    )


def test_merging_adds_counts_never_averages() -> None:
    a, b = _counts(100, 60, 40, "X"), _counts(300, 300, 0)
    total = Counts()
    total.add(a)
    total.add(b)
    assert (total.sent, total.succeeded, total.throttled) == (400, 360, 40)
    assert total.by_reason == Counter({"X": 40})


def test_counts_round_trip_through_json() -> None:
    a = _counts(10, 7, 3, "TableWriteKeyRangeThroughputExceeded")
    a.errors_by_type["Timeout"] = 1
    again = Counts.from_json(json.loads(json.dumps(a.to_json())))
    assert again == a


def test_one_minute_peak_is_a_sliding_window_average() -> None:
    run = RunResult("t", 1, 120)
    for t in range(120):
        run.second(t).add(_counts(10, 2000 if t < 30 else 1000, 0))
    assert run.peak("consumed_wcu", 1) == 2000
    assert run.peak("consumed_wcu", 60) == (30 * 2000 + 30 * 1000) / 60


def test_json_has_the_documented_run_fields() -> None:
    run = RunResult("t", 1, 20)
    run.phases.append(PhaseResult("p", "put", 0, 20, offered=200))
    for t in range(20):
        run.second(t).add(_counts(10, 8, 2))
    data = PlaybookResult("pb", "simulate", runs=[run]).to_json()
    assert data["format"] == "hotbench.result/1"
    r = data["runs"][0]
    for key in (
        "offered",
        "succeeded",
        "throttled",
        "throttle_rate",
        "throttles_by_reason",
        "consumed_wcu_peak_1s",
        "consumed_wcu_peak_1min",
        "first_throttle_s",
        "series",
        "phases",
        "partial",
    ):
        assert key in r
    assert r["throttle_rate"] == 0.2
    assert [p["t"] for p in r["series"]] == [0, 10]
    assert r["series"][0]["succeeded_per_s"] == 8
