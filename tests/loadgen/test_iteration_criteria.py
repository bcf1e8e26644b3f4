"""The iteration criteria (#8): iteration_rate (and its trend, last window against first),
scenario_failure_rate by reason, step_p99_ms and app_error_rate, judged against hand-made
iteration counts; and the validation that refuses one that could never be judged."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from loadgen.analysis.criteria import evaluate
from loadgen.format.playbook import PlaybookError, parse_playbook
from loadgen.results.iteration_results import IterationCounts
from loadgen.results.records import PhaseResult, PlaybookResult, RunResult

HOUR = 3600


def _playbook(criteria: list[dict[str, Any]], hours: int = 3) -> Any:
    return parse_playbook(
        {
            "name": "sync",
            "tables": [
                {
                    "name": "t",
                    "partition_key": {"name": "pk"},
                    "sort_key": {"name": "sk"},
                    "billing_mode": "PAY_PER_REQUEST",
                }
            ],
            "load": {
                "attributes": {"pk": {"dist": "uuid"}, "sk": {"dist": "uuid"}},
                "scenarios": {
                    "work": {
                        "steps": [
                            {"name": "acquire", "op": "lock", "key": {"pk": "L", "sk": "L"}},
                            {"name": "push", "op": "put", "key": {"pk": "p{user}", "sk": "x"}},
                            {"name": "release", "op": "release", "lock": "acquire"},
                        ]
                    }
                },
                "phases": [
                    {"name": "warm", "rate": 1, "duration_s": 10},
                    {
                        "name": "sync",
                        "users": 10,
                        "scenario": "work",
                        "duration_s": hours * HOUR,
                        "retry": "standard",
                    },
                ],
            },
            "criteria": criteria,
        },
        "<test>",
    )


@cache  # each test only reads it; built once (10,800 seconds of counts)
def _run(hours: int = 3) -> RunResult:
    """An idle 10 s phase, then `hours` of iterations that slow down: in hour h, one ok
    iteration every (h + 1) seconds, and a lock timeout every 10 s; each iteration's
    `push` step takes 10 ms (hour 0) to 30 ms (hour 2)."""
    run = RunResult("t", 1, 10 + hours * HOUR)
    for t in range(10, 10 + hours * HOUR):
        h = (t - 10) // HOUR
        counts = IterationCounts()
        if (t - 10) % (h + 1) == 0:
            counts.started += 1
            counts.record_end(True, None, 1.0, [("push", 0.01 * (h + 1))])
            counts.record_operation("ok", 1)
            counts.record_operation("ok", 3)
        if t % 10 == 0:
            counts.started += 1
            counts.record_end(False, "lock_timeout", 60.0, [])
            counts.record_operation("throttled", 3)
        run.iterations[t] = counts
    run.phases = [
        PhaseResult("warm", "put", 0, 10, 10),
        PhaseResult("sync", "scenario", 10, hours * HOUR, 0),
    ]
    return run


def _judge(criteria: list[dict[str, Any]], run: RunResult | None = None) -> list[Any]:
    result = PlaybookResult("sync", "simulate", runs=[run or _run()], target="model")
    return evaluate(_playbook(criteria), result)


def test_iteration_rate_and_its_trend() -> None:
    rate, trend, flat = _judge(
        [
            {"name": "rate", "metric": "iteration_rate", "phase": "sync", "min": 0.5},
            {"name": "trend", "metric": "iteration_rate", "trend": True, "min": 0.8},
            {
                "name": "flat",
                "metric": "iteration_rate",
                "trend": True,
                "trend_window_s": 60,
                "phase": "sync",
                "max": 2,
            },
        ]
    )
    # 3,600 + 1,800 + 1,200 ok iterations over 10,800 s
    assert rate.measured == pytest.approx(6600 / 10800) and rate.status == "pass"
    # the whole run's span: its first hour (of 10 s warm and 3,590 s of the sync) against
    # its last: 1,200 / 3,590
    assert trend.measured == pytest.approx(1200 / 3590)
    assert trend.status == "fail"
    assert trend.measured_text == "0.334 x the first hour"
    assert trend.expected == ">= 0.8 x the first hour"
    # the phase's first minute (60) against its last (20)
    assert flat.measured == pytest.approx(20 / 60) and flat.status == "pass"


def test_a_trend_over_a_short_span_is_skipped_saying_why() -> None:
    (verdict,) = _judge(
        [{"name": "trend", "metric": "iteration_rate", "trend": True, "phase": "sync", "min": 1}],
        _run(hours=1),
    )
    assert verdict.status == "skipped"
    assert "shorter than two trend windows of 3,600 s" in verdict.detail


def test_scenario_failure_rate_by_reason() -> None:
    every, lock, other = _judge(
        [
            {"name": "all", "metric": "scenario_failure_rate", "max": 0.1},
            {
                "name": "lock",
                "metric": "scenario_failure_rate",
                "failure": "lock_timeout",
                "max": 0.2,
            },
            {
                "name": "cond",
                "metric": "scenario_failure_rate",
                "failure": "condition_failed",
                "max": 0,
            },
        ]
    )
    # 1,080 lock timeouts among 6,600 ok + 1,080 failed iterations
    assert every.measured == pytest.approx(1080 / 7680) and every.status == "fail"
    assert lock.measured == every.measured and lock.status == "pass"
    assert other.measured == 0.0 and other.status == "pass"
    assert every.measured_text == "14.06 %"


def test_step_p99_is_read_from_the_merged_step_histograms() -> None:
    whole, first = _judge(
        [
            {"name": "push", "metric": "step_p99_ms", "step": "push", "max": 25},
            {"name": "never", "metric": "step_p99_ms", "step": "acquire", "max": 25},
        ]
    )
    # pushes of 10 ms (3,600), 20 ms (1,800) and 30 ms (1,200): the p99 is in the 30 ms
    assert whole.measured == pytest.approx(30, rel=0.05) and whole.status == "fail"
    assert first.status == "skipped" and "never ran" in first.detail


def test_app_error_rate_is_what_the_application_saw_after_retries() -> None:
    (verdict,) = _judge([{"name": "app", "metric": "app_error_rate", "max": 0.1}])
    # 13,200 ok operations (half of them after retries), 1,080 throttled after 3 attempts
    assert verdict.measured == pytest.approx(1080 / 14280) and verdict.status == "pass"


def test_iteration_criteria_on_a_result_without_iterations_are_skipped() -> None:
    run = RunResult("t", 1, 10 + 3 * HOUR, phases=_run().phases)
    (verdict,) = _judge([{"name": "rate", "metric": "iteration_rate", "min": 1}], run)
    assert verdict.status == "skipped" and "no iterations in the result" in verdict.detail


@pytest.mark.parametrize(
    ("criterion", "message"),
    [
        (
            {"metric": "iteration_rate", "phase": "warm", "min": 1},
            "iteration_rate measures iterations, and phase warm runs no mix or scenario",
        ),
        (
            {"metric": "step_p99_ms", "step": "pull", "max": 1},
            "no step 'pull' (steps: acquire, push, release)",
        ),
        ({"metric": "step_p99_ms", "max": 1}, "step_p99_ms needs step"),
        (
            {"metric": "throttle_rate", "failure": "lock_timeout", "max": 1},
            "failure applies to scenario_failure_rate only",
        ),
        ({"metric": "scenario_failure_rate", "failure": "lock_timout", "max": 1}, "lock_timeout"),
        (
            {"metric": "achieved_rate", "trend": True, "min": 1},
            "trend applies to iteration_rate only",
        ),
        (
            {"metric": "iteration_rate", "trend": True, "compare": {"table": "t", "min_ratio": 1}},
            "a trend is a ratio already",
        ),
    ],
)
def test_criteria_that_could_never_be_judged_are_refused(
    criterion: dict[str, Any], message: str
) -> None:
    with pytest.raises(PlaybookError, match="criteria") as info:
        _playbook([{"name": "c", **criterion}])
    assert message in str(info.value)
