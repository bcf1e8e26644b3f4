"""PartiQL (issue 25, item 5): ExecuteStatement, BatchExecuteStatement and
ExecuteTransaction for the statement forms DynamoDB documents, through the same
expression engine and charges as the requests they stand for."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.emulator.server.conftest import key_table


@pytest.fixture
def table(ddb: Any) -> Any:
    key_table(ddb)
    for sk, n in (("a", 1), ("b", 2), ("c", 3)):
        ddb.put_item(
            TableName="tbl",
            Item={"pk": {"S": "p"}, "sk": {"S": sk}, "n": {"N": str(n)}, "tag": {"S": "t"}},
        )
    ddb.put_item(TableName="tbl", Item={"pk": {"S": "q"}, "sk": {"S": "a"}, "n": {"N": "9"}})
    return ddb


def test_select_with_key_condition_and_filter_is_a_query(table: Any) -> None:
    reply = table.execute_statement(
        Statement="SELECT sk, n FROM \"tbl\" WHERE pk = ? AND sk >= 'b' AND n < 3",
        Parameters=[{"S": "p"}],
        ConsistentRead=True,
        ReturnConsumedCapacity="TOTAL",
    )
    assert reply["Items"] == [{"sk": {"S": "b"}, "n": {"N": "2"}}]
    # A consistent Query page of the two items it read (b and c, under 1 KB): 1 RCU.
    assert reply["ConsumedCapacity"]["CapacityUnits"] == 1.0


def test_select_without_the_partition_key_scans_and_pages(table: Any) -> None:
    reply = table.execute_statement(Statement="SELECT * FROM tbl WHERE n > 1", Limit=2)
    first = reply["Items"]
    assert "NextToken" in reply
    rest = table.execute_statement(
        Statement="SELECT * FROM tbl WHERE n > 1", NextToken=reply["NextToken"]
    )["Items"]
    assert sorted(int(i["n"]["N"]) for i in first + rest) == [2, 3, 9]
    missing = table.execute_statement(
        Statement="SELECT * FROM tbl WHERE tag IS MISSING AND n IN [9, 10]"
    )
    assert [i["pk"]["S"] for i in missing["Items"]] == ["q"]


def test_insert_update_delete(table: Any) -> None:
    table.execute_statement(
        Statement="INSERT INTO tbl VALUE {'pk': 'r', 'sk': 'a', 'n': 5, 'l': [1, 'x']}"
    )
    item = table.get_item(TableName="tbl", Key={"pk": {"S": "r"}, "sk": {"S": "a"}})["Item"]
    assert item["l"] == {"L": [{"N": "1"}, {"S": "x"}]}
    with pytest.raises(ClientError) as excinfo:
        table.execute_statement(Statement="INSERT INTO tbl VALUE {'pk': 'r', 'sk': 'a'}")
    assert excinfo.value.response["Error"] == {
        "Code": "DuplicateItemException",
        "Message": "Duplicate primary key exists in table",
    }
    reply = table.execute_statement(
        Statement="UPDATE tbl SET n = n + ? SET extra = 'e' REMOVE l "
        "WHERE pk = 'r' AND sk = 'a' RETURNING ALL NEW *",
        Parameters=[{"N": "10"}],
    )
    assert reply["Items"] == [
        {"pk": {"S": "r"}, "sk": {"S": "a"}, "n": {"N": "15"}, "extra": {"S": "e"}}
    ]
    # UPDATE of an item that is not there: the conditional check fails, nothing is made.
    with pytest.raises(ClientError) as excinfo:
        table.execute_statement(
            Statement="UPDATE tbl SET n = 1 WHERE pk = 'zz' AND sk = 'a'",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    assert excinfo.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    with pytest.raises(ClientError) as excinfo:
        table.execute_statement(Statement="DELETE FROM tbl WHERE pk = 'r'")
    assert excinfo.value.response["Error"]["Message"] == (
        "Where clause does not contain a mandatory equality on all key attributes"
    )
    table.execute_statement(Statement="DELETE FROM tbl WHERE pk = 'r' AND sk = 'a' AND n = 15")
    assert "Item" not in table.get_item(TableName="tbl", Key={"pk": {"S": "r"}, "sk": {"S": "a"}})


def test_statements_dynamodb_refuses(table: Any) -> None:
    for statement, message in (
        ("SELEKT * FROM tbl", "Statement wasn't well formed"),
        ("SELECT * FROM tbl WHERE pk = ?", "Number of parameters"),
    ):
        with pytest.raises(ClientError) as excinfo:
            table.execute_statement(Statement=statement)
        assert excinfo.value.response["Error"]["Code"] == "ValidationException"
        assert message in excinfo.value.response["Error"]["Message"]
    with pytest.raises(ClientError) as excinfo:
        table.execute_statement(Statement="SELECT * FROM nope")
    assert excinfo.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_batch_execute_statement_answers_each_statement(table: Any) -> None:
    reply = table.batch_execute_statement(
        Statements=[
            {"Statement": "SELECT * FROM tbl WHERE pk = 'p' AND sk = 'a'"},
            {"Statement": "INSERT INTO tbl VALUE {'pk': 'p', 'sk': 'a'}"},
            {
                "Statement": "UPDATE tbl SET n = 7 WHERE pk = ? AND sk = ?",
                "Parameters": [{"S": "q"}, {"S": "a"}],
            },
        ],
        ReturnConsumedCapacity="TOTAL",
    )
    responses = reply["Responses"]
    assert responses[0]["Item"]["n"] == {"N": "1"}
    assert responses[0]["TableName"] == "tbl"
    assert responses[1]["Error"]["Code"] == "DuplicateItem"
    assert "Error" not in responses[2]
    assert table.get_item(TableName="tbl", Key={"pk": {"S": "q"}, "sk": {"S": "a"}})["Item"][
        "n"
    ] == {"N": "7"}
    assert reply["ConsumedCapacity"][0]["TableName"] == "tbl"


def test_execute_transaction_is_all_or_nothing(table: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.execute_transaction(
            TransactStatements=[
                {"Statement": "UPDATE tbl SET n = 100 WHERE pk = 'p' AND sk = 'a'"},
                {"Statement": "INSERT INTO tbl VALUE {'pk': 'p', 'sk': 'b'}"},
            ]
        )
    assert excinfo.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert [r["Code"] for r in excinfo.value.response["CancellationReasons"]] == [
        "None",
        "DuplicateItem",
    ]
    key = {"pk": {"S": "p"}, "sk": {"S": "a"}}
    assert table.get_item(TableName="tbl", Key=key)["Item"]["n"] == {"N": "1"}
    table.execute_transaction(
        TransactStatements=[
            {"Statement": "UPDATE tbl SET n = 100 WHERE pk = 'p' AND sk = 'a'"},
            {"Statement": "DELETE FROM tbl WHERE pk = 'p' AND sk = 'b'"},
        ],
        ClientRequestToken="statement-token",
        ReturnConsumedCapacity="TOTAL",
    )
    reads = table.execute_transaction(
        TransactStatements=[
            {"Statement": "SELECT n FROM tbl WHERE pk = 'p' AND sk = 'a'"},
            {"Statement": "SELECT * FROM tbl WHERE pk = 'p' AND sk = 'b'"},
        ]
    )
    assert reads["Responses"] == [{"Item": {"n": {"N": "100"}}}, {}]
