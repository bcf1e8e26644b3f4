"""The console's view of a mix or scenario: the plan's words for it, and the run screen's
line of iterations per second and failures by reason."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from console.render.phase_words import phase_lines
from console.tui.app import HotbenchApp
from console.tui.widgets.iteration_rate import iteration_text
from console.workflow import IndexSample, WatchFrame
from loadgen.format.playbook import Playbook, parse_playbook
from tests.loadgen.conftest import tiny_playbook
from tests.tui.fixed import at, fill, fixed_app
from tests.tui.pilot_actions import settle

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def _playbook(phases: list[dict[str, object]], scenarios: dict[str, object]) -> Playbook:
    base = tiny_playbook().model_dump(mode="json")
    base["load"]["phases"] = phases
    base["load"]["scenarios"] = scenarios
    return parse_playbook(base)


def test_the_plan_reads_a_scenario_step_by_step_and_a_mix_by_its_shares() -> None:
    playbook = _playbook(
        [
            {"name": "w", "operation": "put", "rate": 200, "duration_s": 60},
            {
                "name": "sync",
                "users": 10,
                "think_s": 0.5,
                "scenario": "sync",
                "retry": "standard",
                "duration_s": 3600,
            },
            {
                "name": "ycsb-a",
                "users": {"start": 0, "end": 100, "steps": 4},
                "mix": [{"op": "get", "weight": 3}, {"op": "update", "weight": 1}],
                "duration_s": 60,
            },
        ],
        {
            "sync": {
                "steps": [
                    {"name": "take", "op": "lock", "key": {"pk": "LOCK", "sk": "0"}, "wait_s": 30},
                    {
                        "name": "changed",
                        "op": "query",
                        "key": {"pk": "U{user}"},
                        "collection": True,
                        "repeat": 2,
                    },
                    {"name": "free", "op": "release", "lock": "take"},
                ]
            }
        },
    )
    scenarios = playbook.load.scenarios
    one, sync, mix = (phase_lines(p, scenarios) for p in playbook.load.phases)
    assert one == ["w: put 200/s for 60 s"]  # the line a phase of one operation always had
    assert sync == [
        "sync: 10 users, think 0.5 s, scenario sync for 3,600 s, retry standard",
        "  sync: take (lock LOCK/0, wait 30 s, ttl 30 s) > changed (query U{user}, "
        "collection, x2) > free (release take)",
    ]
    assert mix[0] == "ycsb-a: users 0->100 in 4 steps, mix for 60 s: get 75 %, update 25 %"
    assert mix[1:] == ["  get (get drawn key)", "  update (update drawn key)"]


def _sample(t: int, ok: float | None, failed: dict[str, float] | None = None) -> IndexSample:
    return IndexSample(
        source="workers",
        table="v",
        start=T0 + timedelta(seconds=t),
        iterations_ok=ok,
        iterations_failed_by_reason=failed or {},
    )


def test_the_run_screen_shows_the_recent_iteration_rate_and_every_failure_by_reason() -> None:
    samples = [_sample(t, 20.0) for t in range(5)] + [
        _sample(5 + t, 2.0, {"lock_timeout": 8.0}) for t in range(10)
    ]
    text = iteration_text(samples, None)
    assert text is not None
    assert text.plain == (
        "iterations 2.0/s last 10 s  ok 120  failed 80: lock_timeout 80"
    )  # the rate of the last 10 s: the fall shows; the failures are all of them


def test_no_iterations_no_line_and_a_finished_run_shows_its_result() -> None:
    assert iteration_text([_sample(0, None)], None) is None
    final = {
        "iterations": {
            "iterations_per_s": 16.9,
            "ok": 2028,
            "failed_by_reason": {"retries_exhausted": 3},
        }
    }
    text = iteration_text([], final)
    assert text is not None
    assert text.plain == "iterations 16.9/s result  ok 2,028  failed 3: retries_exhausted 3"


def test_the_run_screen_of_a_scenario_at_80x24(snap_compare: Any, tmp_path: Path) -> None:
    """The fixed run, its running table's seconds carrying iterations as a scenario's
    workers report them: the iteration line sits between the chart and the stats."""

    async def run_before(pilot: Pilot[int]) -> None:
        app = pilot.app
        assert isinstance(app, HotbenchApp)
        fill(app)
        for n, t in enumerate(range(170, 185)):
            failed = {"lock_timeout": 3.0, "retries_exhausted": 1.0} if n > 9 else {}
            sample = IndexSample(
                source="workers",
                table="od",
                start=at(t + 0.5),
                accepted=40.0,
                iterations_ok=12.0 - n * 0.5,
                iterations_failed_by_reason=failed,
            )
            app.session.add_frame(WatchFrame(at=at(t + 1.5), run_label="od#1", samples=[sample]))
        await pilot.press("3")
        await settle(pilot)

    assert snap_compare(fixed_app(tmp_path), terminal_size=(80, 24), run_before=run_before)


def test_watch_lines_carry_a_scenarios_iterations_and_only_then() -> None:
    from console.render.workflow_output import _sample_line

    assert "iterations" not in _sample_line(_sample(0, None))
    line = _sample_line(_sample(0, 7.0, {"lock_timeout": 2.0}))
    assert line.endswith("iterations 7 failed: lock_timeout 2")
