"""Iteration counts: they merge by adding, survive the results table's JSON, reconcile
(a started iteration with no end is labelled, never dropped), and appear in a result
only when a run has them."""

from __future__ import annotations

import json

from loadgen.live.messages import WorkerReport
from loadgen.results.iteration_results import (
    IterationCounts,
    at_second,
    iteration_series,
    iteration_totals,
    reconcile_iterations,
    scale_iterations,
)
from loadgen.results.records import PhaseResult, RunResult, to_full_scale


def _worker(ok: int, lock: int, running: int) -> dict[int, IterationCounts]:
    seconds: dict[int, IterationCounts] = {}
    at_second(seconds, 0).started = ok + lock + running
    for i in range(ok):
        at_second(seconds, i % 3).record_end(True, None, 0.1, [("write", 0.01)])
        at_second(seconds, i % 3).record_operation("ok", 2 if i == 0 else 1)
    for _ in range(lock):
        at_second(seconds, 2).record_end(False, "lock_timeout", 1.0, [("take", 1.0)])
        at_second(seconds, 2).record_operation("condition_failed", 1)
    return seconds


def test_counts_merge_by_adding_and_survive_the_worker_reports_json() -> None:
    report = WorkerReport(0, iterations=_worker(6, 2, 1))
    again = WorkerReport.from_json(json.loads(report.dumps()))
    total = iteration_totals(again.iterations)
    assert (total.started, total.ok, total.failed["lock_timeout"]) == (9, 6, 2)
    assert total.steps["write"].count == 6 and total.steps["take"].count == 2
    assert (total.operations, total.operation_attempts, total.retried_ok) == (8, 9, 1)
    assert total.operations_failed == {"condition_failed": 2}
    merged = IterationCounts()
    merged.add(total)
    merged.add(total)
    assert merged.ok == 12 and merged.latency.count == 16


def test_a_started_iteration_with_no_end_is_labelled_unaccounted_once() -> None:
    seconds = _worker(6, 2, 1)
    assert reconcile_iterations(seconds) == 1
    assert reconcile_iterations(seconds) == 0
    total = iteration_totals(seconds)
    assert total.started == total.ended + total.unaccounted


def test_a_run_shows_iterations_per_second_failures_and_percentiles_only_when_it_has_them() -> None:
    plain = RunResult("v", 1, 10.0)
    assert "iterations" not in plain.to_json()
    seconds = _worker(6, 2, 0)
    run = RunResult("v", 1, 10.0, iterations=seconds)
    run.phases.append(
        PhaseResult("p", "put", 0.0, 10.0, iterations=iteration_totals(seconds, 0.0, 10.0))
    )
    out = run.to_json()["iterations"]
    assert out["ok"] == 6 and out["failed_by_reason"] == {"lock_timeout": 2}
    assert out["iterations_per_s"] == 0.6 and out["failure_rate"] == 0.25
    assert out["iteration_ms"]["p99"] is not None and out["iteration_ms"]["p99"] > 900
    assert out["operations"]["error_rate"] == 0.25
    assert [s["ok"] for s in out["series"]] == [6]
    assert run.to_json()["phases"][0]["iterations"]["ok"] == 6
    assert run.reconciled


def test_an_unaccounted_iteration_makes_the_run_unreconciled() -> None:
    seconds = _worker(1, 0, 1)
    reconcile_iterations(seconds)
    run = RunResult("v", 1, 10.0, iterations=seconds)
    assert any("1 started iterations have no end" in p for p in run.reconciliation_problems())


def test_scaled_to_full_scale_counts_times_the_factor_latencies_unchanged() -> None:
    seconds = _worker(3, 1, 0)
    run = RunResult("v", 1, 10.0, iterations=seconds)
    full = to_full_scale(run, 0.5)
    assert iteration_totals(full.iterations).ok == 6
    assert iteration_totals(full.iterations).latency.count == 4
    assert scale_iterations(IterationCounts(ok=3), 1 / 3).ok == 1
    series = iteration_series({0: IterationCounts(ok=5), 12: IterationCounts(ok=10)}, 10)
    assert [(s["t"], s["iterations_per_s"]) for s in series] == [(0, 0.5), (10, 1.0)]
