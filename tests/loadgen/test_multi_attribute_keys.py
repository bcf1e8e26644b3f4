"""Multi-attribute GSI keys in the playbook format, the simulation and advise: a GSI's
partition_key / sort_key as a list of up to four attributes (DynamoDB, November 2025)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from emulator.compositekey import composite_partition_hash, composite_sort_position
from emulator.keyspace import partition_hash
from emulator.server.items import key_hash
from emulator.server.table import key_schema
from loadgen.analysis.advise import advise
from loadgen.format.playbook import PlaybookError, load_playbook
from loadgen.load.keys import ItemGenerator
from loadgen.load.requests import wire_value
from loadgen.simulation.simulate import CompositeKeyMapper, KeyMapper, Simulation, simulate
from tests.conftest import make_playbook

ZONE_KEY = [{"name": "warehouseId", "type": "S"}, {"name": "zone", "type": "S"}]


def _table(name: str, gsi_pk: Any, gsi_sk: Any = None) -> dict[str, Any]:
    gsi: dict[str, Any] = {
        "name": "byKey",
        "partition_key": gsi_pk,
        "read_capacity": 1000,
        "write_capacity": 10000,
    }
    if gsi_sk is not None:
        gsi["sort_key"] = gsi_sk
    return {
        "name": name,
        "partition_key": {"name": "itemId"},
        "billing_mode": "PROVISIONED",
        "read_capacity": 1000,
        "write_capacity": 10000,
        "item_size_bytes": 1000,
        "gsis": [gsi],
    }


ATTRIBUTES: dict[str, Any] = {
    "itemId": {"dist": "uniform", "count": 5000, "format": "SKU-{:05d}"},
    "warehouseId": {"dist": "weighted", "weights": {"WH-TOKYO": 80, "WH-OSAKA": 20}},
    "zone": {"dist": "uniform", "count": 5, "format": "Z{}", "per_item": True},
    "at": {"dist": "uniform", "count": 100},
}


def test_a_list_key_becomes_every_hash_then_every_range_element() -> None:
    pb = make_playbook(
        [_table("t", ZONE_KEY, [{"name": "at", "type": "N"}, {"name": "itemId"}])],
        ATTRIBUTES,
        [{"name": "w", "operation": "put", "rate": 10, "duration_s": 1}],
    )
    gsi = pb.tables[0].gsis[0]
    assert [k.name for k in gsi.partition_keys] == ["warehouseId", "zone"]
    assert gsi.multi_attribute and gsi.key_names() == ["warehouseId", "zone", "at", "itemId"]
    request = pb.tables[0].create_table_request("t")
    (index,) = request["GlobalSecondaryIndexes"]
    assert index["KeySchema"] == [
        {"AttributeName": "warehouseId", "KeyType": "HASH"},
        {"AttributeName": "zone", "KeyType": "HASH"},
        {"AttributeName": "at", "KeyType": "RANGE"},
        {"AttributeName": "itemId", "KeyType": "RANGE"},
    ]
    types = {d["AttributeName"]: d["AttributeType"] for d in request["AttributeDefinitions"]}
    assert types == {"itemId": "S", "warehouseId": "S", "zone": "S", "at": "N"}
    # The endpoint's own validation takes the schema (four elements, two of each).
    schema = key_schema(index["KeySchema"], types, "GlobalSecondaryIndexes", multi=True)
    assert [k.name for k in schema.hash_keys] == ["warehouseId", "zone"]
    # A one-attribute key keeps its shape: what a playbook dumps is what it wrote.
    single = make_playbook(
        [_table("s", {"name": "warehouseId"})],
        ATTRIBUTES,
        [{"name": "w", "operation": "put", "rate": 10, "duration_s": 1}],
    )
    dumped = single.tables[0].gsis[0].model_dump()["partition_key"]
    assert dumped == {"name": "warehouseId", "type": "S"}


def _problems(tmp_path: Path, gsi_lines: str, table_key: str = "{name: itemId}") -> str:
    path = tmp_path / "pb.yaml"
    path.write_text(
        f"""name: multi
tables:
  - name: t
    partition_key: {table_key}
    billing_mode: PAY_PER_REQUEST
    gsis:
      - name: byKey
{gsi_lines}
load:
  attributes:
    itemId: {{dist: uuid}}
    a: {{dist: uniform, count: 3}}
    b: {{dist: uniform, count: 3}}
    c: {{dist: uniform, count: 3}}
    d: {{dist: uniform, count: 3}}
    e: {{dist: uniform, count: 3}}
  phases:
    - {{name: w, operation: put, rate: 10, duration_s: 1}}
"""
    )
    with pytest.raises(PlaybookError) as err:
        load_playbook(path)
    return str(err.value)


def test_more_than_four_attributes_is_refused_at_the_fields_line(tmp_path: Path) -> None:
    five = "\n".join(f"          - {{name: {n}}}" for n in "abcde")
    message = _problems(tmp_path, f"        partition_key:\n{five}")
    assert "line 8: tables[0].gsis[0].partition_key: a GSI's partition_key takes 1 to 4" in message
    assert "got 5" in message and "Traceback" not in message


def test_an_attribute_named_twice_or_mistyped_is_named(tmp_path: Path) -> None:
    twice = _problems(
        tmp_path,
        "        partition_key: [{name: a}, {name: b}]\n        sort_key: [{name: c}, {name: c}]",
    )
    assert "line 9: tables[0].gsis[0].sort_key: attribute 'c' is named twice" in twice
    typo = _problems(
        tmp_path, "        partition_key:\n          - {name: a}\n          - {nme: b}"
    )
    assert "line 10: tables[0].gsis[0].partition_key[1].nme: unknown field 'nme'" in typo
    assert "did you mean 'name'?" in typo
    empty = _problems(tmp_path, "        partition_key: []")
    assert "takes 1 to 4 attributes" in empty and "got 0" in empty


def test_a_list_on_the_tables_own_key_says_it_is_a_gsis(tmp_path: Path) -> None:
    message = _problems(tmp_path, "        partition_key: {name: a}", "[{name: itemId}, {name: a}]")
    assert "line 4: tables[0].partition_key: a table's partition_key is one attribute" in message
    assert "is for a GSI's keys" in message


def test_each_attribute_needs_a_distribution_at_its_own_line(tmp_path: Path) -> None:
    message = _problems(
        tmp_path, "        partition_key:\n          - {name: a}\n          - {name: zz}"
    )
    assert (
        "line 10: tables[0].gsis[0].partition_key[1]: table t needs key attribute 'zz'" in message
    )


def test_a_step_cannot_query_a_multi_attribute_gsi_yet(tmp_path: Path) -> None:
    path = tmp_path / "q.yaml"
    path.write_text(
        """name: q
tables:
  - name: t
    partition_key: {name: itemId}
    billing_mode: PAY_PER_REQUEST
    gsis:
      - {name: byKey, partition_key: [{name: a}, {name: b}]}
load:
  attributes:
    itemId: {dist: uuid}
    a: {dist: uniform, count: 3}
    b: {dist: uniform, count: 3}
  phases:
    - name: m
      duration_s: 1
      rate: 5
      mix:
        - {op: query, index: byKey, weight: 1}
"""
    )
    with pytest.raises(PlaybookError) as err:
        load_playbook(path)
    assert "GSI byKey has a multi-attribute key, which a step cannot query yet" in str(err.value)


def test_the_simulations_composite_hash_is_the_endpoints() -> None:
    """The simulation places a composite key where the endpoint does: the hash of the
    rendered values by the emulator's own function, as the endpoint computes it from an
    item (emulator.server.items.key_hash)."""
    attributes = {
        "a": {"dist": "weighted", "weights": {"x": 3, "y": 1}},
        "n": {"dist": "uniform", "count": 7},
        "s": {"dist": "uniform", "count": 11, "format": "s-{}"},
    }
    pb = make_playbook(
        [_table("t", [{"name": "a"}, {"name": "n", "type": "N"}, {"name": "s"}])],
        {"itemId": {"dist": "uuid"}, **attributes},
        [{"name": "w", "operation": "put", "rate": 10, "duration_s": 1}],
    )
    spec = pb.tables[0]
    generator = ItemGenerator(pb.load.attributes, ["a", "n", "s"], [])
    idx = generator.draw(np.random.default_rng(1), 200, 0)
    mapper = CompositeKeyMapper([KeyMapper(generator.samplers[n]) for n in ("a", "n", "s")])
    hashes = mapper.hashes([idx["a"], idx["n"], idx["s"]])
    request = spec.create_table_request("t")
    types = {d["AttributeName"]: d["AttributeType"] for d in request["AttributeDefinitions"]}
    schema = key_schema(request["GlobalSecondaryIndexes"][0]["KeySchema"], types, "GSI", multi=True)
    for row in range(200):
        item = {k: wire_value(v) for k, v in generator.render(idx, row).items()}
        assert int(hashes[row]) == key_hash(schema, item)
    # Positions order as the endpoint orders such a sort key (left to right).
    positions = mapper.positions([idx["a"], idx["n"], idx["s"]])
    rendered = [generator.render(idx, row) for row in range(200)]
    by_endpoint = sorted(
        range(200), key=lambda r: composite_sort_position([rendered[r][n] for n in "ans"])
    )
    ordered = [positions[r] for r in by_endpoint]
    assert ordered == sorted(ordered)
    # More combinations than it hashes exactly: a hash of the combination, still one
    # per key (the same combination always lands on the same partition).
    many = CompositeKeyMapper([KeyMapper(generator.samplers["s"])] * 6)  # 11**6 > 10**6
    assert not many.exact
    cols = [idx["s"]] * 6
    assert (many.hashes(cols) == many.hashes([c.copy() for c in cols])).all()


def _sim(gsi_pk: Any, attributes: dict[str, Any] | None = None) -> float:
    pb = make_playbook(
        [_table("t", gsi_pk)],
        attributes or ATTRIBUTES,
        [{"name": "w", "operation": "put", "rate": 4000, "duration_s": 20}],
    )
    (run,) = simulate(pb).runs
    totals = run.totals()
    return totals.throttled / totals.sent


def test_a_composite_key_spreads_a_hot_gsi_key_in_the_simulation() -> None:
    """80 % of 4,000 writes/s on WH-TOKYO: one index key takes 3,200 WCU/s against a
    partition's 1,000 and throttles; keyed with the item's zone too (five values), each
    (warehouse, zone) key takes 640 and nothing throttles."""
    assert _sim({"name": "warehouseId"}) > 0.05
    assert _sim(ZONE_KEY) == 0.0


def test_a_composite_key_that_moves_costs_the_index_two_writes() -> None:
    """zone drawn per request: a rewrite of one of 500 items usually moves its entry to
    another (warehouse, zone) key, a delete on the old key's partition and a put on the
    new; the simulation charges both, as advise predicts."""
    moving = {**ATTRIBUTES, "itemId": {"dist": "uniform", "count": 500}}
    moving["zone"] = {"dist": "uniform", "count": 5, "format": "Z{}"}
    pb = make_playbook(
        [_table("t", ZONE_KEY)],
        moving,
        [{"name": "w", "operation": "put", "rate": 500, "duration_s": 10}],
    )
    (run,) = simulate(pb).runs
    totals = run.totals()
    per_write = totals.consumed_wcu_by_index["byKey"] / totals.succeeded
    (advice,) = advise(pb)
    (note,) = [n for n in advice.notes if n.startswith("index byKey")]
    predicted = float(note.split(" WCU per table write")[0].rsplit(": ", 1)[1])
    assert 1.5 < per_write < 2.0
    assert per_write == pytest.approx(predicted, rel=0.05)


def test_advise_names_the_hottest_composite_key() -> None:
    # Every write a new item (no rewrite moves an entry): the hot key's share alone.
    pb = make_playbook(
        [_table("t", ZONE_KEY)],
        {
            **ATTRIBUTES,
            "itemId": {"dist": "uuid"},
            "zone": {"dist": "weighted", "weights": {"Z1": 50, "Z2": 50}},
        },
        [{"name": "w", "operation": "put", "rate": 8000, "duration_s": 20}],
    )
    (advice,) = advise(pb)
    (check,) = [c for c in advice.checks if c.scope == "index byKey" and c.hot_key]
    assert check.hot_key is not None
    assert check.hot_key.words() == "(warehouseId, zone)=(WH-TOKYO, Z1) (40.0 % of requests)"
    assert check.offered_units == pytest.approx(3200) and check.hit
    assert "the index byKey partition write" in advice.verdict()
    assert "(warehouseId, zone)=(WH-TOKYO, Z1) takes 40.0 %" in advice.verdict()
    phases = [{"name": "w", "operation": "put", "rate": 4000, "duration_s": 20}]
    fresh = {**ATTRIBUTES, "itemId": {"dist": "uuid"}}
    spread = advise(make_playbook([_table("t", ZONE_KEY)], fresh, phases))[0]
    (ok,) = [c for c in spread.checks if c.scope == "index byKey" and c.hot_key]
    assert ok.hot_key is not None and "(WH-TOKYO, any zone)" in ok.hot_key.words()
    assert ok.offered_units == pytest.approx(640) and not ok.hit


def test_a_seeded_table_with_a_moving_composite_key_simulates() -> None:
    """Seeded items carry their composite key, so a rewrite's delete lands on the key the
    seed wrote (no crash, and the moves are charged)."""
    moving = {**ATTRIBUTES, "itemId": {"dist": "uniform", "count": 200}}
    moving["zone"] = {"dist": "uniform", "count": 5, "format": "Z{}"}
    table = {**_table("t", ZONE_KEY), "seed_items": 200}
    pb = make_playbook(
        [table], moving, [{"name": "w", "operation": "put", "rate": 200, "duration_s": 5}]
    )
    (run,) = simulate(pb).runs
    totals = run.totals()
    assert totals.consumed_wcu_by_index["byKey"] / totals.succeeded > 1.5


def test_the_closed_loop_engine_places_a_composite_key_by_its_hash() -> None:
    """A mix's puts (the request-by-request engine): the index entries of WH-TOKYO land
    on one key's hash, or with the zone in the key on five, each the endpoint's
    composite_partition_hash of the pair (read back from the partition's key samples)."""
    attributes = {
        "itemId": {"dist": "uuid"},
        "warehouseId": {"dist": "constant", "value": "WH-TOKYO"},
        "zone": {"dist": "uniform", "count": 5, "format": "Z{}"},
    }
    mix = [{"name": "m", "rate": 200, "duration_s": 2, "mix": [{"op": "put", "weight": 1}]}]
    expected = {
        "single": {partition_hash("WH-TOKYO")},
        "pair": {composite_partition_hash(["WH-TOKYO", f"Z{z}"]) for z in range(5)},
    }
    for label, key in (("single", {"name": "warehouseId"}), ("pair", ZONE_KEY)):
        sim = Simulation(make_playbook([_table("t", key)], attributes, mix))
        (run,) = sim.run().runs
        assert run.totals().consumed_wcu_by_index["byKey"] == 400
        index = sim.model.tables["t"].gsis["byKey"]
        seen = {h for part in index.keyspace.all for h, _ in part.samples}
        assert seen == expected[label]
