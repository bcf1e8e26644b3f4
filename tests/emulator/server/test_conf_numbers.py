"""Conformance, issue 16 item 6: numbers are stored and returned canonical, 1 and 1.0 are
one key, and an item's size counts the canonical form."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.emulator.server.conftest import key_table

CANONICAL = [
    ("007", "7"),
    ("1.50", "1.5"),
    ("1e3", "1000"),
    ("+3", "3"),
    ("-0.0", "0"),
    (".5", "0.5"),
    ("1.23e-1", "0.123"),
    ("1e20", "100000000000000000000"),
    ("-3e2", "-300"),
]


@pytest.mark.parametrize(("written", "read"), CANONICAL)
def test_numbers_are_stored_canonical(ddb: Any, written: str, read: str) -> None:
    key_table(ddb, sk_type=None)
    ddb.put_item(
        TableName="tbl", Item={"pk": {"S": "k"}, "n": {"N": written}, "ns": {"NS": [written]}}
    )
    item = ddb.get_item(TableName="tbl", Key={"pk": {"S": "k"}})["Item"]
    assert item["n"] == {"N": read}
    assert item["ns"] == {"NS": [read]}


def test_1e3_and_1000_are_one_key(ddb: Any) -> None:
    key_table(ddb, sk_type="N")
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "k"}, "sk": {"N": "1e3"}, "v": {"S": "a"}})
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "k"}, "sk": {"N": "1000.0"}, "v": {"S": "b"}})
    items = ddb.query(
        TableName="tbl",
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "k"}},
    )["Items"]
    assert items == [{"pk": {"S": "k"}, "sk": {"N": "1000"}, "v": {"S": "b"}}]


def test_a_batch_holding_1_and_1_0_is_a_duplicate_key(ddb: Any) -> None:
    key_table(ddb, sk_type="N")
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_write_item(
            RequestItems={
                "tbl": [
                    {"PutRequest": {"Item": {"pk": {"S": "k"}, "sk": {"N": "1"}}}},
                    {"PutRequest": {"Item": {"pk": {"S": "k"}, "sk": {"N": "1.0"}}}},
                ]
            }
        )
    error = excinfo.value.response["Error"]
    assert (error["Code"], error["Message"]) == (
        "ValidationException",
        "Provided list of item keys contains duplicates",
    )


def test_item_size_counts_the_canonical_number(ddb: Any) -> None:
    """`0000000000000000000001.000000` is the one-digit number 1: 2 bytes, not 28."""
    key_table(ddb, sk_type=None)
    ddb.put_item(
        TableName="tbl", Item={"pk": {"S": "k"}, "n": {"N": "0000000000000000000001.000000"}}
    )
    assert ddb.describe_table(TableName="tbl")["Table"]["TableSizeBytes"] == len("pk") + 1 + 1 + 2
