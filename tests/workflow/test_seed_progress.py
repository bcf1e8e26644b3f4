"""Seeding as an operator sees it: its expected time in the plan, and a progress bar with
the time left while it runs."""

from __future__ import annotations

from loadgen.format.playbook import load_playbook
from tests.conftest import PLAYBOOKS


def test_seeding_reports_a_bar_and_the_time_left_and_the_plan_its_expected_time() -> None:
    """Seeding 15,000 items at --scale 0.1 is paced at 150 items/s (100 s), but locally
    that pace passes on the emulator's skipped clock: the plan gives the real wait (the
    emulator's write speed, seconds for the four tables, not the pace's minutes) and AWS
    the pace at full scale; the seeding prints a bar with the time left every 10 %."""
    from console.workflow import UpOptions, load_settings, plan
    from loadgen.load.seed import seed_count, seed_rate, seed_table

    path = PLAYBOOKS / "hot-partition.yaml"
    report = plan(str(path), load_settings(target="local"), UpOptions(scale=0.1))
    playbook = load_playbook(path)
    bad = playbook.table("bad")
    assert round(bad.seed_items / seed_rate(playbook, bad, 0.1)) == 100  # 3 keys x 1,000 x 0.1 / 2
    from loadgen.load.seed import EMULATOR_SEED_ITEMS_PER_S

    items = sum(t.seed_items for t in playbook.tables)
    assert report.seed_s == items / EMULATOR_SEED_ITEMS_PER_S  # 60,000 items, not 330 s
    assert report.seed_s < 60
    on_aws = plan(str(path), load_settings(target="aws"), UpOptions())
    assert on_aws.seed_s == sum(t.seed_items / seed_rate(playbook, t, 1.0) for t in playbook.tables)

    class Client:
        def batch_write_item(self, RequestItems: dict[str, list[object]]) -> dict[str, object]:
            return {}

    lines: list[str] = []
    spec = playbook.table("good")  # 5,000 item ids: paced by the table's 10,000 WCU
    written = seed_table(Client(), "t", playbook, spec, 1.0, limit=2_000, progress=lines.append)
    assert written == seed_count(playbook, spec, 2_000) == 2_000
    assert lines[0].startswith("seeding t: 2,000 items at 5,000 items/s, about 0 s")
    assert lines[-1].startswith("seeding t [##########] 2,000 of 2,000 items (100 %)")
    assert len(lines) == 11  # the plan line, then every 10 %


def test_the_commands_print_the_seeding_bar_as_it_is() -> None:
    """A step's line goes through rich: the bar's brackets are text, not markup (rich
    dropped `[#####.....]` as an unknown tag)."""
    import argparse

    from rich.console import Console

    from console.commands.workflow import hooks_for

    console = Console(record=True, width=120)
    hooks_for(console, argparse.Namespace()).say(
        "seeding t [#####.....] 1,500 of 3,000 items (50 %), ~1 s left"
    )
    assert "seeding t [#####.....] 1,500 of 3,000 items" in console.export_text()
