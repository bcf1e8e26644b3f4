"""Multi-attribute GSI keys (DynamoDB, November 2025): up to four partition-key and four
sort-key attributes per GSI, validated, written, queried and charged as DynamoDB does
(the rules: the developer guide's "Multi-attribute keys pattern"; the cases: ScyllaDB's
test_gsi_composite_keys.py, written against AWS; the refusals' words where recorded on
AWS: ack-api-quirks DDB-TABLE-123)."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.compositekey import composite_partition_hash, composite_sort_position
from emulator.keyspace import partition_hash, sort_position
from emulator.server import EmulatorServer

S = "S"


def _s(value: str) -> dict[str, str]:
    return {"S": value}


def _create(
    ddb: Any,
    hash_keys: list[tuple[str, str]],
    range_keys: list[tuple[str, str]],
    name: str = "matches",
    projection: str = "ALL",
    **extra: Any,
) -> None:
    ddb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
        AttributeDefinitions=[
            {"AttributeName": n, "AttributeType": t}
            for n, t in [("p", "S"), *hash_keys, *range_keys]
        ],
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[
            {
                "IndexName": "gsi",
                "KeySchema": [{"AttributeName": n, "KeyType": "HASH"} for n, _ in hash_keys]
                + [{"AttributeName": n, "KeyType": "RANGE"} for n, _ in range_keys],
                "Projection": {"ProjectionType": projection},
            }
        ],
        **extra,
    )


TWO_BY_TWO = ([("h1", S), ("h2", S)], [("r1", S), ("r2", S)])


@pytest.fixture
def matches(ddb: Any) -> Any:
    """A table whose GSI keys on (h1, h2) and sorts by (r1, r2)."""
    _create(ddb, *TWO_BY_TWO)
    return ddb


def _put(ddb: Any, p: str, **attrs: str) -> None:
    ddb.put_item(TableName="matches", Item={"p": _s(p), **{k: _s(v) for k, v in attrs.items()}})


def _query(ddb: Any, condition: str, values: dict[str, str], **extra: Any) -> dict[str, Any]:
    reply: dict[str, Any] = ddb.query(
        TableName="matches",
        IndexName="gsi",
        KeyConditionExpression=condition,
        ExpressionAttributeValues={k: _s(v) for k, v in values.items()},
        **extra,
    )
    return reply


def _refused(call: Any) -> str:
    with pytest.raises(ClientError) as caught:
        call()
    assert caught.value.response["Error"]["Code"] == "ValidationException"
    message: str = caught.value.response["Error"]["Message"]
    return message


# --- CreateTable and UpdateTable -------------------------------------------------------------


def test_a_gsi_of_four_and_four_attributes_is_created_and_described(ddb: Any) -> None:
    hashes = [(f"h{i}", S) for i in range(1, 5)]
    ranges = [("r1", "N"), ("r2", S), ("r3", "B"), ("r4", S)]
    _create(ddb, hashes, ranges)
    described = ddb.describe_table(TableName="matches")["Table"]["GlobalSecondaryIndexes"][0]
    assert described["KeySchema"] == [
        {"AttributeName": n, "KeyType": "HASH"} for n, _ in hashes
    ] + [{"AttributeName": n, "KeyType": "RANGE"} for n, _ in ranges]


@pytest.mark.parametrize(
    ("key_schema", "message"),
    [
        (
            [("a", "HASH"), ("b", "RANGE"), ("c", "HASH")],
            "All HASH key attributes must precede RANGE key attributes in the KeySchema",
        ),
        (
            [("a", "RANGE"), ("b", "HASH")],
            "Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
        ),
        (
            [("a", "HASH"), ("b", "HASH"), ("a", "RANGE")],
            "The KeySchema contains multiple key attributes with the same name",
        ),
        (
            [(f"a{i}", "HASH") for i in range(5)],
            "The KeySchema exceeds the maximum allowed number of HASH key attributes",
        ),
        (
            [("a", "HASH")] + [(f"r{i}", "RANGE") for i in range(5)],
            "The KeySchema exceeds the maximum allowed number of RANGE key attributes",
        ),
    ],
)
def test_a_gsi_key_schema_is_refused_as_dynamodb_refuses_it(
    ddb: Any, key_schema: list[tuple[str, str]], message: str
) -> None:
    names = sorted({n for n, _ in key_schema})
    request = {
        "TableName": "matches",
        "KeySchema": [{"AttributeName": "p", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": n, "AttributeType": S} for n in ["p", *names]],
        "BillingMode": "PAY_PER_REQUEST",
        "GlobalSecondaryIndexes": [
            {
                "IndexName": "gsi",
                "KeySchema": [{"AttributeName": n, "KeyType": t} for n, t in key_schema],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
    }
    assert _refused(lambda: ddb.create_table(**request)) == message
    # The same index added by UpdateTable is refused in the same words.
    ddb.create_table(
        TableName="plain",
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": S}],
        BillingMode="PAY_PER_REQUEST",
    )
    update = {
        "TableName": "plain",
        "AttributeDefinitions": request["AttributeDefinitions"],
        "GlobalSecondaryIndexUpdates": [{"Create": request["GlobalSecondaryIndexes"][0]}],
    }
    assert _refused(lambda: ddb.update_table(**update)) == message


def test_a_table_and_an_lsi_keep_keys_of_one_attribute(ddb: Any) -> None:
    defs = [{"AttributeName": n, "AttributeType": S} for n in ("p", "c", "l")]
    message = _refused(
        lambda: ddb.create_table(
            TableName="matches",
            KeySchema=[
                {"AttributeName": "p", "KeyType": "HASH"},
                {"AttributeName": "c", "KeyType": "HASH"},
            ],
            AttributeDefinitions=defs[:2],
            BillingMode="PAY_PER_REQUEST",
        )
    )
    assert message == "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"
    message = _refused(
        lambda: ddb.create_table(
            TableName="matches",
            KeySchema=[
                {"AttributeName": "p", "KeyType": "HASH"},
                {"AttributeName": "c", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=defs,
            BillingMode="PAY_PER_REQUEST",
            LocalSecondaryIndexes=[
                {
                    "IndexName": "lsi",
                    "KeySchema": [
                        {"AttributeName": "p", "KeyType": "HASH"},
                        {"AttributeName": "c", "KeyType": "RANGE"},
                        {"AttributeName": "l", "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "ALL"},
                }
            ],
        )
    )
    assert message.endswith("Member must have length less than or equal to 2")


def test_an_index_added_by_update_table_holds_the_items_written_before(ddb: Any) -> None:
    ddb.create_table(
        TableName="matches",
        KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "p", "AttributeType": S}],
        BillingMode="PAY_PER_REQUEST",
    )
    _put(ddb, "1", a="x", b="y", c="z")
    _put(ddb, "2", a="x", b="y")  # no c: not in the index
    ddb.update_table(
        TableName="matches",
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": S} for n in "abc"],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "gsi",
                    "KeySchema": [
                        {"AttributeName": "a", "KeyType": "HASH"},
                        {"AttributeName": "b", "KeyType": "HASH"},
                        {"AttributeName": "c", "KeyType": "RANGE"},
                    ],
                    "Projection": {"ProjectionType": "ALL"},
                }
            }
        ],
    )
    found = _query(ddb, "a = :a AND b = :b", {":a": "x", ":b": "y"})
    assert [i["p"]["S"] for i in found["Items"]] == ["1"]


# --- writes ----------------------------------------------------------------------------------


def test_an_item_missing_one_key_attribute_is_not_in_the_index(matches: Any) -> None:
    _put(matches, "whole", h1="a", h2="b", r1="x", r2="y")
    _put(matches, "no-h2", h1="a", r1="x", r2="y")
    _put(matches, "no-r2", h1="a", h2="b", r1="x")
    scanned = matches.scan(TableName="matches", IndexName="gsi")["Items"]
    assert [i["p"]["S"] for i in scanned] == ["whole"]
    # An update that adds the missing attribute brings the item in; one that removes a key
    # attribute takes it out.
    matches.update_item(
        TableName="matches",
        Key={"p": _s("no-r2")},
        UpdateExpression="SET r2 = :v",
        ExpressionAttributeValues={":v": _s("z")},
    )
    matches.update_item(TableName="matches", Key={"p": _s("whole")}, UpdateExpression="REMOVE h2")
    found = _query(matches, "h1 = :a AND h2 = :b", {":a": "a", ":b": "b"})
    assert [i["p"]["S"] for i in found["Items"]] == ["no-r2"]


def test_each_key_attribute_is_checked_for_its_type_emptiness_and_size(matches: Any) -> None:
    message = _refused(
        lambda: matches.put_item(
            TableName="matches",
            Item={"p": _s("1"), "h1": _s("a"), "h2": {"N": "1"}, "r1": _s("x"), "r2": _s("y")},
        )
    )
    assert message == (
        "One or more parameter values were invalid: Type mismatch for Index Key h2 "
        "Expected: S Actual: N IndexName: gsi"
    )
    message = _refused(lambda: _put(matches, "1", h1="a", h2="", r1="x"))
    assert "cannot contain an empty string value. IndexName: gsi, IndexKey: h2" in message
    # The sort key's attributes are held to 1,024 bytes together, each one below it.
    message = _refused(lambda: _put(matches, "1", h1="a", h2="b", r1="x" * 600, r2="y" * 600))
    assert message.endswith(
        "Aggregated size of all range keys has exceeded the size limit of 1024 bytes"
    )
    message = _refused(lambda: _put(matches, "1", h1="a" * 1500, h2="b" * 1500))
    assert message.endswith("Size of hashkey has exceeded the maximum size limit of2048 bytes")
    _put(matches, "1", h1="a" * 1000, h2="b" * 1000, r1="x" * 500, r2="y" * 500)


# --- Query ------------------------------------------------------------------------------------


@pytest.fixture
def tournament(matches: Any) -> Any:
    """Five matches of one (h1, h2) pair, ordered by (r1, r2), and one of another pair."""
    for p, r1, r2 in [
        ("a", "QF", "3"),
        ("b", "SF", "1"),
        ("c", "QF", "1"),
        ("d", "F", "1"),
        ("e", "QF", "2"),
    ]:
        _put(matches, p, h1="winter", h2="eu", r1=r1, r2=r2, note="n" + p)
    _put(matches, "z", h1="winter", h2="us", r1="QF", r2="1")
    return matches


PAIR = {":h1": "winter", ":h2": "eu"}


def _ps(reply: dict[str, Any]) -> list[str]:
    return [i["p"]["S"] for i in reply["Items"]]


def test_a_query_names_every_partition_key_attribute_and_returns_sort_order(
    tournament: Any,
) -> None:
    both = "h1 = :h1 AND h2 = :h2"
    assert _ps(_query(tournament, both, PAIR)) == ["d", "c", "e", "a", "b"]
    assert _ps(_query(tournament, both, PAIR, ScanIndexForward=False)) == ["b", "a", "e", "c", "d"]
    assert _ps(_query(tournament, both + " AND r1 = :r", {**PAIR, ":r": "QF"})) == ["c", "e", "a"]
    last = both + " AND r1 = :r AND r2 > :n"
    assert _ps(_query(tournament, last, {**PAIR, ":r": "QF", ":n": "1"})) == ["e", "a"]
    between = both + " AND r1 = :r AND r2 BETWEEN :lo AND :hi"
    assert _ps(_query(tournament, between, {**PAIR, ":r": "QF", ":lo": "2", ":hi": "3"})) == [
        "e",
        "a",
    ]
    prefix = both + " AND begins_with(r1, :r)"
    assert _ps(_query(tournament, prefix, {**PAIR, ":r": "Q"})) == ["c", "e", "a"]
    # The operands of an equality in either order, the conditions in any order.
    assert _ps(_query(tournament, ":h2 = h2 AND h1 = :h1", PAIR)) == ["d", "c", "e", "a", "b"]


@pytest.mark.parametrize(
    ("condition", "values", "message"),
    [
        ("h1 = :h1", {":h1": "winter"}, "Query condition missed key schema element: h2"),
        ("h1 = :h1 AND h2 > :h2", PAIR, "Query key condition not supported"),
        (
            "h1 = :h1 AND begins_with(h2, :h2)",
            PAIR,
            "Query key condition not supported",
        ),
        (
            "h1 = :h1 AND h2 = :h2 AND r2 = :r",
            {**PAIR, ":r": "1"},
            "RANGE key attributes r1 must have equality conditions specified in the query "
            "because a condition is present on key attribute r2",
        ),
        (
            "h1 = :h1 AND h2 = :h2 AND r1 > :r AND r2 = :n",
            {**PAIR, ":r": "A", ":n": "1"},
            "RANGE key attributes r1 must have equality conditions specified in the query "
            "because a condition is present on key attribute r2",
        ),
        (
            "h1 = :h1 AND h2 = :h2 AND h1 = :r",
            {**PAIR, ":r": "x"},
            "KeyConditionExpressions must only contain one condition per key",
        ),
    ],
)
def test_a_query_is_refused_where_dynamodb_refuses_it(
    tournament: Any, condition: str, values: dict[str, str], message: str
) -> None:
    assert _refused(lambda: _query(tournament, condition, values)) == message


def test_filters_legacy_conditions_and_consistent_reads_are_refused(tournament: Any) -> None:
    both = "h1 = :h1 AND h2 = :h2"
    message = _refused(
        lambda: _query(tournament, both, {**PAIR, ":v": "QF"}, FilterExpression="r1 = :v")
    )
    assert message == (
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: r1"
    )
    assert _ps(_query(tournament, both, {**PAIR, ":v": "nb"}, FilterExpression="note = :v")) == [
        "b"
    ]
    assert "Consistent reads are not supported" in _refused(
        lambda: _query(tournament, both, PAIR, ConsistentRead=True)
    )
    legacy = _refused(
        lambda: tournament.query(
            TableName="matches",
            IndexName="gsi",
            KeyConditions={
                "h1": {"AttributeValueList": [_s("winter")], "ComparisonOperator": "EQ"},
                "h2": {"AttributeValueList": [_s("eu")], "ComparisonOperator": "EQ"},
            },
        )
    )
    assert legacy.startswith("Query key condition not supported")


def test_pages_carry_every_key_attribute_and_resume_where_they_stopped(tournament: Any) -> None:
    both = "h1 = :h1 AND h2 = :h2"
    first = _query(tournament, both, PAIR, Limit=2)
    assert set(first["LastEvaluatedKey"]) == {"p", "h1", "h2", "r1", "r2"}
    rest = _query(tournament, both, PAIR, ExclusiveStartKey=first["LastEvaluatedKey"])
    assert _ps(first) + _ps(rest) == ["d", "c", "e", "a", "b"]
    other_pair = {**first["LastEvaluatedKey"], "h2": _s("us")}
    message = _refused(lambda: _query(tournament, both, PAIR, ExclusiveStartKey=other_pair))
    assert message == (
        "The provided starting key is outside query boundaries based on provided conditions"
    )


def test_more_than_two_conditions_on_an_index_of_single_attribute_keys_are_refused(
    ddb: Any,
) -> None:
    _create(ddb, [("h1", S)], [("r1", S)])
    message = _refused(
        lambda: ddb.query(
            TableName="matches",
            IndexName="gsi",
            KeyConditionExpression="h1 = :a AND r1 = :b AND p = :c",
            ExpressionAttributeValues={":a": _s("a"), ":b": _s("b"), ":c": _s("c")},
        )
    )
    assert message == "Conditions can be of length 1 or 2 only"


def test_a_keys_only_index_returns_its_keys_and_the_tables(ddb: Any) -> None:
    _create(ddb, [("h1", S), ("h2", "N")], [], projection="KEYS_ONLY")
    ddb.put_item(
        TableName="matches",
        Item={"p": _s("1"), "h1": _s("a"), "h2": {"N": "7"}, "extra": _s("not projected")},
    )
    found = ddb.query(
        TableName="matches",
        IndexName="gsi",
        KeyConditionExpression="h1 = :a AND h2 = :n",
        ExpressionAttributeValues={":a": _s("a"), ":n": {"N": "7.0"}},
    )
    assert found["Items"] == [{"p": _s("1"), "h1": _s("a"), "h2": {"N": "7"}}]


def test_partiql_reads_an_index_of_a_multi_attribute_key(tournament: Any) -> None:
    reply = tournament.execute_statement(
        Statement='SELECT p FROM "matches"."gsi" WHERE h1 = ? AND h2 = ? AND r1 = ?',
        Parameters=[_s("winter"), _s("eu"), _s("SF")],
    )
    assert reply["Items"] == [{"p": _s("b")}]


# --- capacity ---------------------------------------------------------------------------------


def test_the_model_places_and_charges_an_index_write_by_its_composite_key(
    emu: EmulatorServer, matches: Any
) -> None:
    """The GSI write lands on the partition of the pair's hash, not of either attribute
    alone, and its sort position is the pair's (a hot pair is a hot key, as on AWS)."""
    pair = ("winter", "eu")
    pair_hash = composite_partition_hash(pair)
    assert pair_hash != partition_hash("winter")
    assert composite_sort_position(["QF", "3"]) == (sort_position("QF"), sort_position("3"))
    assert composite_sort_position(["QF"]) == sort_position("QF")
    for n in range(20):
        _put(matches, f"m{n}", h1=pair[0], h2=pair[1], r1="QF", r2=f"{n:02d}")
    with emu.service.state.lock:
        index = emu.model.tables["matches"].gsis["gsi"]
        used = [p for p in index.keyspace.serving() if p.taken > 0]
        hashes = {h for p in used for h, _ in p.samples}
        positions = [s for p in used for _, s in p.samples]
    assert len(used) == 1 and used[0].lo <= pair_hash < used[0].hi
    assert hashes == {pair_hash}
    assert positions[:2] == [(b"QF", b"00"), (b"QF", b"01")]
