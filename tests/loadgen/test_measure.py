"""The measuring loop against the fake DynamoDB: counts, no retries, brakes."""

from __future__ import annotations

import asyncio
import time

from loadgen.live.measure import ABANDONED, Measurement
from loadgen.live.messages import COMPLETE, OP_CAP, WATCHDOG, WorkerReport
from loadgen.live.sigv4 import StaticCredentials
from tests.fakes.fake_dynamodb import FakeDynamoDB

from .conftest import make_plan

CREDS = StaticCredentials("AKID", "secret")


def measure(
    plan_kwargs: dict[str, object], mode: str = "ok", worker: int = 0, **standin: object
) -> tuple[WorkerReport, FakeDynamoDB, float]:
    with FakeDynamoDB(mode, **standin) as server:  # type: ignore[arg-type]
        plan = make_plan(server.endpoint_url, **plan_kwargs)  # type: ignore[arg-type]
        began = time.monotonic()
        report = asyncio.run(Measurement(plan, worker, CREDS).run(time.time() + 0.1))
        elapsed = time.monotonic() - began
        # A request the worker gave up on (timeout) may still be on its way into the
        # server; let it arrive before the server stops, so its count is the server's
        # whole view (on a loaded machine 3 of 800 were still in flight). A bound, not a
        # pace: a test whose requests never arrive asserts that on the counts below.
        sent = report.totals().sent
        deadline = time.monotonic() + 30.0
        while server.stats.arrivals < sent and time.monotonic() < deadline:
            time.sleep(0.01)
        return report, server, elapsed


def adds_up(report: WorkerReport) -> None:
    for t, c in report.seconds.items():
        assert c.sent == c.succeeded + c.throttled + c.errors + c.timeouts, t
        assert c.throttled == sum(c.by_exception.values())
        assert c.errors == sum(c.errors_by_type.values())


def test_counts_add_up_and_nothing_is_retried() -> None:
    # drain_s is a bound, not a pace: the run ends when the last reply or timeout is in; at
    # load 15 the default 1.5 s was not enough and the watchdog stopped a healthy run.
    report, server, _ = measure(
        {"rate": 400, "duration_s": 2.0, "timeout_s": 0.3, "drain_s": 15.0}, "mixed"
    )
    total = report.totals()
    assert report.status == COMPLETE
    assert total.sent == 800
    adds_up(report)
    # Every outcome kind happened, and the server saw each request exactly once.
    assert total.succeeded and total.throttled and total.errors and total.timeouts
    assert server.stats.arrivals == total.sent
    assert total.by_exception == {"ProvisionedThroughputExceededException": total.throttled}
    assert total.by_reason == {"TableWriteKeyRangeThroughputExceeded": total.throttled}
    assert total.errors_by_type["ValidationException"] == total.errors
    assert total.consumed_wcu == total.succeeded * 1.0  # the base table's units only
    assert report.first_throttle_s is not None and report.first_throttle_s < 0.05
    assert report.latency.count == total.succeeded + total.throttled + total.errors


def test_two_workers_split_the_schedule() -> None:
    a, _, _ = measure({"rate": 300, "duration_s": 1.0, "workers": 2}, worker=0)
    b, _, _ = measure({"rate": 300, "duration_s": 1.0, "workers": 2}, worker=1)
    assert a.totals().sent + b.totals().sent == 300
    assert a.phases[0].offered + b.phases[0].offered == 300


def test_open_loop_does_not_wait_for_slow_replies() -> None:
    # Replies take 50 ms. The open loop sends on schedule without waiting for replies, so
    # the server holds more requests at once than a closed loop of 2 connections ever can;
    # with the in-flight cap at 2 it never holds more than 2, and the sends it held back are
    # counted late, not hidden: at most 40/s can go against 200/s due, so at least ~150 of
    # 200 are late whatever the machine's load. (Counting the open loop's late sends told
    # them apart too, but a loaded machine makes on-time sends late by itself: 116 of 200
    # at load 15.)
    fast, open_server, _ = measure({"rate": 200, "duration_s": 1.0, "concurrency": 64}, "slow")
    assert fast.totals().sent == 200
    assert open_server.stats.peak_pending > 2
    capped, server, _ = measure({"rate": 200, "duration_s": 1.0, "concurrency": 2}, "slow")
    total = capped.totals()
    assert server.stats.peak_pending <= 2
    assert total.late > total.sent / 2  # sends held back by the cap are counted late
    assert server.stats.arrivals == total.sent


def test_watchdog_fires_on_a_server_that_stops_answering() -> None:
    report, server, took = measure(
        {"rate": 100, "duration_s": 1.0, "timeout_s": 5.0, "drain_s": 0.5, "concurrency": 16},
        "answer-then-silent",
        answer_first=20,
    )
    total = report.totals()
    assert report.status == WATCHDOG
    assert took < 3.0  # stopped at end + drain, not after the 5 s request timeouts
    snap = report.snapshot
    assert snap is not None and snap["in_flight"] == 16 and snap["oldest_in_flight_s"] > 0.5
    assert snap["phase"] == "w" and snap["next"] < snap["of"]
    assert total.succeeded == 20
    assert total.errors_by_type[ABANDONED] == 16  # in flight at the stop: counted, not lost
    adds_up(report)
    assert server.stats.arrivals == total.sent
    assert total.sent == 36 and report.phases[0].offered == 100  # all due, the cap held


def test_op_cap_aborts() -> None:
    report, server, _ = measure({"rate": 200, "duration_s": 2.0, "max_ops": 50})
    assert report.status == OP_CAP
    assert report.totals().sent == 50 == server.stats.arrivals
    assert report.snapshot is not None and "op cap" in report.snapshot["why"]


def test_timeouts_and_closed_connections_are_counted_not_retried() -> None:
    report, server, _ = measure(
        {"rate": 100, "duration_s": 0.5, "timeout_s": 0.2, "drain_s": 1.0}, "silent"
    )
    total = report.totals()
    assert report.status == COMPLETE
    assert total.timeouts == total.sent == 50 == server.stats.arrivals


def test_a_bug_in_the_loop_still_reports() -> None:
    from loadgen.format.playbook import parse_playbook

    from .conftest import tiny_playbook

    data = tiny_playbook().model_dump(mode="json")
    data["tables"][0]["partition_key"]["type"] = "B"  # unsupported by the request builder
    report, server, _ = measure({"playbook": parse_playbook(data)})
    assert report.status == "failed"
    assert report.snapshot is not None and "binary key" in report.snapshot["why"]
    assert report.totals().sent == 0 == server.stats.arrivals
