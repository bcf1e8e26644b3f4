"""A mix or scenario phase in a live worker: users running the one interpreter.

The simulation runs `loadgen.load.scenario.Program` in virtual time; here the same program
runs in real time against the endpoint, so a scenario's live and simulated results can
be compared row by row. Each user is an asyncio task on the worker's event loop (one
request in flight per user, as an application thread blocks on its SDK call): it asks
the program for an iteration, performs each `OpAction` (its wire form from
`loadgen.live.action_wire`, sent and counted through the worker's `Measurement.send`, the one
counting rule of every measured request), sleeps each `ThinkAction`, and records how
the iteration ended.

Two load models (issue 26): a closed population (`users`, optionally ramped: user u of
the phase runs while the ramp has more than u users; this worker runs users w, w+W,
...), each starting its next iteration when the last ended plus `think_s`, or on the
`pacing_s` beat; or open arrivals (`rate`/`ramp`, the same schedule as a phase of one
operation) handed to a free user of `max_users`, an arrival with none free being a
dropped iteration.

The instrument never retries (httpclient: one attempt, a deadline). What an application
retries is its SDK's policy, performed here around each OpAction by the shared retry
module; every attempt is counted in the second it was sent, as DynamoDB saw it, and the
program sees only the final outcome with the number of attempts.

At the phase's end no iteration starts; a user whose iteration is still running lets
its request in flight finish (it is counted) and abandons the rest: the iteration is
counted as unfinished, neither succeeded nor failed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from loadgen.format.kinds import ClosedArrivals
from loadgen.format.playbook import Phase
from loadgen.live.action_wire import ActionWire
from loadgen.live.counted_units import failed_write_units
from loadgen.live.httpclient import TIMEOUT
from loadgen.live.in_flight import InFlight
from loadgen.live.messages import COMPLETE, OP_CAP, PhaseShare
from loadgen.live.op_bodies import WireRequest
from loadgen.live.op_replies import CONDITION_FAILED, ERROR, READS, OpReply, read_reply
from loadgen.load.arrivals import Schedule
from loadgen.load.requests import AttemptOutcome as Attempt
from loadgen.load.scenario import (
    ActionOutcome,
    IterationEnd,
    OpAction,
    Program,
    ThinkAction,
    UserState,
)
from loadgen.load.sdk_retry import AttemptKind, RetrySettings, SdkClient, retry_kind
from loadgen.results.iteration_results import IterationCounts, at_second
from loadgen.results.records import Counts

if TYPE_CHECKING:  # the worker's Measurement runs these phases (and imports this module)
    from loadgen.live.measure import Measurement

RAMP_CHECK_S = 0.05
"""How often a ramp's level is read: a user joins within this of its time."""


@dataclass(frozen=True, slots=True)
class Answer:
    """One attempt's answer as its user sees it."""

    reply: OpReply
    error: str | None
    """The client's own failure (Timeout, a connection error), None when DynamoDB answered."""
    http_status: int | None

    def retry_kind(self, mode: str) -> AttemptKind:
        """What the SDK's retry policy makes of it (loadgen.load.sdk_retry)."""
        if self.error == TIMEOUT:
            return AttemptKind.TIMEOUT
        if self.error is not None:
            return AttemptKind.TRANSIENT  # no answer: the connection failed
        name = self.reply.attempt.name if self.reply.attempt.kind != "ok" else None
        return retry_kind(mode, name or None, self.http_status)


def sdk_settings(phase: Phase) -> RetrySettings:
    """The phase's `retry:` as the retry model's settings."""
    return RetrySettings(phase.retry.mode, phase.retry.max_attempts)


class StepPending(InFlight):
    """A scenario request in flight: counted by the worker as every request is, and
    settling the future its user awaits with the reply in both views."""

    __slots__ = ("future", "http_status", "operation", "reply", "request")

    def __init__(
        self,
        sent_at: float,
        counts: Counts,
        phase: PhaseShare,
        run_t: float,
        request: WireRequest,
        future: asyncio.Future[Answer],
    ) -> None:
        super().__init__(sent_at, counts, phase, run_t, request.operation not in READS)
        self.request = request
        self.operation = request.operation
        self.future = future
        self.reply: OpReply | None = None
        self.http_status: int | None = None

    def read(self, status: int, body: bytes) -> Attempt:
        self.http_status = status
        reply = read_reply(self.operation, status, body)
        if reply.status == CONDITION_FAILED:  # charged, not reported: counted
            units = failed_write_units(self.request, reply.item)
            if units:
                reply = dataclasses.replace(
                    reply, attempt=dataclasses.replace(reply.attempt, counted=float(units))
                )
        self.reply = reply
        return reply.attempt

    def settle(self, error: str | None) -> None:
        reply = self.reply
        if reply is None:  # the client's own failure: no reply to read
            reply = OpReply(ERROR, Attempt("error", error or "NoReply"))
        if not self.future.done():  # its user may have been cancelled (a stop)
            self.future.set_result(Answer(reply, error, self.http_status))


def scaled_users(users: float, scale: float) -> int:
    """A population at `scale`: rounded to whole users, at least one while the playbook
    has any (6 users at scale 0.1 are 1 user, not none: a closed loop cannot run 0.6 of
    a user, so its full-scale figures carry that rounding; docs/loadgen.md)."""
    if users <= 0:
        return 0
    return max(1, math.floor(users * scale + 0.5))


class UserPhase:
    """One mix or scenario phase of one worker (see the module docstring)."""

    def __init__(
        self,
        measurement: Measurement,
        phase: Phase,
        share: PhaseShare,
        offset: float,
        program: Program,
        wire: ActionWire,
        seed: int = 0,
    ) -> None:
        self.m = measurement
        self.phase = phase
        self.share = share
        self.offset = offset
        self.program = program
        self.wire = wire
        self.iterations = measurement.report.iterations
        self.retry = sdk_settings(phase)
        self.seed = seed
        self.start = measurement.t0 + offset
        self.end = self.start + phase.duration_s
        self.last_second = max(int(offset), int(offset + phase.duration_s) - 1)
        self.closing = asyncio.Event()
        self.status = COMPLETE
        self.clients: dict[int, SdkClient] = {}
        self._waiting: dict[int, asyncio.Event] = {}
        """Users a ramp has not reached, by number: `_ramp` wakes them."""
        self.population: ClosedArrivals | None = None
        """The phase's population (None: open arrivals onto a pool of users)."""

    # --- clocks ---------------------------------------------------------------------
    def run_t(self) -> float:
        """Seconds since the run's T0 (which second an attempt is counted in)."""
        return self.m.now() - self.m.t0

    def _second(self) -> IterationCounts:
        """This second's iteration counts (one past the phase's end: its last second)."""
        return at_second(self.iterations, min(int(self.run_t()), self.last_second))

    async def _sleep(self, seconds: float) -> None:
        """Sleep, cut short when the phase closes."""
        if seconds <= 0 or self.closing.is_set():
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.closing.wait(), timeout=seconds)

    # --- one request ----------------------------------------------------------------
    async def _attempt(self, request: WireRequest, body: bytes) -> Answer | None:
        m = self.m
        while m.pool.available <= 0:
            m.slot.clear()
            await m.slot.wait()
        if m.sent >= m.max_ops:
            m.stop_at_op_cap()
            self.status = OP_CAP
            self.closing.set()
            return None
        now = m.now()
        run_t = now - m.t0
        counts = m.report.second(min(int(run_t), self.last_second))
        future: asyncio.Future[Answer] = asyncio.get_running_loop().create_future()
        ctx = StepPending(now, counts, self.share, run_t, request, future)
        m.send(ctx, request.target, body)
        self.share.offered += 1  # a phase of users offered what it sent
        return await future

    async def perform(self, action: OpAction, client: SdkClient) -> ActionOutcome | None:
        """One OpAction through the application's SDK retries (the shared retry model,
        in real time: it says how long to wait, this waits it); None when the worker
        stopped. Every attempt is counted; the program sees the last answer."""
        request = self.wire.request(action)
        began = self.m.now()
        consumed = 0.0
        body = request.encode()
        attempts = client.call()
        while True:
            wait = attempts.before_send(self.run_t())  # adaptive mode's rate limiter
            if wait > 0:
                await self._sleep(wait)
            answer = await self._attempt(request, body)
            if answer is None:
                return None
            # what DynamoDB charged the attempt: reported, or counted (a failed condition)
            consumed += answer.reply.attempt.consumed + answer.reply.attempt.counted
            decision = attempts.after(answer.retry_kind(self.retry.mode), self.run_t())
            if not decision.retry or self.closing.is_set():
                break
            await self._sleep(decision.delay_s)
        reply = answer.reply
        self._second().record_operation(reply.status, attempts.attempts)
        latency = self.m.now() - began
        return self.wire.outcome(action, reply, attempts.attempts, latency, consumed)

    # --- one iteration --------------------------------------------------------------
    async def iterate(self, user: UserState, client: SdkClient) -> None:
        iteration = self.program.iteration(user)
        self._second().started += 1
        try:
            action = next(iteration)
            while True:
                if self.closing.is_set():
                    iteration.close()
                    self._second().unfinished += 1
                    return
                if isinstance(action, ThinkAction):
                    await self._sleep(action.seconds)
                    action = iteration.send(None)
                    continue
                outcome = await self.perform(action, client)
                if outcome is None:
                    iteration.close()
                    self._second().unfinished += 1
                    return
                action = iteration.send(outcome)
        except StopIteration as done:
            end: IterationEnd = done.value
            steps = ((s.step, s.seconds) for s in end.steps)
            self._second().record_end(end.ok, end.reason, end.seconds, steps)

    def _client(self, user: UserState) -> SdkClient:
        """The user's SDK client: its own retry quota and adaptive rate (an application
        instance per user, as the simulation models it)."""
        client = self.clients.get(user.user)
        if client is None:
            client = self.clients[user.user] = SdkClient(
                self.retry, random.Random(user.user * 7 + self.seed).random, self.run_t()
            )
        return client

    def user_clock(self) -> float:
        """A user's clock: wall-clock seconds (epoch), read as run time since T0 plus
        T0, so every worker's users agree. Epoch, not run time: a lock's expiry or a
        watermark written in one repeat must not look like the future in the next,
        whose run time starts at 0 again on the same table."""
        return self.m.t0_wall + self.run_t()

    def _user(self, number: int) -> UserState:
        rng = random.Random(self.seed * 1_000_003 + number)
        return UserState(number, self.user_clock, rng)

    # --- the two load models --------------------------------------------------------
    async def run(self) -> str:
        wait = self.start - self.m.now()
        if wait > 0:
            await asyncio.sleep(wait)
        arrivals = self.phase.kind.arrivals
        runner = self._closed(arrivals) if isinstance(arrivals, ClosedArrivals) else self._open()
        task = asyncio.ensure_future(runner)
        try:
            await asyncio.wait({task}, timeout=max(0.0, self.end - self.m.now()))
            self.closing.set()
            await task  # users finish their request in flight, then stop
        finally:
            if not task.done():
                task.cancel()
        return self.status

    async def _closed(self, population: ClosedArrivals) -> None:
        self.population = population
        scale, W, w = self.m.plan.scale, self.m.plan.workers, self.m.worker
        mine = range(w, scaled_users(population.peak_users(), scale), W)
        tasks = [asyncio.ensure_future(self._closed_user(u)) for u in mine]
        if population.ramps():
            tasks.append(asyncio.ensure_future(self._ramp()))
        try:
            await asyncio.gather(*tasks)
        finally:
            for t in tasks:
                t.cancel()

    def _level(self) -> int:
        """How many users the ramp runs now (at the run's scale)."""
        assert self.population is not None
        phase_t = self.m.now() - self.start
        count = self.population.level_at(phase_t, self.phase.duration_s)
        return scaled_users(count, self.m.plan.scale)

    async def _ramp(self) -> None:
        """Wake the users the ramp has reached, every RAMP_CHECK_S; all of them at the
        phase's end. One task reads the ramp for the worker's users: each waiting user
        polling it would wake RAMP_CHECK_S apart for the whole ramp (a ramp down's for
        the rest of the phase), thousands of wake-ups a second on the loop that sends."""
        while not self.closing.is_set():
            level = self._level()
            for number in [n for n in self._waiting if n < level]:
                self._waiting.pop(number).set()
            await self._sleep(RAMP_CHECK_S)
        for event in self._waiting.values():
            event.set()
        self._waiting.clear()

    async def _closed_user(self, number: int) -> None:
        user = self._user(number)
        client = self._client(user)
        population = self.population
        assert population is not None
        while not self.closing.is_set():
            if number >= self._level():
                # a ramp up has not reached this user yet (or a ramp down passed it):
                # wait for the ramp's task to wake it (or the phase's end)
                waiting = self._waiting.setdefault(number, asyncio.Event())
                await waiting.wait()
                continue
            began = self.m.now()
            await self.iterate(user, client)
            await self._sleep(population.pause_s(self.m.now() - began, user.rng))

    async def _open(self) -> None:
        m = self.m
        schedule = Schedule.for_phase(self.phase, m.plan.scale)
        times = schedule.worker_times(m.worker, m.plan.workers)
        limit = self.phase.kind.user_pool
        free = [
            self._user(m.worker + m.plan.workers * j)
            for j in range(math.ceil(limit / m.plan.workers))
        ]
        free.reverse()
        running: set[asyncio.Future[None]] = set()

        async def one(user: UserState) -> None:
            try:
                await self.iterate(user, self._client(user))
            finally:
                free.append(user)

        try:
            for k, due in enumerate(times):
                wait = self.start + due - m.now()
                if wait > 0:
                    await self._sleep(wait)
                if self.closing.is_set():
                    # arrivals due before the end that this worker fell behind on were
                    # never started: dropped, so every arrival of the schedule is counted
                    self._second().dropped += len(times) - k
                    break
                if not free:
                    self._second().dropped += 1
                    continue
                task = asyncio.ensure_future(one(free.pop()))
                running.add(task)
                task.add_done_callback(running.discard)
            await self.closing.wait()
            if running:
                await asyncio.gather(*running)
        finally:
            for t in running:
                t.cancel()
