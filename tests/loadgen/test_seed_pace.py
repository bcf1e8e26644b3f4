"""Seeding keeps its pace on the emulator's clock where that clock can be skipped: the
tables see the same gentle seed (no throttle, the pace's seconds pass on their clock)
while the wall clock waits only for the writes, whatever the run's --scale."""

from __future__ import annotations

from pathlib import Path

import boto3
import pytest

from emulator.emulator_options import EmulatorOptions
from loadgen.format.playbook import load_playbook
from loadgen.load.seed import seed_rate, seed_table

ROOT = Path(__file__).resolve().parents[2]


class _Client:
    """Takes every batch (BatchWriteItem with nothing unprocessed)."""

    def __init__(self) -> None:
        self.items = 0

    def batch_write_item(self, RequestItems: dict[str, list[object]]) -> dict[str, object]:
        self.items += sum(len(v) for v in RequestItems.values())
        return {}


def test_a_skipped_pace_waits_on_the_tables_clock_not_the_wall(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """M1's bad table at --scale 0.1 is paced at 150 items/s (10 s for 1,500 items): with
    a skip, the seeder never sleeps the pace, and what it skips plus the wall time it took
    adds up to the pace's 10 s (no more: the tables would see an idle gap; no less: they
    would see a burst)."""
    import loadgen.load.seed as seed

    playbook = load_playbook(ROOT / "playbooks" / "hot-partition.yaml")
    spec = playbook.table("bad")
    rate = seed_rate(playbook, spec, 0.1)
    assert rate == pytest.approx(150)

    def no_sleep(seconds: float) -> None:
        raise AssertionError(f"the seeder slept {seconds:.2f} s with a skippable clock")

    monkeypatch.setattr(seed.time, "sleep", no_sleep)
    wall = [0.0]
    monkeypatch.setattr(seed.time, "monotonic", lambda: wall[0])  # the writes take no time
    skips: list[float] = []
    lines: list[str] = []
    client = _Client()
    written = seed_table(
        client, "t", playbook, spec, 0.1, limit=1_500, progress=lines.append, skip=skips.append
    )
    assert written == client.items == 1_500
    assert sum(skips) == pytest.approx(1_500 / rate)
    assert all(s >= seed.SKIP_MIN_S for s in skips[:-1])  # not one request per batch
    assert "its 10 s are skipped" in lines[0] and "s real" in lines[0]
    assert lines[-1].startswith("seeding t [##########] 1,500 of 1,500 items (100 %)")


def test_seeding_the_emulator_at_a_low_scale_passes_the_pace_on_its_clock() -> None:
    """Against the real emulator at --scale 0.1: 600 items of M1's bad table (4 s of pace)
    are all written, none throttled, and the emulator's clock moved by at least the pace
    (its own wall seconds included)."""
    from emulator.server import EmulatorServer
    from loadgen.live.playbook_run import LOCAL_CREDENTIALS

    playbook = load_playbook(ROOT / "playbooks" / "hot-partition.yaml")
    spec = playbook.table("bad")
    with EmulatorServer(EmulatorOptions(scale=0.1, create_delay_s=0, store="keys"), port=0) as emu:
        client = boto3.client(
            "dynamodb",
            endpoint_url=str(emu.endpoint_url),
            region_name="us-east-1",
            aws_access_key_id=LOCAL_CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=LOCAL_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        )
        client.create_table(**spec.create_table_request("bad"))
        before = emu.service.state.now()
        written = seed_table(client, "bad", playbook, spec, 0.1, limit=600, skip=emu.skip)
        passed = emu.service.state.now() - before
        totals = emu.service.state.metrics.series["bad"][None].totals
        count = client.scan(TableName="bad", Select="COUNT")["Count"]
    assert written == count == 600
    assert totals.throttled == 0
    assert passed >= 600 / seed_rate(playbook, spec, 0.1)
