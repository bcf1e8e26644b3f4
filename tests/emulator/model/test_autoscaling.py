"""Auto scaling in the model: each documented constant of target tracking for DynamoDB
(the alarms' periods, datapoints and thresholds, cooldowns, disable-scale-in, bounds), as
a behaviour on the model's clock, and a launch ramp the policy catches up with.

Everything runs on the model's own clock (no sleeping): a driver offers writes in 500 ms
ticks (the simulation's are 50 ms; the alarms act on minutes), spread over enough keys
that no partition binds before the table's provisioned rate does."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from emulator.autoscaling import AutoScalingError, AutoScalingSpec, TargetTracking
from emulator.buckets import MeteredBucket, TokenBucket
from emulator.capacity import TableCapacity
from emulator.capacity_record import ScalingEvent
from emulator.model import CapacityModel, GsiWrite
from emulator.params import DEFAULT_PARAMS, CapacityParams

P = DEFAULT_PARAMS
TICK = 0.5
KEYS = [(i * 0x9E3779B97F4A7C15) & ((1 << 64) - 1) for i in range(1, 9)]
"""8 partition-key hashes spread over the key space."""


def _request(
    name: str = "t", wcu: int = 100, rcu: int = 5, gsi: bool = False, gsi_wcu: int = 100
) -> dict:
    request: dict = {
        "TableName": name,
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "BillingMode": "PROVISIONED",
        "ProvisionedThroughput": {"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu},
    }
    if gsi:
        request["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
        request["GlobalSecondaryIndexes"] = [
            {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": gsi_wcu},
            }
        ]
    return request


def _writes(
    target_pct: float = 70, low: int = 100, high: int = 4000, **kw: object
) -> AutoScalingSpec:
    return AutoScalingSpec(write=TargetTracking(target_pct, low, high, **kw))  # type: ignore[arg-type]


class Driver:
    """Offers writes to one table on the model's clock and counts the outcomes."""

    def __init__(self, model: CapacityModel, table: TableCapacity) -> None:
        self.model = model
        self.table = table
        self.now = 0.0
        self.accepted = 0
        self.throttled = 0
        self.carry = 0.0

    def run(self, rate: float, seconds: float, gsi: bool = False) -> tuple[int, int]:
        """`rate` writes/s for `seconds`; returns (accepted, throttled) in that span."""
        accepted, throttled = self.accepted, self.throttled
        # Light load in whole seconds: fewer calls, the same per-second physics (every
        # bucket holds at least a second of its rate).
        tick = TICK if rate > 400 else 1.0
        for _ in range(round(seconds / tick)):
            self.now = round(self.now + tick, 6)
            self.model.advance(self.now)
            self.carry += rate * tick
            n = int(self.carry)
            self.carry -= n
            for k in range(len(KEYS)):
                count = n // len(KEYS) + (1 if k < n % len(KEYS) else 0)
                if count == 0:
                    continue
                writes = [GsiWrite("byG", KEYS[-1 - k], None, 1)] if gsi else None
                decision = self.model.write(
                    self.table, KEYS[k], None, 1, writes, count, now=self.now
                )
                self.accepted += decision.accepted
                self.throttled += decision.refused
        return self.accepted - accepted, self.throttled - throttled

    def until(self, t: float, rate: float = 0.0) -> None:
        self.run(rate, t - self.now)


def _model(
    params: CapacityParams = P, spec: AutoScalingSpec | None = None, **kw: object
) -> tuple[CapacityModel, TableCapacity, Driver]:
    model = CapacityModel(params)
    table = model.create_table(
        _request(**kw),  # type: ignore[arg-type]
        0.0,
        auto_scaling=None if spec is None else {None: spec},
    )
    return table, Driver(model, table)


def _changes(table: TableCapacity, index: str | None = None) -> list[ScalingEvent]:
    """The capacity changes asked of an index (not the registration of its policy)."""
    return [e for e in table.index(index).record.events if e.what in ("read", "write")]


FIRST_EVALUATION = P.autoscale_out_datapoints * P.autoscale_period_s + P.autoscale_alarm_delay_s
"""When the scale-out alarm first has its datapoints: two whole minutes, then the delay."""


# --- the scale-out alarm ------------------------------------------------------------------------


def test_no_scale_out_before_two_datapoints_have_reached_the_alarm() -> None:
    table, drive = _model(spec=_writes())
    drive.until(FIRST_EVALUATION - 1, rate=1000)
    assert table.base.limits.wcu == 100 and not _changes(table)
    drive.until(FIRST_EVALUATION + 0.5, rate=1000)
    [event] = _changes(table)
    assert event.t == FIRST_EVALUATION
    assert "scale-out alarm (2 x 1 min > 70 %" in event.cause
    # Consumed capacity, not demand, is what CloudWatch sees: the table served 100 WCU/s in
    # the second minute (its burst pool went in the first), so it asks for 100 / 0.7.
    assert event.after == math.ceil(100 / 0.7) == 143
    assert table.status() == "UPDATING" and table.base.limits.wcu == 100
    drive.until(FIRST_EVALUATION + P.update_throughput_s + 1, rate=1000)
    assert table.base.limits.wcu == 143 and table.status() == "ACTIVE"
    assert event.effective_at == FIRST_EVALUATION + P.update_throughput_s


def test_the_alarm_acts_as_late_as_its_delay() -> None:
    params = replace(P, autoscale_alarm_delay_s=0.0)
    table, drive = _model(params, spec=_writes())
    drive.until(2 * P.autoscale_period_s + 0.5, rate=1000)
    [event] = _changes(table)
    assert event.t == 2 * P.autoscale_period_s


def test_one_minute_over_the_target_at_a_time_never_scales_out() -> None:
    # 90 % and 50 % of 100 WCU in turn: never two datapoints in a row over 70 %.
    table, drive = _model(spec=_writes())
    for _ in range(10):
        drive.run(90, 60)
        drive.run(50, 60)
    assert not _changes(table) and table.base.limits.wcu == 100


def test_at_the_target_exactly_it_does_not_scale_out() -> None:
    table, drive = _model(spec=_writes())
    drive.run(70, 600)  # 70 % is not "greater than" 70 %
    assert not _changes(table)


# --- the scale-in alarm -------------------------------------------------------------------------


def test_scale_in_needs_fifteen_datapoints_under_the_target_minus_twenty_points() -> None:
    table, drive = _model(spec=_writes(), wcu=1000)
    first = P.autoscale_in_datapoints * P.autoscale_period_s + P.autoscale_alarm_delay_s
    drive.run(400, first - 1)  # 40 % of 1,000: under 50 %
    assert not _changes(table)
    drive.run(400, 1.5)
    [event] = _changes(table)
    assert event.t == first and event.after == math.ceil(400 / 0.7)
    assert "scale-in alarm (15 x 1 min < 50 %" in event.cause


def test_between_the_two_thresholds_nothing_moves() -> None:
    table, drive = _model(spec=_writes(), wcu=1000)
    drive.run(550, 1200)  # 55 %: under the target, over target - 20 points
    assert not _changes(table)


def test_disable_scale_in_keeps_the_capacity() -> None:
    table, drive = _model(spec=_writes(disable_scale_in=True), wcu=1000)
    drive.run(100, 1800)
    assert not _changes(table) and table.base.limits.wcu == 1000


def test_scale_in_never_goes_under_the_minimum() -> None:
    table, drive = _model(spec=_writes(low=800), wcu=1000)
    drive.run(10, 1200)
    [event] = _changes(table)
    assert event.after == 800


# --- cooldowns ----------------------------------------------------------------------------------


def test_scale_out_cooldown_holds_the_next_scale_out() -> None:
    cooldown = 600.0
    table, drive = _model(spec=_writes(scale_out_cooldown_s=cooldown))
    drive.run(1000, 1000)
    first, second = _changes(table)[:2]
    assert first.effective_at is not None
    assert second.t >= first.effective_at + cooldown
    # Without a cooldown (DynamoDB's default: 0 s) the second comes minutes after the first.
    table, drive = _model(spec=_writes())
    drive.run(1000, 500)
    first, second = _changes(table)[:2]
    assert second.t - first.t <= 3 * P.autoscale_period_s


def test_scale_in_cooldown_holds_scale_in_but_not_scale_out() -> None:
    cooldown = 3000.0
    table, drive = _model(spec=_writes(scale_in_cooldown_s=cooldown), wcu=1000)
    drive.run(100, 1200)
    [scale_in] = _changes(table)
    assert scale_in.after == math.ceil(100 / 0.7)
    drive.run(10, 1200)  # quieter still: a second scale-in is held by the cooldown
    assert len(_changes(table)) == 1
    drive.run(1000, 400)  # a surge: scale-out goes ahead inside the scale-in cooldown
    events = _changes(table)
    assert len(events) >= 2 and events[1].after > events[1].before  # type: ignore[operator]
    assert scale_in.effective_at is not None and events[1].t < scale_in.effective_at + cooldown


# --- the ramp -----------------------------------------------------------------------------------


def test_a_launch_ramp_is_caught_up_with_after_minutes_of_throttling() -> None:
    """1,500 writes/s meet a table at its 100 WCU minimum: every step asks for what was
    consumed over 70 % (at most 1/0.7 = 1.43x what the table could serve), so the policy
    needs ln(1500/0.7/100)/ln(1/0.7) ~ 9 steps, each at least two datapoints long, and two
    of them add partitions (past 1,000 and 2,000 WCU) and take `update_split_s`."""
    table, drive = _model(spec=_writes())
    rate = 1500
    minutes = []
    for _ in range(60):
        minutes.append(drive.run(rate, 60))
    caught_up = next(m for m, (_, thr) in enumerate(minutes) if all(t == 0 for _, t in minutes[m:]))
    assert minutes[5][1] > 0  # it throttled early on
    assert table.base.limits.wcu is not None and table.base.limits.wcu >= rate / 0.7
    steps = math.ceil(math.log(rate / 0.7 / 100) / math.log(1 / 0.7))
    floor_minutes = (steps * P.autoscale_out_datapoints * P.autoscale_period_s) / 60
    assert floor_minutes <= caught_up <= 60
    events = _changes(table)
    assert all(e.after <= math.ceil(e.before / 0.7 * 1.01) + 1 for e in events)  # type: ignore[operator]


# --- scope: GSIs, bounds, billing mode, cost of a fixed table -----------------------------------


def test_a_gsi_scales_on_its_own_consumption() -> None:
    model = CapacityModel()
    table = model.create_table(_request(wcu=4000, gsi=True), 0.0, auto_scaling={"byG": _writes()})
    drive = Driver(model, table)
    drive.run(1000, 400, gsi=True)  # the GSI's burst pool goes in the first minute
    [event, *_] = _changes(table, "byG")
    assert event.index == "byG" and event.before == 100 and event.after == 143
    assert not _changes(table)  # the table's own capacity stays
    assert table.status() == "ACTIVE"  # a GSI's change shows in its IndexStatus only


def test_a_capacity_under_the_minimum_is_raised_to_it() -> None:
    table, drive = _model(spec=_writes(low=500))
    drive.run(0, FIRST_EVALUATION)
    [event] = _changes(table)
    assert event.after == 500 and "under the minimum" in event.cause


def test_a_policy_on_an_on_demand_table_does_nothing() -> None:
    model = CapacityModel()
    request = _request()
    request["BillingMode"] = "PAY_PER_REQUEST"
    del request["ProvisionedThroughput"]
    table = model.create_table(request, 0.0, auto_scaling={None: _writes()})
    Driver(model, table).run(2000, 600)
    assert not _changes(table)


def test_a_fixed_capacity_table_has_no_policy_and_plain_buckets() -> None:
    table, drive = _model()
    model = drive.model
    assert table.scalers == []
    assert type(table.base.write_limit) is TokenBucket
    model.set_auto_scaling("t", None, _writes(), 0.0)
    assert isinstance(table.base.write_limit, MeteredBucket) and len(table.scalers) == 1
    model.set_auto_scaling("t", None, None, 0.0)
    assert table.scalers == []


def test_the_record_holds_the_capacity_as_it_moved() -> None:
    table, drive = _model(spec=_writes())
    drive.run(1000, 600)
    model = drive.model
    record = model.capacity_records("t")[None]
    writes = [(p.t, p.write) for p in record.points]
    assert writes[0] == (0.0, 100.0)
    landed = [e for e in _changes(table) if e.effective_at is not None and e.effective_at <= 600]
    assert len(landed) >= 3
    for event in landed:
        assert (event.effective_at, event.after) in writes
    assert record.events[0].what == "auto scaling"
    view = model.capacity_view("t")["indexes"]["$table"]
    assert (
        view["auto_scaling"]["Write"]["TargetTrackingScalingPolicyConfiguration"]["TargetValue"]
        == 70
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            {"Write": {"MinCapacity": 1, "MaxCapacity": 10}},
            "TargetTrackingScalingPolicyConfiguration is required",
        ),
        (
            {
                "Write": {
                    "MinCapacity": 1,
                    "MaxCapacity": 10,
                    "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 95},
                }
            },
            "TargetValue must be from 20 to 90",
        ),
        (
            {
                "Write": {
                    "MinCapacity": 10,
                    "MaxCapacity": 5,
                    "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 70},
                }
            },
            "MaxCapacity (5) must be at least MinCapacity (10)",
        ),
        ({"Writes": {}}, "unknown field 'Writes' (valid: Read, Write)"),
        ({}, "needs Read, Write or both"),
    ],
)
def test_a_setting_the_model_cannot_take_names_the_field(raw: dict, message: str) -> None:
    with pytest.raises(AutoScalingError) as info:
        AutoScalingSpec.from_request(raw)
    assert message in str(info.value)


def test_a_scale_in_over_the_days_decrease_limit_is_refused_recorded_once_and_retried() -> None:
    table, drive = _model(spec=_writes(low=1), wcu=1000)
    model = drive.model
    for wcu in (999, 998, 997, 996):  # the day's four decreases, spent by hand
        model.update_capacity("t", replace(table.config, wcu=float(wcu)), drive.now)
        drive.run(0, P.update_throughput_s + 1)
    last = drive.now - P.update_throughput_s - 1
    drive.run(10, 1800)  # quiet: AlarmLow fires from minute 16 on, every minute
    refused = [e for e in table.base.record.events if e.refused is not None]
    assert len(refused) == 1 and refused[0].refused.startswith("LimitExceededException")
    assert table.base.limits.wcu == 996
    drive.run(10, last + P.decrease_interval_s + P.autoscale_period_s - drive.now)
    assert table.base.limits.wcu == math.ceil(10 / 0.7)
