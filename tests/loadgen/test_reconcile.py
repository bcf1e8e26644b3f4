"""Reconciliation when reports are combined: every sent request has one outcome or is a
labelled `unaccounted` count, per worker, per phase and per run; failed progress writes
are counted; a worker's exit code is the one docs/loadgen.md gives."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from loadgen.live.coordinator import aggregate
from loadgen.live.messages import COMPLETE, FAILED, OP_CAP, WATCHDOG, PhaseShare, WorkerReport
from loadgen.live.worker import EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, _Writer, exit_code
from loadgen.results.records import Counts, to_full_scale

from .conftest import make_plan

ROOT = Path(__file__).resolve().parents[2]


def report(worker: int, status: str, seconds: dict[int, Counts], offered: int) -> WorkerReport:
    return WorkerReport(
        worker, status, seconds, [PhaseShare("w", "put", 0.0, 2.0, offered=offered)]
    )


def ok(n: int) -> Counts:
    return Counts(sent=n, succeeded=n)


def test_a_dead_workers_requests_in_flight_are_labelled_unaccounted() -> None:
    plan = make_plan("http://127.0.0.1:1", rate=200, duration_s=2.0, workers=2)
    t0 = 1000.0
    final0 = report(0, COMPLETE, {0: ok(100), 1: ok(100)}, 200)
    # Worker 1 died; its last progress item had 12 requests in flight in second 1.
    last1 = report(1, "running", {0: ok(100), 1: Counts(sent=40, succeeded=28)}, 0)
    last1.written_at = t0 + 1.4
    run = aggregate(plan, t0, [0, 1], {0: final0}, {1: last1})
    total = run.totals()
    assert run.partial
    assert total.sent == 340 and total.succeeded == 328 and total.unaccounted == 12
    assert total.gap() == 0  # the gap is labelled, not lost
    assert run.phases[0].counts.unaccounted == 12
    assert not run.reconciled
    assert any("worker 1: 12 sent requests unaccounted" in n for n in run.notes), run.notes
    assert any(n.startswith("not reconciled: unaccounted: 12") for n in run.notes)
    data = run.to_json()
    assert data["unaccounted"] == 12 and data["reconciled"] is False
    assert data["scheduled"] == 400
    assert data["phases"][0]["unaccounted"] == 12
    # Full-scale units keep the label and the sum.
    full = to_full_scale(run, 0.5).totals()
    assert full.unaccounted == 24 and full.sent == full.outcomes + full.unaccounted


def test_a_complete_run_reconciles_and_says_nothing() -> None:
    plan = make_plan("http://127.0.0.1:1", rate=200, duration_s=2.0, workers=2)
    finals = {w: report(w, COMPLETE, {0: ok(100), 1: ok(100)}, 200) for w in (0, 1)}
    run = aggregate(plan, 0.0, [0, 1], finals, {})
    assert run.reconciled and not run.partial and run.notes == []
    assert run.to_json()["unaccounted"] == 0


def test_a_gap_in_a_complete_report_is_named_without_making_the_run_partial() -> None:
    plan = make_plan("http://127.0.0.1:1", rate=100, duration_s=2.0, workers=1)
    final = report(0, COMPLETE, {0: ok(100), 1: Counts(sent=100, succeeded=97)}, 200)
    run = aggregate(plan, 0.0, [0], {0: final}, {})
    assert run.totals().unaccounted == 3 and not run.reconciled
    assert any("worker 0: 3 sent requests unaccounted" in n for n in run.notes)


class FailingStore:
    def __init__(self) -> None:
        self.calls = 0

    def put_report(self, kind: str, payload: Any) -> None:
        self.calls += 1
        raise ConnectionError("results table unreachable")


def test_a_failed_progress_write_is_counted_and_reported() -> None:
    store = FailingStore()
    writer = _Writer(store)  # type: ignore[arg-type]
    report0 = report(0, "running", {0: ok(10)}, 10)
    for _ in range(2):
        writer.progress(report0)
        deadline = time.monotonic() + 5
        while writer.busy.locked() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.05)
    writer.pool.shutdown(wait=True)
    assert store.calls == 2 and writer.failures == 2
    final = report(0, COMPLETE, {0: ok(10)}, 10)
    writer.record_failures(final)
    assert final.progress_write_failures == 2
    assert (
        "2 progress write(s) failed (last: ConnectionError: results table unreachable)"
        in (final.notes[0])
    )
    again = WorkerReport.from_json(final.to_json())
    assert again.progress_write_failures == 2
    plan = make_plan("http://127.0.0.1:1", rate=10, duration_s=1.0, workers=1)
    run = aggregate(plan, 0.0, [0], {0: again}, {})
    assert not run.partial
    assert any("2 write(s) of worker 0 failed" in n for n in run.notes), run.notes


class AbortUnreadableStore:
    """Progress writes go through; the abort item cannot be read, then says stop."""

    def __init__(self) -> None:
        self.reads = 0

    def put_report(self, kind: str, payload: Any) -> None:
        pass

    def get_abort(self) -> str | None:
        self.reads += 1
        if self.reads == 1:
            raise ConnectionError("results table unreachable")
        return "the run was stopped"


def test_a_failed_abort_read_is_counted_and_the_next_one_stops_the_worker() -> None:
    store = AbortUnreadableStore()
    writer = _Writer(store)  # type: ignore[arg-type]
    stops: list[str] = []
    writer.on_abort = stops.append
    for _ in range(2):
        writer.progress(report(0, "running", {0: ok(10)}, 10))
        deadline = time.monotonic() + 5
        while writer.busy.locked() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.05)
    writer.pool.shutdown(wait=True)
    assert writer.failures == 1
    assert writer.last_error == "reading the abort item: ConnectionError: results table unreachable"
    assert stops == ["the run was stopped"]


def test_worker_exit_codes_are_the_documented_ones() -> None:
    assert exit_code(COMPLETE) == EXIT_OK == 0
    assert exit_code(WATCHDOG) == exit_code(OP_CAP) == EXIT_PARTIAL == 5
    assert exit_code(FAILED) == EXIT_FAILED == 1
    docs = (ROOT / "docs" / "loadgen.md").read_text()
    sentence = re.search(r"Exit codes: (.*?)\n\n", docs, re.S)
    assert sentence, "docs/loadgen.md lost its worker exit codes"
    text = " ".join(sentence.group(1).split())
    assert "0 complete" in text and "5 stopped early" in text
    assert re.search(r"1 any other failure \(including a failed measuring loop", text), text


def test_sends_that_fall_behind_past_their_phase_still_count_in_it() -> None:
    """A server slower than the schedule with 2 requests in flight: the last sends leave
    after the 1 s phase ended, and must still be counted in that phase."""
    import asyncio

    from loadgen.live.measure import Measurement
    from loadgen.live.sigv4 import StaticCredentials
    from tests.fakes.fake_dynamodb import FakeDynamoDB

    with FakeDynamoDB("slow", delay_s=0.05) as server:
        plan = make_plan(server.endpoint_url, rate=60, duration_s=1.0, concurrency=2, drain_s=3.0)
        measurement = Measurement(plan, 0, StaticCredentials("a", "b"))
        report = asyncio.run(measurement.run(time.time() + 0.1))
    total = report.totals()
    assert report.status == COMPLETE and total.sent == 60 == total.succeeded
    assert total.late > 0  # the schedule was not kept: sends left after the phase
    assert set(report.seconds) == {0}
    run = aggregate(plan, 0.0, [0], {0: report}, {})
    assert run.reconciled, run.reconciliation_problems()
    assert run.phases[0].counts.sent == 60
