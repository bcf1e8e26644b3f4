"""The console says what is true now: the GO line gives way once T0 has passed, the
partitions screen gives the emulator's clock beside its event times, and an export's
toast shows the file and its folder whole at 80 columns."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from textual.widgets._toast import Toast

from console.tui.app import export_words
from console.tui.screens.partitions import clock_words
from console.tui.session import Session, utc_now
from console.tui.widgets.step_log import StepLog
from tests.tui.fixed import PARTITIONS, fill, fixed_app


def test_the_go_line_gives_way_once_t0_has_passed() -> None:
    session = Session(busy="run", current_label="hot#1")
    session.say("GO: 2 of 2 workers, T0 in 2.0 s")
    assert session.step_line() == "GO: 2 of 2 workers, T0 in 2.0 s"  # still ahead
    assert session.go_t0 is not None
    later = session.step_line(session.go_t0 + timedelta(seconds=1))
    assert later == f"hot#1: the load runs since T0 {session.go_t0:%H:%M:%S}"
    session.say("hot#1: 2 of 2 workers running")  # another line: shown as said
    assert session.step_line(utc_now() + timedelta(hours=1)) == "hot#1: 2 of 2 workers running"


async def test_the_step_line_on_screen_drops_the_stale_go(tmp_path: Path) -> None:
    app = fixed_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        fill(app)
        app.session.say("GO: 2 of 2 workers, T0 in 0.0 s")
        app.redraw()
        await pilot.pause()
        shown = str(app.screen.query_one(StepLog).render())
        assert "T0 in" not in shown and "the load runs since T0" in shown


def test_the_partitions_screen_gives_the_emulators_clock() -> None:
    words = "".join(part for part, _ in clock_words({**PARTITIONS, "now_s": 612.4}))
    assert words == "\nemulator clock now 612 s  (hot since, split at: on this clock)"
    without = {key: value for key, value in PARTITIONS.items() if key != "now_s"}
    assert clock_words(without) == ()  # a map without a clock says nothing of it


async def test_the_export_toast_shows_the_file_and_its_folder_whole(tmp_path: Path) -> None:
    app = fixed_app(tmp_path)
    path = Path.cwd() / "runs" / "hb-1130120000-cafe" / "console-results.json"
    assert export_words(path) == "written console-results.json\nin runs/hb-1130120000-cafe/"
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        fill(app, results=True)
        app._exported(path)
        await pilot.pause()
        await pilot.pause(0.3)
        toast = app.screen.query(Toast).last()
        lines = [line.text for line in toast.render_lines(toast.region.reset_offset)]
        text = " ".join(" ".join(lines).split())
        assert "written console-results.json" in text
        assert "in runs/hb-1130120000-cafe/" in text


def test_a_partitions_use_so_far_is_in_seconds_of_its_limit() -> None:
    """The emulator's utilisation_total is seconds of the partition's limit, not units:
    shown bare it read `used 2` for a partition that had taken 2 s of 1,000 WCU/s."""
    from console.tui.widgets.partition_map import busy_words

    assert busy_words(2.04) == "2.0 s"
    assert busy_words(412.3) == "412 s"
    assert busy_words(None) == "-"


async def test_the_partitions_screen_after_down_says_nothing_is_up(tmp_path: Path) -> None:
    """After destroy it said `waiting for the emulator's partition map…` for ever."""
    from textual.widgets import Static

    from console.run.state import Status, Step

    app = fixed_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        fill(app, results=True)
        assert app.session.state is not None
        app.session.state.record(Step.DOWN).status = Status.DONE
        app.session.state.emulator = None
        app.session.partitions = {}
        await pilot.press("5")
        app.redraw()
        await pilot.pause()
        head = str(app.screen.query_one("#partitions-head", Static).render())
        keys = str(app.screen.query_one("#partitions-keys", Static).render())
        assert head.startswith("Nothing is up") and "waiting" not in keys
