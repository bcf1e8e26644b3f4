"""Seeding as an operator sees it: its expected time in the plan, and a progress bar with
the time left while it runs."""

from __future__ import annotations

from loadgen.playbook import load_playbook
from tests.conftest import PLAYBOOKS


def test_seeding_reports_a_bar_and_the_time_left_and_the_plan_its_expected_time() -> None:
    """Seeding 15,000 items at --scale 0.1 takes minutes: the plan says so first, and the
    seeding prints a bar with the time left every 10 %, never going silent."""
    from console.workflow import UpOptions, load_settings, plan
    from loadgen.seed import seed_count, seed_rate, seed_table

    path = PLAYBOOKS / "hot-partition.yaml"
    report = plan(str(path), load_settings(target="local"), UpOptions(scale=0.1))
    playbook = load_playbook(path)
    bad = playbook.table("bad")
    assert round(bad.seed_items / seed_rate(playbook, bad, 0.1)) == 100  # 3 keys x 1,000 x 0.1 / 2
    assert 300 < report.seed_s < 400  # the four tables, one after another

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
