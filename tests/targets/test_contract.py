"""The Target contract: the same cases over every target, local on the emulator and AWS
on the rehearsal (conftest.py). A third target joins by adding its fixture here."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from console.run.settings import Settings
from console.run.state import StateStore
from console.targets import Target, target_for, target_named
from console.workflow import Hooks, RunOptions, UpOptions, down, run, up
from tests.targets.conftest import TINY, Rehearsal

RUN_ID = "hb-contract"


@dataclass
class Place:
    settings: Settings
    store: StateStore
    playbook: Path


@pytest.fixture
def local_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    from console.run import processes

    monkeypatch.setenv("HOTBENCH_PURE", "1")
    playbook = tmp_path / "tiny.yaml"
    playbook.write_text(TINY)
    settings = Settings(target="local", runs_dir=tmp_path / "runs")
    store = StateStore(settings.runs_dir)
    yield Place(settings, store, playbook)
    for state in store.all_runs():  # what a failing test left, by pid, only if ours
        if state.emulator is not None:
            processes.stop(state.emulator.pid, f"emulator serve --port {state.emulator.port} ")
        if state.reaper_pid is not None:
            processes.stop(state.reaper_pid, state.run_id)


# The AWS rehearsal's place is a whole lifecycle over moto, a fake Terraform and fake tasks
# (15-30 s a case): left out of make test-fast; the local place keeps the contract there.
@pytest.fixture(params=["local", pytest.param("aws", marks=pytest.mark.e2e)])
def place(request: pytest.FixtureRequest) -> Place:
    if request.param == "local":
        found: Place = request.getfixturevalue("local_place")
        return found
    rehearsal: Rehearsal = request.getfixturevalue("rehearsal")
    return Place(rehearsal.settings, rehearsal.store, rehearsal.playbook)


def test_a_target_is_built_from_the_run_not_the_settings(place: Place) -> None:
    """A later command with other settings (another target, another region) acts on the
    run's own target and region."""
    state = up(
        str(place.playbook),
        place.settings,
        Hooks(confirm=lambda _q: True),
        UpOptions(workers=1),
        RUN_ID,
    )
    try:
        other = place.settings.model_copy(
            update={
                "target": "aws" if place.settings.target == "local" else "local",
                "region": "eu-west-3",
            }
        )
        target = target_for(state, other)
        assert target.name == place.settings.target
        assert target.settings.region == state.region == place.settings.region
    finally:
        down(RUN_ID, place.settings, Hooks())


def test_the_lifecycle_of_a_run(place: Place) -> None:
    """up, the run's own client, the shared clock, a run, the billed usage, the metrics
    and hot-key views, down, the sweep, and down again: the same promises everywhere."""
    hooks = Hooks(confirm=lambda _q: True)
    target: Target = target_named(place.settings)
    state = up(str(place.playbook), place.settings, hooks, UpOptions(workers=2, scale=1.0), RUN_ID)
    try:
        # the tables are where the target says, named as it names them
        client = target.dynamodb_client(state)
        for variant, table in state.tables.items():
            assert table.name == target.table_name(RUN_ID, variant)
            assert client.describe_table(TableName=table.name)["Table"]["TableStatus"] == "ACTIVE"
        assert state.results_table is not None
        # the clock T0 is taken from agrees with this machine's within seconds
        clock = target.clock()
        assert abs(clock() - time.time()) < 5.0
        # a run completes, and each worker's billed span is bounded by the run
        result = run(RUN_ID, place.settings, hooks, RunOptions())
        (only,) = result.runs
        assert only.totals().succeeded == only.offered == 120, only.notes
        state = place.store.load(RUN_ID)
        table_run = state.table_runs[0]
        assert table_run.started_at is not None and table_run.finished_at is not None
        # metrics come as samples of this run's tables (or none yet), never an error
        samples = target.metrics_source().samples(state, flush=True)
        assert all(s.table in state.tables for s in samples)
        # the hot-key view the target names is the one it serves
        shown = target.partition_map(state, "hot")
        assert (shown is not None) == (target.hot_key_view == "partitions")
        assert target.insights(state, "hot") is None  # the playbook enables none
    finally:
        report = down(RUN_ID, place.settings, Hooks())
    assert report.nothing_left, report.leftovers
    assert target.sweep(place.store.load(RUN_ID)) == []
    assert not place.store.load(RUN_ID).billable_up


def test_no_branch_on_a_target_name_outside_the_targets() -> None:
    """Steps, the console and the commands ask the target; only console/targets/ turns
    a name into an implementation."""
    import re

    root = Path(__file__).resolve().parents[2]
    pattern = re.compile(r"""target\s*[!=]=\s*["'](local|aws)["']""")
    found = [
        f"{path.relative_to(root)}:{n}"
        for package in ("console", "loadgen")
        for path in (root / package).rglob("*.py")
        if "targets" not in path.relative_to(root).parts
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == [], found
