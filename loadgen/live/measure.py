"""The measuring loop of one worker: open-loop sends on schedule, counted per second.

Requests are sent when the schedule says (loadgen.load.arrivals.Schedule, this worker's share
k = w, w + W, ...), not when the last reply came back: a slow or throttling server cannot
slow the offered load down and hide its own slowness (no coordinated omission). A send
that leaves more than `late_s` after its due time (the process fell behind, or the cap
on requests in flight was full) is sent anyway and counted as late.

Every request is attempted once with a deadline; its outcome is counted in the second of
the run in which it was sent (a late send after its phase's end in that phase's last
second), so sent = succeeded + throttled + errors + timeouts holds per second and every
request belongs to its phase. Two brakes stop a worker that went wrong, each leaving
partial counts and a snapshot of where it was: the op cap (more sends than the plan
allows: a pacing bug must abort, not bill) and the watchdog (the run's end + drain time
passed). The coordinator can also stop the run (`request_stop`, e.g. when the emulator
reached its memory bound): the worker stops sending, waits for its requests in flight and
reports what it measured.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from bisect import bisect_right
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from loadgen.format.playbook import Phase
from loadgen.live.action_wire import ActionWire
from loadgen.live.httpclient import TIMEOUT, HttpPool
from loadgen.live.in_flight import InFlight
from loadgen.live.live_users import UserPhase
from loadgen.live.messages import (
    COMPLETE,
    FAILED,
    OP_CAP,
    STOPPED,
    WATCHDOG,
    PhaseShare,
    RunPlan,
    WorkerReport,
)
from loadgen.live.sigv4 import CredentialSource, Signer
from loadgen.live.windows import phase_in, phase_times
from loadgen.load.arrivals import Schedule
from loadgen.load.requests import RequestFactory, tally
from loadgen.load.scenario import Program

clock = time.perf_counter
"""The measuring clock: sub-microsecond and read at each use. (uvloop's loop.time() is
libuv's cached millisecond clock: it would round every latency to whole milliseconds.)"""

ABANDONED = "AbandonedAtWatchdog"
"""Error type of requests still in flight when the watchdog stopped the worker."""


def endpoint_of(plan: RunPlan) -> tuple[str, str, int]:
    """(scheme, host, port) of the data-plane endpoint: the plan's, else the one the AWS
    SDKs would use: AWS_ENDPOINT_URL_DYNAMODB or AWS_ENDPOINT_URL when set (the SDKs'
    service-specific endpoints, https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html,
    so the worker's control client and its data plane agree), or the region's over HTTPS."""
    url = (
        plan.endpoint
        or os.environ.get("AWS_ENDPOINT_URL_DYNAMODB")
        or os.environ.get("AWS_ENDPOINT_URL")
        or f"https://dynamodb.{plan.region}.amazonaws.com"
    )
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"endpoint {url}: expected an http:// or https:// URL")
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme, parts.hostname or "127.0.0.1", parts.port or default


USER_REQUESTS_PER_S = 2000
"""Bound on one user's requests per second (one in flight at a time, and a round trip to
the endpoint takes more than 0.5 ms even on loopback): the op cap of a phase of users."""


def phase_op_bound(phase: Phase, scale: float, worker: int, workers: int) -> int:
    """The most requests this worker's share of `phase` can send: its schedule for one
    operation at a rate; for users, its users times USER_REQUESTS_PER_S times the phase."""
    if phase.kind.engine == "requests":
        return len(Schedule.for_phase(phase, scale).worker_share(worker, workers))
    # Open arrivals of a mix or scenario run on a pool of users, which is not scaled.
    top = phase.kind.most_users(scale)
    mine = math.ceil(max(0.0, top - worker) / workers)
    return int(mine * USER_REQUESTS_PER_S * phase.duration_s)


def default_max_ops(plan: RunPlan, worker: int, window: int = 0) -> int:
    """This worker's share of every phase's schedule in its window (the whole run when
    unsplit), plus 5 % and 100 of slack."""
    owned = plan.windows[window]
    share = 0
    offset = 0.0
    for phase in plan.playbook.load.phases:
        if phase.kind.engine == "requests":
            share += len(phase_times(phase, offset, plan.scale, worker, plan.workers, owned))
        elif phase_in(offset, phase, owned):
            share += phase_op_bound(phase, plan.scale, worker, plan.workers)
        offset += phase.duration_s
    return int(share * 1.05) + 100


class Measurement:
    """Runs one worker's share of a run plan against the data-plane endpoint."""

    def __init__(
        self,
        plan: RunPlan,
        worker: int,
        credentials: CredentialSource,
        on_progress: Callable[[WorkerReport], None] | None = None,
        window: int = 0,
    ) -> None:
        self.plan = plan
        self.worker = worker
        self.credentials = credentials
        self.on_progress = on_progress
        self.window = plan.windows[window]
        """The part of the run this process measures (loadgen.live.windows): the whole
        run unless the plan is split."""
        self.report = WorkerReport(worker, window=window)
        self.max_ops = (
            plan.max_ops if plan.max_ops is not None else default_max_ops(plan, worker, window)
        )
        self.sent = 0
        self.now = clock
        """The measuring clock, for the phases that run users (loadgen.live.live_users)."""
        self._times: list[list[float] | None] = []
        """Each phase's send times (None: a phase of users, which has no schedule)."""
        self._pending: set[InFlight] = set()
        self._where: dict[str, Any] = {"phase": None, "next": 0, "of": 0}
        self._slot = asyncio.Event()
        self._stop = asyncio.Event()
        self._stop_reason = ""
        self._capped = False
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def slot(self) -> asyncio.Event:
        """Set when a request's pool slot frees up (clear it, then wait on it)."""
        return self._slot

    def request_stop(self, reason: str) -> None:
        """Stop sending and report (from any thread: the progress writer calls it)."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        def stop() -> None:
            if not self._stop.is_set():
                self._stop_reason = reason
                self._stop.set()

        loop.call_soon_threadsafe(stop)

    # --- outcome counting -------------------------------------------------------------
    def send(self, ctx: InFlight, target: str, body: bytes) -> None:
        """Send one request (a pool slot must be free) counted in `ctx.counts`."""
        ctx.counts.sent += 1
        self._pending.add(ctx)
        self.sent += 1
        self.pool.request(self.pool.frame(self.signer.headers(target, body), body), ctx, self._done)

    def _done(self, ctx: InFlight, status: int, body: bytes, error: str | None) -> None:
        self._pending.discard(ctx)
        c = ctx.counts
        if error is not None:
            if error == TIMEOUT:
                c.timeouts += 1
            else:
                c.errors += 1
                c.errors_by_type[error] += 1
            ctx.settle(error)
            return
        self.report.latency.record(clock() - ctx.sent_at)
        outcome = ctx.read(status, body)
        tally(c, outcome, ctx.is_write)
        if outcome.kind == "throttled":
            if self.report.first_throttle_s is None or ctx.run_t < self.report.first_throttle_s:
                self.report.first_throttle_s = round(ctx.run_t, 3)
            phase_t = ctx.run_t - ctx.phase.start_s
            if ctx.phase.first_throttle_s is None or phase_t < ctx.phase.first_throttle_s:
                ctx.phase.first_throttle_s = round(phase_t, 3)
        ctx.settle(None)

    # --- the run ----------------------------------------------------------------------
    async def run(self, t0_wall: float) -> WorkerReport:
        """Measure, starting at wall-clock `t0_wall`; always returns a report."""
        self._loop = asyncio.get_running_loop()
        scheme, host, port = endpoint_of(self.plan)
        default_port = port == (443 if scheme == "https" else 80)
        self.signer = Signer(
            self.credentials, self.plan.region, host if default_port else f"{host}:{port}"
        )
        self.pool = HttpPool(
            host, port, self.plan.concurrency, self.plan.timeout_s, tls=scheme == "https"
        )
        self.pool.on_slot_free = self._slot.set
        self.t0 = clock() + (t0_wall - time.time())
        self.t0_wall = t0_wall
        deadline = self.t0 + self.end_s + self.plan.drain_s
        sender = asyncio.create_task(self._send_all())
        progress = asyncio.create_task(self._progress_loop())
        stopper = asyncio.create_task(self._stop.wait())
        status = COMPLETE
        try:
            done, _ = await asyncio.wait(
                {sender, stopper},
                timeout=max(0.0, deadline - clock()),
                return_when=asyncio.FIRST_COMPLETED,
            )
            if stopper in done and sender not in done:
                sender.cancel()
                status = STOPPED
                self._stop_snapshot(f"stopped by the coordinator: {self._stop_reason}")
                # Its requests in flight still count: wait for them as a finished run does.
                until = min(deadline, clock() + self.plan.timeout_s + 1.0)
                while self._pending and clock() < until:
                    await asyncio.sleep(0.01)
            elif sender in done:
                try:
                    status = sender.result()
                except Exception as exc:  # a bug must still leave counts and a reason
                    status = FAILED
                    self._stop_snapshot(f"failed: {type(exc).__name__}: {exc}")
                while self._pending and clock() < deadline:
                    await asyncio.sleep(0.01)
            if status != STOPPED and (sender not in done or (self._pending and status != FAILED)):
                status = WATCHDOG
        finally:
            progress.cancel()
            stopper.cancel()
            if not sender.done():
                sender.cancel()
            if status == WATCHDOG:
                self._stop_snapshot("watchdog: the run's end + drain time passed")
            self.pool.abort_all(ABANDONED)
        self.report.status = status
        self.report.written_at = time.time()
        return self.report

    @property
    def end_s(self) -> float:
        """Run time at which this process stops sending: its window's end, or the run's."""
        return self.window.bounded_end(self.plan.duration_s)

    def stop_at_op_cap(self) -> None:
        """Leave the op cap's snapshot, once (a phase's users may each find the cap): the
        worker sent all the plan allows, so a pacing bug aborts rather than bills. Both
        senders, the schedule's loop and a phase's users, check `sent >= max_ops` before
        each send and call this when it holds."""
        if not self._capped:
            self._capped = True
            self._stop_snapshot(
                f"op cap: {self.max_ops} requests sent, the plan allows no more (pacing bug?)"
            )

    def _stop_snapshot(self, why: str) -> None:
        now = clock()
        ages = sorted((now - p.sent_at for p in self._pending), reverse=True)
        self.report.snapshot = {
            "why": why,
            **self._where,
            "sent": self.sent,
            "run_t": round(now - self.t0, 3),
            "in_flight": len(ages),
            "oldest_in_flight_s": round(ages[0], 3) if ages else None,
            "in_flight_ages_s": [round(a, 3) for a in ages[:20]],
        }
        self.report.notes.append(why)
        self._close_offered(now - self.t0)

    def _close_offered(self, run_t: float) -> None:
        """A stopped worker offered only what was due before it stopped."""
        for share, times in zip(self.report.phases, self._times, strict=False):
            if times is None:  # users: offered what they sent
                continue
            due = bisect_right(times, run_t - share.start_s)
            share.offered = min(share.offered, due)

    async def _progress_loop(self) -> None:
        if self.on_progress is None:
            return
        while True:
            await asyncio.sleep(self.plan.progress_s)
            self.report.written_at = time.time()
            self.on_progress(self.report)

    async def _run_users(self, index: int, phase: Phase, offset: float) -> str:
        """A phase on the `iterations` engine: users running the interpreter
        (loadgen.live.live_users). What it offered is what it sent: a closed loop has no
        schedule to fall behind."""
        plan = self.plan
        share = PhaseShare(phase.name, phase.kind.iterations.label, offset, phase.duration_s)
        self.report.phases.append(share)
        self._times.append(None)
        spec = plan.playbook.table(plan.table)
        seed = plan.playbook.load.seed * 7919 + plan.repeat * 131 + self.worker * 17 + index
        program = Program(plan.playbook, phase, spec, seed)
        users = UserPhase(
            self,
            phase,
            share,
            offset,
            program,
            ActionWire(spec, plan.table_name, self.worker),
            seed=seed,
        )
        self._where = {"phase": phase.name, "next": 0, "of": 0}
        return await users.run()

    async def _send_all(self) -> str:
        """Every phase in turn, on the loop of the engine its kind names
        (loadgen.format.kinds: `requests`, the schedule; `iterations`, users); a phase
        outside this process's window (loadgen.live.windows) is listed with none offered."""
        offset = 0.0
        for index, phase in enumerate(self.plan.playbook.load.phases):
            if not phase_in(offset, phase, self.window):
                # another window's: this process offers none of it (its share is listed
                # with nothing offered, so every report lists every phase in order)
                self.report.phases.append(
                    PhaseShare(phase.name, phase.kind.iterations.label, offset, phase.duration_s)
                )
                self._times.append([])
                offset += phase.duration_s
                continue
            if phase.kind.engine == "iterations":
                status = await self._run_users(index, phase, offset)
            else:
                status = await self._send_schedule(index, phase, offset)
            if status != COMPLETE:
                return status
            offset += phase.duration_s
        return COMPLETE

    async def _send_schedule(self, index: int, phase: Phase, offset: float) -> str:
        """One operation at open arrivals: this worker's share of the schedule, each
        request sent at its time."""
        plan, report = self.plan, self.report
        late_s = plan.late_s
        times = phase_times(phase, offset, plan.scale, self.worker, plan.workers, self.window)
        self._times.append(times)
        share = PhaseShare(
            phase.name, phase.operation, offset, phase.duration_s, offered=len(times)
        )
        report.phases.append(share)
        is_write = phase.operation in ("put", "update")
        rng = np.random.default_rng([plan.playbook.load.seed, plan.repeat, self.worker, index])
        factory = RequestFactory(
            plan.playbook,
            plan.playbook.table(plan.table),
            phase,
            plan.table_name,
            rng,
            self.worker,
            plan.workers,
        )
        target = factory.target
        start = self.t0 + offset
        # A send that leaves after its phase ended (late) still counts in its phase's
        # last second, so the phases together hold every request of the run.
        last_second = max(int(offset), int(offset + phase.duration_s) - 1)
        self._where = {"phase": phase.name, "next": 0, "of": len(times)}
        i, n = 0, len(times)
        while i < n:
            now = clock()
            t = now - start
            while i < n and times[i] <= t and self.pool.available > 0:
                if self.sent >= self.max_ops:
                    self._where["next"] = i
                    self.stop_at_op_cap()
                    return OP_CAP
                run_t = offset + t
                counts = report.second(min(int(run_t), last_second))
                if t - times[i] > late_s:
                    counts.late += 1
                body = factory.next_body()
                self.send(InFlight(now, counts, share, run_t, is_write), target, body)
                i += 1
                now = clock()
                t = now - start
            self._where["next"] = i
            if i >= n:
                break
            if self.pool.available <= 0:
                self._slot.clear()
                await self._slot.wait()
            else:
                await asyncio.sleep(max(0.0, times[i] - t))
        # to the phase's end, or to the window's when the window ends first
        wait = self.t0 + min(offset + phase.duration_s, self.end_s) - clock()
        if wait > 0:
            await asyncio.sleep(wait)
        return COMPLETE
