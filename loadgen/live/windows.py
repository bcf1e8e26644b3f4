"""Windows of a run: how a run longer than one invocation may last is split across
successive invocations of each worker, without losing or counting twice a request.

A Lambda invocation lasts at most 15 minutes
(https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html); a phase may
last longer. So a fleet whose workers have such a limit runs each worker as a chain of
invocations, one per window of the run's time line:

- window j is the run time [start_j, end_j) (seconds after T0); the last one is open at
  its end. Cuts fall on whole seconds, every `window_s`, except that a cut inside a phase
  of users (a closed loop, whose users carry state from one iteration to the next) moves
  back to that phase's start: such a phase runs whole in one invocation;
- invocation (w, j) owns exactly the requests of worker w's share whose *due* time lies
  in its window (request indices [k0, k1) of each phase's share: a schedule is known in
  advance, so every invocation computes the same boundaries): it sends them on schedule,
  stops sending at end_j, waits for its requests in flight and writes its counts under
  its own key (`final#<w>#w<j>`, loadgen.live.resultstore) before it returns;
- the next invocation is started before end_j (the fleet's hand-over lead), lines up on
  the run's shared T0 (it reads the GO item instead of waiting at the barrier: T0 has
  passed), and sends from end_j on; it refuses, writing why, if it starts after its
  window began. Both invocations of a worker run side by side for that overlap;
- the coordinator adds every window's counts up, as it adds workers up: counts are sums,
  each request is owned by one window (its due time), so a request is counted once
  whichever window's second its late send falls in.

A run with no `window_s` is one window, [0, end): the fleets without a time limit (local
processes, Fargate tasks) run as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from loadgen.format.playbook import Phase
from loadgen.load.arrivals import Schedule

Slot = tuple[int, int]
"""(worker, window): one invocation's share of a run, the key of its reports."""


class SplitError(ValueError):
    """The run cannot be split into windows of the length asked for."""


@dataclass(frozen=True)
class Window:
    """Run time [start, end) in seconds after T0; `end` is inf for the last window."""

    index: int
    start: float
    end: float

    def owns(self, run_t: float) -> bool:
        """Whether a request due at run time `run_t` belongs to this window."""
        return self.start <= run_t < self.end

    def bounded_end(self, duration_s: float) -> float:
        """The window's end, or the run's end for the last window."""
        return min(self.end, duration_s)


def split(phases: list[Phase], window_s: float | None) -> list[Window]:
    """The windows of a run of `phases`, each at most `window_s` long (None: one window).

    Cuts fall every whole `window_s` seconds; a cut inside a phase of users moves back
    to the phase's start (SplitError when that phase alone is longer than a window)."""
    duration = sum(p.duration_s for p in phases)
    if window_s is None or duration <= window_s:
        return [Window(0, 0.0, math.inf)]
    step = math.floor(window_s)
    if step < 1:
        raise SplitError(f"a window of {window_s} s is shorter than a second")
    users: list[tuple[float, float, str]] = []  # (start, end, name) of phases of users
    offset = 0.0
    for phase in phases:
        if phase.kind.engine == "iterations":
            if phase.duration_s > step:
                raise SplitError(
                    f"phase {phase.name!r} runs users for {phase.duration_s:g} s, longer "
                    f"than one invocation's window of {step} s: a phase of users cannot be "
                    "split across invocations (its users carry state between iterations)"
                )
            users.append((offset, offset + phase.duration_s, phase.name))
        offset += phase.duration_s
    cuts: list[float] = []
    start = 0.0
    while duration - start > step:
        cut = start + step
        for u_start, u_end, _name in users:
            if u_start < cut < u_end:
                cut = u_start  # the phase of users goes whole to the next window
        if cut <= start:  # cannot happen: a phase of users fits in one window
            raise SplitError("no cut found for the run's windows")
        cuts.append(float(cut))
        start = cut
    edges = [0.0, *cuts, math.inf]
    return [Window(i, edges[i], edges[i + 1]) for i in range(len(edges) - 1)]


def phase_times(
    phase: Phase, offset: float, scale: float, worker: int, workers: int, window: Window
) -> list[float]:
    """Send times (phase-relative) of the requests of worker `worker`'s share of an
    open-loop `phase` that `window` owns (due at run time offset + t in the window)."""
    end = offset + phase.duration_s
    if end <= window.start or offset >= window.end:
        return []
    times = Schedule.for_phase(phase, scale).worker_times(worker, workers)
    if window.start <= offset and end <= window.end:
        return times
    return [t for t in times if window.owns(offset + t)]


def phase_in(phase_start: float, phase: Phase, window: Window) -> bool:
    """Whether any of the phase lies in `window` (a phase of users lies in one only)."""
    return phase_start < window.end and phase_start + phase.duration_s > window.start
