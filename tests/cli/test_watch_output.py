"""`hotbench watch` as a person or a script reads it: lines in time order, a line while
nothing runs, a final `done` line, and a quiet end when the reader closes the pipe."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from console.run.samples import IndexSample, TimeOrder, WatchFrame, WorkerStatus
from console.run.state import EmulatorProcess, RunState, StateStore, Status, Step
from tests.conftest import ROOT

T0 = datetime(2026, 12, 1, 9, 0, 0, tzinfo=UTC)


def sample(source: str, second: int, table: str = "hot") -> IndexSample:
    return IndexSample(source=source, table=table, start=T0 + timedelta(seconds=second))  # type: ignore[arg-type]


def frame(at: int, *samples: IndexSample, finished: bool = False) -> WatchFrame:
    return WatchFrame(
        at=T0 + timedelta(seconds=at), run_label="hot#1", samples=list(samples), finished=finished
    )


def test_samples_come_out_in_time_order_after_a_fixed_hold() -> None:
    """The emulator's seconds arrive at once, the workers' ~3 s later (their progress
    items): held 5 s, the two sources' lines of a second come out together, in order."""
    order = TimeOrder(hold_s=5.0)
    assert order.release(frame(2, sample("emulator", 0), sample("emulator", 1))) == []
    # at t=6: second 0 ended at 1, 1 + 5 <= 6; second 1 ends at 2, 2 + 5 > 6: held
    out = order.release(frame(6, sample("workers", 0), sample("emulator", 4)))
    assert [(s.source, s.start.second) for s in out] == [("emulator", 0), ("workers", 0)]
    out = order.release(frame(8, sample("workers", 1), sample("workers", 2)))
    assert [(s.source, s.start.second) for s in out] == [
        ("emulator", 1),
        ("workers", 1),
        ("workers", 2),
    ]
    # the last frame releases the rest, still in order
    out = order.release(frame(9, sample("workers", 4), sample("emulator", 3), finished=True))
    assert [(s.source, s.start.second) for s in out] == [
        ("emulator", 3),
        ("emulator", 4),
        ("workers", 4),
    ]


def test_a_workers_second_that_comes_late_is_still_printed_in_order() -> None:
    """A loaded machine: the workers report second 0 only at t=9, well past the 5 s
    hold. The frames say how far the workers have reported (`complete_until`), so the
    emulator's seconds wait for them: no line goes back in time (before, the emulator's
    seconds 0-3 were printed at t=6-8 and the workers' second 0 after them)."""
    order = TimeOrder(hold_s=5.0)
    lines: list[tuple[str, int]] = []
    complete = {6: 0, 7: 0, 8: 0, 9: 3, 10: 5}  # at t, the workers complete through
    for at in range(2, 11):
        samples = [sample("emulator", at - 2)]
        if at == 9:
            samples += [sample("workers", t) for t in range(3)]
        if at == 10:
            samples += [sample("workers", t) for t in range(3, 5)]
        shown = order.release(
            WatchFrame(
                at=T0 + timedelta(seconds=at),
                run_label="hot#1",
                samples=samples,
                complete_until=T0 + timedelta(seconds=complete.get(at, 0)),
            )
        )
        lines += [(s.source, s.start.second) for s in shown]
    assert [t for _, t in lines] == sorted(t for _, t in lines)  # in time order
    assert ("workers", 0) in lines and lines.index(("workers", 0)) < lines.index(("emulator", 1))


def test_a_watch_joining_a_run_under_way_starts_from_its_join() -> None:
    joined = T0 + timedelta(seconds=60)
    order = TimeOrder(hold_s=5.0, since=joined - timedelta(seconds=2))
    backlog = [sample("workers", t) for t in range(0, 60)]
    out = order.release(frame(70, *backlog, sample("emulator", 59), finished=False))
    assert [s.start.second for s in out] == [58, 59, 59]  # from its join, not from T0
    assert order.skipped == 58


def idle_run(runs_dir: Path) -> str:
    """A local run that is up and waits for its run step; its emulator's port answers
    nothing (so every frame is empty), and its pid is ours, so the run counts as up."""
    state = RunState(
        run_id="hb-1201090000-abcd",
        target="local",
        region="us-east-1",
        playbook_path="p.yaml",
        playbook_name="p",
    )
    state.record(Step.PLAN).status = Status.DONE
    state.record(Step.UP).status = Status.DONE
    state.emulator = EmulatorProcess(
        pid=os.getpid(), port=9, scale=0.1, started_at=datetime.now(UTC), log_path="x"
    )
    StateStore(runs_dir).save(state)
    return state.run_id


def watch_argv(run_id: str, *extra: str) -> list[str]:
    return [sys.executable, "-m", "console.cli", "watch", run_id, *extra]


def env(runs_dir: Path) -> dict[str, str]:
    return {**os.environ, "HOTBENCH_RUNS_DIR": str(runs_dir), "PYTHONPATH": str(ROOT)}


def test_watch_on_an_idle_run_says_it_waits_for_the_run_step(tmp_path: Path) -> None:
    run_id = idle_run(tmp_path / "runs")
    proc = subprocess.run(
        watch_argv(run_id, "--seconds", "1", "--interval", "0.2"),
        capture_output=True,
        text=True,
        env=env(tmp_path / "runs"),
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"waiting for the run step (hotbench run --run {run_id})" in proc.stdout
    assert proc.stdout.count("waiting for the run step") == 1  # not once a frame


def test_watch_json_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`hotbench watch --json | head -3`: three frames, then no BrokenPipeError."""
    run_id = idle_run(tmp_path / "runs")
    watch = subprocess.Popen(
        watch_argv(run_id, "--json", "--interval", "0.05"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env(tmp_path / "runs"),
        cwd=tmp_path,
    )
    assert watch.stdout is not None
    head = subprocess.run(
        ["head", "-3"], stdin=watch.stdout, capture_output=True, text=True, timeout=120
    )
    watch.stdout.close()  # only head holds the pipe's read end now
    try:
        _, err = watch.communicate(timeout=120)
    finally:
        if watch.poll() is None:
            watch.kill()
    assert len(head.stdout.splitlines()) == 3
    assert watch.returncode == 0, err.decode()
    assert b"Traceback" not in err and b"BrokenPipe" not in err


def test_the_fleets_status_line_comes_after_the_seconds_before_it() -> None:
    """The status line (`hot#1: workers 2/2 ready ...`) is held like the samples: it
    came out at once, above the seconds the hold still kept (13:55:25 over 13:55:20)."""
    order = TimeOrder(hold_s=5.0)
    printed: list[float] = []  # the time of each line as printed, in order
    ends = 0
    for at in range(1, 12):
        shown = WatchFrame(
            at=T0 + timedelta(seconds=at + 0.1),  # a frame comes a little after the second
            run_label="hot#1",
            # the emulator's seconds are not the wall's: this one began 0.9 s in
            samples=[
                sample("emulator", at - 1).model_copy(
                    update={"start": T0 + timedelta(seconds=at - 0.1)}
                )
            ],
            workers=WorkerStatus(planned=2, ready=2, running=at),  # a new status each time
            finished=at == 11,
        )
        for part in order.release_frames(shown):
            printed += [(s.start - T0).total_seconds() for s in part.samples]
            if part.workers is not None:
                printed.append((part.at - T0).total_seconds())
            ends += part.finished
    assert printed == sorted(printed)
    assert len(printed) == 22  # every second and every status, none lost
    assert ends == 1  # `done` said once


def test_an_unchanged_status_is_said_once_in_ten_seconds() -> None:
    order = TimeOrder(hold_s=5.0)
    said = 0
    for at in range(0, 31):
        waiting = WatchFrame(
            at=T0 + timedelta(seconds=at),
            run_label="hot#1",
            workers=WorkerStatus(planned=2, ready=0 if at < 25 else 2),
            finished=at == 30,
        )
        said += sum(part.workers is not None for part in order.release_frames(waiting))
    assert said == 4  # at 0, 10 and 20 while 0/2 ready, then at 25 when 2/2 were


def test_a_watch_line_at_80_columns_folds_between_figures() -> None:
    from console.render.workflow_output import _sample_line

    s = IndexSample(
        source="workers",
        table="hotKey",
        start=T0,
        accepted=1338.0,
        throttled=162.0,
        consumed_wcu=1338.0,
        p50_ms=1.4,
        p99_ms=8.7,
        throttled_by_reason={"TableWriteKeyRangeThroughputExceeded": 162.0},
    )
    wide = _sample_line(s)
    assert len(wide) > 100 and "\n" not in wide  # a pipe or a wide terminal: one line
    lines = _sample_line(s, 80).splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert lines[0].startswith("09:00:00 workers  hotKey") and "throttled    162" in lines[0]
    assert all(line.startswith(" " * 9) for line in lines[1:])  # under the source
    folded = " ".join(" ".join(lines).split())
    for figure in (
        "1,338",
        "WCU/s 1,338.0",
        "p50 1.4 ms p99 8.7 ms",
        "RangeThroughputExceeded 162",
    ):
        assert figure in folded  # each figure whole
    assert "RCU/s" not in folded  # a write load's zero RCU gives its room to the rest
