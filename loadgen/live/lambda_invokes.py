"""The Lambda fleet: each worker a chain of invocations of one function, one per window.

The function (terraform/modules/lambda-fleet) runs `loadgen.live.lambda_handler.handler`,
the same worker as a process or a Fargate task. Each worker's window 0 is invoked at
`start`; each later window of a split run (loadgen.live.windows: an invocation lasts 15
minutes at most) is invoked `handover_lead_s` before its window begins, once the barrier
released the run, and picks up exactly where the previous one stops.

How it invokes, and why:
- A later window that begins within the hand-over lead of T0 is invoked at `start`, with
  window 0: it waits for the barrier's GO too (loadgen.live.barrier.successor_wait).
- RequestResponse, one thread per invocation: the answer says how the invocation ended
  (its status, or the function's error: "Task timed out after 900.00 seconds", a runtime
  killed), and the log tail's REPORT line what it was billed (Billed Duration, Memory
  Size, Init Duration). An Event (asynchronous) invocation would say nothing, and Lambda
  retries a failed one twice by itself
  (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async.html): a silent retry is
  what re-ran a finished runner 882 s late in the reference study
  (docs/reference.md#m4-the-measuring-instrument).
- botocore's own retries are off (one attempt per call) and its read timeout outlasts the
  function's: a read timeout would otherwise invoke the function again.
- A throttled invoke (TooManyRequestsException, HTTP 429: the account's or function's
  concurrency is used up, https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html)
  ran nothing, so it is invoked again, up to `start_attempts` times with a growing pause,
  as the ECS fleet retries tasks that did not start. Nothing else is retried: an
  invocation that got as far as an answer, an error or no answer may have run. A second
  start of the same worker and window refuses anyway (its start claim in the results
  table, loadgen.live.barrier).
- Nothing stops a running invocation (Lambda has no such call): the coordinator's
  `abort` item in the results table stops it within a progress interval (3 s), its
  watchdog at its window's end + drain, the function's timeout at the latest. `stop`
  starts nothing more, waits for the invocations in flight, and names those that did
  not return.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loadgen.live.windows import Slot, Window

HANDOVER_LEAD_S = 60.0
"""A later window's invocation is started this long before its window begins: a cold
start takes seconds (AWS publishes no figure; the REPORT line's Init Duration measures
it), and a throttled invoke's retries (2 + 4 s) fit in it with room to spare."""
START_ATTEMPTS = 3
"""Invoke calls per invocation: the first and up to two retries of a throttled one."""
RETRY_DELAY_S = 2.0
"""Pause before a retry of a throttled invoke, times the attempt number."""
STOP_WAIT_S = 20.0
"""How long `stop` waits for invocations in flight to return: a worker sees the abort
item within its progress interval (3 s), then waits for its requests in flight (8 s
timeout) and writes its final counts."""
THROTTLED = {"TooManyRequestsException"}
"""Invoke's answer when no concurrency is left; nothing ran (the API reference's Reason:
ConcurrentInvocationLimitExceeded, ReservedFunctionConcurrentInvocationLimitExceeded,
...)."""
REPORT = re.compile(
    r"REPORT RequestId: (?P<request>\S+).*?Billed Duration: (?P<billed>\d+) ms"
    r"\s+Memory Size: (?P<memory>\d+) MB\s+Max Memory Used: (?P<used>\d+) MB"
    r"(?:\s+Init Duration: (?P<init>[\d.]+) ms)?(?:\s+Status: (?P<status>\w+))?",
    re.S,
)
"""The last line Lambda logs for every invocation, in the log tail Invoke returns with
LogType=Tail (https://docs.aws.amazon.com/lambda/latest/dg/python-logging.html)."""


@dataclass
class Invocation:
    """One worker's window, as invoked: its state, why it ended, what it was billed."""

    worker: int
    window: int
    state: str = "pending"
    """pending (not invoked yet), invoking (the call is out: the function runs),
    throttled (waiting to invoke again), returned (the handler answered), failed (the
    function or the call failed), no answer (the call timed out), not started."""
    attempts: int = 0
    started_at: float | None = None
    """Wall clock when the first invoke call went out."""
    ended_at: float | None = None
    status: str | None = None
    """The worker's answer: complete, partial, refused, aborted, failed."""
    exit_code: int | None = None
    reason: str | None = None
    """Why it ended other than complete: the function's error, the throttle's reason."""
    request_id: str | None = None
    billed_ms: int | None = None
    memory_mb: int | None = None
    max_memory_mb: int | None = None
    init_ms: float | None = None

    @property
    def slot(self) -> Slot:
        return (self.worker, self.window)

    @property
    def label(self) -> str:
        return f"worker {self.worker}" + (f" window {self.window}" if self.window else "")


def error_code(exc: BaseException) -> str | None:
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        code = response.get("Error", {}).get("Code")
        return str(code) if code else None
    return None


def read_report(log_tail: str | None, invocation: Invocation) -> None:
    """Billed duration, memory and init time from the REPORT line of a log tail."""
    if not log_tail:
        return
    try:
        text = base64.b64decode(log_tail).decode("utf-8", "replace")
    except ValueError:
        return
    found = REPORT.search(text)
    if found is None:
        return
    invocation.request_id = found["request"]
    invocation.billed_ms = int(found["billed"])
    invocation.memory_mb = int(found["memory"])
    invocation.max_memory_mb = int(found["used"])
    invocation.init_ms = float(found["init"]) if found["init"] else None


@dataclass
class LambdaFleet:
    """Workers as invocations of one function, window by window (module docstring)."""

    client: Any
    """boto3 Lambda client: retries off, a read timeout past the function's timeout, a
    connection pool for every invocation in flight (console/fleets/lambda_fleet.py)."""
    function: str
    windows: list[Window]
    handover_lead_s: float = HANDOVER_LEAD_S
    start_attempts: int = START_ATTEMPTS
    retry_delay_s: float = RETRY_DELAY_S
    stop_wait_s: float = STOP_WAIT_S
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.time
    """Wall clock, on which T0 and the windows are (the coordinator's clock)."""
    invocations: dict[Slot, Invocation] = field(default_factory=dict)
    _event: dict[str, Any] = field(default_factory=dict)
    _t0: float | None = None
    _admitted: list[int] = field(default_factory=list)
    _stopped: bool = False
    _threads: list[threading.Thread] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # -- the Fleet interface ---------------------------------------------------------------

    def start(self, run_id: str, workers: int, env: dict[str, str]) -> None:
        """Invoke each worker's window 0, and every later window that begins within the
        hand-over lead (it waits for GO as window 0 does; the rest are invoked later)."""
        self._event = {"run_id": run_id, "env": dict(env)}
        for w in range(workers):
            for window in self.windows:
                self.invocations[(w, window.index)] = Invocation(w, window.index)
                if window.start <= self.handover_lead_s:
                    self._invoke((w, window.index))

    def released(self, t0: float, admitted: list[int]) -> None:
        self._t0, self._admitted = t0, list(admitted)
        with self._lock:  # a worker left out at the barrier gets no later windows
            for (w, _j), inv in self.invocations.items():
                if w not in admitted and inv.state == "pending":
                    inv.state = "not started"
                    inv.reason = "its worker was not admitted at the barrier"
        self._launch_due()

    def running(self) -> int:
        """Invocations in flight, plus the later windows still to be invoked for the
        admitted workers (they will run: the run is not over)."""
        self._launch_due()
        waiting = self._t0 is not None and not self._stopped
        with self._lock:
            return sum(
                1
                for inv in self.invocations.values()
                if inv.state in ("invoking", "throttled")
                or (inv.state == "pending" and waiting and inv.worker in self._admitted)
            )

    def stop(self, reason: str) -> None:
        """Invoke nothing more; wait for the invocations in flight (the coordinator's
        abort item stops their workers); raise, naming them, if some did not return."""
        with self._lock:
            self._stopped = True
            for inv in self.invocations.values():
                if inv.state == "pending":
                    inv.state = "not started"
                    inv.reason = f"the fleet was stopped ({reason})"
        deadline = time.monotonic() + self.stop_wait_s
        for thread in list(self._threads):
            thread.join(max(0.0, deadline - time.monotonic()))
        left = self.in_flight()
        if left:
            raise RuntimeError(
                f"{len(left)} invocation(s) of {self.function} still running after "
                f"{self.stop_wait_s:.0f} s: " + ", ".join(i.label for i in left)
            )

    def leftovers(self) -> list[tuple[str, str]]:
        return [
            (
                f"invocation of {self.function} ({inv.label})",
                "none: Lambda cannot stop an invocation; it ends by its worker's watchdog "
                "(its window's end + drain) or at the function's timeout",
            )
            for inv in self.in_flight()
        ]

    def notes(self) -> list[str]:
        out = []
        with self._lock:
            for inv in sorted(self.invocations.values(), key=lambda i: i.slot):
                if inv.state in ("failed", "no answer") or (
                    inv.state == "not started" and inv.attempts
                ):
                    out.append(f"{inv.label} ({self.function}): {inv.state}: {inv.reason}")
                elif inv.state == "returned" and inv.exit_code not in (0, None):
                    out.append(
                        f"{inv.label} ({self.function}): exited {inv.status} "
                        f"(code {inv.exit_code})" + (f": {inv.reason}" if inv.reason else "")
                    )
        return out

    # -- invoking ----------------------------------------------------------------------

    def in_flight(self) -> list[Invocation]:
        with self._lock:
            return [i for i in self.invocations.values() if i.state in ("invoking", "throttled")]

    def _launch_due(self) -> None:
        """Invoke each admitted worker's next window once it is due (its start less the
        hand-over lead), unless the fleet was stopped."""
        if self._t0 is None or self._stopped:
            return
        now = self.clock()
        for w in self._admitted:
            for window in self.windows[1:]:
                inv = self.invocations[(w, window.index)]
                if inv.state == "pending" and now >= self._t0 + window.start - self.handover_lead_s:
                    self._invoke(inv.slot)

    def _invoke(self, slot: Slot) -> None:
        inv = self.invocations[slot]
        with self._lock:
            inv.state = "invoking"
            inv.started_at = self.clock()
        event = {**self._event, "worker": slot[0], "window": slot[1]}
        thread = threading.Thread(
            target=self._call, args=(inv, event), name=f"invoke-{slot[0]}-{slot[1]}", daemon=True
        )
        self._threads.append(thread)
        thread.start()

    def _call(self, inv: Invocation, event: dict[str, Any]) -> None:
        payload = json.dumps(event).encode()
        for attempt in range(self.start_attempts):
            if attempt:
                self.sleep(self.retry_delay_s * attempt)
            if self._stopped:
                self._end(inv, "not started", "the fleet was stopped before it was invoked")
                return
            inv.attempts += 1
            try:
                reply = self.client.invoke(
                    FunctionName=self.function,
                    InvocationType="RequestResponse",
                    LogType="Tail",
                    Payload=payload,
                )
            except Exception as exc:
                code = error_code(exc)
                if code in THROTTLED:
                    why = _throttle_reason(exc)
                    last = attempt == self.start_attempts - 1
                    with self._lock:
                        inv.state = "throttled"
                        inv.reason = f"{code} ({why}), {inv.attempts} time(s)"
                    if last:
                        self._end(inv, "not started", inv.reason + ": never ran")
                        return
                    continue
                if "ReadTimeout" in type(exc).__name__:
                    self._end(
                        inv,
                        "no answer",
                        f"no answer to the invoke ({exc}); it may still run, and is never "
                        "invoked again",
                    )
                    return
                self._end(inv, "failed", f"{code or type(exc).__name__}: {exc}")
                return
            self._answered(inv, reply)
            return

    def _answered(self, inv: Invocation, reply: dict[str, Any]) -> None:
        read_report(reply.get("LogResult"), inv)
        body = reply.get("Payload")
        raw: bytes = body.read() if body is not None and hasattr(body, "read") else (body or b"")
        try:
            answer = json.loads(raw or b"null")
        except ValueError:
            answer = None
        if reply.get("FunctionError"):
            message = (
                answer.get("errorMessage") if isinstance(answer, dict) else None
            ) or raw.decode("utf-8", "replace")[:300]
            kind = answer.get("errorType") if isinstance(answer, dict) else None
            self._end(inv, "failed", f"{kind + ': ' if kind else ''}{message}")
            return
        if not isinstance(answer, dict):
            self._end(inv, "failed", f"an answer that is not the handler's: {raw[:200]!r}")
            return
        with self._lock:
            inv.status = str(answer.get("status"))
            inv.exit_code = int(answer.get("exit_code", 1))
            inv.reason = answer.get("error")
        self._end(inv, "returned", inv.reason)

    def _end(self, inv: Invocation, state: str, reason: str | None) -> None:
        with self._lock:
            inv.state = state
            inv.reason = reason
            inv.ended_at = self.clock()


def _throttle_reason(exc: BaseException) -> str:
    response = getattr(exc, "response", None) or {}
    reason = response.get("Reason") or response.get("reason")
    message = response.get("Error", {}).get("Message") or str(exc)
    return f"{reason}: {message}" if reason else str(message)
