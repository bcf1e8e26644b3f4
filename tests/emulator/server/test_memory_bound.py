"""The memory bound: past it, a write that adds an item to a table that is not small is
refused with a ValidationException naming the bound and the fix (non-retryable in every
SDK); overwrites, deletes, reads and small tables go on; a batch is refused whole."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from emulator.server.memory import format_size, parse_size
from tests.emulator.server.conftest import client, key_table


def _put(ddb: Any, pk: str, table: str = "tbl", size: int = 100) -> None:
    ddb.put_item(TableName=table, Item={"pk": {"S": pk}, "v": {"S": "x" * size}})


def test_past_the_bound_new_items_are_refused_clearly() -> None:
    with EmulatorServer(EmulatorOptions(create_delay_s=0, store="full", max_memory=1)) as emu:
        emu.service.state.memory.small_table_items = 5
        ddb = client(emu.endpoint_url)
        key_table(ddb, "tbl", sk_type=None)
        key_table(ddb, "small", sk_type=None)
        for i in range(5):  # a small table takes new items whatever the bound
            _put(ddb, f"k{i}")
        with pytest.raises(ClientError) as refused:
            _put(ddb, "new")
        error = refused.value.response["Error"]
        assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
        assert error["Code"] == "ValidationException"
        assert "memory bound" in error["Message"]
        assert "--store keys" in error["Message"] and "--max-memory" in error["Message"]
        _put(ddb, "k1", size=300)  # an overwrite adds nothing
        ddb.update_item(
            TableName="tbl",
            Key={"pk": {"S": "k2"}},
            UpdateExpression="SET w = :w",
            ExpressionAttributeValues={":w": {"S": "y"}},
        )
        with pytest.raises(ClientError, match="memory bound"):
            ddb.update_item(
                TableName="tbl",
                Key={"pk": {"S": "new"}},
                UpdateExpression="SET w = :w",
                ExpressionAttributeValues={":w": {"S": "y"}},
            )
        assert ddb.get_item(TableName="tbl", Key={"pk": {"S": "k1"}})["Item"]["v"]["S"] == "x" * 300
        with pytest.raises(ClientError, match="memory bound"):  # whole: k4 is not rewritten
            ddb.batch_write_item(
                RequestItems={
                    "tbl": [
                        {"PutRequest": {"Item": {"pk": {"S": "k4"}, "v": {"S": "z"}}}},
                        {"PutRequest": {"Item": {"pk": {"S": "new"}, "v": {"S": "z"}}}},
                    ]
                }
            )
        assert ddb.get_item(TableName="tbl", Key={"pk": {"S": "k4"}})["Item"]["v"]["S"] != "z"
        _put(ddb, "s1", table="small")
        ddb.delete_item(TableName="tbl", Key={"pk": {"S": "k3"}})
        view = emu.memory()
        assert view["bound_reached"] and view["refused_new_items"] == 3
        assert view["store"] == "full" and view["max_memory_bytes"] == 1
        assert "memory bound" in view["message"] and view["items"] == 5
    assert emu.service.internal_errors == 0


def test_under_the_bound_nothing_is_refused() -> None:
    with EmulatorServer(
        EmulatorOptions(create_delay_s=0, store="keys", max_memory=parse_size("1T"))
    ) as emu:
        emu.service.state.memory.small_table_items = 0
        ddb = client(emu.endpoint_url)
        key_table(ddb, "tbl", sk_type=None)
        for i in range(20):
            _put(ddb, f"k{i}")
        view = emu.memory()
        assert not view["bound_reached"] and view["refused_new_items"] == 0
        assert view["message"] is None and view["store"] == "keys"


@pytest.mark.parametrize(
    ("text", "size"),
    [("2G", 2 * 1024**3), ("1500M", 1500 * 1024**2), ("512MiB", 512 * 1024**2), ("4096", 4096)],
)
def test_sizes(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "2X", "-1G", "0", "G"])
def test_bad_sizes_name_the_fix(text: str) -> None:
    with pytest.raises(ValueError, match=r"e\.g\. 2G or 1500M"):
        parse_size(text)


def test_format_size() -> None:
    assert format_size(3 * 1024**3 // 2) == "1.5 GiB"
    assert format_size(800) == "800 B"
