"""Criteria judged against hand-made results: how runs, phases and reasons are taken
together, what counts as never throttled, comparisons with a zero, skipped metrics, and
criteria that name something the load never produces."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from loadgen.analysis.criteria import evaluate
from loadgen.format.playbook import PlaybookError, parse_playbook
from loadgen.results.histogram import LatencyHistogram
from loadgen.results.records import Counts, PhaseResult, PlaybookResult, RunResult

KEY_RANGE = "TableWriteKeyRangeThroughputExceeded"
PROVISIONED = "TableWriteProvisionedThroughputExceeded"


def _playbook(criteria: list[dict[str, Any]], repeats: int = 2) -> Any:
    return parse_playbook(
        {
            "name": "t",
            "tables": [
                {"name": name, "partition_key": {"name": "pk"}, "billing_mode": "PAY_PER_REQUEST"}
                for name in ("a", "b")
            ],
            "load": {
                "attributes": {"pk": {"dist": "uuid"}},
                "phases": [
                    {"name": "quiet", "rate": 10, "duration_s": 10},
                    {"name": "peak", "rate": 100, "duration_s": 10},
                ],
                "runs": [{"table": "a", "repeats": repeats}, {"table": "b"}],
            },
            "criteria": criteria,
        },
        "<test>",
    )


def _run(table: str, repeat: int, throttled_per_s: int, reason: str = KEY_RANGE) -> RunResult:
    """20 s: 10 s at 10/s without throttles, then 10 s at 100/s with `throttled_per_s`
    refused each second, from second 12 on."""
    run = RunResult(table, repeat, 20.0)
    for t in range(20):
        sent = 10 if t < 10 else 100
        throttled = throttled_per_s if t >= 12 else 0
        run.seconds[t] = Counts(
            sent=sent,
            succeeded=sent - throttled,
            throttled=throttled,
            consumed_wcu=float(sent - throttled),
            by_reason=Counter({reason: throttled} if throttled else {}),
        )
    first = 12.0 if throttled_per_s else None
    run.phases = [
        PhaseResult("quiet", "put", 0, 10, 100, run.totals_between(0, 10)),
        PhaseResult(
            "peak", "put", 10, 10, 1000, run.totals_between(10, 10), None if first is None else 2.0
        ),
    ]
    run.first_throttle_s = first
    return run


def _result(*runs: RunResult) -> PlaybookResult:
    return PlaybookResult("t", "simulate", runs=list(runs), target="model")


def test_repeats_are_added_before_the_rate_is_formed() -> None:
    playbook = _playbook([{"name": "rate", "metric": "throttle_rate", "table": "a", "max": 0.1}])
    # 8 x 10 throttled of 1,100 offered, and none of 1,100: 80 / 2,200, not the mean of rates.
    (verdict,) = evaluate(playbook, _result(_run("a", 1, 10), _run("a", 2, 0), _run("b", 1, 0)))
    assert verdict.measured == pytest.approx(80 / 2200)
    assert verdict.status == "pass" and verdict.scope == "a (2 runs)"


def test_phase_repeat_and_reason_narrow_what_is_measured() -> None:
    playbook = _playbook(
        [
            {
                "name": "peak",
                "metric": "throttle_rate",
                "table": "a",
                "repeat": 1,
                "phase": "peak",
                "max": 0.05,
            },
            {
                "name": "by reason",
                "metric": "throttle_rate",
                "table": "a",
                "repeat": 1,
                "reason": PROVISIONED,
                "max": 0,
            },
            {
                "name": "achieved",
                "metric": "achieved_rate",
                "table": "a",
                "repeat": 1,
                "phase": "peak",
                "min": 95,
            },
            {
                "name": "wcu",
                "metric": "consumed_wcu_peak",
                "table": "a",
                "repeat": 1,
                "phase": "quiet",
                "window_s": 1,
                "max": 10,
            },
        ]
    )
    result = _result(_run("a", 1, 10), _run("a", 2, 0), _run("b", 1, 0))
    peak, by_reason, achieved, wcu = evaluate(playbook, result)
    assert peak.measured == pytest.approx(80 / 1000) and peak.status == "fail"
    assert by_reason.measured == 0 and by_reason.status == "pass"
    assert achieved.measured == pytest.approx((1000 - 80) / 10) and achieved.status == "fail"
    assert wcu.measured == 10 and wcu.status == "pass"  # the peak phase's 100/s not counted


def test_never_throttled_is_later_than_any_first_throttle_bound() -> None:
    playbook = _playbook(
        [
            {"name": "not before 30 s", "metric": "first_throttle_s", "table": "b", "min": 30},
            {"name": "within 5 s", "metric": "first_throttle_s", "table": "b", "max": 5},
            {"name": "a not before 30 s", "metric": "first_throttle_s", "table": "a", "min": 30},
        ]
    )
    result = _result(_run("a", 1, 0), _run("a", 2, 10), _run("b", 1, 0))
    never, within, early = evaluate(playbook, result)
    assert never.status == "pass" and never.measured is None
    assert never.measured_text == "no throttle"
    assert within.status == "fail"
    assert early.measured == 12.0 and early.status == "fail"  # the earliest of the repeats


def test_comparison_is_a_ratio_and_a_zero_reference_cannot_pass_a_reduction() -> None:
    playbook = _playbook(
        [
            {
                "name": "10x less",
                "metric": "throttle_rate",
                "table": "b",
                "compare": {"table": "a", "max_ratio": 0.1},
            }
        ]
    )
    (ok,) = evaluate(playbook, _result(_run("a", 1, 50), _run("a", 2, 50), _run("b", 1, 2)))
    assert ok.status == "pass" and ok.reference == pytest.approx(800 / 2200)
    assert "ratio" in ok.detail
    (worse,) = evaluate(playbook, _result(_run("a", 1, 5), _run("a", 2, 5), _run("b", 1, 2)))
    assert worse.status == "fail"
    (zero,) = evaluate(playbook, _result(_run("a", 1, 0), _run("a", 2, 0), _run("b", 1, 0)))
    assert zero.status == "fail" and "undefined" in zero.detail


def test_latency_and_cost_are_skipped_when_not_measured_and_merged_when_they_are() -> None:
    playbook = _playbook(
        [
            {"name": "p99", "metric": "p99_latency_ms", "table": "a", "max": 20},
            {"name": "cost", "metric": "cost_usd", "max": 1.0},
        ]
    )
    runs = [_run("a", 1, 0), _run("a", 2, 0), _run("b", 1, 0)]
    p99, cost = evaluate(playbook, _result(*runs))
    assert p99.status == "skipped" and "live" in p99.detail
    assert cost.status == "skipped"
    fast, slow = LatencyHistogram(), LatencyHistogram()
    for _ in range(98):
        fast.record(0.005)
    for _ in range(2):
        slow.record(0.080)
    runs[0].latency, runs[1].latency = fast, slow
    p99, cost = evaluate(playbook, _result(*runs), cost_of=lambda table, run: 0.4)
    # Merged: 2 of 100 requests took 80 ms, so the 99th percentile is slow (a mean of
    # the two runs' p99s would not be).
    assert p99.measured is not None and p99.measured > 50 and p99.status == "fail"
    assert cost.measured == pytest.approx(1.2) and cost.status == "fail"


@pytest.mark.parametrize(
    ("criterion", "expected"),
    [
        ({"metric": "throttle_rate", "table": "c", "max": 0}, "criteria[0].table"),
        ({"metric": "throttle_rate", "table": "a", "repeat": 3, "max": 0}, "criteria[0].repeat"),
        ({"metric": "throttle_rate", "phase": "launch", "max": 0}, "no phase 'launch'"),
        ({"metric": "throttle_rate", "compare": {"table": "z", "max_ratio": 1}}, "compare.table"),
        ({"metric": "achieved_rate", "reason": KEY_RANGE, "min": 1}, "throttle_rate only"),
        (
            {"metric": "throttle_rate", "max": 0, "compare": {"table": "a", "max_ratio": 1}},
            "not both",
        ),
        ({"metric": "throttle_rate"}, "give max and/or min"),
        ({"metric": "throttle_rate", "reason": "TableWriteHotness", "max": 0}, "pattern"),
        ({"metric": "cost_usd", "phase": "peak", "max": 1}, "per run"),
        ({"metric": "throttle_rate", "min": 0.5, "max": 0.1}, "above max"),
    ],
)
def test_criteria_that_cannot_be_judged_are_refused(
    criterion: dict[str, Any], expected: str
) -> None:
    with pytest.raises(PlaybookError, match=expected.replace("[", r"\[").replace("]", r"\]")):
        _playbook([{"name": "x", **criterion}])


def test_criterion_names_are_unique() -> None:
    same = {"name": "x", "metric": "throttle_rate", "max": 0}
    with pytest.raises(PlaybookError, match="unique"):
        _playbook([same, same])
