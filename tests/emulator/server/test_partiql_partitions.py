"""PartiQL over several partitions (issue 25): a SELECT whose WHERE names partition-key
values with IN runs as one Query a value, ordered, paged and charged as those Queries
are; and ExecuteTransaction's refusals in DynamoDB's words. The expectations marked
[AWS] are DynamoDB's answers as floci-io/floci's PartiQL tests record them (eu-west-2,
2026-09-17)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.emulator.server.conftest import BY_G, key_table


@pytest.fixture
def partitions(ddb: Any) -> Any:
    """Two partitions, o and p, of three items each (sk 1 to 3, g G or H by partition,
    rank opposite to sk), and a large item in a third, z, that a Scan would read."""
    key_table(ddb, GlobalSecondaryIndexes=[BY_G])
    for pk, g in (("o", "G"), ("p", "H")):
        for sk, rank in (("1", "c"), ("2", "b"), ("3", "a")):
            item = {"pk": {"S": pk}, "sk": {"S": sk}, "g": {"S": g}, "rank": {"S": rank}}
            ddb.put_item(TableName="tbl", Item=item)
    big = {"pk": {"S": "z"}, "sk": {"S": "1"}, "blob": {"S": "x" * 20_000}}
    ddb.put_item(TableName="tbl", Item=big)
    return ddb


def _rows(reply: dict[str, Any]) -> list[str]:
    return [f"{item['pk']['S']}/{item['sk']['S']}" for item in reply["Items"]]


def _select(ddb: Any, where: str, **extra: Any) -> dict[str, Any]:
    reply: dict[str, Any] = ddb.execute_statement(
        Statement=f'SELECT pk, sk FROM "tbl" WHERE {where}', **extra
    )
    return reply


def test_in_on_the_partition_key_reads_each_partition_in_key_order(partitions: Any) -> None:
    # [AWS] The partitions in partition-key order, each in sort-key order.
    assert _rows(_select(partitions, "pk IN ['o', 'p'] ORDER BY pk DESC, sk ASC")) == [
        "p/1",
        "p/2",
        "p/3",
        "o/1",
        "o/2",
        "o/3",
    ]
    # [AWS] Naming only the partition key: each partition's sort key descending.
    assert _rows(_select(partitions, "pk IN ['p', 'o'] ORDER BY pk")) == [
        "o/3",
        "o/2",
        "o/1",
        "p/3",
        "p/2",
        "p/1",
    ]
    # Without ORDER BY the values are read in the order the IN lists them; a sort-key
    # condition is each Query's, parameters name values as literals do.
    reply = _select(
        partitions, "pk IN [?, ?, 'absent'] AND sk >= '2'", Parameters=[{"S": "p"}, {"S": "o"}]
    )
    assert _rows(reply) == ["p/2", "p/3", "o/2", "o/3"]
    # One value is a plain Query of that partition.
    assert _rows(_select(partitions, "pk IN ['o'] ORDER BY sk DESC")) == ["o/3", "o/2", "o/1"]


def test_in_pages_across_partitions_with_next_token(partitions: Any) -> None:
    """[AWS] Limit counts the items of all the Queries: with Limit 2, "pk IN ['o', 'p']
    ORDER BY pk DESC" answers p/3, p/2, then p/1, o/3; each NextToken resumes where its
    page's Query stopped."""
    statement = "SELECT pk, sk FROM \"tbl\" WHERE pk IN ['o', 'p'] ORDER BY pk DESC"
    pages: list[list[str]] = []
    token: str | None = None
    while True:
        more = {"NextToken": token} if token else {}
        reply = partitions.execute_statement(Statement=statement, Limit=2, **more)
        pages.append(_rows(reply))
        token = reply.get("NextToken")
        if token is None:
            break
        assert reply["LastEvaluatedKey"]["pk"] == {"S": pages[-1][-1][0]}
    assert pages[:2] == [["p/3", "p/2"], ["p/1", "o/3"]]
    assert [row for page in pages for row in page] == ["p/3", "p/2", "p/1", "o/3", "o/2", "o/1"]
    # A token of another statement is refused as its Query refuses a key outside it.
    other = _select(partitions, "pk = 'z'", Limit=1)["NextToken"]
    with pytest.raises(ClientError) as excinfo:
        partitions.execute_statement(Statement=statement, NextToken=other)
    assert excinfo.value.response["Error"]["Code"] == "ValidationException"


def test_in_is_charged_as_the_queries_it_runs(partitions: Any) -> None:
    """The statement costs what a Query of each value costs, summed (a Scan would have
    read partition z's 20 KB item too), on the table and on an index."""

    def units(reply: dict[str, Any]) -> float:
        consumed: float = reply["ConsumedCapacity"]["CapacityUnits"]
        return consumed

    def query(pk: str, **extra: Any) -> float:
        return units(
            partitions.query(
                TableName="tbl",
                KeyConditionExpression="#k = :v",
                ExpressionAttributeNames={"#k": extra.pop("key", "pk")},
                ExpressionAttributeValues={":v": {"S": pk}},
                ReturnConsumedCapacity="TOTAL",
                **extra,
            )
        )

    reply = _select(
        partitions, "pk IN ['o', 'p']", ConsistentRead=True, ReturnConsumedCapacity="TOTAL"
    )
    assert len(reply["Items"]) == 6
    assert units(reply) == query("o", ConsistentRead=True) + query("p", ConsistentRead=True)
    assert units(reply) == 2.0  # one consistent page (under 4 KB) of each partition
    index = partitions.execute_statement(
        Statement="SELECT * FROM \"tbl\".\"by_g\" WHERE g IN ['H', 'G'] ORDER BY g, rank DESC",
        ReturnConsumedCapacity="INDEXES",
    )
    # rank runs opposite to sk: rank descending is sk ascending, G (o) before H (p).
    assert _rows(index) == ["o/1", "o/2", "o/3", "p/1", "p/2", "p/3"]
    each = query("G", IndexName="by_g", key="g") + query("H", IndexName="by_g", key="g")
    consumed = index["ConsumedCapacity"]
    assert consumed["CapacityUnits"] == each
    assert consumed["GlobalSecondaryIndexes"] == {
        "by_g": {"CapacityUnits": each, "ReadCapacityUnits": each}
    }


@pytest.mark.parametrize(
    ("where", "message"),
    [
        # [AWS] Several partitions are ordered only by the partition key first.
        (
            "pk IN ['o', 'p'] ORDER BY sk DESC",
            "Must have hash key in ORDER BY clause when more than one hash key condition "
            "specified in WHERE clause.",
        ),
        # [AWS] One value twice.
        ("pk IN ['o', 'o']", "Overlapping conditions with range keys are not supported in where"),
        # [AWS] More than 50 values.
        (
            "pk IN [" + ", ".join(f"'v{n}'" for n in range(51)) + "]",
            "Too many decomposed read operations for a given query.",
        ),
        (
            "pk IN ['o', 1]",
            "Key attribute's data type should match its data type in table's schema: Key pk",
        ),
        ("pk IN ['o', TRUE]", "Key value must be of type S, N, or B. Key name: pk, Key type: BOOL"),
        ("pk IN []", "IN operator must have a left hand argument of type Variable Reference"),
        ("pk IN ['o', 'p'", "Statement wasn't well formed"),
        ("pk IN ['o', 'p'] AND sk > 1", "One or more parameter values were invalid"),
    ],
)
def test_in_that_no_queries_serve_is_refused(partitions: Any, where: str, message: str) -> None:
    with pytest.raises(ClientError) as excinfo:
        _select(partitions, where)
    error = excinfo.value.response["Error"]
    assert error["Code"] == "ValidationException"
    assert error["Message"].startswith(message), error["Message"]


def _transaction_refusal(ddb: Any, *statements: str) -> str:
    with pytest.raises(ClientError) as excinfo:
        ddb.execute_transaction(TransactStatements=[{"Statement": s} for s in statements])
    error = excinfo.value.response["Error"]
    assert error["Code"] == "ValidationException"
    message: str = error["Message"]
    return message


def test_execute_transaction_refuses_in_dynamodbs_words(partitions: Any) -> None:
    read = "SELECT * FROM tbl WHERE pk = 'o' AND sk = '1'"
    write = "UPDATE tbl SET n = 1 WHERE pk = 'o' AND sk = '2'"
    # [AWS] Reads and writes together, whichever comes first and however the rest reads.
    mixed = (
        "ExecuteTransaction API does not support both read and write operations in the same "
        "request."
    )
    assert _transaction_refusal(partitions, read, write) == mixed
    assert _transaction_refusal(partitions, write, "SELECT * FROM tbl WHERE n = 1") == mixed
    exists = "EXISTS(SELECT * FROM tbl WHERE pk = 'o' AND sk = '3' AND n = 1)"
    assert _transaction_refusal(partitions, read, exists) == mixed
    # [AWS] A statement's own refusal names its place in TransactStatements.
    assert _transaction_refusal(partitions, read, "SELECT * FROM tbl WHERE pk = 'o'") == (
        "Validation failed in TransactStatements[1]: Select statements within "
        "ExecuteTransaction must specify the primary key in the where clause."
    )
    index_read = "SELECT * FROM \"tbl\".\"by_g\" WHERE g = 'G' AND rank = 'a'"
    assert _transaction_refusal(partitions, read, index_read) == (
        "Validation failed in TransactStatements[1]: Reads on indices are not supported "
        "within transactions."
    )
    assert _transaction_refusal(
        partitions, write, write.replace("'2'", "'3' RETURNING ALL NEW *")
    ) == (
        "Validation failed in TransactStatements[1]: RETURNING clause is not supported in "
        "ExecuteTransaction."
    )
    assert _transaction_refusal(partitions, write, "UPDATE tbl SET WHERE pk = 'o'").startswith(
        "Validation failed in TransactStatements[1]: Statement wasn't well formed, "
    )
    assert _transaction_refusal(partitions, "SELECT * FROM tbl WHERE pk IN ['o', 'o']") == (
        "Validation failed in TransactStatements[0]: Overlapping conditions with range keys "
        "are not supported in where clause"
    )
    # [AWS] A bad parameter is refused as it is, ahead of every statement.
    with pytest.raises(ClientError) as excinfo:
        partitions.execute_transaction(
            TransactStatements=[
                {"Statement": "UPDATE tbl SET WHERE"},
                {"Statement": write.replace("1", "?", 1), "Parameters": [{"SS": []}]},
            ]
        )
    message = excinfo.value.response["Error"]["Message"]
    assert not message.startswith("Validation failed in"), message
    # Nothing was written.
    key = {"pk": {"S": "o"}, "sk": {"S": "2"}}
    assert "n" not in partitions.get_item(TableName="tbl", Key=key)["Item"]
