"""A live run whose emulator reaches its memory bound stops early, as a partial result
carrying the emulator's message, instead of running on (or being killed)."""

from __future__ import annotations

import time
from typing import Any

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from loadgen.format.playbook import parse_playbook
from loadgen.live.playbook_run import LiveOptions, run_playbook


def test_a_run_that_reaches_the_bound_stops_as_partial_with_the_message() -> None:
    playbook = parse_playbook(
        {
            "name": "fresh-keys",
            "tables": [
                {
                    "name": "fresh",
                    "partition_key": {"name": "id"},
                    "billing_mode": "PAY_PER_REQUEST",
                    "item_size_bytes": 1000,
                }
            ],
            "load": {
                "attributes": {"id": {"dist": "uuid"}},
                "phases": [{"name": "w", "operation": "put", "rate": 200, "duration_s": 40}],
            },
        }
    )
    # Any process is past 1 byte: the load's table is refused new items once it holds
    # 200 (the results table, smaller, keeps working, so the run ends cleanly).
    with EmulatorServer(EmulatorOptions(create_delay_s=0, store="keys", max_memory=1)) as emu:
        emu.service.state.memory.small_table_items = 200
        began = time.monotonic()
        result = run_playbook(
            playbook, LiveOptions(workers=1, scale=1.0, endpoint=emu.endpoint_url)
        )
        took = time.monotonic() - began
    (run,) = result.runs
    assert run.partial
    assert run.notes[0].startswith("stopped at t=")
    assert "memory bound" in run.notes[0] and "--max-memory" in run.notes[0]
    assert any("stopped by the coordinator" in n for n in run.notes), run.notes
    totals = run.to_json()
    assert totals["succeeded"] >= 200 - 1  # the first 200 new items went in
    assert totals["errors_by_type"].get("ValidationException", 0) > 0
    assert totals["sent"] == (
        totals["succeeded"] + totals["throttled"] + totals["errors"] + totals["timeouts"]
    )
    assert took < 30  # stopped, not run to its 40 s end


def test_the_in_process_emulator_uses_the_options_store_and_bound() -> None:
    from emulator.server.memory import SMALL_TABLE_ITEMS
    from loadgen.live.playbook_run import LOCAL_CREDENTIALS, _endpoint
    from loadgen.live.resultstore import make_client

    emulator = EmulatorOptions(store="keys", max_memory=1)
    with _endpoint(LiveOptions(emulator=emulator, scale=1.0)) as target:
        ddb = make_client(target.url, "us-east-1", LOCAL_CREDENTIALS)
        ddb.create_table(
            TableName="tbl",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PROVISIONED",  # enough not to throttle the filling below
            ProvisionedThroughput={"ReadCapacityUnits": 1000, "WriteCapacityUnits": 40000},
        )
        payload = {"v": {"S": "x" * 100}}
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "first"}} | payload)
        got = ddb.get_item(TableName="tbl", Key={"pk": {"S": "first"}})["Item"]
        assert got == {"pk": {"S": "first"}}  # keys: the key alone comes back
        assert target.stop_check() is None
        for start in range(0, SMALL_TABLE_ITEMS, 25):  # fill it past the small-table size
            left: dict[str, Any] = {
                "tbl": [
                    {"PutRequest": {"Item": {"pk": {"S": f"k{i}"}} | payload}}
                    for i in range(start, start + 25)
                ]
            }
            while left:  # a throttled share comes back unprocessed: send it again
                left = ddb.batch_write_item(RequestItems=left)["UnprocessedItems"]
        try:
            ddb.put_item(TableName="tbl", Item={"pk": {"S": "one more"}} | payload)
        except ddb.exceptions.ClientError as exc:
            assert exc.response["Error"]["Code"] == "ValidationException"
        else:
            raise AssertionError("a new item past the bound was taken")
        reason = target.stop_check()
        assert reason is not None and "memory bound" in reason
