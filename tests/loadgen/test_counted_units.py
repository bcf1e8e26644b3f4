"""A live worker counts what DynamoDB charges for every request it sent: a failed
conditional write comes back without ConsumedCapacity yet is charged, so the worker
counts it by the charging rule (loadgen.live.counted_units) and keeps it apart as
counted (`consumed_wcu_counted`). Against the emulator, which charges every attempt by
the same rule, the worker's total then equals what the endpoint charged."""

from __future__ import annotations

import asyncio
import time
from decimal import Decimal

from emulator.emulator_options import EmulatorOptions
from emulator.itemsize import item_size
from emulator.server import EmulatorServer
from loadgen.live.counted_units import failed_write_units
from loadgen.live.measure import Measurement
from loadgen.live.messages import RunPlan
from loadgen.live.op_bodies import WriteCondition, delete_item, put_item, update_item

from .conftest import emulator_table
from .test_live_users import CREDS, LOCKED_ORDER, scenario_playbook


def test_a_failed_conditional_write_is_charged_on_the_larger_item_at_least_one_unit() -> None:
    free = WriteCondition("absent", "pk")
    put = put_item("t", {"pk": "LOCK", "sk": "0"}, 3000, "x", free)
    assert put.body["ReturnValuesOnConditionCheckFailure"] == "ALL_OLD"
    assert failed_write_units(put, None) == 3  # the 3,000-byte item it would have written
    small = {"pk": {"S": "LOCK"}, "sk": {"S": "0"}, "owner": {"S": "u1"}}
    assert failed_write_units(put_item("t", {"pk": "L", "sk": "0"}, 100, "", free), small) == 1
    big = {**small, "pad": {"S": "x" * 5000}}
    assert item_size(big) > 4096
    assert failed_write_units(delete_item("t", {"pk": "L", "sk": "0"}, free), big) == 5
    assert failed_write_units(delete_item("t", {"pk": "L", "sk": "0"}, free), None) == 1
    version = WriteCondition("equals", "version", Decimal(3))
    update = update_item("t", {"pk": "L", "sk": "0"}, {"v": "y" * 2000}, version)
    # the item it would leave: the key, what was there (5 KB) and what it sets
    assert failed_write_units(update, big) == 7
    assert failed_write_units(put_item("t", {"pk": "L"}, 100), None) is None  # no condition


def test_the_workers_units_are_what_the_endpoint_charged_failed_conditions_included() -> None:
    playbook = scenario_playbook(
        {"name": "orders", "users": 6, "scenario": "order", "duration_s": 1.5}, LOCKED_ORDER
    )
    with EmulatorServer(EmulatorOptions(scale=1.0, create_delay_s=0), port=0) as emu:
        emulator_table(emu.endpoint_url, playbook)
        plan = RunPlan("r", playbook, "v", "tbl", endpoint=emu.endpoint_url, drain_s=3.0)
        report = asyncio.run(Measurement(plan, 0, CREDS).run(time.time() + 0.05))
        charged = emu.metrics(600, "tbl")["tables"]["tbl"]["indexes"]["$table"]["seconds"]
    total = report.totals()
    failed = total.errors_by_type["ConditionalCheckFailedException"]
    assert failed > 0  # the lock was contended: polls failed their condition
    endpoint = sum(second["consumed_wcu"] for second in charged)
    assert total.consumed_wcu == endpoint  # every unit the endpoint charged, counted
    assert total.counted_wcu >= failed  # at least a unit each, counted, not reported
    reported = total.consumed_wcu - total.counted_wcu
    assert reported < endpoint  # replies alone fall short: what the live run used to say
    assert total.to_json()["consumed_wcu_counted"] == round(total.counted_wcu, 3)
