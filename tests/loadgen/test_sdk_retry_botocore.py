"""The retry model (loadgen.load.sdk_retry) agrees with the real botocore retry handler.

boto3 with `retries={"mode": "standard", "max_attempts": 3}` (botocore's client
`max_attempts` counts RETRIES: 4 attempts in all) sends a mix of writes, reads and
conditional updates to the emulator endpoint, on a provisioned table small enough to
throttle most of them. Nothing waits on real time: the emulator runs on a virtual clock
that this test advances, by 20 ms per attempt (a `before-send` hook) and by each backoff
botocore asks for (botocore.endpoint's `time.sleep`, patched to advance the clock
instead of sleeping). botocore's jitter is the global `random.random`, seeded here.

Two comparisons, each per operation:
1. Replay: the model is fed the answers botocore's attempts got, in order; it must make
   exactly the attempts botocore made (retry quota included: the run drains it) and ask
   for exactly botocore's backoffs (the same seeded draws). Tolerance 0: the model is
   deterministic given the answers.
2. Closed loop: the same workload on a fresh emulator, driven by the model itself (one
   attempt per boto3 call, the model's backoffs advancing the clock). Tolerance: every
   operation's attempt count equal. Given the same seed, the answers depend only on the
   virtual clock, which both runs advance identically if (and only if) the model decides
   as botocore does; a difference anywhere would shift every later answer.
"""

from __future__ import annotations

import contextlib
import random
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import boto3
import botocore.endpoint
import pytest
from botocore.config import Config

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from loadgen.load.sdk_retry import (
    AttemptKind,
    RetrySettings,
    SdkClient,
    StopReason,
    classify,
)

STEP_S = 0.02
"""Virtual time each attempt takes (request and answer)."""
OPERATIONS = 120
SEED = 26


class VirtualClock:
    """The emulator's clock, advanced only by this test."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@dataclass
class Run:
    """Per operation: every attempt's (HTTP status, error code), and the backoffs."""

    answers: list[list[tuple[int, str | None]]] = field(default_factory=list)
    delays: list[list[float]] = field(default_factory=list)


_SESSION = boto3.session.Session()
"""One session: loading the service model once keeps the test short."""


def _client(endpoint: str, config: Config) -> Any:
    return _SESSION.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
        config=config,
    )


def _answer(kwargs: dict[str, Any]) -> tuple[int, str | None]:
    http, parsed = kwargs["response"]
    code = parsed.get("Error", {}).get("Code") if http.status_code >= 300 else None
    return http.status_code, code


@contextmanager
def _emulator() -> Iterator[tuple[EmulatorServer, VirtualClock]]:
    clock = VirtualClock()
    with EmulatorServer(EmulatorOptions(create_delay_s=0), clock=clock) as server:
        yield server, clock
        assert server.service.internal_errors == 0


def _create_table(ddb: Any) -> None:
    ddb.create_table(
        TableName="tbl",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
    )
    ddb.get_waiter("table_exists").wait(TableName="tbl", WaiterConfig={"Delay": 0})


def _workload(ddb: Any) -> Iterator[Callable[[], Any]]:
    """Puts of 4 KB items (4 WCU each), reads, and conditional updates that fail (a
    ConditionalCheckFailedException is charged and never retried)."""
    pad = "x" * 4000
    for i in range(OPERATIONS):
        key = {"pk": {"S": f"k{i % 40}"}}
        kind = i % 4
        if kind in (0, 1):
            yield lambda k=key: ddb.put_item(TableName="tbl", Item={**k, "pad": {"S": pad}})
        elif kind == 2:
            yield lambda k=key: ddb.get_item(TableName="tbl", Key=k, ConsistentRead=True)
        else:
            yield lambda k=key: ddb.update_item(
                TableName="tbl",
                Key=k,
                UpdateExpression="SET v = :v",
                ConditionExpression="attribute_exists(never_written)",
                ExpressionAttributeValues={":v": {"N": "1"}},
            )


def _drain_burst(clock: VirtualClock, ddb: Any) -> None:
    """Empty the table's banked burst capacity (300 s of its 1 WCU/s), so the workload
    throttles from its start: 20 KB puts (20 WCU) every 30 ms (667 WCU/s, under the
    partition's 1,000) until the table refuses one."""
    for i in range(200):
        clock.t += 0.03
        try:
            ddb.put_item(TableName="tbl", Item={"pk": {"S": f"b{i}"}, "pad": {"S": "x" * 20_000}})
        except ddb.exceptions.ProvisionedThroughputExceededException:
            return
    raise AssertionError("200 puts of 20 KB never throttled a 1 WCU table")


def _run_botocore(
    emulator: EmulatorServer, clock: VirtualClock, monkeypatch: pytest.MonkeyPatch
) -> Run:
    run = Run()
    ddb = _client(emulator.endpoint_url, Config(retries={"mode": "standard", "max_attempts": 3}))
    plain = _client(emulator.endpoint_url, Config(retries={"total_max_attempts": 1}))
    _create_table(plain)
    _drain_burst(clock, plain)

    def before_send(**_: Any) -> None:
        clock.t += STEP_S

    def needs_retry(**kwargs: Any) -> None:
        run.answers[-1].append(_answer(kwargs))

    def sleep(seconds: float) -> None:
        run.delays[-1].append(seconds)
        clock.t += seconds

    ddb.meta.events.register("before-send.dynamodb", before_send)
    ddb.meta.events.register("needs-retry.dynamodb", needs_retry)
    monkeypatch.setattr(botocore.endpoint, "time", types.SimpleNamespace(sleep=sleep))
    random.seed(SEED)
    for operation in _workload(ddb):
        run.answers.append([])
        run.delays.append([])
        # What the application sees is an exception; the attempts are what is compared.
        with contextlib.suppress(ddb.exceptions.ClientError):
            operation()
    monkeypatch.undo()
    return run


def _replay(run: Run) -> tuple[list[int], list[list[float]], list[StopReason]]:
    """The model fed botocore's answers: its attempts and backoffs per operation."""
    rng = random.Random(SEED)
    client = SdkClient(RetrySettings("standard", max_attempts=4), rng.random)
    attempts, delays, reasons = [], [], []
    for answers in run.answers:
        call = client.call()
        asked: list[float] = []
        for status, code in answers:
            call.before_send(0.0)
            decision = call.after(classify(code, status), 0.0)
            if not decision.retry:
                reasons.append(decision.reason)
                break
            asked.append(decision.delay_s)
        attempts.append(call.attempts)
        delays.append(asked)
    return attempts, delays, [r for r in reasons if r is not None]


def _run_model(emulator: EmulatorServer, clock: VirtualClock) -> list[int]:
    """The same workload driven by the model: one attempt per boto3 call, the model's
    backoffs advancing the clock. The smallest stand-in for the drivers (the simulation
    engine and the live worker run the same SdkClient around each operation)."""
    plain = _client(emulator.endpoint_url, Config(retries={"total_max_attempts": 1}))
    _create_table(plain)
    _drain_burst(clock, plain)
    client = SdkClient(RetrySettings("standard", max_attempts=4), random.Random(SEED).random)
    attempts = []
    for operation in _workload(plain):
        call = client.call()
        while True:
            clock.t += call.before_send(clock.t) + STEP_S
            try:
                operation()
                kind = AttemptKind.OK
            except plain.exceptions.ClientError as e:
                kind = classify(
                    e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"]
                )
            decision = call.after(kind, clock.t)
            if not decision.retry:
                break
            clock.t += decision.delay_s
        attempts.append(call.attempts)
    return attempts


def test_the_model_makes_botocore_standard_attempts_per_operation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with _emulator() as (emulator, clock):
        run = _run_botocore(emulator, clock, monkeypatch)
    observed = [len(a) for a in run.answers]
    # 1. replay: botocore's answers in, the same attempts and backoffs out
    attempts, delays, reasons = _replay(run)
    assert attempts == observed
    assert delays == run.delays
    # the run is one that tests the policy: throttles retried to the limit, retries
    # refused by an exhausted quota, conditional failures never retried
    kinds = [classify(code, status) for answers in run.answers for status, code in answers]
    assert kinds.count(AttemptKind.THROTTLED) > OPERATIONS
    assert max(observed) == 4
    for reason in StopReason:
        assert reason in reasons, reason
    # 2. closed loop: the model driving a fresh endpoint makes the same attempts
    with _emulator() as (emulator, clock):
        modelled = _run_model(emulator, clock)
    assert modelled == observed
