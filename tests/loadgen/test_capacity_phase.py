"""A phase that changes the table's capacity (`update_table:`): validated with the line
and the field, made by the simulation at the phase's time under DynamoDB's rules (the
time a change takes, UPDATING meanwhile, each refusal as the phase's outcome), carried by
the result with the capacity series, and run live in segments around the change."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from loadgen.format.kinds import Control
from loadgen.format.playbook import PlaybookError, parse_playbook
from loadgen.live.segmented_run import run_in_segments, segments
from loadgen.results.capacity_series import ChangeOutcome, run_capacity
from loadgen.results.records import PhaseResult, RunResult
from loadgen.simulation.simulate import simulate


def playbook(phases: list[dict[str, Any]], **table: Any) -> dict[str, Any]:
    spec = {
        "name": "orders",
        "partition_key": {"name": "pk"},
        "billing_mode": "PROVISIONED",
        "read_capacity": 100,
        "write_capacity": 1000,
        **table,
    }
    return {
        "name": "change",
        "tables": [spec],
        "load": {"attributes": {"pk": {"dist": "uniform", "count": 5000}}, "phases": phases},
    }


LOAD = {"name": "load", "operation": "put", "rate": 100, "duration_s": 2}


def parsed(phases: list[dict[str, Any]], **table: Any) -> Any:
    data = playbook(phases, **table)
    text = yaml.safe_dump(data, sort_keys=False)
    import yaml as y

    from loadgen.format.playbook import LineMap

    return parse_playbook(y.safe_load(text), "p.yaml", LineMap(y.compose(text)))


# --- the format -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("phase", "expected"),
    [
        (
            {"name": "c", "update_table": {"write_capacity": 5}, "rate": 10},
            "load.phases[1]: update_table changes the table and offers no load: drop rate",
        ),
        ({"name": "c", "update_table": {}}, "load.phases[1].update_table: give at least one"),
        (
            {"name": "c", "update_table": {"gsis": {"byX": {"read_capacity": 5}}}},
            "load.phases[1].update_table.gsis.byX: names GSI 'byX', which table(s) orders",
        ),
        (
            {"name": "c", "update_table": {"billing_mode": "PROVISIONED", "write_capacity": 5}},
            "needs read_capacity and write_capacity",
        ),
        ({"name": "c", "update_table": {"write_capacity": 0}}, "write_capacity: Input should be"),
        ({**LOAD, "wait": "none"}, "load.phases[1]: wait applies to a phase with update_table"),
    ],
)
def test_a_wrong_change_is_named_by_line_and_field(phase: dict[str, Any], expected: str) -> None:
    with pytest.raises(PlaybookError) as caught:
        parsed([LOAD, phase])
    message = str(caught.value)
    assert expected in message
    assert "line " in message.split(expected)[0].rsplit("\n", 1)[-1]


def test_a_change_is_a_control_phase_with_its_request_and_words() -> None:
    pb = parsed([LOAD, {"name": "c", "update_table": {"write_capacity": 3000}}])
    kind = pb.load.phases[1].kind
    assert kind.engine == "control" and kind.expected_requests(1.0) == 0
    control: Control = kind.capacity_change()
    assert control.waits and pb.load.phases[1].duration_s == 1.0
    assert kind.summary(1.0) == "UpdateTable write 3,000, then wait until ACTIVE (at least 1 s)"
    in_force = {"ProvisionedThroughput": {"ReadCapacityUnits": 100, "WriteCapacityUnits": 1000}}
    assert control.request("t", in_force) == {
        "TableName": "t",
        "ProvisionedThroughput": {"ReadCapacityUnits": 100, "WriteCapacityUnits": 3000},
    }
    with pytest.raises(ValueError, match="makes no capacity change"):
        pb.load.phases[0].kind.capacity_change()


# --- the simulation ---------------------------------------------------------------------


def test_a_raise_that_needs_a_split_lasts_as_long_as_the_split() -> None:
    """1,000 -> 3,000 WCU needs three partitions: UPDATING for update_split_s (300 s);
    the old capacity serves meanwhile, the series steps when the change lands."""
    pb = parsed([LOAD, {"name": "raise", "update_table": {"write_capacity": 3000}}, LOAD])
    run = simulate(pb).runs[0]
    change = run.phases[1]
    assert (change.start_s, change.duration_s) == (2.0, 300.0)
    assert change.change is not None and change.change.active_after_s == 300.0
    assert run.phases[2].start_s == 302.0 and run.duration_s == 304.0
    assert run.capacity is not None
    table = run.capacity["$table"]
    assert [(p["t"], p["write"]) for p in table["series"]] == [(0.0, 1000.0), (302.0, 3000.0)]
    (event,) = table["events"]
    assert (event["t"], event["from"], event["to"], event["cause"]) == (
        2.0,
        1000.0,
        3000.0,
        "UpdateTable",
    )
    assert event["effective_at"] == 302.0


def test_wait_none_goes_on_while_the_old_capacity_still_serves() -> None:
    """A raise not waited for: the next phase meets the old 100 WCU until it lands."""
    hot = {"name": "hot", "operation": "put", "rate": 300, "duration_s": 30}
    pb = parsed(
        [{"name": "raise", "update_table": {"write_capacity": 400}, "wait": "none"}, hot],
        write_capacity=100,
    )
    run = simulate(pb).runs[0]
    assert run.phases[0].duration_s == 1.0 and run.phases[0].change is not None
    assert run.phases[0].change.active_after_s is None
    waited = simulate(
        parsed(
            [{"name": "raise", "update_table": {"write_capacity": 400}}, hot], write_capacity=100
        )
    ).runs[0]
    assert waited.phases[0].duration_s == 2.0  # update_throughput_s: no split needed
    assert run.phases[1].counts.throttled >= waited.phases[1].counts.throttled


def _decrease(n: int, units: int) -> dict[str, Any]:
    return {"name": f"down{n}", "update_table": {"write_capacity": units}}


def test_the_fifth_decrease_within_the_hour_is_refused_in_dynamodbs_words() -> None:
    phases = [_decrease(n, 1000 - 100 * n) for n in range(1, 6)]
    run = simulate(parsed(phases)).runs[0]
    outcomes = [p.change for p in run.phases]
    assert all(o is not None and o.accepted for o in outcomes[:4])
    fifth = outcomes[4]
    assert fifth is not None and fifth.error == "LimitExceededException"
    assert "Number of decreases today: 4" in (fifth.message or "")
    assert run.to_json()["phases"][4]["update_table"]["outcome"] == "refused"


def test_the_fifth_switch_to_on_demand_in_a_day_is_refused() -> None:
    phases: list[dict[str, Any]] = []
    for n in range(5):
        phases.append({"name": f"od{n}", "update_table": {"billing_mode": "PAY_PER_REQUEST"}})
        phases.append(
            {
                "name": f"pr{n}",
                "update_table": {
                    "billing_mode": "PROVISIONED",
                    "read_capacity": 100,
                    "write_capacity": 1000,
                },
            }
        )
    run = simulate(parsed(phases)).runs[0]
    refused = [(p.name, p.change.error) for p in run.phases if p.change and p.change.error]
    # the fifth switch is refused, so the table is still PROVISIONED at the units asked
    # back: the switch back is a change of nothing, refused too
    assert refused == [("od4", "LimitExceededException"), ("pr4", "ValidationException")]
    od4 = run.phases[8].change
    assert od4 is not None and "limited to 4 times in 1 day(s)" in (od4.message or "")


@pytest.mark.parametrize(
    ("update", "words"),
    [
        ({"write_capacity": 1000}, "will not change"),
        ({"on_demand_max": {"write": 500}}, "cannot be specified when the table BillingMode"),
        ({"read_capacity": 50, "billing_mode": None}, None),
    ],
)
def test_a_change_the_endpoint_refuses_from_the_request_is_refused_alike(
    update: dict[str, Any], words: str | None
) -> None:
    update = {k: v for k, v in update.items() if v is not None}
    run = simulate(parsed([{"name": "c", "update_table": update}])).runs[0]
    change = run.phases[0].change
    assert change is not None
    if words is None:
        assert change.accepted
    else:
        assert change.error == "ValidationException" and words in (change.message or "")


def test_a_run_without_changes_carries_no_capacity() -> None:
    """The result of a playbook whose capacity never moves reads as before."""
    run = simulate(parsed([LOAD])).runs[0]
    assert run.capacity is None and "capacity" not in run.to_json()
    assert "update_table" not in run.to_json()["phases"][0]


# --- the result's window, and live segments ---------------------------------------------


def test_the_run_window_keeps_the_capacity_in_force_at_its_start() -> None:
    view = {
        "$table": {
            "series": [
                {"t": 0.0, "kind": "provisioned", "read": 1, "write": 1},
                {"t": 50.0, "kind": "provisioned", "read": 1, "write": 2},
                {"t": 150.0, "kind": "provisioned", "read": 1, "write": 3},
                {"t": 300.0, "kind": "provisioned", "read": 1, "write": 4},
            ],
            "events": [
                {
                    "t": 140.0,
                    "what": "write",
                    "from": 2,
                    "to": 3,
                    "cause": "x",
                    "effective_at": 150.0,
                },
                {
                    "t": 10.0,
                    "what": "write",
                    "from": 1,
                    "to": 2,
                    "cause": "x",
                    "effective_at": 50.0,
                },
            ],
        }
    }
    window = run_capacity(view, 100.0, 200.0)["$table"]
    assert [(p["t"], p["write"]) for p in window["series"]] == [(0.0, 2), (50.0, 3)]
    assert [(e["t"], e["effective_at"]) for e in window["events"]] == [(40.0, 50.0)]


class FakeChanger:
    def __init__(self) -> None:
        self.now = 1000.0
        self.asked: list[str] = []

    def change(self, control: Control, table_name: str) -> ChangeOutcome:
        self.asked.append(table_name)
        self.now += 7.5  # UPDATING for 7.5 s
        return ChangeOutcome({"TableName": table_name}, active_after_s=7.5)

    def capacity(self, table_name: str, start: float, end: float) -> dict[str, Any] | None:
        return {"window": [start, end]}  # type: ignore[dict-item]

    def clock(self) -> float:
        return self.now


def test_a_live_run_runs_its_load_in_segments_around_each_change() -> None:
    pb = parsed([LOAD, {"name": "raise", "update_table": {"write_capacity": 3000}}, LOAD, LOAD])
    assert [[i for i, _ in s] for s in segments(pb)] == [[0], [1], [2, 3]]
    changer = FakeChanger()
    ran: list[list[str]] = []

    def segment(narrowed: Any, number: int) -> RunResult:
        ran.append([p.name for p in narrowed.load.phases])
        assert narrowed.criteria == []
        out = RunResult("orders", 1, sum(p.duration_s for p in narrowed.load.phases))
        start = 0.0
        for p in narrowed.load.phases:
            out.phases.append(PhaseResult(p.name, "put", start, p.duration_s, offered=200))
            out.second(int(start)).sent += 200
            start += p.duration_s
        changer.now += out.duration_s + 3.0  # the fleet's barrier: not the run's time
        return out

    run = run_in_segments(pb, "orders", 1, "hb-orders", segment, changer, lambda _m: None)
    assert ran == [["load"], ["load", "load"]] and changer.asked == ["hb-orders"]
    assert [(p.name, p.start_s, p.duration_s) for p in run.phases] == [
        ("load", 0.0, 2.0),
        ("raise", 2.0, 8.0),
        ("load", 10.0, 2.0),
        ("load", 12.0, 2.0),
    ]
    assert run.duration_s == 14.0 and set(range(2, 10)) <= set(run.seconds)  # the change's
    assert run.phases[1].change is not None and run.phases[1].change.accepted
    # the run's time 0 on the changer's clock is where the first change was asked, less
    # the run time before it
    assert run.capacity == {"window": [1000.0 + 5.0 - 2.0, changer.now]}
