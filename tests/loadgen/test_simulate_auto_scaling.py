"""The simulation creates its tables with their auto scaling and history: a provisioned
table under target tracking throttles on a step up in load, then the policy catches up;
the capacity it moved through is in the model's record. Reads pass their consistency."""

from __future__ import annotations

from typing import Any

from loadgen.format.playbook import parse_playbook
from loadgen.simulation.simulate import Simulation

FEW_KEYS = {"pk": {"dist": "uniform", "count": 8}}
"""8 key values: the simulation admits a tick's requests per key, so a few keys keep
250,000 requests quick; 150 WCU/s spread over them is no hot key."""


def _playbook(table: dict[str, Any], phases: list[dict[str, Any]], attributes: Any = None) -> Any:
    return parse_playbook(
        {
            "name": "as",
            "tables": [{"name": "t", "partition_key": {"name": "pk"}, **table}],
            "load": {
                "attributes": attributes or {"pk": {"dist": "uuid"}},
                "phases": phases,
            },
        }
    )


STEP = [
    {"name": "before", "operation": "put", "rate": 20, "duration_s": 120},
    {"name": "launch", "operation": "put", "rate": 150, "duration_s": 1500},
]
SCALED = {
    "billing_mode": "PROVISIONED",
    "read_capacity": 5,
    "write_capacity": 50,
    "auto_scaling": {"write": {"target_pct": 70, "min": 50, "max": 2000}},
}


def test_target_tracking_throttles_on_the_step_then_catches_up() -> None:
    sim = Simulation(_playbook(SCALED, STEP, FEW_KEYS), tick_s=1.0)
    run = sim.run().runs[0]
    launch = run.phases[1]
    assert launch.counts.throttled > 1000  # 50 WCU (plus burst) against 150 writes/s
    last = [run.seconds[s] for s in range(1500, 1620) if s in run.seconds]
    assert sum(c.throttled for c in last) == 0  # the last two minutes: caught up
    assert sum(c.succeeded for c in last) == 150 * 120
    record = sim.model.capacity_records("t")[None]
    raised = [e for e in record.events if e.what == "write" and e.refused is None]
    assert raised and "scale-out alarm" in raised[0].cause
    assert raised[0].t > 120  # the alarm sees the step only after its datapoints
    assert record.points[-1].write >= 150 / 0.9  # within the target's reach of the load


def test_fixed_capacity_keeps_throttling_without_the_policy() -> None:
    fixed = {k: v for k, v in SCALED.items() if k != "auto_scaling"}
    sim = Simulation(_playbook(fixed, STEP, FEW_KEYS), tick_s=1.0)
    run = sim.run().runs[0]
    last = [run.seconds[s] for s in range(1500, 1620) if s in run.seconds]
    assert sum(c.throttled for c in last) > 50 * 120
    assert sim.model.table("t").scalers == []


def test_a_history_raises_what_a_new_on_demand_table_takes_at_once() -> None:
    launch = [{"name": "launch", "operation": "put", "rate": 7000, "duration_s": 20}]
    new = Simulation(_playbook({"billing_mode": "PAY_PER_REQUEST"}, launch)).run()
    known = Simulation(
        _playbook(
            {
                "billing_mode": "PAY_PER_REQUEST",
                "history": {"previous_on_demand_peak": {"write": 4000}},
            },
            launch,
        )
    ).run()
    assert new.runs[0].phases[0].counts.throttled > 0
    assert known.runs[0].phases[0].counts.throttled == 0


def _hot_reads(consistent: bool) -> int:
    """Reads of one key at 4,000/s: over one partition's 3,000 RCU/s when strongly
    consistent (1 RCU each), under its 1.5x ceiling eventually (0.5 RCU each)."""
    playbook = parse_playbook(
        {
            "name": "reads",
            "tables": [
                {
                    "name": "t",
                    "partition_key": {"name": "pk"},
                    "billing_mode": "PAY_PER_REQUEST",
                    "warm_throughput": {"read": 40000},
                }
            ],
            "load": {
                "attributes": {"pk": {"dist": "constant", "value": "hot"}},
                "phases": [
                    {
                        "operation": "get",
                        "consistent_read": consistent,
                        "rate": 4000,
                        "duration_s": 10,
                    }
                ],
            },
        }
    )
    return int(Simulation(playbook).run().runs[0].phases[0].counts.throttled)


def test_reads_pass_their_consistency_to_the_model() -> None:
    assert _hot_reads(consistent=True) > 0
    assert _hot_reads(consistent=False) == 0
