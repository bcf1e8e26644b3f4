"""`watch` on AWS: CloudWatch's 1-minute series of each table and GSI (moto's CloudWatch,
fed with DynamoDB's metric names and dimensions), each minute once, and the metrics
requested counted in the state for the tally."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import boto3
import pytest

from console.run.settings import Settings
from console.run.state import (
    IndexState,
    RunState,
    StateStore,
    Status,
    Step,
    TableState,
    utc_now,
)
from console.workflow.watching import Watcher


def test_cloudwatch_minutes_per_table_and_gsi(aws: object, tmp_path: Path) -> None:
    settings = Settings(target="aws", region="us-east-1", runs_dir=tmp_path / "runs")
    store = StateStore(settings.runs_dir)
    state = RunState(
        run_id="r1",
        target="aws",
        region="us-east-1",
        playbook_path="p.yaml",
        playbook_name="p",
    )
    state.tables["goodGsi"] = TableState(
        variant="goodGsi",
        name="hotbench-r1-goodGsi",
        billing_mode="PROVISIONED",
        read_capacity=1000,
        write_capacity=10000,
        created_at=utc_now(),
        gsis=[IndexState(name="byWarehouse", read_capacity=1000, write_capacity=10000)],
    )
    state.record(Step.UP).status = Status.DONE
    store.save(state)
    minute = (utc_now() - timedelta(minutes=2)).replace(second=0, microsecond=0)
    table_dims = [{"Name": "TableName", "Value": "hotbench-r1-goodGsi"}]
    gsi_dims = [*table_dims, {"Name": "GlobalSecondaryIndexName", "Value": "byWarehouse"}]
    boto3.client("cloudwatch", region_name="us-east-1").put_metric_data(
        Namespace="AWS/DynamoDB",
        MetricData=[
            {
                "MetricName": "ConsumedWriteCapacityUnits",
                "Dimensions": table_dims,
                "Timestamp": minute,
                "Value": 240_000.0,
                "Unit": "Count",
            },
            {
                "MetricName": "ConsumedWriteCapacityUnits",
                "Dimensions": gsi_dims,
                "Timestamp": minute,
                "Value": 195_000.0,
                "Unit": "Count",
            },
            {
                "MetricName": "WriteThrottleEvents",
                "Dimensions": gsi_dims,
                "Timestamp": minute,
                "Value": 45_000.0,
                "Unit": "Count",
            },
            {
                "MetricName": "WriteKeyRangeThroughputThrottleEvents",
                "Dimensions": gsi_dims,
                "Timestamp": minute,
                "Value": 45_000.0,
                "Unit": "Count",
            },
        ],
    )
    watcher = Watcher(store, "r1", settings, 1.0, None)
    frame = watcher.frame(store.load("r1"))
    by_index = {(s.table, s.index): s for s in frame.samples}
    table, gsi = by_index[("goodGsi", None)], by_index[("goodGsi", "byWarehouse")]
    assert all(s.source == "cloudwatch" and s.period_s == 60 for s in frame.samples)
    assert table.consumed_wcu == pytest.approx(4000.0)  # Sum / 60
    assert gsi.consumed_wcu == pytest.approx(3250.0)
    assert gsi.throttled == 45_000
    assert gsi.throttled_by_reason == {"IndexWriteKeyRangeThroughputExceeded": 45_000}
    # 12 metrics for the table and 12 for its GSI, counted for the tally
    assert store.load("r1").usage.get_metric_data_metrics == 24
    # the next poll a minute later does not repeat the same minute
    watcher.source(store.load("r1")).next_at = 0.0  # as a minute later
    again = watcher.frame(store.load("r1"))
    assert [s for s in again.samples if s.start == minute] == []
    assert store.load("r1").usage.get_metric_data_metrics == 48
