"""The saved snapshots under tests/importer/snapshots/ exercise the whole import offline:
every answer in them is valid against botocore's service models, replaying them needs
no credentials, and what the import makes of them is what their scenarios were made
from (tests/importer/scenarios.py)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import boto3
import numpy as np
import pytest
from botocore import xform_name
from botocore.stub import Stubber

from console.importer.import_result import ImportResult
from console.importer.import_run import ImportOptions, run_import
from console.importer.snapshot import revive
from tests.importer import scenarios

ORDERS = scenarios.SNAPSHOTS / "orders-day"
SESSIONS = scenarios.SNAPSHOTS / "sessions-no-insights"


def _documents(folder: Path) -> dict[str, Any]:
    out = {}
    for path in sorted(folder.rglob("*.json*")):
        raw = path.read_bytes()
        text = gzip.decompress(raw) if path.suffix == ".gz" else raw
        out[str(path.relative_to(folder)).removesuffix(".gz")] = json.loads(text)
    out["manifest.json"].pop("versions")
    return out


@pytest.mark.parametrize("name", sorted(scenarios.SAVED))
def test_the_saved_snapshots_are_what_the_scenarios_make(name: str, tmp_path: Path) -> None:
    """Regenerated through the live path, each snapshot is the saved one, answer for
    answer (else: python -m tests.importer.scenarios, and review the difference)."""
    fresh = scenarios.save(name, tmp_path / name)
    assert _documents(fresh) == _documents(scenarios.SNAPSHOTS / name)


@pytest.mark.parametrize("folder", [ORDERS, SESSIONS], ids=lambda p: p.name)
def test_every_saved_answer_is_valid_against_the_service_model(folder: Path) -> None:
    """Each answer goes through botocore's Stubber, which validates a response against
    the operation's output shape (timestamps revived as the parser would give them)."""
    docs = _documents(folder)
    calls = [d for k, d in docs.items() if k.startswith("calls/")]
    assert calls
    checked = 0
    for doc in calls:
        if "error" in doc:
            continue
        client = boto3.client(
            doc["service"],
            region_name="us-east-1",
            aws_access_key_id="x",
            aws_secret_access_key="x",
        )
        with Stubber(client) as stubber:
            stubber.add_response(
                xform_name(doc["operation"]),
                revive(doc["service"], doc["operation"], doc["response"]),
            )
        checked += 1
    assert checked == len(calls) - sum("error" in d for d in calls)


@pytest.fixture(scope="module")
def orders() -> ImportResult:
    return run_import(ImportOptions(from_saved=ORDERS))


@pytest.fixture(scope="module")
def orders_truth() -> dict[str, Any]:
    return scenarios.orders_day().truth


def test_replaying_needs_no_credentials(no_aws_credentials: None) -> None:
    result = run_import(ImportOptions(from_saved=SESSIONS))
    assert result.source == f"snapshot {SESSIONS}"
    assert [t.definition.name for t in result.tables] == ["sessions"]


def test_the_requests_per_minute_are_the_recorded_counts(
    orders: ImportResult, orders_truth: dict[str, Any]
) -> None:
    table = orders.tables[0]
    assert orders.window.periods == 1440
    by_op = {o.operation: o for o in table.operations}
    assert set(by_op) == {"PutItem", "GetItem", "Query"}
    for op, counts in orders_truth["requests"].items():
        assert np.array_equal(np.array(by_op[op].requests), counts), op
    assert np.array_equal(np.array(by_op["PutItem"].throttled), orders_truth["throttled"])
    assert table.requests_per_period()[720] == pytest.approx(
        sum(float(c[720]) for c in orders_truth["requests"].values())
    )


def test_the_hot_key_and_its_share_are_the_reports(
    orders: ImportResult, orders_truth: dict[str, Any]
) -> None:
    keys = {k.attribute: k for k in orders.tables[0].keys}
    customer = keys["customerId"]
    assert customer.hot[0].keys == (scenarios.HOT_CUSTOMER,)
    assert customer.hot[0].share == pytest.approx(orders_truth["hot_share"], rel=1e-12)
    assert customer.fit is not None and customer.fit.tail is not None
    assert customer.fit.unique == orders_truth["unique"]
    assert customer.fit.tail.exponent == pytest.approx(orders_truth["tail_exponent"], abs=0.01)
    assert sum(customer.fit.hot) + customer.fit.tail.mass == pytest.approx(1.0)
    sku = keys["sku"]
    assert sku.index == "bySku"
    assert sku.fit is not None and sku.fit.tail is not None
    assert sku.fit.tail.exponent == pytest.approx(orders_truth["sku_exponent"], abs=1e-6)
    courier = keys["courierId"]
    assert courier.fit is not None and courier.fit.tail is not None
    assert courier.fit.tail.exponent < 0.05  # 400 couriers, evenly
    throttled = next(
        r for r in orders.tables[0].reports if r.measure == "throttled" and r.index is None
    )
    assert [c.keys for c in throttled.contributors] == [(scenarios.HOT_CUSTOMER,)]
    assert throttled.total == float(orders_truth["throttled"].sum())


def test_the_throttles_by_reason_and_the_definition(
    orders: ImportResult, orders_truth: dict[str, Any]
) -> None:
    table = orders.tables[0]
    assert [(t.reason, t.index) for t in table.throttles] == [
        ("TableWriteKeyRangeThroughputExceeded", None)
    ]
    assert np.array_equal(np.array(table.throttles[0].per_period), orders_truth["throttled"])
    d = table.definition
    assert (d.billing_mode, d.provisioned.read, d.provisioned.write) == ("PROVISIONED", 1000, 1000)
    assert [(g.name, g.partition_key.name, g.projection) for g in d.gsis] == [
        ("bySku", "sku", "INCLUDE"),
        ("byCourier", "courierId", "KEYS_ONLY"),
    ]
    assert d.gsis[0].non_key_attributes == ("total",)
    assert (d.warm_throughput.read, d.warm_throughput.write, d.warm_status) == (
        30000,
        10000,
        "ACTIVE",
    )
    assert d.mean_item_bytes == 900 and table.item_bytes == 900
    assert d.created is not None and d.created.tzinfo is not None
    a = table.auto_scaling
    assert len(a.targets) == 6 and len(a.policies) == 6
    assert {(t.index, t.dimension.split(":")[-1], t.max_capacity) for t in a.targets} >= {
        (None, "WriteCapacityUnits", 10000),
        ("bySku", "WriteCapacityUnits", 10000),
    }
    assert all(
        p.target_value == 70.0 and p.policy_type == "TargetTrackingScaling" for p in a.policies
    )
    provisioned = table.series_of("ProvisionedWriteCapacityUnits")
    assert provisioned is not None and provisioned.returned == 288  # every fifth minute
    assert orders.missing == () and table.missing == ()


def test_insights_off_and_a_denied_permission_are_said_with_what_is_assumed() -> None:
    result = run_import(ImportOptions(from_saved=SESSIONS))
    table = result.tables[0]
    lines = [m.line() for m in (*result.missing, *table.missing)]
    assert any(
        line.startswith("sessions: may not call application-autoscaling:DescribeScalableTargets")
        and "assumes the capacity stays at what DescribeTable shows now" in line
        for line in lines
    )
    assert any(
        line.startswith("sessions: Contributor Insights is disabled")
        and "assumes sessionId uniform over 1,000,000 values" in line
        for line in lines
    )
    assert any(
        line.startswith("sessions/byUser: Contributor Insights is disabled") for line in lines
    )
    assert any("items of 2,048 bytes: 2.00 write units per write" in line for line in lines)
    assert all(k.fit is None and k.assumed_count == 1_000_000 for k in table.keys)
    assert table.auto_scaling.targets == ()
    assert [i.name for i in table.definition.lsis] == ["byExpiry"]
    assert table.definition.on_demand_max.write == 8000
    assert table.definition.gsis[0].on_demand_max.read is None  # -1: no maximum
