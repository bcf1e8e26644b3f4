"""BatchWriteItem's and TransactWriteItems' ReturnItemCollectionMetrics (issue 25): with
SIZE, an entry for each item collection of a table with LSIs the request wrote, sized as
PutItem sizes one; none for a table without LSIs, for a collection only throttled writes
reached, for a transaction's ConditionCheck, for a cancelled transaction, or without
SIZE; a bad value refused in PutItem's words."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer
from emulator.server.service import Service
from emulator.wire import TARGET_PREFIX
from tests.emulator.server.conftest import BY_RANK, client, key_table_request, refusal

BLOB = "x" * 380_000
"""Three items of this make a collection of just over 0.001 GB, two of them under: a size
taken after the batch's first write to it, not its last, reads [0.0, 1.0]."""


def _table(name: str, lsis: bool, **billing: Any) -> dict[str, Any]:
    """A CreateTable request: pk and sk, with the LSI byRank (`rank` a number) or without."""
    req = key_table_request(name, **billing)
    if lsis:
        req["AttributeDefinitions"].append({"AttributeName": "rank", "AttributeType": "N"})
        req["LocalSecondaryIndexes"] = [BY_RANK]
    return req


def _put(pk: str, sk: str, **more: Any) -> dict[str, Any]:
    return {"PutRequest": {"Item": {"pk": {"S": pk}, "sk": {"S": sk}, **more}}}


def _delete(pk: str, sk: str) -> dict[str, Any]:
    return {"DeleteRequest": {"Key": {"pk": {"S": pk}, "sk": {"S": sk}}}}


def _probe(ddb: Any, table: str, pk: str) -> Any:
    """The collection's metrics as DeleteItem reports them (a delete of an item that is
    not there: the collection is left as it is)."""
    reply = ddb.delete_item(
        TableName=table,
        Key={"pk": {"S": pk}, "sk": {"S": "absent"}},
        ReturnItemCollectionMetrics="SIZE",
    )
    return reply["ItemCollectionMetrics"]


def test_batch_write_reports_each_item_collection_it_wrote(emu: EmulatorServer) -> None:
    ddb = client(emu.endpoint_url)
    ddb.create_table(**_table("tbl", lsis=True))
    ddb.create_table(**_table("plain", lsis=False))
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "small"}, "sk": {"S": "old"}})
    # One big item before the batch: a partition takes 1,000 WCU a second, and the three
    # in one batch would cost 1,116 (the third would come back unprocessed).
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "big"}, "sk": {"S": "a"}, "blob": {"S": BLOB}})
    emu.skip(2)
    reply = ddb.batch_write_item(
        RequestItems={
            "tbl": [
                _put("big", "b", blob={"S": BLOB}, rank={"N": "1"}),
                _put("small", "a"),
                _put("big", "c", blob={"S": BLOB}),
                _delete("small", "old"),
            ],
            "plain": [_put("big", "a")],
        },
        ReturnItemCollectionMetrics="SIZE",
    )
    assert reply["UnprocessedItems"] == {}
    metrics = reply["ItemCollectionMetrics"]
    assert list(metrics) == ["tbl"]  # the table without LSIs has no item collections
    big, small = metrics["tbl"]  # one entry per collection, in the order first written
    assert big["ItemCollectionKey"] == {"pk": {"S": "big"}}
    assert small["ItemCollectionKey"] == {"pk": {"S": "small"}}
    # Each sized after the whole batch, as the single-item path sizes it.
    assert big["SizeEstimateRangeGB"] == [0.001, 1.001]
    assert small["SizeEstimateRangeGB"] == [0.0, 1.0]
    assert big == _probe(ddb, "tbl", "big")
    assert small == _probe(ddb, "tbl", "small")


def test_batch_write_metrics_only_with_size_and_only_for_tables_with_lsis(ddb: Any) -> None:
    ddb.create_table(**_table("tbl", lsis=True))
    ddb.create_table(**_table("plain", lsis=False))
    asked: list[dict[str, Any]] = [{}, {"ReturnItemCollectionMetrics": "NONE"}]
    for n, extra in enumerate(asked):
        reply = ddb.batch_write_item(RequestItems={"tbl": [_put("p", f"{n}")]}, **extra)
        assert "ItemCollectionMetrics" not in reply, extra
    reply = ddb.batch_write_item(
        RequestItems={"plain": [_put("p", "a"), _delete("p", "b")]},
        ReturnItemCollectionMetrics="SIZE",
    )
    assert "ItemCollectionMetrics" not in reply


@pytest.fixture
def small() -> Iterator[EmulatorServer]:
    """Every capacity figure times 0.01: a table of 1 WCU is out of capacity in a few
    writes."""
    with EmulatorServer(EmulatorOptions(scale=0.01, create_delay_s=0)) as server:
        yield server
        assert server.service.internal_errors == 0


def test_unprocessed_writes_report_no_item_collection(small: EmulatorServer) -> None:
    ddb = client(small.endpoint_url)
    ddb.create_table(**_table("open", lsis=True))
    provisioned = {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}
    ddb.create_table(
        **_table("tight", lsis=True, billing="PROVISIONED", ProvisionedThroughput=provisioned)
    )
    for n in range(60):  # spend the tight table's capacity, burst and all
        try:
            ddb.put_item(TableName="tight", Item={"pk": {"S": "spent"}, "sk": {"S": f"{n}"}})
        except ddb.exceptions.ProvisionedThroughputExceededException:
            break
    else:
        raise AssertionError("the tight table was never throttled")
    throttled = _put("late", "a")
    reply = ddb.batch_write_item(
        RequestItems={"open": [_put("early", "a"), _put("early", "b")], "tight": [throttled]},
        ReturnItemCollectionMetrics="SIZE",
    )
    assert reply["UnprocessedItems"] == {"tight": [throttled]}
    # The throttled put was not written: its collection is not reported.
    assert reply["ItemCollectionMetrics"] == {
        "open": [{"ItemCollectionKey": {"pk": {"S": "early"}}, "SizeEstimateRangeGB": [0.0, 1.0]}]
    }


def _send(service: Service, operation: str, body: dict[str, Any]) -> None:
    status, payload = service.handle(TARGET_PREFIX + operation, json.dumps(body).encode())
    assert status == 200, payload


def test_a_bad_return_item_collection_metrics_is_refused_as_put_item_refuses_it() -> None:
    service = Service(EmulatorOptions(create_delay_s=0))
    _send(service, "CreateTable", _table("tbl", lsis=True))
    item = {"pk": {"S": "p"}, "sk": {"S": "a"}}
    put = refusal(
        service, "PutItem", {"TableName": "tbl", "Item": item, "ReturnItemCollectionMetrics": "ALL"}
    )
    assert put == (
        "ValidationException",
        "1 validation error detected: Value 'ALL' at 'returnItemCollectionMetrics' failed to "
        "satisfy constraint: Member must satisfy enum value set: [SIZE, NONE]",
    )
    batch = {"RequestItems": {"tbl": [_put("p", "a")]}, "ReturnItemCollectionMetrics": "ALL"}
    assert refusal(service, "BatchWriteItem", batch) == put
    transaction = {
        "TransactItems": [{"Put": {"TableName": "tbl", "Item": item}}],
        "ReturnItemCollectionMetrics": "ALL",
    }
    assert refusal(service, "TransactWriteItems", transaction) == put
    # Checked before the tables are looked up, and nothing of the batch is written.
    missing = {**batch, "RequestItems": {"missing": [_put("p", "a")]}}
    assert refusal(service, "BatchWriteItem", missing) == put
    status, payload = service.handle(
        TARGET_PREFIX + "GetItem", json.dumps({"TableName": "tbl", "Key": item}).encode()
    )
    assert (status, json.loads(payload)) == (200, {})


def test_boto3_gets_the_same_refusal(ddb: Any) -> None:
    """botocore does not check enum values: a bad one reaches the emulator, which answers
    it over HTTP as a 400, never a 500."""
    with pytest.raises(ClientError) as excinfo:
        ddb.batch_write_item(
            RequestItems={"tbl": [_put("p", "a")]}, ReturnItemCollectionMetrics="ALL"
        )
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert excinfo.value.response["Error"]["Code"] == "ValidationException"
    assert "'returnItemCollectionMetrics'" in excinfo.value.response["Error"]["Message"]


# --- TransactWriteItems ----------------------------------------------------------------------


def _tx_put(table: str, pk: str, sk: str, **more: Any) -> dict[str, Any]:
    return {"Put": {"TableName": table, "Item": {"pk": {"S": pk}, "sk": {"S": sk}, **more}}}


def _tx_delete(table: str, pk: str, sk: str) -> dict[str, Any]:
    return {"Delete": {"TableName": table, "Key": {"pk": {"S": pk}, "sk": {"S": sk}}}}


RANK = {"#r": "rank"}
"""The LSI's sort key: a reserved word, so an expression names it through `#r`."""


def _tx_update(
    table: str,
    pk: str,
    sk: str,
    expression: str,
    names: dict[str, str] | None = None,
    **values: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "TableName": table,
        "Key": {"pk": {"S": pk}, "sk": {"S": sk}},
        "UpdateExpression": expression,
    }
    if names:
        body["ExpressionAttributeNames"] = names
    if values:
        body["ExpressionAttributeValues"] = values
    return {"Update": body}


def _tx_check(table: str, pk: str, sk: str, condition: str) -> dict[str, Any]:
    return {
        "ConditionCheck": {
            "TableName": table,
            "Key": {"pk": {"S": pk}, "sk": {"S": sk}},
            "ConditionExpression": condition,
        }
    }


def test_transaction_reports_each_item_collection_it_wrote(emu: EmulatorServer) -> None:
    ddb = client(emu.endpoint_url)
    ddb.create_table(**_table("tbl", lsis=True))
    ddb.create_table(**_table("plain", lsis=False))
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "small"}, "sk": {"S": "old"}})
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "checked"}, "sk": {"S": "a"}})
    # Two big items before the transaction, a second apart: a transactional put of one
    # costs 744 WCU of the partition's 1,000 a second.
    for sk in ("a", "b"):
        ddb.put_item(
            TableName="tbl", Item={"pk": {"S": "big"}, "sk": {"S": sk}, "blob": {"S": BLOB}}
        )
        emu.skip(2)
    reply = ddb.transact_write_items(
        TransactItems=[
            # The big collection's first write leaves it as it is (two items, under
            # 0.001 GB): a size taken there, not after the transaction, reads [0.0, 1.0].
            _tx_delete("tbl", "big", "absent"),
            _tx_put("tbl", "small", "a"),
            _tx_put("tbl", "big", "c", blob={"S": BLOB}, rank={"N": "1"}),
            _tx_delete("tbl", "small", "old"),
            # `rank` is a reserved word: named through a placeholder, as on DynamoDB.
            _tx_update("tbl", "updated", "a", "SET #r = :r", RANK, **{":r": {"N": "2"}}),
            # Writes nothing: UpdateItem reports no collection for it either.
            _tx_update("tbl", "ghost", "a", "REMOVE #r", RANK),
            # Reads its item, writes nothing: no collection of its own.
            _tx_check("tbl", "checked", "a", "attribute_exists(pk)"),
            _tx_put("plain", "big", "a"),
        ],
        ReturnItemCollectionMetrics="SIZE",
    )
    metrics = reply["ItemCollectionMetrics"]
    assert list(metrics) == ["tbl"]  # the table without LSIs has no item collections
    big, small, updated = metrics["tbl"]  # one entry per collection, in action order
    assert big["ItemCollectionKey"] == {"pk": {"S": "big"}}
    assert small["ItemCollectionKey"] == {"pk": {"S": "small"}}
    assert updated["ItemCollectionKey"] == {"pk": {"S": "updated"}}
    # Each sized after the whole transaction, as DeleteItem and PutItem size it.
    assert big["SizeEstimateRangeGB"] == [0.001, 1.001]
    assert small["SizeEstimateRangeGB"] == updated["SizeEstimateRangeGB"] == [0.0, 1.0]
    assert big == _probe(ddb, "tbl", "big")
    assert small == _probe(ddb, "tbl", "small")
    assert updated == _probe(ddb, "tbl", "updated")
    put = ddb.put_item(
        TableName="tbl",
        Item={"pk": {"S": "small"}, "sk": {"S": "a"}},  # the same item again: same size
        ReturnItemCollectionMetrics="SIZE",
    )
    assert put["ItemCollectionMetrics"] == small
    ghost = ddb.update_item(
        TableName="tbl",
        Key={"pk": {"S": "ghost"}, "sk": {"S": "a"}},
        UpdateExpression="REMOVE #r",
        ExpressionAttributeNames=RANK,
        ReturnItemCollectionMetrics="SIZE",
    )
    assert "ItemCollectionMetrics" not in ghost


def test_a_condition_check_alone_reports_no_item_collection(ddb: Any) -> None:
    ddb.create_table(**_table("tbl", lsis=True))
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "p"}, "sk": {"S": "a"}})
    reply = ddb.transact_write_items(
        TransactItems=[_tx_check("tbl", "p", "a", "attribute_exists(pk)")],
        ReturnItemCollectionMetrics="SIZE",
    )
    assert "ItemCollectionMetrics" not in reply


def test_a_cancelled_transaction_reports_no_item_collection(ddb: Any) -> None:
    ddb.create_table(**_table("tbl", lsis=True))
    before = _probe(ddb, "tbl", "cancelled")
    with pytest.raises(ClientError) as excinfo:
        ddb.transact_write_items(
            TransactItems=[
                _tx_put("tbl", "cancelled", "a", blob={"S": "x" * 1000}),
                _tx_check("tbl", "missing", "a", "attribute_exists(pk)"),
            ],
            ReturnItemCollectionMetrics="SIZE",
        )
    assert excinfo.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert "ItemCollectionMetrics" not in excinfo.value.response
    # Nothing of it was written, and nothing of it is left for the next one to report.
    reply = ddb.transact_write_items(
        TransactItems=[_tx_put("tbl", "next", "a")], ReturnItemCollectionMetrics="SIZE"
    )
    assert reply["ItemCollectionMetrics"] == {
        "tbl": [{"ItemCollectionKey": {"pk": {"S": "next"}}, "SizeEstimateRangeGB": [0.0, 1.0]}]
    }
    assert _probe(ddb, "tbl", "cancelled") == before


def test_transaction_metrics_only_with_size_and_only_for_tables_with_lsis(ddb: Any) -> None:
    ddb.create_table(**_table("tbl", lsis=True))
    ddb.create_table(**_table("plain", lsis=False))
    asked: list[dict[str, Any]] = [{}, {"ReturnItemCollectionMetrics": "NONE"}]
    for n, extra in enumerate(asked):
        reply = ddb.transact_write_items(TransactItems=[_tx_put("tbl", "p", f"{n}")], **extra)
        assert "ItemCollectionMetrics" not in reply, extra
    reply = ddb.transact_write_items(
        TransactItems=[
            _tx_put("plain", "p", "a"),
            _tx_delete("plain", "p", "b"),
            _tx_update("plain", "p", "c", "SET x = :x", **{":x": {"S": "x"}}),
        ],
        ReturnItemCollectionMetrics="SIZE",
    )
    assert "ItemCollectionMetrics" not in reply


def test_a_repeated_transaction_reports_no_item_collection(ddb: Any) -> None:
    """A repeat with the same ClientRequestToken changes nothing: no collection to report
    (DynamoDB documents only its read units)."""
    ddb.create_table(**_table("tbl", lsis=True))
    asked = {
        "TransactItems": [_tx_put("tbl", "p", "a")],
        "ReturnItemCollectionMetrics": "SIZE",
        "ClientRequestToken": "once",
    }
    first = ddb.transact_write_items(**asked)
    assert list(first["ItemCollectionMetrics"]) == ["tbl"]
    assert "ItemCollectionMetrics" not in ddb.transact_write_items(**asked)
