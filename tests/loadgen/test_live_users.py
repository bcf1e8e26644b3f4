"""Scenario and mix phases run live: users drive the interpreter against the emulator over
HTTP, every attempt counted as DynamoDB saw it, every iteration as the application did.

The runs are short (about a second of wall time each) and their assertions are the
identities that hold whatever the machine's speed: what the server answered equals what
the worker counted, iterations add up to arrivals, the items a scenario wrote are the
writes that succeeded.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from typing import Any

import pytest

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from loadgen.format.kinds.users import ClosedUsers
from loadgen.format.playbook import Playbook, parse_playbook
from loadgen.format.workload_spec import Users
from loadgen.live.coordinator import aggregate
from loadgen.live.measure import Measurement, phase_op_bound
from loadgen.live.messages import COMPLETE, OP_CAP, PhaseShare, RunPlan, WorkerReport
from loadgen.live.sigv4 import StaticCredentials
from loadgen.results.iteration_results import at_second, iteration_totals

from .conftest import emulator_table, tiny_playbook

CREDS = StaticCredentials("a", "b")


def scenario_playbook(phase: dict[str, Any], scenarios: dict[str, Any], **table: Any) -> Playbook:
    base = tiny_playbook().model_dump(mode="json")
    base["tables"][0].update(table)
    base["load"]["phases"] = [phase]
    base["load"]["scenarios"] = scenarios
    return parse_playbook(base)


class Counting:
    """Counts what the endpoint answered, per operation (through its tap)."""

    def __init__(self, emu: EmulatorServer) -> None:
        self.seen: Counter[tuple[str, int]] = Counter()
        self.bodies: list[tuple[str, int, bytes]] = []
        self.errors: Counter[str] = Counter()
        """The error each 400 named (its __type's last word), as the endpoint answered."""
        self.lock = threading.Lock()
        self.counting = False

        def counted(target: str | None, status: int, body: bytes, answer: bytes) -> None:
            if not self.counting:
                return
            op = (target or "").rsplit(".", 1)[-1]
            with self.lock:
                self.seen[(op, status)] += 1
                self.bodies.append((op, status, body))
                if status != 200:
                    self.errors[json.loads(answer)["__type"].rsplit("#", 1)[-1]] += 1

        emu.service.tap = counted

    def start(self) -> None:
        """Count from now on (the table's creation is not the run's)."""
        self.counting = True


def run_live(playbook: Playbook, **plan: Any) -> tuple[WorkerReport, Counting, Any]:
    emu = EmulatorServer(EmulatorOptions(scale=1.0, create_delay_s=0), port=0)
    counting = Counting(emu)  # before start: the server binds its handler then
    with emu:
        client = emulator_table(emu.endpoint_url, playbook)
        counting.start()
        run_plan = RunPlan(
            "r", playbook, "v", "tbl", endpoint=emu.endpoint_url, drain_s=3.0, **plan
        )
        measurement = Measurement(run_plan, 0, CREDS)
        report = asyncio.run(measurement.run(time.time() + 0.05))
        counting.counting = False
        items = client.scan(TableName="tbl")["Items"]
    return report, counting, items


def reconciles(report: WorkerReport, counting: Counting) -> None:
    for t, c in report.seconds.items():
        assert c.sent == c.succeeded + c.throttled + c.errors + c.timeouts, t
    total = report.totals()
    assert total.sent == sum(counting.seen.values())
    # every iteration that started ended (ok, failed, or cut at the phase's end)
    iterations = iteration_totals(report.iterations)
    assert iterations.started == iterations.ended and iterations.unaccounted == 0
    # and every attempt belongs to an operation the application completed
    assert iterations.operation_attempts == total.sent
    assert total.succeeded == sum(n for (_, status), n in counting.seen.items() if status == 200)
    assert sum(p.offered for p in report.phases) == total.sent


LOCKED_ORDER = {
    "order": {
        "steps": [
            {
                "name": "take",
                "op": "lock",
                "key": {"pk": "LOCK", "sk": "0"},
                "ttl_s": 5,
                "wait_s": 0.3,
                "poll": {"initial_s": 0.002, "max_s": 0.01},
            },
            {"name": "write", "op": "put", "key": {"pk": "U{user}", "sk": "I{iteration}"}},
            {"name": "read", "op": "query", "key": {"pk": "U{user}"}, "collection": True},
            {"name": "free", "op": "release", "lock": "take"},
        ]
    }
}


def test_closed_loop_users_run_a_scenario_and_every_count_reconciles() -> None:
    playbook = scenario_playbook(
        {"name": "orders", "users": 4, "scenario": "order", "duration_s": 1.0}, LOCKED_ORDER
    )
    report, counting, items = run_live(playbook)
    assert report.status == COMPLETE
    reconciles(report, counting)
    iterations = report.iterations.values()
    ok = sum(t.ok for t in iterations)
    failed = Counter[str]()
    for t in iterations:
        failed.update(t.failed)
    assert ok > 0
    # The lock is one hot item: its takes, polls and releases all write one key, so a fast
    # machine can push that partition past its 1,000 WCU/s (and its grace) within the
    # phase. Without retries a throttled step fails its iteration; the scenario can fail
    # in no other way.
    assert set(failed) <= {"lock_timeout", "throttled"}
    # Each error the endpoint named is one the worker counted under that name (a throttle
    # as its exception, any other refusal as its error type).
    total = report.totals()
    assert total.by_exception + total.errors_by_type == counting.errors
    assert total.throttled == sum(total.by_exception.values()) >= failed["throttled"]
    # Every item a user wrote is one successful "write" step; the lock item is gone
    # unless an iteration was cut holding it at the phase's end.
    writes = sum(
        1
        for op, status, body in counting.bodies
        if op == "PutItem" and status == 200 and b'"LOCK"' not in body
    )
    user_items = [i for i in items if i["pk"]["S"].startswith("U")]
    assert len(user_items) == writes >= ok
    steps = Counter[str]()
    for t in iterations:
        steps.update({name: h.count for name, h in t.steps.items()})
    assert steps["take"] >= steps["write"] >= steps["read"] >= steps["free"] >= ok
    # the lock serialised them: a lock poll that failed is a conditional put refused
    refused = counting.errors["ConditionalCheckFailedException"]
    assert report.totals().errors_by_type.get("ConditionalCheckFailedException", 0) == refused


def test_the_sdks_standard_retries_are_attempts_dynamodb_saw_and_one_operation_to_the_app() -> None:
    playbook = scenario_playbook(
        {
            "name": "writes",
            # enough users to spend the 300 units of burst within the phase also when a
            # loaded machine makes each round trip 20 ms
            "users": 12,
            "scenario": "save",
            "retry": "standard",
            "duration_s": 1.5,
        },
        {"save": {"steps": [{"name": "save", "op": "put", "key": {"pk": "U{user}"}}]}},
        billing_mode="PROVISIONED",
        read_capacity=1,
        write_capacity=1,
    )
    report, counting, _ = run_live(playbook)
    reconciles(report, counting)
    total = report.totals()
    iterations = iteration_totals(report.iterations)
    assert total.throttled > 0  # 1 WCU: the burst pool runs out within the phase
    assert total.by_exception == {"ProvisionedThroughputExceededException": total.throttled}
    # the SDK retried: more attempts than operations, and no operation took more than 3
    assert iterations.operation_attempts > iterations.operations
    assert iterations.operation_attempts <= 3 * iterations.operations
    # a throttle the SDK gave up on fails the iteration as retries exhausted
    assert set(iterations.failed) <= {"retries_exhausted"}
    assert iterations.failed["retries_exhausted"] == iterations.operations_failed["throttled"]


def test_open_arrivals_with_no_free_user_are_dropped_iterations() -> None:
    playbook = scenario_playbook(
        {
            "name": "burst",
            "rate": 200,
            "max_users": 1,
            "scenario": "slow",
            "duration_s": 0.5,
        },
        {
            "slow": {
                "steps": [
                    {"name": "get", "op": "get", "key": {"pk": "P001", "sk": "S001"}},
                    {"name": "wait", "op": "think", "seconds": 0.05},
                ]
            }
        },
    )
    report, counting, _ = run_live(playbook)
    reconciles(report, counting)
    tallies = report.iterations.values()
    ok = sum(t.ok for t in tallies)
    dropped = sum(t.dropped for t in tallies)
    cut = sum(t.unfinished for t in tallies)
    assert ok + dropped + cut == 100  # every arrival of the schedule: 200/s for 0.5 s
    assert dropped > ok > 0  # one user busy 50 ms per iteration takes at most ~1 in 10
    # each iteration's get; one cut at the phase's end may have sent it or not
    assert ok <= counting.seen[("GetItem", 200)] <= ok + cut


def test_a_mix_runs_each_weighted_operation() -> None:
    playbook = scenario_playbook(
        {
            "name": "ycsb-a",
            "users": 2,
            "mix": [
                {"op": "get", "weight": 50},
                {"op": "update", "weight": 50, "attributes": {"field0": "v{iteration}"}},
            ],
            "duration_s": 0.5,
        },
        {},
    )
    report, counting, _ = run_live(playbook)
    reconciles(report, counting)
    ops = Counter(op for op, _, _ in counting.bodies)
    assert ops["GetItem"] > 0 and ops["UpdateItem"] > 0
    assert set(ops) == {"GetItem", "UpdateItem"}
    updates = [json.loads(b) for op, _, b in counting.bodies if op == "UpdateItem"]
    # an update leaves an item of the table's size, as the simulation charges it
    assert all(u["ReturnConsumedCapacity"] == "INDEXES" for u in updates)
    total = report.totals()
    assert total.consumed_wcu == ops["UpdateItem"] * 1.0  # 1,000-byte items: 1 WCU each
    assert total.consumed_rcu == ops["GetItem"] * 0.5


@pytest.mark.parametrize(
    ("users", "t", "expected"),
    [
        (10, 5.0, 10.0),
        (Users(start=0, end=10), 5.0, 5.0),
        (Users(start=10, end=0), 2.5, 7.5),
        (Users(start=0, end=10, steps=3), 2.0, 0.0),
        (Users(start=0, end=10, steps=3), 4.0, 5.0),
        (Users(start=0, end=10, steps=3), 9.9, 10.0),
    ],
)
def test_the_population_of_a_ramp(users: int | Users, t: float, expected: float) -> None:
    assert ClosedUsers(users).level_at(t, 10.0) == pytest.approx(expected)


def test_the_op_cap_of_a_phase_of_users_bounds_each_worker_by_its_users() -> None:
    playbook = scenario_playbook(
        {"name": "p", "users": {"start": 0, "end": 5}, "scenario": "order", "duration_s": 2.0},
        LOCKED_ORDER,
    )
    phase = playbook.load.phases[0]
    # users 0, 2, 4 on worker 0 and 1, 3 on worker 1
    assert phase_op_bound(phase, 1.0, 0, 2) == 3 * 2000 * 2
    assert phase_op_bound(phase, 1.0, 1, 2) == 2 * 2000 * 2


def _scenario_report(worker: int, status: str, started: int, ok: int, lock: int) -> WorkerReport:
    """A worker's report of the locked-order scenario: `started` iterations, of which `ok`
    succeeded and `lock` failed on the lock (the rest still running), 3 requests each."""
    report = WorkerReport(worker, status)
    report.phases.append(PhaseShare("orders", "put", 0.0, 2.0, offered=started * 3))
    c = report.second(0)
    c.sent = c.succeeded = started * 3
    its = at_second(report.iterations, 0)
    its.started = started
    for _ in range(ok):
        its.record_end(True, None, 0.02, [("take", 0.005), ("write", 0.01)])
    for _ in range(lock):
        its.record_end(False, "lock_timeout", 0.3, [("take", 0.3)])
    # through the results table's JSON, as the coordinator reads it
    return WorkerReport.from_json(json.loads(report.dumps()))


def test_iterations_merge_across_workers_and_a_dead_workers_running_ones_are_unaccounted() -> None:
    playbook = scenario_playbook(
        {"name": "orders", "users": 4, "scenario": "order", "duration_s": 2.0}, LOCKED_ORDER
    )
    plan = RunPlan("r", playbook, "v", "tbl", workers=2)
    final0 = _scenario_report(0, COMPLETE, 10, 8, 2)
    last1 = _scenario_report(1, "running", 7, 4, 1)  # its last progress: 2 still running
    run = aggregate(plan, 0.0, [0, 1], {0: final0}, {1: last1})
    assert run.partial
    assert any("2 started iterations unaccounted" in n for n in run.notes)
    out = run.to_json()
    its = out["iterations"]
    assert (its["started"], its["ok"], its["failed"], its["unaccounted"]) == (17, 12, 3, 2)
    assert its["failed_by_reason"] == {"lock_timeout": 3}
    assert its["step_ms"]["take"]["count"] == 15 and its["step_ms"]["write"]["count"] == 12
    assert its["iteration_ms"]["p99"] == pytest.approx(300, rel=0.1)
    assert out["phases"][0]["iterations"]["ok"] == 12
    assert any("unaccounted: 2 started iterations" in p for p in run.reconciliation_problems())
    # all workers complete: nothing unaccounted, nothing to say
    done = aggregate(plan, 0.0, [0, 1], {0: final0, 1: _scenario_report(1, COMPLETE, 5, 5, 0)}, {})
    assert done.reconciled and not done.partial


def test_a_run_of_one_operation_keeps_its_result_form() -> None:
    report = WorkerReport(0)
    assert "iterations" not in report.to_json()
    plan = RunPlan("r", tiny_playbook(), "v", "tbl")
    assert "iterations" not in aggregate(plan, 0.0, [0], {0: report}, {}).to_json()


def test_a_scenario_playbook_travels_in_the_run_plan_as_it_was_written() -> None:
    playbook = scenario_playbook(
        {"name": "orders", "users": 4, "scenario": "order", "retry": "standard", "duration_s": 2},
        LOCKED_ORDER,
    )
    plan = RunPlan("r", playbook, "v", "tbl")
    again = RunPlan.from_json(json.loads(json.dumps(plan.to_json())))
    assert again.playbook == playbook


def test_a_population_at_scale_is_whole_users_and_never_none_of_some() -> None:
    from loadgen.live.live_users import scaled_users

    assert scaled_users(6, 0.1) == 1  # not 0: 0.6 of a user cannot run
    assert scaled_users(200, 0.1) == 20
    assert scaled_users(25, 0.1) == 3
    assert scaled_users(0, 0.1) == 0


def test_users_at_the_op_cap_stop_with_its_snapshot_written_once() -> None:
    # The schedule's loop and a phase's users share the op cap's brake: the report says
    # why it stopped, once, however many users found the cap.
    playbook = scenario_playbook(
        {"name": "orders", "users": 4, "scenario": "order", "duration_s": 1.0}, LOCKED_ORDER
    )
    report, counting, _ = run_live(playbook, max_ops=30)
    assert report.status == OP_CAP
    assert report.totals().sent == 30 == sum(counting.seen.values())
    assert report.snapshot is not None and "op cap" in report.snapshot["why"]
    assert sum("op cap" in note for note in report.notes) == 1


SAVE = {
    "save": {
        "steps": [{"name": "save", "op": "put", "key": {"pk": "U{user}", "sk": "I{iteration}"}}]
    }
}


@pytest.mark.parametrize(
    "ramp", [{"start": 1, "end": 3, "steps": 2}, {"start": 3, "end": 1, "steps": 2}]
)
def test_a_ramp_wakes_the_users_it_reaches_and_the_phase_ends_on_time(ramp: dict[str, int]) -> None:
    # Up: users 1 and 2 wait for the second window and then run; down: they stop after
    # the first and wait for the phase's end, which still ends the run.
    playbook = scenario_playbook(
        {"name": "ramp", "users": ramp, "think_s": 0.02, "scenario": "save", "duration_s": 2.0},
        SAVE,
    )
    report, counting, items = run_live(playbook)
    assert report.status == COMPLETE
    reconciles(report, counting)
    assert {i["pk"]["S"] for i in items} == {"U0", "U1", "U2"}
