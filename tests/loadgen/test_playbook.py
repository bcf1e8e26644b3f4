"""The playbook format: built-in playbooks load, bad ones say where and what."""

from __future__ import annotations

from pathlib import Path

import pytest

from loadgen.format.playbook import PlaybookError, load_playbook, parse_playbook
from tests.conftest import PLAYBOOKS

GOOD = """
name: ok
tables:
  - name: t
    partition_key: {name: pk}
    billing_mode: PAY_PER_REQUEST
load:
  attributes:
    pk: {dist: uuid}
  phases:
    - {operation: put, rate: 10, duration_s: 1}
"""


@pytest.mark.parametrize("path", sorted(PLAYBOOKS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_built_in_playbook_is_valid(path: Path) -> None:
    playbook = load_playbook(path)
    assert playbook.tables and playbook.load.phases


def _error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "pb.yaml"
    path.write_text(text)
    with pytest.raises(PlaybookError) as info:
        load_playbook(path)
    message = str(info.value)
    assert str(path) in message  # every error names the file
    return message


def test_missing_capacity_on_a_provisioned_table_names_the_field(tmp_path: Path) -> None:
    message = _error(tmp_path, GOOD.replace("PAY_PER_REQUEST", "PROVISIONED"))
    assert "tables[0]" in message
    assert "read_capacity and write_capacity" in message


def test_wrong_type_names_field_and_expectation(tmp_path: Path) -> None:
    message = _error(tmp_path, GOOD.replace("rate: 10", "rate: fast"))
    assert "load.phases[0].rate" in message
    assert "number" in message


def test_unknown_distribution_is_refused(tmp_path: Path) -> None:
    message = _error(tmp_path, GOOD.replace("dist: uuid", "dist: gaussian"))
    assert "load.attributes.pk" in message
    assert "uuid" in message  # lists what is allowed


def test_key_without_a_distribution_is_refused(tmp_path: Path) -> None:
    message = _error(tmp_path, GOOD.replace("pk: {dist: uuid}", "other: {dist: uuid}"))
    assert "needs key attribute 'pk'" in message


def test_run_naming_an_unknown_table_is_refused(tmp_path: Path) -> None:
    message = _error(tmp_path, GOOD + "  runs:\n    - {table: nope}\n")
    assert "'nope'" in message


def test_misspelt_field_is_refused_not_ignored(tmp_path: Path) -> None:
    message = _error(tmp_path, GOOD.replace("billing_mode", "biling_mode"))
    assert "line 6: tables[0].biling_mode: unknown field 'biling_mode'" in message
    assert "(did you mean 'billing_mode'?)" in message
    assert "valid fields here: name, partition_key, sort_key, billing_mode," in message


def test_misspelt_field_inside_a_distribution_lists_that_distributions_fields(
    tmp_path: Path,
) -> None:
    text = GOOD.replace("pk: {dist: uuid}", "pk: {dist: weighted, wieghts: {a: 1}}")
    message = _error(tmp_path, text)
    assert "load.attributes.pk.wieghts: unknown field 'wieghts'" in message
    assert "(did you mean 'weights'?)" in message
    assert "valid fields here: type, per_item, dist, weights" in message


def test_unknown_field_far_from_any_name_lists_the_valid_ones_without_a_guess(
    tmp_path: Path,
) -> None:
    message = _error(tmp_path, GOOD.replace("rate: 10,", "rate: 10, zzz: 1,"))
    assert "load.phases[0].zzz: unknown field 'zzz'; valid fields here: name," in message
    assert "did you mean" not in message


def test_yaml_syntax_error_gives_the_line_that_opened_the_broken_construct(
    tmp_path: Path,
) -> None:
    text = GOOD.replace("partition_key: {name: pk}", "partition_key: {name: pk, type: S")
    message = _error(tmp_path, text)
    # PyYAML notices only on the next line; the message names the line of the brace
    line = text.splitlines().index("    partition_key: {name: pk, type: S") + 1
    assert f"not valid YAML at line {line}, column 20: while parsing a flow mapping" in message
    assert f"at line {line + 1}" in message  # and where it noticed


def test_key_without_a_distribution_is_reported_at_the_tables_key_line(
    tmp_path: Path,
) -> None:
    text = GOOD.replace(
        "    billing_mode: PAY_PER_REQUEST\n",
        "    sort_key: {name: sk}\n    billing_mode: PAY_PER_REQUEST\n",
    )
    message = _error(tmp_path, text)
    line = text.splitlines().index("    sort_key: {name: sk}") + 1
    assert f"line {line}: tables[0].sort_key: table t needs key attribute 'sk'" in message
    text = GOOD + "  runs:\n    - {table: nope}\n"
    line = text.splitlines().index("    - {table: nope}") + 1
    assert f"line {line}: load.runs[0].table: names table 'nope'" in _error(tmp_path, text)


def test_missing_file_says_where_playbooks_are(tmp_path: Path) -> None:
    with pytest.raises(PlaybookError, match="no such playbook file"):
        load_playbook(tmp_path / "absent.yaml")


def test_create_table_request_is_the_dynamodb_shape() -> None:
    playbook = load_playbook(PLAYBOOKS / "hot-partition.yaml")
    req = playbook.table("goodGsi").create_table_request("hb-x-goodGsi", {"run": "x"})
    assert req["TableName"] == "hb-x-goodGsi"
    assert req["KeySchema"] == [
        {"AttributeName": "itemId", "KeyType": "HASH"},
        {"AttributeName": "warehouseId", "KeyType": "RANGE"},
    ]
    types = {a["AttributeName"]: a["AttributeType"] for a in req["AttributeDefinitions"]}
    assert types == {"itemId": "S", "warehouseId": "S", "shelfNumber": "N", "unitPrice": "N"}
    assert [g["IndexName"] for g in req["GlobalSecondaryIndexes"]] == [
        "byWarehouse",
        "byWarehouseShelf",
        "byWarehousePrice",
    ]
    assert req["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"] == {
        "ReadCapacityUnits": 1000,
        "WriteCapacityUnits": 10000,
    }
    assert req["Tags"] == [{"Key": "run", "Value": "x"}]
    on_demand = playbook.table("badOnDemand").create_table_request("t")
    assert on_demand["BillingMode"] == "PAY_PER_REQUEST"
    assert "ProvisionedThroughput" not in on_demand


# Warm throughput: DynamoDB (and the AWS provider, which terraform/modules/spec follows)
# accepts at least 12,000 read / 4,000 write units per second, tables and GSIs alike.
WARM_GSI = GOOD.replace(
    "    billing_mode: PAY_PER_REQUEST\n",
    "    billing_mode: PAY_PER_REQUEST\n"
    "    gsis:\n"
    "      - {name: byPk, partition_key: {name: pk}, warm_throughput: WARM}\n",
)


@pytest.mark.parametrize(
    ("warm", "side", "minimum"),
    [("{read: 1000}", "read 1,000", "12,000"), ("{write: 3999}", "write 3,999", "4,000")],
)
def test_table_warm_throughput_below_the_minimum_is_refused(
    tmp_path: Path, warm: str, side: str, minimum: str
) -> None:
    text = GOOD.replace(
        "    billing_mode: PAY_PER_REQUEST\n",
        f"    billing_mode: PAY_PER_REQUEST\n    warm_throughput: {warm}\n",
    )
    message = _error(tmp_path, text)
    assert "tables[0].warm_throughput" in message
    assert f"{side} is below DynamoDB's minimum of {minimum}" in message
    assert "omit that side" in message  # and says how to fix it


def test_gsi_warm_throughput_below_the_minimum_is_refused(tmp_path: Path) -> None:
    message = _error(tmp_path, WARM_GSI.replace("WARM", "{read: 12000, write: 20}"))
    assert "tables[0].gsis[0].warm_throughput" in message
    assert "write 20 is below DynamoDB's minimum of 4,000" in message
    assert "read 12,000" not in message  # the minimum itself is accepted


@pytest.mark.parametrize("warm", ["{read: 12000, write: 4000}", "{write: 20000}", "{}"])
def test_warm_throughput_at_or_above_the_minimum_is_accepted(tmp_path: Path, warm: str) -> None:
    path = tmp_path / "pb.yaml"
    path.write_text(WARM_GSI.replace("WARM", warm))
    gsi = load_playbook(path).tables[0].gsis[0]
    assert gsi.warm_throughput is not None


def test_an_include_projection_names_its_attributes() -> None:
    """DynamoDB refuses INCLUDE without NonKeyAttributes at CreateTable (the differential
    test's endpoint did): the playbook says so first."""

    def playbook(gsi: dict[str, object]) -> None:
        parse_playbook(
            {
                "name": "p",
                "tables": [
                    {
                        "name": "tbl",
                        "partition_key": {"name": "pk"},
                        "billing_mode": "PAY_PER_REQUEST",
                        "gsis": [{"name": "g", "partition_key": {"name": "g"}, **gsi}],
                    }
                ],
                "load": {
                    "attributes": {"pk": {"dist": "uuid"}, "g": {"dist": "uuid"}},
                    "phases": [{"rate": 1, "duration_s": 1}],
                },
            },
            "<test>",
        )

    with pytest.raises(PlaybookError, match="INCLUDE needs non_key_attributes"):
        playbook({"projection": "INCLUDE"})
    with pytest.raises(PlaybookError, match="apply to projection INCLUDE, not ALL"):
        playbook({"non_key_attributes": ["x"]})
    playbook({"projection": "INCLUDE", "non_key_attributes": ["x"]})


def test_distributions_in_words() -> None:
    """What the console's plan prints instead of the model's dict."""
    attrs = load_playbook(PLAYBOOKS / "hot-partition.yaml").load.attributes
    assert attrs["warehouseId"].describe() == "WH-TOKYO 80 %, WH-OSAKA 10 %, WH-FUKUOKA 10 %"
    assert attrs["itemId"].describe() == "uniform over 5,000 values SKU-00000..SKU-04999"
    assert attrs["shelfNumber"].describe().endswith(", fixed per item")
    shard = load_playbook(PLAYBOOKS / "write-sharding.yaml").load.attributes["warehouseShard"]
    assert shard.describe().startswith("{wh}#{shard} with wh: WH-TOKYO 80 %")
