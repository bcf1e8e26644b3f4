"""UpdateTable in the model, as DynamoDB applies it: the time a change takes and what the
table serves meanwhile, and each change DynamoDB refuses (a change while UPDATING, a
decrease over the day's limit, a switch to on demand over the window's limit)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from emulator.capacity_changes import DAY_S, ChangeRefused
from emulator.model import CapacityModel
from emulator.params import DEFAULT_PARAMS
from emulator.tableconfig import PAY_PER_REQUEST, PROVISIONED, TableConfig

P = DEFAULT_PARAMS


def _request(wcu: int = 100, rcu: int = 100, gsi_wcu: int | None = None) -> dict:
    request: dict = {
        "TableName": "t",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PROVISIONED",
        "ProvisionedThroughput": {"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu},
    }
    if gsi_wcu is not None:
        request["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
        request["GlobalSecondaryIndexes"] = [
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": gsi_wcu},
            }
        ]
    return request


def _model(epoch_s: float = 0.0, **kw: int) -> CapacityModel:
    model = CapacityModel(epoch_s=epoch_s)
    model.create_table(_request(**kw), 0.0)
    return model


def _with(
    model: CapacityModel,
    wcu: float | None = None,
    gsi_wcu: float | None = None,
    billing: str | None = None,
) -> TableConfig:
    config = model.table("t").config
    gsis = [replace(g, wcu=gsi_wcu) if gsi_wcu is not None else g for g in config.gsis]
    out = replace(config, gsis=gsis)
    if wcu is not None:
        out = replace(out, wcu=wcu)
    if billing == PAY_PER_REQUEST:
        out = replace(
            out,
            billing=billing,
            rcu=None,
            wcu=None,
            gsis=[replace(g, rcu=None, wcu=None) for g in out.gsis],
        )
    elif billing == PROVISIONED:
        out = replace(
            out,
            billing=billing,
            rcu=100.0,
            wcu=100.0,
            gsis=[replace(g, rcu=5.0, wcu=100.0) for g in out.gsis],
        )
    return out


def _land(model: CapacityModel, until: float) -> None:
    model.advance(until)


def test_an_increase_serves_the_old_capacity_until_it_is_applied() -> None:
    model = _model()
    table = model.table("t")
    model.update_capacity("t", _with(model, wcu=500), 10.0)
    assert table.status() == "UPDATING" and table.base.limits.wcu == 100
    bucket = table.base.write_limit
    assert bucket.rate == 100  # writes over 100/s still throttle meanwhile
    _land(model, 10.0 + P.update_throughput_s - 0.01)
    assert table.base.limits.wcu == 100
    _land(model, 10.0 + P.update_throughput_s + 1)
    assert table.status() == "ACTIVE" and table.base.limits.wcu == 500
    assert bucket.rate == 500


def test_an_increase_that_needs_partitions_takes_the_split_time() -> None:
    model = _model()
    [event] = model.update_capacity("t", _with(model, wcu=2500), 0.0)
    assert event.effective_at == P.update_split_s
    assert model.table("t").base.keyspace.count == 1
    _land(model, P.update_split_s + 1)
    assert model.table("t").base.keyspace.count >= 3


def test_an_update_while_updating_is_refused_and_changes_nothing() -> None:
    model = _model()
    model.update_capacity("t", _with(model, wcu=200), 0.0)
    with pytest.raises(ChangeRefused) as info:
        model.update_capacity("t", _with(model, wcu=300), 1.0)
    assert info.value.error == "ResourceInUseException"
    assert info.value.message == (
        "Attempt to change a resource which is still in use: Table IOPS are currently being "
        "updated. Table: t"
    )
    _land(model, 5.0)
    assert model.table("t").base.limits.wcu == 200


def test_four_decreases_at_any_time_then_one_an_hour_after_the_last() -> None:
    model = _model(wcu=1000)
    table = model.table("t")
    now = 0.0
    for wcu in (900, 800, 700, 600):
        model.update_capacity("t", _with(model, wcu=wcu), now)
        now += 5
        _land(model, now)
    assert table.base.budget.today(now, 0.0) == P.decreases_anytime == 4
    last = now - 5
    with pytest.raises(ChangeRefused) as info:
        model.update_capacity("t", _with(model, wcu=500), now)
    assert info.value.error == "LimitExceededException"
    assert info.value.message == (
        "Subscriber limit exceeded: Provisioned throughput decreases are limited within a "
        "given UTC day. After the first 4 decreases, each subsequent decrease in the same UTC "
        "day can be performed at most once every 3600 seconds. Number of decreases today: 4. "
        "Last decrease at Thursday, January 1, 1970 at 12:00:15 AM Coordinated Universal "
        "Time. Next decrease can be made at Thursday, January 1, 1970 at 1:00:15 AM "
        "Coordinated Universal Time"
    )
    # An increase is never limited; a refused decrease counts for nothing.
    model.update_capacity("t", _with(model, wcu=650), now)
    assert table.base.budget.today(now, 0.0) == 4
    _land(model, last + P.decrease_interval_s - 1)
    with pytest.raises(ChangeRefused):
        model.update_capacity("t", _with(model, wcu=500), last + P.decrease_interval_s - 1)
    model.update_capacity("t", _with(model, wcu=500), last + P.decrease_interval_s)
    _land(model, last + P.decrease_interval_s + 5)
    with pytest.raises(ChangeRefused):  # the next is an hour after this one
        model.update_capacity("t", _with(model, wcu=400), last + P.decrease_interval_s + 5)


def test_the_decrease_count_resets_at_midnight_utc() -> None:
    # Model time 0 is 23:00 UTC: four decreases, then midnight gives four more at once.
    model = _model(epoch_s=DAY_S - 3600, wcu=1000)
    table = model.table("t")
    now = 0.0
    for wcu in (900, 800, 700, 600):
        model.update_capacity("t", _with(model, wcu=wcu), now)
        now += 5
        _land(model, now)
    with pytest.raises(ChangeRefused) as info:
        model.update_capacity("t", _with(model, wcu=500), now)
    # The next chance is midnight, before the hour since the last decrease is over.
    assert "Next decrease can be made at Friday, January 2, 1970 at 12:00:00 AM" in str(info.value)
    _land(model, 3600.0)
    assert table.base.budget.today(3600.0, model.epoch_s) == 0
    model.update_capacity("t", _with(model, wcu=500), 3600.0)


def test_a_gsi_has_its_own_decrease_budget_and_one_request_is_refused_whole() -> None:
    model = _model(wcu=1000, gsi_wcu=1000)
    table = model.table("t")
    now = 0.0
    for wcu in (900, 800, 700, 600):
        model.update_capacity("t", _with(model, gsi_wcu=wcu), now)
        now += 5
        _land(model, now)
        assert table.status() == "ACTIVE"  # a GSI's change leaves TableStatus ACTIVE
    model.update_capacity("t", _with(model, wcu=900), now)  # the table's budget is whole
    now += 5
    _land(model, now)
    with pytest.raises(ChangeRefused):  # table fine, GSI over: nothing changes
        model.update_capacity("t", _with(model, wcu=800, gsi_wcu=500), now)
    assert table.base.pending_limits is None and table.base.limits.wcu == 900
    assert table.gsis["byG"].limits.wcu == 600


def test_switches_to_on_demand_are_limited_to_four_a_day_and_back_at_any_time() -> None:
    model = _model()
    table = model.table("t")
    now = 0.0
    for n in range(P.switches_to_on_demand):
        model.update_capacity("t", _with(model, billing=PAY_PER_REQUEST), now)
        assert table.status() == "UPDATING"
        # A table that was never on demand takes minutes; after that, seconds [3P].
        took = P.switch_to_on_demand_s if n == 0 else P.switch_back_to_on_demand_s
        now += took + 1
        _land(model, now)
        assert not table.base.limits.provisioned
        model.update_capacity("t", _with(model, billing=PROVISIONED), now)
        now += P.switch_to_provisioned_s + 1
        _land(model, now)
        assert table.base.limits.provisioned and table.status() == "ACTIVE"
    with pytest.raises(ChangeRefused) as info:
        model.update_capacity("t", _with(model, billing=PAY_PER_REQUEST), now)
    assert info.value.error == "LimitExceededException"
    assert "Update to PayPerRequest mode are limited to 4 times in 1 day(s)" in info.value.message
    later = P.switch_window_s + 1
    _land(model, later)
    model.update_capacity("t", _with(model, billing=PAY_PER_REQUEST), later)


def test_a_switch_serves_the_old_mode_until_it_is_done() -> None:
    model = _model()
    table = model.table("t")
    model.update_capacity("t", _with(model, billing=PAY_PER_REQUEST), 0.0)
    assert table.base.limits.provisioned and table.base.write_limit.rate == 100
    _land(model, P.switch_to_on_demand_s + 1)
    assert not table.base.limits.provisioned
    assert table.base.write_limit.rate == pytest.approx(
        P.ondemand_initial_wcu * P.ondemand_headroom
    )
    assert not table.gsis  # (none here); the GSIs switch with their table


def test_an_on_demand_maximum_takes_effect_at_once() -> None:
    model = _model()
    model.update_capacity("t", _with(model, billing=PAY_PER_REQUEST), 0.0)
    _land(model, P.switch_to_on_demand_s + 1)
    now = P.switch_to_on_demand_s + 2
    [event] = model.update_capacity("t", replace(model.table("t").config, max_write=300.0), now)
    table = model.table("t")
    assert table.status() == "ACTIVE" and table.base.limits.max_write == 300
    assert event.what == "on-demand maximum" and event.effective_at == now


def test_every_change_is_in_the_record_with_when_from_to_and_why() -> None:
    model = _model(wcu=1000)
    model.update_capacity("t", _with(model, wcu=400), 7.0)
    _land(model, 20.0)
    record = model.capacity_records("t")[None]
    [event] = [e for e in record.events if e.what == "write"]
    assert (event.t, event.before, event.after, event.cause) == (7.0, 1000, 400, "UpdateTable")
    assert event.effective_at == 7.0 + P.update_throughput_s
    assert [(p.t, p.write) for p in record.points] == [
        (0.0, 1000.0),
        (math.ceil(event.effective_at), 400.0),
    ]
