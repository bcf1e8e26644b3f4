"""The plan shows, times and prices the seeding the run does: `--seed-items N` of `run`
and of the console caps each table's seeded items in the plan too (the console's plan
showed the playbook's count and wait while its run seeded N)."""

from __future__ import annotations

from pathlib import Path

from console.cli import build_parser
from console.commands.workflow import up_options
from console.run.options import UpOptions
from console.workflow import load_settings, plan
from tests.conftest import PLAYBOOKS

M1 = PLAYBOOKS / "hot-partition.yaml"


def test_the_plan_seeds_what_the_run_will(tmp_path: Path) -> None:
    settings = load_settings(target="local", runs_dir=str(tmp_path))
    whole = plan(M1, settings, UpOptions())
    capped = plan(M1, settings, UpOptions(seed_items=300))
    assert {t.seed_items for t in whole.tables} == {15_000}
    assert {t.seed_items for t in capped.tables} == {300}
    assert 0 < capped.seed_s < whole.seed_s
    seeding = [x for x in capped.lines if "seeding" in x.what and "writes" in x.what]
    assert seeding and seeding[0].quantity < 0.005  # 1,200 items' units, in millions


def test_the_consoles_seed_items_reach_its_plan() -> None:
    args = build_parser(["console"]).parse_args(
        ["console", str(M1), "--seed-items", "300", "--runs-dir", "x"]
    )
    assert up_options(args).seed_items == 300
