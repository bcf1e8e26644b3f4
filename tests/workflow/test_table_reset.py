"""A resumed `run` meets the table a fresh run meets: a table an interrupted attempt may
have heated or split is made anew (same name, same tags, the spec's partitions), seeded
again, and earlier repeats of it run again first; a table that is not the run's is
refused, not mixed (console/workflow/table_reset.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from console.run.errors import StateError
from console.run.hooks import Hooks
from console.run.state import RunState, Status, TableRun
from console.run.tables import table_state
from console.workflow.table_reset import RUN_ID_TAG, restarts, restore_tables
from console.workflow.tablerun import restart_note
from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from loadgen.format.playbook import load_playbook
from tests.conftest import ROOT
from tests.emulator.server.conftest import client

RUN_ID = "hb-1201090000-beef"
PLAYBOOK = load_playbook(ROOT / "playbooks" / "hot-partition.yaml")


@pytest.fixture
def emu() -> Iterator[EmulatorServer]:
    with EmulatorServer(EmulatorOptions(create_delay_s=0)) as server:
        yield server


def _partitions(emu: EmulatorServer, name: str) -> int:
    view = emu.partitions(name)
    return int(next(i for i in view["indexes"] if not i.get("index"))["partition_count"])


def _state(ddb: Any, runs: list[TableRun], tags: dict[str, str] | None = None) -> RunState:
    spec = next(t for t in PLAYBOOK.tables if t.name == "badOnDemand")
    name = f"{RUN_ID}-badOnDemand"
    ddb.create_table(**spec.create_table_request(name, tags=tags or {RUN_ID_TAG: RUN_ID}))
    table = table_state(spec, name)
    table.seeded_items = 1500
    return RunState(
        run_id=RUN_ID,
        target="local",
        region="us-east-1",
        playbook_path=str(ROOT / "playbooks" / "hot-partition.yaml"),
        playbook_name="hot-partition",
        tables={"badOnDemand": table},
        table_runs=runs,
    )


def _heat(emu: EmulatorServer, ddb: Any, name: str) -> None:
    """Split the table as an attempt's load may have: warm throughput pre-splits it (a
    split for heat does the same to the partition map, after minutes of heat)."""
    ddb.update_table(TableName=name, WarmThroughput={"WriteUnitsPerSecond": 12_000})
    emu.skip(120)  # the raise lands
    ddb.describe_table(TableName=name)


def test_an_interrupted_repeat_gets_a_fresh_table_and_its_earlier_repeats_run_again(
    emu: EmulatorServer,
) -> None:
    ddb = client(emu.endpoint_url)
    runs = [
        TableRun(variant="badOnDemand", repeat=1, status=Status.DONE, result_path="r1.json"),
        TableRun(variant="badOnDemand", repeat=2, status=Status.FAILED, interrupted=True),
        TableRun(variant="badOnDemand", repeat=3),
    ]
    state = _state(ddb, runs)
    name = state.tables["badOnDemand"].name
    fresh = _partitions(emu, name)
    _heat(emu, ddb, name)
    assert _partitions(emu, name) > fresh  # what the old resume ran #2 on
    said: list[str] = []
    saves: list[int] = []
    restore_tables(state, PLAYBOOK, ddb, Hooks(say=said.append), lambda: saves.append(1))
    assert _partitions(emu, name) == fresh  # the table a fresh run meets
    tags = ddb.list_tags_of_resource(
        ResourceArn=ddb.describe_table(TableName=name)["Table"]["TableArn"]
    )["Tags"]
    assert {"Key": RUN_ID_TAG, "Value": RUN_ID} in tags  # still the run's (down, sweep)
    assert state.tables["badOnDemand"].seeded_items is None  # seeded again
    assert [(tr.repeat, tr.status) for tr in state.table_runs] == [
        (1, Status.PENDING),
        (2, Status.PENDING),
        (3, Status.PENDING),
    ]
    first, second, third = state.table_runs
    assert first.restart is not None and first.restart.attempt_of == "badOnDemand#2"
    assert second.restart is not None and second.restart.after == "interrupted"
    assert third.restart is None and first.result_path is None
    assert saves == [1]
    assert "badOnDemand#2 was interrupted during its table run" in said[0]
    assert "badOnDemand#1 run again first" in said[0]
    assert "run again on a table made anew: badOnDemand#2 was interrupted" in restart_note(first)
    assert restarts(state) == {}  # nothing left to restore: the next resume runs on


def test_a_killed_attempt_counts_and_a_finished_run_needs_nothing(emu: EmulatorServer) -> None:
    ddb = client(emu.endpoint_url)
    state = _state(ddb, [TableRun(variant="badOnDemand", repeat=1, status=Status.RUNNING)])
    assert restarts(state)["badOnDemand"].after == "killed"
    state.table_runs[0].status = Status.DONE
    assert restarts(state) == {}


def test_a_table_that_is_not_the_runs_is_refused_not_run_on(emu: EmulatorServer) -> None:
    ddb = client(emu.endpoint_url)
    runs = [TableRun(variant="badOnDemand", repeat=1, status=Status.FAILED, interrupted=True)]
    state = _state(ddb, runs, tags={RUN_ID_TAG: "hb-someone-else"})
    with pytest.raises(StateError, match="not this run's"):
        restore_tables(state, PLAYBOOK, ddb, Hooks(), lambda: None)
    assert ddb.describe_table(TableName=state.tables["badOnDemand"].name)["Table"]
    assert state.table_runs[0].status == Status.FAILED  # left as it was


class _WithInsights:
    """moto's DynamoDB client, answering the two Contributor Insights calls moto lacks
    as DynamoDB does (DescribeContributorInsights, UpdateContributorInsights)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.enabled: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def describe_contributor_insights(self, TableName: str) -> dict[str, Any]:
        return {"TableName": TableName, "ContributorInsightsStatus": "ENABLED"}

    def update_contributor_insights(self, **request: Any) -> dict[str, Any]:
        assert request["ContributorInsightsAction"] == "ENABLE"
        self.enabled.append(request["TableName"])
        return {"ContributorInsightsStatus": "ENABLING"}


@pytest.mark.usefixtures("aws")
def test_on_aws_a_table_the_run_owns_is_made_anew_with_its_tags() -> None:
    """moto: DeleteTable, CreateTable with the table's own tags (Terraform's default tags
    and the run id: `down`'s sweep finds it by them), Contributor Insights enabled again."""
    import boto3

    from console.workflow.table_reset import recreate_table

    ddb = _WithInsights(boto3.client("dynamodb", region_name="us-east-1"))
    spec = next(t for t in PLAYBOOK.tables if t.name == "bad")
    name = f"{RUN_ID}-bad"
    tags = {RUN_ID_TAG: RUN_ID, "hotbench:owner": "arn:aws:iam::123456789012:user/me"}
    ddb.create_table(**spec.create_table_request(name, tags=tags))
    ddb.update_table(
        TableName=name, ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
    )
    recreate_table(ddb, PLAYBOOK, "bad", name, RUN_ID, "us-east-1")
    table = ddb.describe_table(TableName=name)["Table"]
    assert table["ProvisionedThroughput"]["WriteCapacityUnits"] == spec.write_capacity
    listed = ddb.list_tags_of_resource(ResourceArn=table["TableArn"])["Tags"]
    assert {t["Key"]: t["Value"] for t in listed} == tags
    assert ddb.enabled == [name]
