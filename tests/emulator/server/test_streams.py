"""DynamoDB Streams on the emulator, through boto3's `dynamodbstreams` client: the table's
StreamSpecification, ListStreams, DescribeStream (shards that follow the partitions),
GetShardIterator, GetRecords with every view type, a record for every write path,
24-hour retention on the emulator's clock, and the memory budget."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from emulator.server import EmulatorOptions, EmulatorServer
from tests.emulator.server.conftest import client, refusal, streams_client

KEY = {"AttributeName": "pk", "KeyType": "HASH"}


def _create(ddb: Any, view: str | None = "NEW_AND_OLD_IMAGES", name: str = "orders") -> str:
    extra: dict[str, Any] = {}
    if view is not None:
        extra["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view}
    described = ddb.create_table(
        TableName=name,
        KeySchema=[KEY],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        **extra,
    )["TableDescription"]
    return str(described.get("LatestStreamArn", ""))


def _key(pk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}}


def _records(streams: Any, arn: str, kind: str = "TRIM_HORIZON") -> list[dict[str, Any]]:
    """Every record of the stream, shard after shard (parents before children)."""
    out: list[dict[str, Any]] = []
    shards = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    for shard in shards:
        iterator = streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType=kind
        )["ShardIterator"]
        for _ in range(100):
            page = streams.get_records(ShardIterator=iterator)
            out.extend(page["Records"])
            iterator = page.get("NextShardIterator")
            if iterator is None or not page["Records"]:
                break
    return sorted(out, key=lambda r: r["dynamodb"]["SequenceNumber"])


def _events(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in records]


@pytest.fixture
def streams(emu: EmulatorServer) -> Any:
    return streams_client(emu.endpoint_url)


# --- the table's stream ----------------------------------------------------------------------


def test_a_table_created_with_a_stream_describes_and_lists_it(ddb: Any, streams: Any) -> None:
    arn = _create(ddb)
    table = ddb.describe_table(TableName="orders")["Table"]
    label = table["LatestStreamLabel"]
    assert table["StreamSpecification"] == {
        "StreamEnabled": True,
        "StreamViewType": "NEW_AND_OLD_IMAGES",
    }
    assert arn == table["LatestStreamArn"] == f"{table['TableArn']}/stream/{label}"
    assert len(label) == len("2026-10-08T23:07:31.275") and label[10] == "T"
    _create(ddb, view=None, name="plain")
    assert "LatestStreamArn" not in ddb.describe_table(TableName="plain")["Table"]
    listed = streams.list_streams()["Streams"]
    assert listed == [{"StreamArn": arn, "TableName": "orders", "StreamLabel": label}]
    assert streams.list_streams(TableName="plain")["Streams"] == []
    described = streams.describe_stream(StreamArn=arn)["StreamDescription"]
    assert described["StreamStatus"] == "ENABLED"
    assert described["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert described["KeySchema"] == [KEY]
    assert described["TableName"] == "orders"


def test_list_streams_pages(ddb: Any, streams: Any) -> None:
    arns = sorted(_create(ddb, name=name) for name in ("aaa", "bbb", "ccc"))
    first = streams.list_streams(Limit=2)
    rest = streams.list_streams(ExclusiveStartStreamArn=first["LastEvaluatedStreamArn"])
    assert [s["StreamArn"] for s in first["Streams"] + rest["Streams"]] == arns
    assert "LastEvaluatedStreamArn" not in rest


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"StreamEnabled": True},
            "One or more parameter values were invalid: Table is being created with a stream "
            "enabled, UpdateViewType is required",
        ),
        (
            {"StreamEnabled": False, "StreamViewType": "NEW_IMAGE"},
            "One or more parameter values were invalid: Table is being created with a stream "
            "disabled, UpdateViewType should not be specified",
        ),
        (
            {"StreamViewType": "NEW_IMAGE"},
            "1 validation error detected: Value null at 'streamSpecification.streamEnabled' "
            "failed to satisfy constraint: Member must not be null",
        ),
        (
            {"StreamEnabled": True, "StreamViewType": "new_image"},
            "1 validation error detected: Value 'new_image' at "
            "'streamSpecification.streamViewType' failed to satisfy constraint: Member must "
            "satisfy enum value set: [OLD_IMAGE, KEYS_ONLY, NEW_AND_OLD_IMAGES, NEW_IMAGE]",
        ),
    ],
)
def test_create_table_refuses_a_stream_specification_as_dynamodb_does(
    emu: EmulatorServer, spec: dict[str, Any], message: str
) -> None:
    """Sent in process: botocore would refuse the malformed ones before sending."""
    request = {
        "TableName": "orders",
        "KeySchema": [KEY],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PAY_PER_REQUEST",
        "StreamSpecification": spec,
    }
    assert refusal(emu.service, "CreateTable", request) == ("ValidationException", message)


def test_update_table_enables_and_disables_the_stream_as_dynamodb_does(
    ddb: Any, streams: Any
) -> None:
    _create(ddb, view=None)

    def update(**spec: Any) -> dict[str, Any]:
        reply: dict[str, Any] = ddb.update_table(TableName="orders", StreamSpecification=spec)
        return reply["TableDescription"]

    def refused(**spec: Any) -> str:
        with pytest.raises(ClientError) as caught:
            update(**spec)
        assert caught.value.response["Error"]["Code"] == "ValidationException"
        return str(caught.value.response["Error"]["Message"])

    assert refused(StreamEnabled=False) == "Table has no stream to disable: TableName: orders"
    assert refused(StreamEnabled=True) == (
        "One or more parameter values were invalid: If stream is being enabled then "
        "UpdateViewType is required"
    )
    first = update(StreamEnabled=True, StreamViewType="KEYS_ONLY")["LatestStreamArn"]
    again = refused(StreamEnabled=True, StreamViewType="NEW_IMAGE")
    assert again == "Table already has an enabled stream: TableName: orders"
    assert refused(StreamEnabled=False, StreamViewType="KEYS_ONLY") == (
        "One or more parameter values were invalid: If stream is being disabled, then "
        "UpdateViewType must not be specified"
    )
    with pytest.raises(ClientError) as caught:
        ddb.update_table(
            TableName="orders",
            StreamSpecification={"StreamEnabled": False},
            BillingMode="PROVISIONED",
            ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        )
    assert caught.value.response["Error"]["Message"] == (
        "You cannot modify stream status while updating table IOPS"
    )
    ddb.put_item(TableName="orders", Item=_key("a"))
    update(StreamEnabled=False)
    table = ddb.describe_table(TableName="orders")["Table"]
    assert "StreamSpecification" not in table and table["LatestStreamArn"] == first
    old = streams.describe_stream(StreamArn=first)["StreamDescription"]
    assert old["StreamStatus"] == "DISABLED"
    assert all("EndingSequenceNumber" in s["SequenceNumberRange"] for s in old["Shards"])
    assert _events(_records(streams, first)) == [("INSERT", "a")]  # still readable
    second = update(StreamEnabled=True, StreamViewType="NEW_IMAGE")["LatestStreamArn"]
    assert second != first
    assert {s["StreamArn"] for s in streams.list_streams(TableName="orders")["Streams"]} == {
        first,
        second,
    }


# --- records -----------------------------------------------------------------------------------


def test_every_write_path_writes_its_record_in_order(ddb: Any, streams: Any) -> None:
    arn = _create(ddb)
    ddb.put_item(TableName="orders", Item={**_key("p"), "n": {"N": "1"}})
    ddb.put_item(TableName="orders", Item={**_key("p"), "n": {"N": "1.0"}})  # no change
    ddb.update_item(
        TableName="orders",
        Key=_key("p"),
        UpdateExpression="SET n = n + :one",
        ExpressionAttributeValues={":one": {"N": "1"}},
    )
    ddb.delete_item(TableName="orders", Key=_key("p"))
    ddb.delete_item(TableName="orders", Key=_key("nothing"))  # nothing deleted: no record
    ddb.batch_write_item(
        RequestItems={
            "orders": [
                {"PutRequest": {"Item": _key("b1")}},
                {"PutRequest": {"Item": _key("b2")}},
            ]
        }
    )
    ddb.batch_write_item(RequestItems={"orders": [{"DeleteRequest": {"Key": _key("b1")}}]})
    ddb.transact_write_items(
        TransactItems=[
            {"Put": {"TableName": "orders", "Item": _key("t1")}},
            {"Delete": {"TableName": "orders", "Key": _key("b2")}},
            {
                "ConditionCheck": {
                    "TableName": "orders",
                    "Key": _key("absent"),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            },
        ]
    )
    ddb.execute_statement(Statement="INSERT INTO \"orders\" VALUE {'pk': 'q', 'n': 1}")
    ddb.execute_statement(Statement="UPDATE \"orders\" SET n = 2 WHERE pk = 'q'")
    ddb.execute_statement(Statement="DELETE FROM \"orders\" WHERE pk = 'q'")
    records = _records(streams, arn)
    assert _events(records) == [
        ("INSERT", "p"),
        ("MODIFY", "p"),
        ("REMOVE", "p"),
        ("INSERT", "b1"),
        ("INSERT", "b2"),
        ("REMOVE", "b1"),
        ("INSERT", "t1"),
        ("REMOVE", "b2"),
        ("INSERT", "q"),
        ("MODIFY", "q"),
        ("REMOVE", "q"),
    ]
    modify = records[1]
    assert modify["dynamodb"]["OldImage"] == {**_key("p"), "n": {"N": "1"}}
    assert modify["dynamodb"]["NewImage"] == {**_key("p"), "n": {"N": "2"}}
    assert modify["eventSource"] == "aws:dynamodb" and modify["awsRegion"] == "us-east-1"
    assert modify["eventVersion"] == "1.1" and len(modify["eventID"]) == 32
    assert "userIdentity" not in modify
    numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in records]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    assert all(len(r["dynamodb"]["SequenceNumber"]) == 21 for r in records)
    assert all(r["dynamodb"]["SizeBytes"] > 0 for r in records)


@pytest.mark.parametrize(
    ("view", "members"),
    [
        ("KEYS_ONLY", {"Keys"}),
        ("NEW_IMAGE", {"Keys", "NewImage"}),
        ("OLD_IMAGE", {"Keys", "OldImage"}),
        ("NEW_AND_OLD_IMAGES", {"Keys", "NewImage", "OldImage"}),
    ],
)
def test_each_view_type_shows_what_it_names(
    ddb: Any, streams: Any, view: str, members: set[str]
) -> None:
    arn = _create(ddb, view)
    ddb.put_item(TableName="orders", Item={**_key("k"), "v": {"S": "one"}})
    ddb.put_item(TableName="orders", Item={**_key("k"), "v": {"S": "two"}})
    record = _records(streams, arn)[1]
    images = {k for k in record["dynamodb"] if k in ("Keys", "NewImage", "OldImage")}
    assert images == members
    assert record["dynamodb"]["StreamViewType"] == view
    assert record["dynamodb"]["Keys"] == _key("k")
    if "NewImage" in members:
        assert record["dynamodb"]["NewImage"]["v"] == {"S": "two"}
    if "OldImage" in members:
        assert record["dynamodb"]["OldImage"]["v"] == {"S": "one"}


def test_a_time_to_live_deletion_is_a_remove_by_the_service(
    emu: EmulatorServer, ddb: Any, streams: Any
) -> None:
    arn = _create(ddb)
    ddb.update_time_to_live(
        TableName="orders",
        TimeToLiveSpecification={"Enabled": True, "AttributeName": "expires"},
    )
    expired = str(int(time.time()) - 10)
    ddb.put_item(TableName="orders", Item={**_key("gone"), "expires": {"N": expired}})
    emu.skip(61)  # the sweep runs once a minute of emulator time
    removed = _records(streams, arn)[-1]
    assert (removed["eventName"], removed["dynamodb"]["Keys"]) == ("REMOVE", _key("gone"))
    assert removed["userIdentity"] == {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
    assert removed["dynamodb"]["OldImage"]["expires"] == {"N": expired}


# --- iterators ---------------------------------------------------------------------------------


def _single_shard(ddb: Any, streams: Any, arn: str, pk: str) -> str:
    """The shard the key's records go to."""
    ddb.put_item(TableName="orders", Item=_key(pk))
    for record in _records(streams, arn):
        if record["dynamodb"]["Keys"] == _key(pk):
            sequence = record["dynamodb"]["SequenceNumber"]
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(
            StreamArn=arn,
            ShardId=shard["ShardId"],
            ShardIteratorType="AT_SEQUENCE_NUMBER",
            SequenceNumber=sequence,
        )["ShardIterator"]
        page = streams.get_records(ShardIterator=iterator)["Records"]
        if page and page[0]["dynamodb"]["SequenceNumber"] == sequence:
            return str(shard["ShardId"])
    raise AssertionError("no shard holds the record")


def test_shard_iterators_start_where_their_type_says(ddb: Any, streams: Any) -> None:
    arn = _create(ddb)
    shard = _single_shard(ddb, streams, arn, "k")
    for n in range(3):
        ddb.put_item(TableName="orders", Item={**_key("k"), "n": {"N": str(n)}})

    def iterator(kind: str, **extra: Any) -> str:
        answer = streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard, ShardIteratorType=kind, **extra
        )
        return str(answer["ShardIterator"])

    everything = streams.get_records(ShardIterator=iterator("TRIM_HORIZON"))["Records"]
    numbers = [r["dynamodb"]["SequenceNumber"] for r in everything]
    assert len(numbers) == 4
    at = streams.get_records(
        ShardIterator=iterator("AT_SEQUENCE_NUMBER", SequenceNumber=numbers[1])
    )
    assert [r["dynamodb"]["SequenceNumber"] for r in at["Records"]] == numbers[1:]
    after = streams.get_records(
        ShardIterator=iterator("AFTER_SEQUENCE_NUMBER", SequenceNumber=numbers[1])
    )
    assert [r["dynamodb"]["SequenceNumber"] for r in after["Records"]] == numbers[2:]
    latest = streams.get_records(ShardIterator=iterator("LATEST"))
    assert latest["Records"] == []
    ddb.put_item(TableName="orders", Item={**_key("k"), "n": {"N": "9"}})
    following = streams.get_records(ShardIterator=latest["NextShardIterator"])["Records"]
    assert [r["dynamodb"]["NewImage"]["n"] for r in following] == [{"N": "9"}]
    # AT_TIMESTAMP: the first record written at or after the time.
    since = streams.get_records(
        ShardIterator=iterator(
            "AT_TIMESTAMP", Timestamp=everything[0]["dynamodb"]["ApproximateCreationDateTime"]
        )
    )
    assert since["Records"][0]["dynamodb"]["SequenceNumber"] == numbers[0]
    # Limit pages: each page's NextShardIterator goes on where it stopped.
    first = streams.get_records(ShardIterator=iterator("TRIM_HORIZON"), Limit=2)
    rest = streams.get_records(ShardIterator=first["NextShardIterator"])
    assert len(first["Records"]) == 2 and len(rest["Records"]) == 3


def test_records_are_kept_24_hours_and_iterators_15_minutes(
    emu: EmulatorServer, ddb: Any, streams: Any
) -> None:
    arn = _create(ddb)
    shard = _single_shard(ddb, streams, arn, "k")
    iterator = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    emu.skip(15 * 60 + 1)
    with pytest.raises(ClientError) as caught:
        streams.get_records(ShardIterator=iterator)
    assert caught.value.response["Error"]["Code"] == "ExpiredIteratorException"
    sequence = _records(streams, arn)[0]["dynamodb"]["SequenceNumber"]
    emu.skip(24 * 3600 - 15 * 60 - 60)  # a minute before the record's 24 hours are up
    fresh = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    emu.skip(120)
    with pytest.raises(ClientError) as caught:
        streams.get_records(ShardIterator=fresh)
    assert caught.value.response["Error"]["Code"] == "TrimmedDataAccessException"
    with pytest.raises(ClientError) as caught:
        streams.get_shard_iterator(
            StreamArn=arn,
            ShardId=shard,
            ShardIteratorType="AT_SEQUENCE_NUMBER",
            SequenceNumber=sequence,
        )
    assert caught.value.response["Error"]["Code"] == "TrimmedDataAccessException"
    assert _records(streams, arn) == []


def test_the_records_budget_trims_the_oldest_first() -> None:
    """Past the budget (`stream_bytes`), the oldest records of all streams go, as
    retention would take them; /_hotbench/memory says how many."""
    with EmulatorServer(EmulatorOptions(create_delay_s=0, stream_bytes=20_000)) as emu:
        ddb, streams = client(emu.endpoint_url), streams_client(emu.endpoint_url)
        arn = _create(ddb)
        for n in range(100):
            ddb.put_item(TableName="orders", Item={**_key(f"k{n:03d}"), "pad": {"S": "x" * 100}})
        kept = _records(streams, arn)
        memory = emu.memory()
        assert 0 < len(kept) < 100 and memory["stream_bytes"] <= 20_000
        assert memory["stream_records_trimmed_for_memory"] == 100 - len(kept)
        # The newest are kept, a contiguous run of them.
        assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in kept] == [
            f"k{n:03d}" for n in range(100 - len(kept), 100)
        ]
        assert emu.service.internal_errors == 0


# --- shards follow partitions ------------------------------------------------------------------


def test_shards_follow_the_partitions_and_their_splits(
    emu: EmulatorServer, ddb: Any, streams: Any
) -> None:
    arn = _create(ddb)
    before = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    assert len(before) == emu.partitions("orders")["indexes"][0]["partition_count"]
    assert all("ParentShardId" not in s for s in before)
    for n in range(20):
        ddb.put_item(TableName="orders", Item=_key(f"old{n}"))
    # Warm throughput of 40,000 writes a second pre-splits the table's partitions.
    ddb.update_table(TableName="orders", WarmThroughput={"WriteUnitsPerSecond": 40_000})
    emu.skip(120)
    for n in range(20):
        ddb.put_item(TableName="orders", Item=_key(f"new{n}"))
    after = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    partitions = emu.partitions("orders")["indexes"][0]["partition_count"]
    open_shards = [s for s in after if "EndingSequenceNumber" not in s["SequenceNumberRange"]]
    closed = [s for s in after if "EndingSequenceNumber" in s["SequenceNumberRange"]]
    assert len(open_shards) == partitions > len(before)
    assert {s["ShardId"] for s in closed} == {s["ShardId"] for s in before}
    parents = {s["ParentShardId"] for s in open_shards}
    assert parents <= {s["ShardId"] for s in before} and parents
    children = streams.describe_stream(
        StreamArn=arn, ShardFilter={"Type": "CHILD_SHARDS", "ShardId": sorted(parents)[0]}
    )["StreamDescription"]["Shards"]
    assert children and all(c["ParentShardId"] == sorted(parents)[0] for c in children)
    # A closed shard read to its end has no NextShardIterator; the records written after
    # the split are in the children.
    parent = sorted(parents)[0]
    iterator = streams.get_shard_iterator(
        StreamArn=arn, ShardId=parent, ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    page = streams.get_records(ShardIterator=iterator)
    assert "NextShardIterator" not in page
    assert all(r["dynamodb"]["Keys"]["pk"]["S"].startswith("old") for r in page["Records"])
    records = _records(streams, arn)
    assert sorted(_events(records)) == sorted(
        [("INSERT", f"old{n}") for n in range(20)] + [("INSERT", f"new{n}") for n in range(20)]
    )
    # Pages of shards.
    page1 = streams.describe_stream(StreamArn=arn, Limit=2)["StreamDescription"]
    page2 = streams.describe_stream(
        StreamArn=arn, ExclusiveStartShardId=page1["LastEvaluatedShardId"]
    )["StreamDescription"]
    assert [s["ShardId"] for s in page1["Shards"] + page2["Shards"]] == [
        s["ShardId"] for s in after
    ]


def test_a_deleted_tables_stream_stays_listed_and_readable(ddb: Any, streams: Any) -> None:
    arn = _create(ddb)
    ddb.put_item(TableName="orders", Item=_key("a"))
    ddb.delete_table(TableName="orders")
    assert streams.describe_stream(StreamArn=arn)["StreamDescription"]["StreamStatus"] == (
        "DISABLED"
    )
    assert [s["StreamArn"] for s in streams.list_streams(TableName="orders")["Streams"]] == [arn]
    assert _events(_records(streams, arn)) == [("INSERT", "a")]


# --- refusals ----------------------------------------------------------------------------------


@pytest.fixture
def stream_arn(ddb: Any) -> Iterator[str]:
    yield _create(ddb)


def test_streams_requests_are_refused_as_dynamodb_refuses_them(
    emu: EmulatorServer, streams: Any, stream_arn: str
) -> None:
    def code(call: Any) -> str:
        with pytest.raises(ClientError) as caught:
            call()
        return str(caught.value.response["Error"]["Code"])

    missing = stream_arn.replace("orders", "nothere")
    assert code(lambda: streams.describe_stream(StreamArn=missing)) == "ResourceNotFoundException"
    assert code(lambda: streams.list_streams(TableName="nothere")) == "ResourceNotFoundException"
    shard_id = streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"][0][
        "ShardId"
    ]
    assert (
        code(
            lambda: streams.get_shard_iterator(
                StreamArn=stream_arn,
                ShardId="shardId-00000000000000000000-00000000",
                ShardIteratorType="LATEST",
            )
        )
        == "ResourceNotFoundException"
    )
    assert (
        code(
            lambda: streams.get_shard_iterator(
                StreamArn=stream_arn, ShardId=shard_id, ShardIteratorType="AT_SEQUENCE_NUMBER"
            )
        )
        == "ValidationException"
    )
    assert code(lambda: streams.get_records(ShardIterator="garbage")) == "ValidationException"
    assert code(lambda: streams.get_records(ShardIterator=f"{stream_arn}|1|!!!")) == (
        "ValidationException"
    )
    for body in (b'{"ShardIterator": 5}', b'{"Limit": 0, "ShardIterator": "x"}', b"[]", b"{"):
        status, _ = emu.service.handle("DynamoDBStreams_20120810.GetRecords", body)
        assert status == 400
    status, _ = emu.service.handle("DynamoDBStreams_20120810.Frobnicate", b"{}")
    assert status == 400
