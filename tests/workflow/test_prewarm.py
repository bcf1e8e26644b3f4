"""`prewarm` against the emulator as the DynamoDB endpoint: UpdateTable WarmThroughput on
a table and a GSI, DescribeTable until ACTIVE (the emulator holds a raise UPDATING for
its model's 60 s, skipped here on its clock), partition counts from /_hotbench/partitions.
"""

from __future__ import annotations

import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from console.run.settings import Settings
from console.run.state import EmulatorProcess, RunState, StateStore, Status, Step
from console.run.tables import table_state
from console.workflow import Hooks, WarmTarget, prewarm
from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from loadgen.format.playbook import load_playbook
from loadgen.live.playbook_run import LOCAL_CREDENTIALS
from loadgen.live.resultstore import make_client
from tests.conftest import WAIT_S

PLAYBOOK = """\
name: warm
tables:
  - name: od
    partition_key: {name: pk}
    billing_mode: PAY_PER_REQUEST
    gsis:
      - {name: byShelf, partition_key: {name: shelf}}
load:
  attributes:
    pk: {dist: uniform, count: 10}
    shelf: {dist: uniform, count: 10}
  phases: [{rate: 1, duration_s: 1}]
"""


def _up_by_hand(tmp_path: Path, server: EmulatorServer) -> tuple[Settings, StateStore, Any]:
    """The state `up` would leave for PLAYBOOK's table on `server`, made directly (this
    test is about prewarm), with a client of that endpoint."""
    playbook = tmp_path / "warm.yaml"
    playbook.write_text(PLAYBOOK)
    settings = Settings(runs_dir=tmp_path / "runs")
    client = make_client(server.endpoint_url, "us-east-1", LOCAL_CREDENTIALS)
    spec = load_playbook(playbook).tables[0]
    client.create_table(**spec.create_table_request("hb-w-od"))
    store = StateStore(settings.runs_dir)
    state = RunState(
        run_id="hb-w",
        target="local",
        region="us-east-1",
        playbook_path=str(playbook),
        playbook_name="warm",
        emulator=EmulatorProcess(
            pid=os.getpid(),
            port=int(server.endpoint_url.rsplit(":", 1)[1]),
            scale=1.0,
            started_at=datetime.now(UTC),
            log_path="-",
        ),
    )
    state.tables["od"] = table_state(spec, "hb-w-od")
    state.record(Step.UP).status = Status.DONE
    store.save(state)
    return settings, store, client


def test_prewarm_raises_table_and_gsi_and_waits_until_active(tmp_path: Path) -> None:
    with EmulatorServer(EmulatorOptions(create_delay_s=0)) as server:
        settings, store, client = _up_by_hand(tmp_path, server)
        said: list[str] = []
        progress: list[float | None] = []

        done = threading.Event()

        def skip_when_updating() -> None:
            # the operator's wait, shortened: whenever a raise (the table's or the index's,
            # which prewarm may issue one after the other) is UPDATING, advance the
            # emulator's clock past its 60 s; until prewarm has returned
            while not done.wait(0.05):
                table = client.describe_table(TableName="hb-w-od")["Table"]
                states = [table["WarmThroughput"]["Status"]] + [
                    g["WarmThroughput"]["Status"] for g in table["GlobalSecondaryIndexes"]
                ]
                if "UPDATING" in states:
                    server.skip(61)

        helper = threading.Thread(target=skip_when_updating)
        helper.start()
        prewarm(
            "hb-w",
            settings,
            Hooks(say=said.append, progress=lambda _w, f: progress.append(f)),
            targets=[
                WarmTarget("od", None, read=20_000, write=8_000),
                WarmTarget("od", "byShelf", read=15_000, write=6_000),
            ],
            timeout_s=WAIT_S,  # a bound: the skips above make the wait short
        )
        done.set()
        helper.join()
        table = client.describe_table(TableName="hb-w-od")["Table"]
        assert table["WarmThroughput"] == {
            "ReadUnitsPerSecond": 20_000,
            "WriteUnitsPerSecond": 8_000,
            "Status": "ACTIVE",
        }
        gsi = table["GlobalSecondaryIndexes"][0]["WarmThroughput"]
        assert (gsi["ReadUnitsPerSecond"], gsi["WriteUnitsPerSecond"], gsi["Status"]) == (
            15_000,
            6_000,
            "ACTIVE",
        )
    after = store.load("hb-w")
    assert after.record(Step.PREWARM).status == Status.DONE
    assert (after.tables["od"].warm_read, after.tables["od"].warm_write) == (20_000, 8_000)
    assert (after.tables["od"].gsis[0].warm_read, after.tables["od"].gsis[0].warm_write) == (
        15_000,
        6_000,
    )
    assert progress[-1] == 1.0
    assert any("od: warm throughput -> 20,000 read / 8,000 write" in s for s in said)
    assert any(s.startswith("od: ") and "partition(s)" in s for s in said)
    assert any(s.startswith("od/byShelf: ") and "partition(s)" in s for s in said)


def test_a_lower_warm_value_is_not_sent(tmp_path: Path) -> None:
    """Warm throughput can only be raised: asking for less than the table has is a no-op
    with a message, not an UpdateTable that AWS would refuse."""
    with EmulatorServer(EmulatorOptions(create_delay_s=0)) as server:
        settings, _store, _client = _up_by_hand(tmp_path, server)
        said: list[str] = []
        prewarm(
            "hb-w",
            settings,
            Hooks(say=said.append),
            targets=[WarmTarget("od", None, read=100, write=100)],
            timeout_s=5,
        )
    assert "od: already warm at 12,000 read / 4,000 write units/s" in said
