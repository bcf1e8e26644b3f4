"""The reaper re-reads a run's state as soon as its file changes, not at its next 30 s poll:
a deadline brought forward is acted on within a second."""

from __future__ import annotations

from pathlib import Path

import pytest

from console.workflow import reaper


class FakeTime:
    """A clock that moves only when the reaper sleeps; the file changes at a given sleep."""

    def __init__(self, state_file: Path, change_at_sleep: int | None) -> None:
        self.now = 0.0
        self.sleeps = 0
        self.state_file = state_file
        self.change_at_sleep = change_at_sleep

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps += 1
        self.now += seconds
        if self.sleeps == self.change_at_sleep:
            tmp = self.state_file.with_name(".state.json.tmp")
            tmp.write_text('{"changed": true}')
            tmp.replace(self.state_file)  # as StateStore.save does: a rename


@pytest.mark.parametrize("change_at_sleep", [3, None])
def test_a_changed_state_file_ends_the_sleep(tmp_path: Path, change_at_sleep: int | None) -> None:
    state_file = tmp_path / "state.json"
    state_file.write_text("{}")
    fake = FakeTime(state_file, change_at_sleep)
    reaper._sleep(state_file, 30.0, fake.monotonic, fake.sleep)
    if change_at_sleep is None:  # unchanged: the whole 30 s, a second at a time
        assert fake.sleeps == 30 and fake.now == pytest.approx(30.0)
    else:
        assert fake.sleeps == change_at_sleep and fake.now == pytest.approx(change_at_sleep)


def test_a_removed_state_file_ends_the_sleep(tmp_path: Path) -> None:
    state_file = tmp_path / "state.json"
    state_file.write_text("{}")
    fake = FakeTime(state_file, None)

    def sleep_then_remove(seconds: float) -> None:
        fake.sleep(seconds)
        state_file.unlink(missing_ok=True)

    reaper._sleep(state_file, 30.0, fake.monotonic, sleep_then_remove)
    assert fake.sleeps == 1
