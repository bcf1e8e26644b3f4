"""`hotbench emulator serve --data-dir DIR` (issue 25, item 9): tables and items kept
across restarts in SQLite, each write committed before it is acknowledged, capacity state
fresh on every start; the default stays in memory."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from emulator.server.persistence import DB_NAME
from tests.emulator.server.conftest import client, key_table

GSI = {
    "IndexName": "byG",
    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"},
}


def _serve(data_dir: Path) -> EmulatorServer:
    return EmulatorServer(EmulatorOptions(create_delay_s=0), data_dir=data_dir)


def test_tables_and_items_survive_a_restart_and_capacity_starts_fresh(tmp_path: Path) -> None:
    with _serve(tmp_path) as first:
        ddb = client(first.endpoint_url)
        created = key_table(ddb, GlobalSecondaryIndexes=[GSI])
        ddb.update_time_to_live(
            TableName="tbl", TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"}
        )
        ddb.tag_resource(ResourceArn=created["TableArn"], Tags=[{"Key": "team", "Value": "a"}])
        for n in range(5):
            ddb.put_item(
                TableName="tbl",
                Item={"pk": {"S": f"k{n}"}, "sk": {"S": "s"}, "g": {"S": "x"}, "n": {"N": str(n)}},
            )
        ddb.update_item(
            TableName="tbl",
            Key={"pk": {"S": "k1"}, "sk": {"S": "s"}},
            UpdateExpression="SET n = :ten",
            ExpressionAttributeValues={":ten": {"N": "10"}},
        )
        ddb.delete_item(TableName="tbl", Key={"pk": {"S": "k0"}, "sk": {"S": "s"}})
        ddb.transact_write_items(
            TransactItems=[
                {"Put": {"TableName": "tbl", "Item": {"pk": {"S": "t"}, "sk": {"S": "s"}}}}
            ]
        )
        key_table(ddb, name="gone", sk_type=None)
        ddb.put_item(TableName="gone", Item={"pk": {"S": "a"}})
        ddb.delete_table(TableName="gone")
        before = first.metrics(table="tbl")["tables"]["tbl"]["indexes"]["$table"]["totals"]
        assert before["consumed_wcu"] > 0
    with _serve(tmp_path) as second:
        ddb = client(second.endpoint_url)
        table = ddb.describe_table(TableName="tbl")["Table"]
        assert table["TableStatus"] == "ACTIVE"
        assert (table["TableId"], table["CreationDateTime"]) == (
            created["TableId"],
            created["CreationDateTime"],
        )
        assert table["ItemCount"] == 5
        assert [g["IndexName"] for g in table["GlobalSecondaryIndexes"]] == ["byG"]
        items = {i["pk"]["S"]: i.get("n") for i in ddb.scan(TableName="tbl")["Items"]}
        assert items == {
            "k1": {"N": "10"},
            "k2": {"N": "2"},
            "k3": {"N": "3"},
            "k4": {"N": "4"},
            "t": None,
        }
        assert (
            ddb.query(
                TableName="tbl",
                IndexName="byG",
                KeyConditionExpression="g = :x",
                ExpressionAttributeValues={":x": {"S": "x"}},
            )["Count"]
            == 4
        )
        ttl = ddb.describe_time_to_live(TableName="tbl")["TimeToLiveDescription"]
        assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "exp"}
        tags = ddb.list_tags_of_resource(ResourceArn=created["TableArn"])["Tags"]
        assert {"Key": "team", "Value": "a"} in tags
        assert ddb.list_tables()["TableNames"] == ["tbl"]
        # The capacity model starts fresh: nothing consumed yet in this process.
        fresh = second.metrics(table="tbl")["tables"]["tbl"]["indexes"]["$table"]["totals"]
        assert fresh["consumed_wcu"] == 0
        # A table made again under a deleted one's name has none of its items.
        key_table(ddb, name="gone", sk_type=None)
        assert ddb.scan(TableName="gone")["Count"] == 0


def test_a_write_is_on_disk_before_it_is_acknowledged(tmp_path: Path) -> None:
    with _serve(tmp_path) as emu:
        ddb = client(emu.endpoint_url)
        key_table(ddb, sk_type=None)
        ddb.put_item(TableName="tbl", Item={"pk": {"S": "a"}, "v": {"N": "1"}})
        # Read by another connection while the emulator still runs, as a crash would leave it.
        db = sqlite3.connect(tmp_path / DB_NAME)
        rows = db.execute("SELECT item FROM items WHERE table_name = 'tbl'").fetchall()
        db.close()
        assert [orjson.loads(r[0]) for r in rows] == [{"pk": {"S": "a"}, "v": {"N": "1"}}]


def test_the_default_keeps_nothing(tmp_path: Path, ddb: Any, emu: EmulatorServer) -> None:
    assert emu.service.persistence is None
    key_table(ddb, sk_type=None)
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "a"}})
    assert list(tmp_path.iterdir()) == []


def test_serve_refuses_a_data_dir_it_cannot_use(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    env = {**os.environ, "HOTBENCH_PURE": "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "console.cli",
            "emulator",
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(blocker / "data"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 2
    output = done.stdout + done.stderr
    assert f"cannot keep data in {blocker / 'data'}" in output
    assert "choose another --data-dir" in output
    assert "Traceback" not in output
