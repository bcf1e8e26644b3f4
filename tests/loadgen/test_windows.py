"""A run split into windows (loadgen.live.windows): every request of every worker's share
is owned by exactly one window, cuts never split a phase of users, and the windows'
reports add up to what one unsplit report would say."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from loadgen.format.playbook import parse_playbook
from loadgen.live.messages import PhaseShare, RunPlan, WorkerReport
from loadgen.live.resultstore import merge_windows, slot_key
from loadgen.live.windows import SplitError, Window, phase_times, split
from loadgen.load.arrivals import Schedule
from loadgen.results.records import Counts


def playbook(phases: list[dict[str, object]]) -> RunPlan:
    book = parse_playbook(
        {
            "name": "w",
            "tables": [
                {"name": "v", "partition_key": {"name": "pk"}, "billing_mode": "PAY_PER_REQUEST"}
            ],
            "load": {
                "attributes": {"pk": {"dist": "uniform", "count": 10}},
                "phases": phases,
            },
        }
    )
    return RunPlan("r", book, "v", "t")


def test_an_unsplit_run_is_one_open_window() -> None:
    plan = playbook([{"name": "a", "rate": 10, "duration_s": 2000}])
    assert plan.windows == [Window(0, 0.0, math.inf)]
    assert split(plan.playbook.load.phases, 3000) == [Window(0, 0.0, math.inf)]


def test_a_long_run_is_cut_on_whole_seconds() -> None:
    plan = playbook([{"name": "a", "rate": 10, "duration_s": 2000}])
    windows = split(plan.playbook.load.phases, 720.5)
    assert [(w.start, w.end) for w in windows] == [(0, 720), (720, 1440), (1440, math.inf)]


def test_a_cut_never_splits_a_phase_of_users() -> None:
    """A phase of users keeps its users' state from one iteration to the next: the cut
    that would fall inside it moves back to its start."""
    phases = [
        {"name": "a", "rate": 10, "duration_s": 500},
        {"name": "users", "users": 2, "duration_s": 400, "mix": [{"op": "put", "weight": 1}]},
        {"name": "b", "rate": 10, "duration_s": 500},
    ]
    windows = split(playbook(phases).playbook.load.phases, 720)
    assert [w.start for w in windows] == [0, 500, 1220]
    mix = [{"op": "put", "weight": 1}]
    too_long = [{"name": "users", "users": 2, "duration_s": 800, "mix": mix}]
    with pytest.raises(SplitError, match="runs users for 800 s"):
        split(playbook(too_long).playbook.load.phases, 720)


@settings(max_examples=60, deadline=None)
@given(
    rates=st.lists(st.integers(1, 400), min_size=1, max_size=3),
    durations=st.lists(st.integers(1, 30), min_size=3, max_size=3),
    window_s=st.integers(1, 40),
    workers=st.integers(1, 5),
)
def test_each_request_is_owned_by_exactly_one_window(
    rates: list[int], durations: list[int], window_s: int, workers: int
) -> None:
    """The windows' shares of each worker are disjoint and together its whole share: the
    hand-over neither loses nor counts twice a request."""
    phases = [
        {"name": f"p{i}", "rate": r, "duration_s": d}
        for i, (r, d) in enumerate(zip(rates, durations, strict=False))
    ]
    plan = playbook(phases)
    windows = split(plan.playbook.load.phases, window_s)
    offset = 0.0
    for phase in plan.playbook.load.phases:
        for w in range(workers):
            whole = Schedule.for_phase(phase, 1.0).worker_times(w, workers)
            parts = [phase_times(phase, offset, 1.0, w, workers, win) for win in windows]
            assert sorted(t for part in parts for t in part) == whole
            for win, part in zip(windows, parts, strict=True):
                assert all(win.owns(offset + t) for t in part)
        offset += phase.duration_s


def test_windows_reports_add_up_to_one() -> None:
    """Counts, offered shares, first throttles and notes of a worker's windows, merged as
    the store's per-worker view merges them."""
    a = WorkerReport(0, status="complete", phases=[PhaseShare("p", "put", 0, 10, offered=5)])
    a.second(0).add(Counts(sent=5, succeeded=5))
    b = WorkerReport(0, status="watchdog", window=1, notes=["watchdog"])
    b.phases = [PhaseShare("p", "put", 0, 10, offered=7, first_throttle_s=6.5)]
    b.second(6).add(Counts(sent=7, succeeded=6, throttled=1))
    merged = merge_windows([a, b])
    assert merged.totals().sent == 12 and merged.totals().throttled == 1
    assert merged.phases[0].offered == 12 and merged.phases[0].first_throttle_s == 6.5
    assert merged.status == "watchdog" and merged.notes == ["watchdog"]
    assert slot_key("final", (3, 0)) == "final#3" and slot_key("final", (3, 2)) == "final#3#w2"
