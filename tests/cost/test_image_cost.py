"""The worker image's cost through the one record: CodeBuild minutes, ECR and S3 storage,
priced the same way in the plan (expected) and the tally (from the state)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from console.cost import ImageUse, UsageRecord, price, price_table
from console.cost.rules import codebuild_billed_minutes
from console.run.options import UpOptions
from console.run.settings import Settings
from console.run.state import ImageState, RunState, TerraformState
from console.workflow.planning import make_plan
from console.workflow.run_cost import record_of_state, tally_state

MONTH_S = 730 * 3600
PRICES = price_table("us-east-1")


def lines_of(record: UsageRecord) -> dict[str, float]:
    return {x.what: x.usd for x in price(record, PRICES).lines}


def test_codebuild_rounds_each_build_up_to_the_minute() -> None:
    assert codebuild_billed_minutes(0) == 0
    assert codebuild_billed_minutes(60) == 1
    assert codebuild_billed_minutes(61) == 2


def test_an_in_account_build_prices_minutes_archive_and_storage() -> None:
    image = ImageUse(
        build_minutes=4,
        image_gb=0.2,
        stored_s=MONTH_S / 2,
        source_gb=0.001,
        source_stored_s=MONTH_S,
        source_puts=1,
        source_gets=1,
    )
    got = lines_of(UsageRecord(image=image))
    assert got == pytest.approx(
        {
            "image build (CodeBuild)": 4 * 0.005,
            "image storage (ECR)": 0.2 * 0.5 * 0.10,
            "image sources (S3)": 0.001 * 0.023,
            "image sources (S3 PUT)": 0.005 / 1000,
            "image sources (S3 GET)": 0.0004 / 1000,
        }
    )


def test_an_arm64_build_is_listed_not_priced() -> None:
    bill = price(UsageRecord(image=ImageUse(build_minutes=3, architecture="ARM64")), PRICES)
    assert not bill.lines
    assert any("CodeBuild ARM64: no price recorded; 3 build-minutes" in n for n in bill.notes)


def plan_lines(tmp_path: Path, **settings: object) -> dict[str, float]:
    report = make_plan(
        "playbooks/smoke.yaml",
        Settings(target="aws", runs_dir=tmp_path, fleet="ecs", **settings),  # type: ignore[arg-type]
        UpOptions(workers=1),
    )
    return {x.what: x.usd for x in report.lines if x.what.startswith("image ")}


def test_the_plan_prices_the_path_the_run_will_take(tmp_path: Path) -> None:
    in_account = plan_lines(tmp_path, image_builder="codebuild")
    assert in_account["image build (CodeBuild)"] == pytest.approx(5 * 0.005)  # 300 s
    assert {"image storage (ECR)", "image sources (S3)", "image sources (S3 PUT)"} <= set(
        in_account
    )
    given = plan_lines(tmp_path, worker_image=f"public.ecr.aws/a/w@sha256:{'0' * 64}")
    assert given == {}  # stored elsewhere, built by nobody here


def test_the_tally_bills_the_build_and_storage_the_state_records() -> None:
    t0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    state = RunState(
        run_id="hb-cost",
        target="aws",
        region="us-east-1",
        playbook_path="p.yaml",
        playbook_name="p",
        created_at=t0,
        terraform=TerraformState(
            workdir="w",
            variables={"cpu_architecture": "X86_64"},
            destroyed_at=t0 + timedelta(hours=2),
        ),
        image=ImageState(
            reference="r@sha256:" + "1" * 64,
            digest="sha256:" + "1" * 64,
            builder="codebuild",
            size_bytes=150_000_000,
            pushed_at=t0 + timedelta(minutes=10),
            build_id="hotbench-hb-cost-image:1",
            build_started_at=t0 + timedelta(minutes=5),
            build_finished_at=t0 + timedelta(minutes=9, seconds=1),  # 4 min 1 s: 5 billed
            source_bytes=1_500_000,
            source_uploaded_at=t0 + timedelta(minutes=5),
        ),
    )
    image = record_of_state(state, now=t0 + timedelta(days=30)).image
    assert image is not None
    assert image.build_minutes == 5
    assert image.stored_s == pytest.approx(110 * 60)  # push to destroy, not to "now"
    assert image.source_stored_s == pytest.approx(115 * 60)
    tally = tally_state(state, now=t0 + timedelta(days=30))
    got = {x.what: x.usd for x in tally.lines}
    assert got["image build (CodeBuild)"] == pytest.approx(0.025)
    assert got["image storage (ECR)"] == pytest.approx(0.15 * 110 * 60 / MONTH_S * 0.10)
    assert state.image is not None
    given = state.model_copy(update={"image": state.image.model_copy(update={"builder": "given"})})
    assert record_of_state(given).image is None


def test_an_image_build_on_its_own_is_priced_until_the_deadline() -> None:
    from console.cost.estimate import image_estimate

    bill = image_estimate("codebuild", "X86_64", MONTH_S, PRICES)
    got = {x.what: x.usd for x in bill.lines}
    assert got["image build (CodeBuild)"] == pytest.approx(0.025)
    assert got["image storage (ECR)"] == pytest.approx(0.15 * 0.10)  # a month of 0.15 GB
    local = {x.what for x in image_estimate("local", "X86_64", MONTH_S, PRICES).lines}
    assert local == {"image storage (ECR)"}
