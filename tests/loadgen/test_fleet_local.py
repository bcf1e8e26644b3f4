"""Local fleets end to end: worker processes, the results table on moto, the fake DynamoDB.

Each test runs real `python -m loadgen.live.worker` processes through the barrier and the
coordinator, so what is asserted is what a user would get.
"""

from __future__ import annotations

import threading
import time

import pytest

from loadgen.live.barrier import BarrierTimeout, coordinator_go
from loadgen.live.coordinator import FleetOptions, run_fleet
from loadgen.live.fleet import LocalFleet
from loadgen.live.messages import COMPLETE, REFUSED
from loadgen.live.resultstore import ResultStore
from loadgen.live.worker import EXIT_REFUSED, parse_config, run_worker
from tests.fakes.fake_dynamodb import FakeDynamoDB

from .conftest import CREDS, make_plan


def env_for(store: ResultStore, endpoint: str) -> dict[str, str]:
    return {
        "HOTBENCH_RUN_ID": store.run_id,
        "HOTBENCH_RESULTS_TABLE": store.table,
        "HOTBENCH_CONTROL_ENDPOINT": endpoint,
        "AWS_REGION": "us-east-1",
        "HOTBENCH_BARRIER_TIMEOUT_S": "30",
        **CREDS,
    }


def test_fleet_counts_add_up_across_workers(store: ResultStore, moto_endpoint: str) -> None:
    with FakeDynamoDB("mixed") as server:
        plan = make_plan(
            server.endpoint_url, store.run_id, rate=300, duration_s=2.0, workers=3, timeout_s=0.3
        )
        run = run_fleet(
            plan,
            store,
            LocalFleet(),
            env_for(store, moto_endpoint),
            FleetOptions(barrier_timeout_s=30, lead_s=1.0),
        )
    total = run.totals()
    assert not run.partial, run.notes
    assert total.sent == 600 == run.offered == server.stats.arrivals
    assert total.sent == total.succeeded + total.throttled + total.errors + total.timeouts
    assert total.throttled and total.errors and total.timeouts
    assert run.latency is not None and run.latency.count == (
        total.succeeded + total.throttled + total.errors
    )
    assert set(store.reports("final")) == {0, 1, 2}
    assert all(r.status == COMPLETE for r in store.reports("final").values())


def test_killed_worker_leaves_a_partial_run_that_completes(
    store: ResultStore, moto_endpoint: str
) -> None:
    fleet = LocalFleet()
    with FakeDynamoDB("ok") as server:
        plan = make_plan(
            server.endpoint_url, store.run_id, rate=200, duration_s=4.0, workers=2, progress_s=0.5
        )

        def kill_later() -> None:  # once worker 1 reported sends, kill it (SIGKILL)
            deadline = time.time() + 30
            while time.time() < deadline:
                progress = store.reports("progress")
                if 1 in progress and progress[1].totals().sent > 0:
                    fleet.kill(1)
                    return
                time.sleep(0.2)

        killer = threading.Thread(target=kill_later, daemon=True)
        killer.start()
        began = time.monotonic()
        run = run_fleet(
            plan,
            store,
            fleet,
            env_for(store, moto_endpoint),
            FleetOptions(barrier_timeout_s=30, lead_s=1.0, collect_grace_s=2.0),
        )
        killer.join(1)
    assert time.monotonic() - began < 25
    assert run.partial
    assert any("worker 1: no final report" in n for n in run.notes), run.notes
    total = run.totals()
    # Worker 0's whole share (400 of 800) plus what worker 1 reported before it died.
    assert 400 < total.sent < 800
    # A request worker 1 had in flight when it was killed is in its last progress report
    # as sent with no outcome: counted as unaccounted, never lost (seen on a loaded machine).
    assert total.sent == total.succeeded + total.unaccounted
    assert total.sent <= run.offered < 800
    assert run.to_json()["partial"] is True


def test_worker_started_after_t0_refuses(store: ResultStore, moto_endpoint: str) -> None:
    store.put_plan(make_plan("http://127.0.0.1:9", store.run_id, workers=2))
    store.put_go(time.time() - 5.0, [0, 1])  # the fleet already started 5 s ago
    config = parse_config([], env_for(store, moto_endpoint) | {"HOTBENCH_WORKER": "1"})
    assert run_worker(config) == EXIT_REFUSED
    final = store.reports("final")[1]
    assert final.status == REFUSED and "T0 passed" in final.notes[0]
    assert final.totals().sent == 0


def test_second_start_of_the_same_worker_refuses(store: ResultStore, moto_endpoint: str) -> None:
    store.put_plan(make_plan("http://127.0.0.1:9", store.run_id, workers=2))
    assert store.claim_start(0)  # the first start of worker 0 (still running somewhere)
    config = parse_config(["--worker", "0"], env_for(store, moto_endpoint))
    assert run_worker(config) == EXIT_REFUSED
    assert "already started" in store.refusals()[0]["why"]
    assert store.reports("final") == {}  # the duplicate never writes the real one's items


def test_barrier_aborts_with_a_clear_message(store: ResultStore) -> None:
    store.put_ready(0)
    with pytest.raises(BarrierTimeout, match="only 1 of 3 workers ready"):
        coordinator_go(store, expected=3, required=2, timeout_s=0.5, lead_s=1.0, poll_s=0.1)
    assert "only 1 of 3" in (store.get_abort() or "")


def test_barrier_goes_with_n_of_m_at_the_timeout(store: ResultStore) -> None:
    store.put_ready(0)
    store.put_ready(2)
    t0, admitted = coordinator_go(
        store, expected=3, required=2, timeout_s=0.5, lead_s=1.0, poll_s=0.1
    )
    assert admitted == [0, 2] and t0 > time.time()
    assert store.get_go() == {"t0": t0, "workers": [0, 2]}


def test_large_reports_are_split_and_read_back(store: ResultStore) -> None:
    import os

    payload = {"worker": 7, "blob": os.urandom(400_000).hex()}  # incompressible, > 350 KB
    store.put("final#7", payload)
    assert store.get("final#7") == payload
    assert list(store.query("final#")) == ["final#7"]


def test_watchdog_in_a_worker_process_makes_the_run_partial(
    store: ResultStore, moto_endpoint: str
) -> None:
    with FakeDynamoDB("silent") as server:
        plan = make_plan(
            server.endpoint_url,
            store.run_id,
            rate=50,
            duration_s=1.0,
            workers=1,
            timeout_s=30.0,
            drain_s=1.0,
            concurrency=8,
        )
        began = time.monotonic()
        run = run_fleet(
            plan,
            store,
            LocalFleet(),
            env_for(store, moto_endpoint),
            FleetOptions(barrier_timeout_s=30, lead_s=1.0, collect_grace_s=5.0),
        )
    assert time.monotonic() - began < 20  # not the 30 s request timeout
    assert run.partial
    final = store.reports("final")[0]
    assert final.status == "watchdog" and final.snapshot is not None
    assert final.snapshot["in_flight"] == 8 and final.snapshot["sent"] == 8
    assert any("watchdog" in n for n in run.notes), run.notes
    total = run.totals()
    assert total.sent == 8 == total.errors == server.stats.arrivals


def test_the_barrier_fails_on_the_second_all_gone_answer_in_a_row_only(
    store: ResultStore,
) -> None:
    """One "every worker stopped" may be a fleet's view that has not caught up (ECS's
    DescribeTasks): the barrier fails on two in a row, and an answer in between that
    says a worker lives starts the count again."""
    answers = iter(["gone", None, "gone", "gone"])
    asked: list[int] = []

    def gone() -> str | None:
        asked.append(1)
        return next(answers)

    with pytest.raises(BarrierTimeout, match="gone"):
        coordinator_go(
            store,
            expected=2,
            required=2,
            timeout_s=60,
            lead_s=1.0,
            poll_s=0.0,
            gone=gone,
            gone_every_s=0.0,
        )
    assert len(asked) == 4
