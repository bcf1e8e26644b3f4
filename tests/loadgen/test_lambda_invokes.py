"""The Lambda fleet (loadgen.live.lambda_invokes): how it invokes, retries only what never
ran, hands a split run from one invocation to the next, and says why each ended.

The scripted cases answer Invoke from a list; the run cases invoke the real handler in
local processes through the stand-in (tests/fakes/fake_lambda.py) against the results
table on moto and the fake DynamoDB, as test_fleet_local.py runs the process fleet."""

from __future__ import annotations

import base64
import io
import json
from typing import Any

import pytest
from botocore.exceptions import ClientError, ReadTimeoutError

from loadgen.live.coordinator import FleetOptions, run_fleet
from loadgen.live.lambda_invokes import LambdaFleet
from loadgen.live.messages import COMPLETE
from loadgen.live.resultstore import ResultStore
from loadgen.live.windows import Window, split
from tests.fakes.fake_dynamodb import FakeDynamoDB
from tests.fakes.fake_lambda import FakeLambdaClient, LambdaStandIn

from .conftest import CREDS, make_plan

REPORT = (
    "START RequestId: r1\nREPORT RequestId: r1\tDuration: 2990.11 ms\tBilled Duration: "
    "2991 ms\tMemory Size: 1792 MB\tMax Memory Used: 131 MB\tInit Duration: 812.40 ms\n"
)


def throttled() -> ClientError:
    return ClientError(
        {
            "Error": {"Code": "TooManyRequestsException", "Message": "Rate Exceeded."},
            "Reason": "ConcurrentInvocationLimitExceeded",
        },
        "Invoke",
    )


class Scripted:
    """Answers Invoke from a script: an exception to raise or a reply to give."""

    def __init__(self, script: list[Any]) -> None:
        self.script = script
        self.calls: list[dict[str, Any]] = []

    def invoke(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(kwargs)
        step = self.script.pop(0)
        if isinstance(step, BaseException):
            raise step
        return dict(step)


def reply(payload: dict[str, Any], error: str | None = None, log: str = REPORT) -> dict[str, Any]:
    out: dict[str, Any] = {
        "StatusCode": 200,
        "Payload": io.BytesIO(json.dumps(payload).encode()),
        "LogResult": base64.b64encode(log.encode()).decode(),
    }
    if error:
        out["FunctionError"] = error
    return out


def one_window_fleet(client: Any) -> LambdaFleet:
    return LambdaFleet(
        client, "hotbench-r-worker", [Window(0, 0.0, float("inf"))], sleep=lambda _s: None
    )


def wait_all(fleet: LambdaFleet) -> None:
    for thread in fleet._threads:
        thread.join(10)


def test_a_throttled_invoke_is_invoked_again_and_nothing_else_is() -> None:
    """429 TooManyRequestsException ran nothing: invoked again (three attempts in all);
    the answer's REPORT line says what the invocation was billed."""
    client = Scripted([throttled(), throttled(), reply({"exit_code": 0, "status": "complete"})])
    fleet = one_window_fleet(client)
    fleet.start("r", 1, {"HOTBENCH_RUN_ID": "r"})
    wait_all(fleet)
    inv = fleet.invocations[(0, 0)]
    assert (inv.state, inv.status, inv.attempts) == ("returned", "complete", 3)
    assert inv.billed_ms == 2991 and inv.memory_mb == 1792 and inv.init_ms == pytest.approx(812.4)
    event = json.loads(client.calls[0]["Payload"])
    assert event == {"run_id": "r", "env": {"HOTBENCH_RUN_ID": "r"}, "worker": 0, "window": 0}
    assert client.calls[0]["InvocationType"] == "RequestResponse"
    assert fleet.notes() == [] and fleet.running() == 0


def test_an_invoke_throttled_every_time_never_ran_and_says_why() -> None:
    fleet = one_window_fleet(Scripted([throttled(), throttled(), throttled()]))
    fleet.start("r", 1, {})
    wait_all(fleet)
    (note,) = fleet.notes()
    assert "worker 0" in note and "not started" in note
    assert "ConcurrentInvocationLimitExceeded" in note and "3 time(s)" in note


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (
            reply(
                {
                    "errorType": "Sandbox.Timedout",
                    "errorMessage": "Task timed out after 900.00 seconds",
                },
                "Unhandled",
            ),
            "failed: Sandbox.Timedout: Task timed out after 900.00 seconds",
        ),
        (
            reply(
                {"errorType": "Runtime.ExitError", "errorMessage": "signal: killed"}, "Unhandled"
            ),
            "failed: Runtime.ExitError: signal: killed",
        ),
        (reply({"exit_code": 5, "status": "partial"}), "exited partial (code 5)"),
    ],
)
def test_each_end_is_said_with_its_reason(answer: dict[str, Any], said: str) -> None:
    fleet = one_window_fleet(Scripted([answer]))
    fleet.start("r", 1, {})
    wait_all(fleet)
    (note,) = fleet.notes()
    assert said in note, note


def test_no_answer_is_never_invoked_again() -> None:
    """A read timeout may hide an invocation that runs: invoking again could run the
    worker twice (the reference study's runner re-run 882 s late)."""
    client = Scripted([ReadTimeoutError(endpoint_url="https://lambda")])
    fleet = one_window_fleet(client)
    fleet.start("r", 1, {})
    wait_all(fleet)
    assert len(client.calls) == 1
    assert fleet.invocations[(0, 0)].state == "no answer"


def test_later_windows_are_invoked_ahead_of_their_start_once_released() -> None:
    """Window j of each admitted worker is invoked `handover_lead_s` before T0 + its
    start, on the coordinator's clock; before the barrier released the run, none is."""
    now = [1000.0]
    answers = [reply({"exit_code": 0, "status": "complete"}) for _ in range(6)]
    client = Scripted(answers)
    windows = [Window(0, 0, 700), Window(1, 700, 1400), Window(2, 1400, float("inf"))]
    fleet = LambdaFleet(client, "f", windows, handover_lead_s=60, clock=lambda: now[0])
    fleet.start("r", 2, {})
    wait_all(fleet)
    assert fleet.running() == 0  # window 0 returned; the rest wait for the release
    fleet.released(1002.0, [0, 1])
    assert fleet.running() == 4  # two workers x two windows to come
    now[0] = 1002.0 + 700 - 61
    fleet.running()
    assert len(client.calls) == 2
    now[0] = 1002.0 + 700 - 60
    fleet.running()
    wait_all(fleet)
    assert sorted(json.loads(c["Payload"])["window"] for c in client.calls) == [0, 0, 1, 1]
    fleet.stop("done")
    assert fleet.invocations[(0, 2)].state == "not started"
    assert fleet.running() == 0


SLOW_START = FleetOptions(barrier_timeout_s=60, lead_s=4.0, collect_grace_s=30)
"""T0 4 s after GO, when every later window is invoked (the hand-over lead covers the
whole run here) in an environment warmed up before (tests/fakes/fake_lambda.py): a
later window that starts after its window began refuses (that is its own case), and a
worker on a loaded machine takes a second or two to claim its start and read GO."""


def env_for(store: ResultStore, endpoint: str) -> dict[str, str]:
    return {
        "HOTBENCH_RUN_ID": store.run_id,
        "HOTBENCH_RESULTS_TABLE": store.table,
        "HOTBENCH_CONTROL_ENDPOINT": endpoint,
        "AWS_REGION": "us-east-1",
        "HOTBENCH_BARRIER_TIMEOUT_S": "30",
    }


@pytest.mark.e2e  # six invocations in local environments: ~15 s
def test_a_run_split_across_invocations_counts_every_request_once(
    store: ResultStore, moto_endpoint: str
) -> None:
    """3 s of load in windows of 1 s: each worker is three invocations, each sending only
    the requests due in its window; the first invoke is throttled and invoked again. The
    run is complete, and sent = offered = the schedule = what the server received."""
    standin = LambdaStandIn(worker_env=CREDS, throttle_first=1)
    standin.prewarm({}, 1792, 6)
    try:
        with FakeDynamoDB("ok") as server:
            plan = make_plan(
                server.endpoint_url,
                store.run_id,
                rate=200,
                duration_s=3.0,
                workers=2,
                window_s=1.0,
            )
            assert len(plan.windows) == 3
            client = FakeLambdaClient(standin, {})
            fleet = LambdaFleet(client, "f", plan.windows, handover_lead_s=60, retry_delay_s=0.1)
            run = run_fleet(
                plan,
                store,
                fleet,
                env_for(store, moto_endpoint),
                SLOW_START,
            )
        total = run.totals()
        assert not run.partial, run.notes
        assert total.sent == run.offered == run.scheduled == 600 == server.stats.arrivals
        assert total.sent == total.succeeded
        finals = store.slot_reports("final")
        assert set(finals) == {(w, j) for w in (0, 1) for j in (0, 1, 2)}
        assert all(r.status == COMPLETE for r in finals.values())
        # each window sent the requests due in it: 100 a second over two workers
        for (_w, j), report in finals.items():
            assert report.phases[0].offered == 100, (j, report.phases)
        assert standin.throttled == 1
        assert len(standin.invocations) == 6
    finally:
        standin.close()


@pytest.mark.e2e  # six invocations in local environments: ~15 s
def test_a_window_killed_mid_phase_leaves_the_next_window_running(
    store: ResultStore, moto_endpoint: str
) -> None:
    """Worker 0's second invocation is killed once it has written progress (its runtime
    gone, as out of memory): the run completes partial, counting that window up to its
    last progress item, and the third window measures its share as usual."""

    def progressed() -> bool:
        return (0, 1) in store.slot_reports("progress")

    standin = LambdaStandIn(worker_env=CREDS, kill={(0, 1): progressed})
    standin.prewarm({}, 1792, 6)
    try:
        with FakeDynamoDB("ok") as server:
            plan = make_plan(
                server.endpoint_url,
                store.run_id,
                rate=200,
                duration_s=3.0,
                workers=2,
                window_s=1.0,
                progress_s=0.2,
            )
            fleet = LambdaFleet(
                FakeLambdaClient(standin, {}), "f", plan.windows, handover_lead_s=60
            )
            run = run_fleet(
                plan,
                store,
                fleet,
                env_for(store, moto_endpoint),
                SLOW_START,
            )
        assert run.partial
        notes = " | ".join(run.notes)
        assert "worker 0 window 1: no final report" in notes
        assert "Runtime.ExitError" in notes
        finals = store.slot_reports("final")
        assert (0, 1) not in finals and finals[(0, 2)].status == COMPLETE
        total = run.totals()
        # every request sent has an outcome or is labelled unaccounted
        assert total.sent == (
            total.succeeded + total.throttled + total.errors + total.timeouts + total.unaccounted
        )
        assert sum(1 for i in standin.invocations if i["ended"] == "killed") == 1
    finally:
        standin.close()


def test_windows_fit_the_plan() -> None:
    plan = make_plan("http://127.0.0.1:1", window_s=1.0, duration_s=2.5)
    assert plan.windows == split(plan.playbook.load.phases, 1.0)
    assert json.loads(json.dumps(plan.to_json()))["window_s"] == 1.0
