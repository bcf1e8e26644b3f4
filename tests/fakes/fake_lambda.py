"""A stand-in for AWS Lambda that runs the real handler in local processes.

moto stores functions but runs their code only in Docker, which this machine does not
have; so an invocation here is `python -m loadgen.live.lambda_handler` (the function's
handler, from this checkout) with the event on stdin and the function's environment,
answered the way Lambda answers Invoke (RequestResponse, LogType=Tail). The behaviours a
Lambda fleet meets are injected, each with its source:

- **cold starts**: the first invocation on a new execution environment runs its INIT
  phase first (importing the handler's module), logged as `Init Duration` in the REPORT
  line; a later invocation may reuse a warm environment and skip it
  (https://docs.aws.amazon.com/lambda/latest/dg/lambda-runtime-environment.html). Here an
  environment is a process that imports the handler once and runs invocations one after
  another (tests/fakes/fake_lambda_runtime.py), so INIT is measured, and the handler is
  run again in a reused environment as Lambda runs it.
- **throttled invokes at the concurrency limit**: with `concurrency` invocations running,
  another is refused with HTTP 429 TooManyRequestsException, Reason
  ConcurrentInvocationLimitExceeded, and nothing runs
  (https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html); `throttle_first`
  refuses that many invokes first whatever the concurrency (a burst elsewhere in the
  account).
- **the timeout**: an invocation running past the function's `Timeout` is stopped and
  answered with FunctionError Unhandled, `Sandbox.Timedout` "Task timed out after N
  seconds", and `Status: timeout` in the REPORT line
  (https://docs.aws.amazon.com/lambda/latest/dg/troubleshooting-invocation.html); a run's
  time limit is the function's 900 s at most
  (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html).
- **a function killed mid-phase**: `kill[(worker, window)]` kills that invocation's
  runtime once its condition holds (as running out of memory does), answered
  with `Runtime.ExitError` "Runtime exited with error: signal: killed" (same page).

Billing is measured the way Lambda bills: duration from the start of INIT (on a cold
start) or the handler to its end, rounded up to the millisecond
(https://aws.amazon.com/lambda/pricing/).
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


class Throttled(Exception):
    """Invoke refused for concurrency (HTTP 429): nothing ran."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Answer:
    """What Invoke returns: the payload, FunctionError (or None) and the log tail."""

    payload: bytes
    function_error: str | None
    log_tail: str
    """The last lines of the invocation's log, ending with its REPORT line."""
    billed_ms: int


class Environment:
    """One execution environment: a process that imported the handler (INIT) and runs
    invocations one after another (tests/fakes/fake_lambda_runtime.py)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 (closed by kill())
        started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fakes.fake_lambda_runtime"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline()
        self.init_s = time.monotonic() - started
        if ready.strip() != b"READY":
            self.kill()
            raise RuntimeError("the stand-in's execution environment did not start")

    def alive(self) -> bool:
        return self.proc.poll() is None

    def send(self, event: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(event) + "\n").encode())
        self.proc.stdin.flush()

    def answer_ready(self, wait_s: float) -> bool:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], wait_s)
        return bool(ready)

    def read_answer(self) -> bytes:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline()

    def log_tail(self) -> str:
        self.log.seek(0, os.SEEK_END)
        size = self.log.tell()
        self.log.seek(max(0, size - 3000))
        return self.log.read().decode("utf-8", "replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.log.close()


@dataclass
class LambdaStandIn:
    """Invocations of functions in local execution environments, with Lambda's behaviours
    (module docstring). Thread-safe: Invoke calls arrive on many threads at once."""

    worker_env: dict[str, str] = field(default_factory=dict)
    """Added to every environment's variables (the rehearsal's endpoints, credentials)."""
    concurrency: int = 1000
    """The account's concurrent executions (AWS's default quota)."""
    throttle_first: int = 0
    kill: dict[tuple[int, int], Callable[[], bool]] = field(default_factory=dict)
    """(worker, window) -> when to kill that invocation's runtime (asked every 50 ms
    while it runs: a condition on what it did, never a time the test does not control)."""
    timeout_s: float | None = None
    """Overrides every function's Timeout (a case that needs the timeout soon)."""
    running: int = 0
    idle: dict[str, list[Environment]] = field(default_factory=dict)
    """Warm environments by function configuration: a new invocation takes one (no
    INIT), else starts one (a cold start)."""
    invocations: list[dict[str, Any]] = field(default_factory=list)
    """Each invocation: its event, how it ended, its billed ms (what the tests check)."""
    throttled: int = 0
    environments: list[Environment] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _env(self, function_env: dict[str, str], memory_mb: int) -> dict[str, str]:
        return {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            **function_env,
            **self.worker_env,
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(memory_mb),
        }

    @staticmethod
    def _key(function_env: dict[str, str], memory_mb: int) -> str:
        return json.dumps([sorted(function_env.items()), memory_mb])

    def prewarm(self, function_env: dict[str, str], memory_mb: int, count: int) -> None:
        """Start `count` environments now (their INIT done before any invocation): a
        loaded machine's process start must not decide whether a window starts in time."""
        made = [Environment(self._env(function_env, memory_mb)) for _ in range(count)]
        with self.lock:
            self.environments += made
            self.idle.setdefault(self._key(function_env, memory_mb), []).extend(made)

    def invoke(
        self, function_env: dict[str, str], timeout_s: float, memory_mb: int, event: dict[str, Any]
    ) -> Answer:
        """Run one invocation to its end (raises Throttled when no concurrency is left)."""
        key = self._key(function_env, memory_mb)
        with self.lock:
            if self.throttle_first > 0:
                self.throttle_first -= 1
                self.throttled += 1
                raise Throttled("ConcurrentInvocationLimitExceeded")
            if self.running >= self.concurrency:
                self.throttled += 1
                raise Throttled("ConcurrentInvocationLimitExceeded")
            self.running += 1
            warm = self.idle.get(key) or []
            environment = warm.pop() if warm else None
        try:
            init_s = 0.0
            if environment is None:  # a cold start: INIT is part of this invocation
                environment = Environment(self._env(function_env, memory_mb))
                init_s = environment.init_s
                with self.lock:
                    self.environments.append(environment)
            answer = self._run(environment, timeout_s, memory_mb, event, init_s)
        finally:
            with self.lock:
                self.running -= 1
                if environment is not None and environment.alive():
                    self.idle.setdefault(key, []).append(environment)
        return answer

    def _run(
        self,
        environment: Environment,
        timeout_s: float,
        memory_mb: int,
        event: dict[str, Any],
        init_s: float,
    ) -> Answer:
        request_id = str(uuid.uuid4())
        started = time.monotonic() - init_s
        limit = self.timeout_s if self.timeout_s is not None else timeout_s
        slot = (int(event.get("worker", -1)), int(event.get("window", 0)))
        kill_when = self.kill.get(slot)
        environment.send(event)
        ended = "returned"
        while not environment.answer_ready(0.05):
            if not environment.alive():
                ended = "died"
            elif kill_when is not None and kill_when():
                ended = "killed"
            elif time.monotonic() - started > limit:
                ended = "timeout"
            if ended != "returned":
                environment.kill()
                break
        out = environment.read_answer() if ended == "returned" else b""
        elapsed_ms = (time.monotonic() - started) * 1000
        billed = math.ceil(elapsed_ms)
        error: str | None = None
        payload: Any
        if ended == "timeout":
            error = "Unhandled"
            payload = {
                "errorType": "Sandbox.Timedout",
                "errorMessage": f"RequestId: {request_id} Error: Task timed out after "
                f"{limit:.2f} seconds",
            }
        elif ended in ("killed", "died"):
            error = "Unhandled"
            why = "signal: killed" if ended == "killed" else "exit status 5"
            payload = {
                "errorType": "Runtime.ExitError",
                "errorMessage": f"RequestId: {request_id} Error: Runtime exited with error: {why}",
            }
        else:
            try:
                payload = json.loads(out)
            except ValueError:
                payload = None
            if not isinstance(payload, dict):
                error = "Unhandled"
                payload = {"errorType": "Runtime.ExitError", "errorMessage": out.decode()[-300:]}
        report = (
            f"REPORT RequestId: {request_id}\tDuration: {elapsed_ms:.2f} ms\t"
            f"Billed Duration: {billed} ms\tMemory Size: {memory_mb} MB\t"
            f"Max Memory Used: 120 MB"
            + (f"\tInit Duration: {init_s * 1000:.2f} ms" if init_s else "")
            + ("\tStatus: timeout" if ended == "timeout" else "")
            + (
                "\tStatus: error\tError Type: Runtime.ExitError"
                if ended in ("killed", "died")
                else ""
            )
        )
        tail = (environment.log_tail() if environment.alive() else "") + "\n" + report + "\n"
        with self.lock:
            self.invocations.append(
                {"event": event, "ended": ended, "billed_ms": billed, "cold": bool(init_s)}
            )
        return Answer(json.dumps(payload).encode(), error, tail, billed)

    def close(self) -> None:
        for environment in self.environments:
            environment.kill()


class FakeLambdaClient:
    """A boto3 Lambda client's `invoke` over the stand-in, for tests that need no moto:
    the function's configuration is given here as Terraform would set it."""

    def __init__(
        self,
        standin: LambdaStandIn,
        function_env: dict[str, str],
        timeout_s: float = 900.0,
        memory_mb: int = 1792,
    ) -> None:
        self.standin = standin
        self.function_env = function_env
        self.timeout_s = timeout_s
        self.memory_mb = memory_mb

    def invoke(
        self, FunctionName: str, InvocationType: str, LogType: str, Payload: bytes
    ) -> dict[str, Any]:
        from botocore.exceptions import ClientError

        try:
            answer = self.standin.invoke(
                self.function_env, self.timeout_s, self.memory_mb, json.loads(Payload)
            )
        except Throttled as exc:
            raise ClientError(
                {
                    "Error": {"Code": "TooManyRequestsException", "Message": "Rate Exceeded."},
                    "Reason": exc.reason,
                    "ResponseMetadata": {"HTTPStatusCode": 429},
                },
                "Invoke",
            ) from None
        reply: dict[str, Any] = {
            "StatusCode": 200,
            "Payload": io.BytesIO(answer.payload),
            "LogResult": base64.b64encode(answer.log_tail.encode()[-4096:]).decode(),
        }
        if answer.function_error:
            reply["FunctionError"] = answer.function_error
        return reply
