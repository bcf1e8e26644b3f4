"""What `--scale` preserves, per workload kind, and where it cannot preserve the answer.

A live run at `--scale S` offers S of the playbook's load to an emulator whose every
capacity is S of the table's, and reports its counts divided by S. Whether that gives
the playbook's answer depends on the phase's kind:

- open arrivals of one operation (`rate`, `ramp`): every rate is S times, every limit S
  times: the pressure on each partition and on the table is the playbook's, so throttle
  rates, first throttles and (full-scale) peaks are preserved. Nothing to say.
- open arrivals of a mix or scenario: the arrivals are S times (the pool of users is
  not scaled); preserved as above, except where every iteration shares one item (below).
- a closed loop (`users`): the population is S times, rounded to whole users and at
  least one (a closed loop cannot run 0.6 of a user; loadgen.live.live_users.
  scaled_users), think times kept. Per-user pressure is the same, so the answer holds
  when the rounding is small; when it is not, the load differs by the rounding, said.
- any of them with a lock that every user or iteration takes (one item, a key the same
  for all): its ceiling is 1 / the time it is held, whatever the capacity, so it does
  not scale: at S the run measures the ceiling and reports it divided by S, a
  throughput floor 1/S times too high (M5's datastore v2: ten users run as one). Said
  as a warning in the plan, before a live run and in its results; --scale 1 preserves
  it.

One function over the phases that asks each phase's kind (loadgen/format/kinds) what
it is: a population's peak users, whether an iteration is more than one request.
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.params import DEFAULT_LATENCY, DEFAULT_PARAMS
from loadgen.analysis.scenario_advice import scenario_findings
from loadgen.format.playbook import Phase, Playbook

ROUNDING_SAID = 0.10
"""A population rounded by more than this share of itself is said (6 users at 0.1 run
as 1: 67 % more than 0.6)."""


@dataclass(frozen=True)
class ScaleNote:
    """One thing `--scale` does not preserve for a phase, in words."""

    phase: str
    kind: str
    """"shared lock" (the answer is not preserved) or "rounded users" (the load differs)."""
    words: str

    @property
    def wrong_answer(self) -> bool:
        """The figures a run at this scale reports are not the playbook's answer."""
        return self.kind == "shared lock"


def scaled_population(users: int, scale: float) -> int:
    """How many users a closed loop runs at `scale` (the live worker's rounding)."""
    from loadgen.live.live_users import scaled_users

    return scaled_users(users, scale)


def scale_notes(playbook: Playbook, scale: float) -> list[ScaleNote]:
    """What a live run of `playbook` at `scale` does not preserve, phase by phase (empty
    at scale 1, and for phases of one operation at an open rate)."""
    if scale >= 1.0:
        return []
    notes: list[ScaleNote] = []
    for phase in playbook.load.phases:
        kind = phase.kind
        users = kind.arrivals.peak_users()
        if users:
            runs = scaled_population(users, scale)
            exact = users * scale
            if abs(runs - exact) > ROUNDING_SAID * exact:
                notes.append(
                    ScaleNote(
                        phase.name,
                        "rounded users",
                        f"phase {phase.name}: {users:,} users at --scale {scale:g} run as "
                        f"{runs:,} (not {exact:g}): the load is {runs / exact:.2f}x the "
                        f"playbook's share; --scale {_whole_users(users, scale):.3g} runs "
                        "whole users",
                    )
                )
        if not kind.iterations.one_request:
            lock = _shared_lock(playbook, phase)
            if lock is not None:
                notes.append(
                    ScaleNote(
                        phase.name,
                        "shared lock",
                        f"phase {phase.name}: --scale {scale:g} does not preserve the "
                        f"answer: {lock} is one item every user takes, whose ceiling (1 / "
                        "the time it is held) does not scale, so the figures, divided by "
                        f"{scale:g}, show up to {1 / scale:g}x the iterations it allows; "
                        "--scale 1 measures it",
                    )
                )
    return notes


def _shared_lock(playbook: Playbook, phase: Phase) -> str | None:
    """The name of a lock the phase's iterations all take (advise's finding), or None."""
    for name in dict.fromkeys(r.table for r in playbook.runs()):
        spec = playbook.table(name)
        for finding in scenario_findings(playbook, spec, phase, DEFAULT_PARAMS, DEFAULT_LATENCY):
            if finding.kind == "lock":
                return finding.words.split(" is one item")[0]
    return None


def _whole_users(users: int, scale: float) -> float:
    """The nearest scale at or above `scale` that runs whole users."""
    runs = max(1, round(users * scale))
    return min(1.0, runs / users) if runs / users >= scale else min(1.0, (runs + 1) / users)
