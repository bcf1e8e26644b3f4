"""A per-minute rate curve (`rate: {per_minute: [...]}` or a CSV beside the playbook): an
open arrival form, one module (loadgen/format/kinds/rate_curve.py), that the simulation,
the live worker's schedule, the plan's words and cost and the advice all take as they
take a constant rate."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from console.render.phase_words import phase_lines
from loadgen.format.kinds.rate_curve import (
    RateCurve,
    parse_rate_csv,
    read_rate_csv,
    write_rate_csv,
)
from loadgen.format.playbook import Playbook, PlaybookError, load_playbook
from loadgen.live.coordinator import _offered_until
from loadgen.live.measure import phase_op_bound
from loadgen.live.messages import RunPlan
from loadgen.live.windows import Window
from loadgen.load.arrivals import Schedule
from loadgen.simulation.simulate import simulate

PLAYBOOK = """
name: curve
tables:
  - name: t
    partition_key: {name: pk, type: S}
    billing_mode: PAY_PER_REQUEST
load:
  attributes:
    pk: {dist: uniform, count: 1000, format: "K{:04d}"}
  phases:
    - name: day
      operation: put
      rate: RATE
"""


def _load(tmp_path: Path, rate: str, extra: str = "", text: str = PLAYBOOK) -> Playbook:
    path = tmp_path / "pb.yaml"
    path.write_text(text.replace("RATE", rate) + extra)
    return load_playbook(path)


def _error(tmp_path: Path, rate: str, extra: str = "") -> str:
    with pytest.raises(PlaybookError) as info:
        _load(tmp_path, rate, extra)
    return str(info.value)


def test_a_curve_is_an_open_arrival_form_that_sets_the_phases_duration(tmp_path: Path) -> None:
    (phase,) = _load(tmp_path, "{per_minute: [60, 0, 120.5]}").load.phases
    assert phase.duration_s == 180
    assert phase.kind.name == "per-minute curve x one operation"
    assert phase.kind.engine == "requests"  # the golden engines, unchanged
    assert isinstance(phase.kind.arrivals, RateCurve)
    schedule = Schedule.for_phase(phase)
    assert schedule.total == 60 * 60 + 0 + round(120.5 * 60)
    assert [schedule.rate_at(t) for t in (0, 59.9, 60, 119.9, 120, 179.9, 180)] == [
        60,
        60,
        0,
        0,
        120.5,
        120.5,
        0,
    ]
    assert Schedule.for_phase(phase, scale=0.5).total == schedule.total // 2
    assert phase.kind.expected_requests(phase.duration_s) == schedule.total
    assert phase.kind.arrivals.peak_rate() == 120.5


def test_the_simulation_runs_the_curve_minute_by_minute(tmp_path: Path) -> None:
    playbook = _load(tmp_path, "{per_minute: [100, 0, 300]}")
    (run,) = simulate(playbook).runs
    sent = [run.seconds[t].sent if t in run.seconds else 0 for t in range(180)]
    assert sent == [100] * 60 + [0] * 60 + [300] * 60
    assert run.phases[0].offered == 24_000 and run.phases[0].operation == "put"


def test_a_mix_at_a_curve_starts_its_iterations_minute_by_minute(tmp_path: Path) -> None:
    mixed = PLAYBOOK.replace("operation: put", "mix: [{op: get, weight: 1}, {op: put, weight: 1}]")
    (phase,) = _load(tmp_path, "{per_minute: [5, 20]}", text=mixed).load.phases
    assert phase.kind.name == "per-minute curve x mix" and phase.kind.engine == "iterations"
    (run,) = simulate(_load(tmp_path, "{per_minute: [5, 20]}", text=mixed)).runs
    started = [
        sum(run.iterations[t].started for t in range(m * 60, (m + 1) * 60) if t in run.iterations)
        for m in (0, 1)
    ]
    assert started == [300, 1200]


def test_the_live_worker_sends_the_curve_from_its_schedule(tmp_path: Path) -> None:
    playbook = _load(tmp_path, "{per_minute: [40, 0, 100]}")
    (phase,) = playbook.load.phases
    plan = RunPlan("r", playbook, "t", "tbl", scale=0.5, workers=2)
    schedule = Schedule.for_phase(phase, plan.scale)
    times = sorted(t for w in range(2) for t in schedule.worker_times(w, 2))
    per_minute = [sum(1 for t in times if m * 60 <= t < (m + 1) * 60) for m in range(3)]
    assert per_minute == [20 * 60, 0, 50 * 60]  # every minute at half its rate
    assert sum(phase_op_bound(phase, plan.scale, w, 2) for w in range(2)) == len(times)
    # a worker lost after minute 1 had offered its share of minute 0 and nothing more
    whole_run = Window(0, 0.0, math.inf)  # one window: a local or ECS worker's whole run
    assert _offered_until(plan, 0, 119.0, [], whole_run) == [600]


def test_a_curve_in_a_csv_beside_the_playbook_travels_to_the_workers_as_rates(
    tmp_path: Path,
) -> None:
    (tmp_path / "traffic.csv").write_text(
        "# a recorded morning\nminute,rate\n0,120\n\n1,0\n2,300\n"
    )
    playbook = _load(tmp_path, "{csv: traffic.csv}")
    (phase,) = playbook.load.phases
    assert phase.duration_s == 180
    assert phase.kind.arrivals == RateCurve((120.0, 0.0, 300.0), "traffic.csv")
    assert phase_lines(phase, {}) == [
        "day: put per-minute curve of 3 minutes from traffic.csv, 0-300/s for 180 s"
    ]
    wire = RunPlan("r", playbook, "t", "tbl").to_json()
    assert wire["playbook"]["load"]["phases"][0]["rate"] == {"per_minute": [120.0, 0.0, 300.0]}
    again = RunPlan.from_json(wire).playbook.load.phases[0]  # a worker has no file
    assert again.kind.arrivals == RateCurve((120.0, 0.0, 300.0))
    assert again.duration_s == 180


@pytest.mark.parametrize(
    ("csv", "expected"),
    [
        ("minute,rate\n0,10\n1,n/a\n", "traffic.csv line 3: 'n/a' is not a rate"),
        ("minute,rate\n0,-4\n", "traffic.csv line 2: -4 is not a rate from 0 to 1,000,000"),
        ("minute,count\n0,10\n", "traffic.csv line 1: a header needs a rate column"),
        ("# nothing\n", "traffic.csv holds no rates"),
        (None, "no such CSV file"),
    ],
)
def test_a_mistake_in_the_csv_names_the_file_and_its_line(
    tmp_path: Path, csv: str | None, expected: str
) -> None:
    if csv is not None:
        (tmp_path / "traffic.csv").write_text(csv)
    message = _error(tmp_path, "{csv: traffic.csv}")
    assert "pb.yaml" in message and "load.phases[0].rate" in message
    assert expected in message
    line = PLAYBOOK.splitlines().index("      rate: RATE") + 1
    assert f"line {line}: " in message  # the playbook's line of the rate
    assert "duration_s" not in message  # no second message for the duration it sets


@pytest.mark.parametrize(
    ("rate", "extra", "expected", "absent"),
    [
        (
            "{per_minut: [1, 2]}",
            "",
            "rate.per_minut: unknown field 'per_minut' (did you mean 'per_minute'?)",
            "valid number",
        ),
        (
            "-5",
            "      duration_s: 60\n",
            "rate: Input should be greater than or equal to 0",
            "dict",
        ),
        (
            "{per_minute: [1, -2]}",
            "",
            "rate.per_minute[1]: Input should be greater than or equal to 0",
            "valid number",
        ),
        (
            "{per_minute: [1, 2, 3]}",
            "      duration_s: 100\n",
            "covers 3 minute(s) (180 s) and duration_s is 100",
            "field required",
        ),
        ("{per_minute: [1], csv: a.csv}", "", "give per_minute or csv, not both", "valid number"),
        (
            "{per_minute: [1]}\n      users: 4",
            "",
            "give exactly one of rate, ramp or users (got rate and users)",
            "valid number",
        ),
    ],
)
def test_a_mistake_in_a_curve_gets_the_curves_message_alone(
    tmp_path: Path, rate: str, extra: str, expected: str, absent: str
) -> None:
    message = _error(tmp_path, rate, extra)
    assert expected in message
    assert absent not in message.lower()


def test_a_csv_needs_the_playbooks_file_to_be_found() -> None:
    from loadgen.format.playbook import parse_playbook

    data = {
        "name": "x",
        "tables": [
            {"name": "t", "partition_key": {"name": "pk"}, "billing_mode": "PAY_PER_REQUEST"}
        ],
        "load": {
            "attributes": {"pk": {"dist": "uuid"}},
            "phases": [{"rate": {"csv": "traffic.csv"}}],
        },
    }
    data["tables"][0]["billing_mode"] = "PAY_PER_REQUEST"  # type: ignore[index]
    with pytest.raises(PlaybookError, match=r"invalid playbook \(1 problem\(s\)\)") as info:
        parse_playbook(data)
    assert "load.phases[0].rate: csv 'traffic.csv' is read beside the playbook file" in str(
        info.value
    )


def test_the_csv_helpers_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "curve.csv"
    write_rate_csv(path, [1200, 4000.5, 0])
    assert read_rate_csv(path) == [1200, 4000.5, 0]
    assert parse_rate_csv("7\n8\n") == [7, 8]  # no header: one rate a row
    assert parse_rate_csv("ts,rate_per_s,note\n2026-01-01T00:00,5,x\n") == [5]
