"""A phase of users, a mix or a scenario schedules no requests: the plan prices the
request units the one model says it consumes (the closed-loop simulation), not a
schedule it does not have."""

from __future__ import annotations

from console.cost.expected_usage import expected_use
from console.cost.setup import AwsSetup, FleetShape
from loadgen.runners import SimulatedRunner
from tests.loadgen.test_live_users import scenario_playbook


def test_a_scenario_phase_is_priced_by_what_its_simulation_consumed() -> None:
    playbook = scenario_playbook(
        {
            "name": "ycsb-a",
            "users": 4,
            "think_s": 0.05,
            "mix": [
                {"op": "get", "weight": 50},
                {"op": "update", "weight": 50, "attributes": {"field0": "v{iteration}"}},
            ],
            "duration_s": 20,
        },
        {},
    )
    spec = playbook.tables[0]
    use = expected_use(playbook, [spec], {spec.name: "tbl"}, FleetShape(1), AwsSetup())
    simulated = SimulatedRunner().run(playbook).runs[0]
    load = [r for r in use.record.requests if r.label == "load"]
    assert sum(r.write_units for r in load) == simulated.totals().consumed_wcu > 0
    assert sum(r.read_units for r in load) == simulated.totals().consumed_rcu > 0
