"""PartiQL (issue 25, item 5): ExecuteStatement, BatchExecuteStatement and
ExecuteTransaction for the statement forms DynamoDB documents, through the same
expression engine and charges as the requests they stand for."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.emulator.server.conftest import BY_G, key_table


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
            {"Statement": "SELECT * FROM tbl WHERE pk = 'p' AND sk = 'a' AND n = 1"},
        ],
        ReturnConsumedCapacity="TOTAL",
    )
    responses = reply["Responses"]
    assert responses[0]["Item"]["n"] == {"N": "1"}
    assert responses[0]["TableName"] == "tbl"
    assert responses[1]["Error"]["Code"] == "DuplicateItem"
    assert "Error" not in responses[2]
    # [AWS] A read of more than one whole key (here with a filter).
    assert responses[3]["Error"] == {
        "Code": "ValidationError",
        "Message": "Select statements within BatchExecuteStatement must specify the primary "
        "key in the where clause.",
    }
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


def _sort_keys(reply: dict[str, Any]) -> list[str]:
    return [item["sk"]["S"] for item in reply["Items"]]


def test_order_by_sets_the_query_direction_on_a_table_and_its_indexes(ddb: Any) -> None:
    """ORDER BY the sort key of what is read (the table's, a GSI's, an LSI's) is the
    Query's ScanIndexForward; the index's `rank` runs opposite to the table's `sk`, so
    reading the wrong key gives the wrong order."""
    key_table(
        ddb,
        GlobalSecondaryIndexes=[BY_G],
        LocalSecondaryIndexes=[
            {
                "IndexName": "by_rank",
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "rank", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    )
    for sk, rank in (("a", "3"), ("b", "1"), ("c", "2")):
        item = {"pk": {"S": "p"}, "sk": {"S": sk}, "rank": {"S": rank}, "g": {"S": "G"}}
        ddb.put_item(TableName="tbl", Item=item)

    def run(statement: str, **extra: Any) -> dict[str, Any]:
        reply: dict[str, Any] = ddb.execute_statement(Statement=statement, **extra)
        return reply

    table = "SELECT * FROM tbl WHERE pk = 'p' "
    assert _sort_keys(run(table + "ORDER BY sk DESC")) == ["c", "b", "a"]
    assert _sort_keys(run(table + "ORDER BY sk ASC")) == ["a", "b", "c"]
    assert _sort_keys(run(table + 'ORDER BY "sk"')) == ["a", "b", "c"]
    assert _sort_keys(run(table + "AND sk > 'a' ORDER BY pk, sk DESC")) == ["c", "b"]
    # [AWS] Naming only the partition key returns the sort key descending.
    assert _sort_keys(run(table + "ORDER BY pk ASC")) == ["c", "b", "a"]
    # A descending Query pages on backwards: the next page starts after the last key.
    first = run(table + "ORDER BY sk DESC", Limit=2)
    assert _sort_keys(first) == ["c", "b"]
    rest = run(table + "ORDER BY sk DESC", NextToken=first["NextToken"])
    assert _sort_keys(rest) == ["a"]
    # The GSI's key is (g, rank) and the LSI's (pk, rank): rank 3, 2, 1 is a, c, b.
    gsi = 'SELECT * FROM "tbl"."by_g" WHERE g = \'G\' ORDER BY rank DESC'
    assert _sort_keys(run(gsi)) == ["a", "c", "b"]
    lsi = 'SELECT * FROM "tbl"."by_rank" WHERE pk = \'p\' ORDER BY rank '
    assert _sort_keys(run(lsi + "DESC")) == ["a", "c", "b"]
    assert _sort_keys(run(lsi + "ASC")) == ["b", "c", "a"]
    # The table's sort key is not the GSI's: DynamoDB refuses it there.
    with pytest.raises(ClientError) as excinfo:
        run('SELECT * FROM "tbl"."by_g" WHERE g = \'G\' ORDER BY sk DESC')
    assert excinfo.value.response["Error"] == {
        "Code": "ValidationException",
        "Message": "Attribute sk in ORDER BY clause must be part of the primary key",
    }


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        (
            "SELECT * FROM tbl ORDER BY sk",
            "Must have WHERE clause in the statement when using ORDER BY clause.",
        ),
        (
            "SELECT * FROM tbl WHERE pk = 'p' ORDER BY n DESC",
            "Attribute n in ORDER BY clause must be part of the primary key",
        ),
        (
            "SELECT * FROM tbl WHERE n > 1 ORDER BY sk DESC",
            "Must have at least one non-optional hash key condition in WHERE clause when "
            "using ORDER BY clause.",
        ),
        (
            "SELECT * FROM tbl WHERE pk > 'a' ORDER BY sk",
            "Must have at least one non-optional hash key condition in WHERE clause when "
            "using ORDER BY clause.",
        ),
        ("SELECT * FROM tbl WHERE pk = 'p' ORDER sk", "Statement wasn't well formed"),
        ("SELECT * FROM tbl WHERE pk = 'p' ORDER BY sk DOWN", "Statement wasn't well formed"),
        ("SELECT * FROM tbl WHERE pk = 'p' ORDER BY", "Statement wasn't well formed"),
        ("SELECT * FROM tbl WHERE pk = 'p' ORDER BY sk ORDER BY pk", "Statement wasn't"),
    ],
)
def test_order_by_that_no_query_serves_is_refused(table: Any, statement: str, message: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        table.execute_statement(Statement=statement)
    error = excinfo.value.response["Error"]
    assert error["Code"] == "ValidationException"
    assert error["Message"].startswith(message)


def _item(ddb: Any, pk: str, sk: str) -> dict[str, Any] | None:
    key = {"pk": {"S": pk}, "sk": {"S": sk}}
    item: dict[str, Any] | None = ddb.get_item(TableName="tbl", Key=key).get("Item")
    return item


def test_exists_in_a_transaction_is_a_condition_check(table: Any) -> None:
    table.execute_transaction(
        TransactStatements=[
            {"Statement": "UPDATE tbl SET n = 10 WHERE pk = 'p' AND sk = 'b'"},
            {
                "Statement": 'EXISTS(SELECT * FROM "tbl" WHERE pk = ? AND sk = ? AND n = ?)',
                "Parameters": [{"S": "p"}, {"S": "a"}, {"N": "1"}],
            },
            {"Statement": "EXISTS(SELECT n FROM tbl WHERE pk='q' AND sk='a' AND tag IS MISSING)"},
            {"Statement": "INSERT INTO tbl VALUE {'pk': 'r', 'sk': 'a'}"},
        ]
    )
    assert (_item(table, "p", "b") or {})["n"] == {"N": "10"}
    assert _item(table, "r", "a") is not None

    def cancelled(exists: str, **entry: Any) -> list[dict[str, Any]]:
        with pytest.raises(ClientError) as excinfo:
            table.execute_transaction(
                TransactStatements=[
                    {"Statement": "UPDATE tbl SET n = 20 WHERE pk = 'p' AND sk = 'b'"},
                    {"Statement": exists, **entry},
                    {"Statement": "DELETE FROM tbl WHERE pk = 'r' AND sk = 'a'"},
                ]
            )
        assert excinfo.value.response["Error"]["Code"] == "TransactionCanceledException"
        reasons: list[dict[str, Any]] = excinfo.value.response["CancellationReasons"]
        assert [r["Code"] for r in reasons] == ["None", "ConditionalCheckFailed", "None"]
        return reasons

    # A missing item fails the check, even under a condition an absent item would meet.
    cancelled("EXISTS(SELECT * FROM tbl WHERE pk = 'zz' AND sk = 'a' AND tag IS MISSING)")
    # A false condition on an item that is there fails it too, and can return the item.
    reasons = cancelled(
        "EXISTS(SELECT * FROM tbl WHERE pk = 'p' AND sk = 'a' AND n > 1)",
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )
    assert reasons[1]["Item"]["n"] == {"N": "1"}
    # Nothing the cancelled transactions wrote is there.
    assert (_item(table, "p", "b") or {})["n"] == {"N": "10"}
    assert _item(table, "r", "a") is not None


def test_exists_outside_a_transaction_or_without_one_item_is_refused(table: Any) -> None:
    exists = "EXISTS(SELECT * FROM tbl WHERE pk = 'p' AND sk = 'a' AND n = 1)"
    with pytest.raises(ClientError) as excinfo:
        table.execute_statement(Statement=exists)
    assert excinfo.value.response["Error"] == {
        "Code": "ValidationException",
        "Message": "EXISTS can only be used in ExecuteTransaction write requests.",
    }
    batch = table.batch_execute_statement(Statements=[{"Statement": exists}])
    assert batch["Responses"] == [
        {
            "Error": {
                "Code": "ValidationError",
                "Message": "EXISTS can only be used in ExecuteTransaction write requests.",
            }
        }
    ]
    for statement, message in (
        # [AWS] The whole key and one other condition (the key alone is refused).
        (
            "EXISTS(SELECT * FROM tbl WHERE pk = 'p' AND sk = 'a')",
            "EXISTS() must contain a single item read with additional condition",
        ),
        (
            "EXISTS(SELECT * FROM tbl WHERE pk = 'p' AND n = 1)",
            "EXISTS() must contain a single item read with additional condition",
        ),
        (
            "EXISTS(SELECT * FROM \"tbl\".\"idx\" WHERE pk = 'p' AND sk = 'a' AND n = 1)",
            "Operations on indices are not supported in transactions",
        ),
        (exists + " AND n = 1", "Statement wasn't well formed"),
        ("EXISTS(UPDATE tbl SET n = 1 WHERE pk = 'p' AND sk = 'a')", "Statement wasn't"),
        ("EXISTS SELECT * FROM tbl WHERE pk = 'p' AND sk = 'a' AND n = 1", "Statement wasn't"),
    ):
        with pytest.raises(ClientError) as excinfo:
            table.execute_transaction(
                TransactStatements=[
                    {"Statement": statement},
                    {"Statement": "UPDATE tbl SET n = 5 WHERE pk = 'q' AND sk = 'a'"},
                ]
            )
        error = excinfo.value.response["Error"]
        assert error["Code"] == "ValidationException", statement
        # [AWS] A statement's refusal names its place in the transaction.
        place = "Validation failed in TransactStatements[0]: "
        assert error["Message"].startswith(place + message), statement
    assert (_item(table, "q", "a") or {})["n"] == {"N": "9"}
