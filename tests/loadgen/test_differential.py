"""The differential test: the simulation and the endpoint charge by one rule, so the same
playbook throttles the same through `simulate` and through the endpoint.

Playbooks are generated (hypothesis): tables with and without a sort key, GSIs of every
projection, index keys fixed per item or drawn per request (churning: rewrites move the
item between index keys), provisioned and on-demand, seeded or not, puts, updates, gets
and queries, at rates around the limits. Each runs through `simulate` (full scale) and
through the in-process endpoint on a virtual clock at SCALE (tests/loadgen/virtual_live.py:
the worker's request bodies and reply classification, no HTTP, no waiting), and the two
are compared run by run, phase by phase and reason by reason.

Tolerance (docs/model.md#the-differential-test): a phase's throttle rate, and each
throttle reason's share of its requests, agree within TOLERANCE_POINTS plus three binomial
standard deviations of the endpoint's request count (the two paths draw different keys from
the same distributions, so they agree in distribution, not request by request). Reasons
that both paths give in one phase (two limits exhausted together) are compared as one
share: which of them names a refusal depends on arrival order within milliseconds, not on
the charge (differential/found/found-cobinding-limits.yaml).

`make test` runs a few derandomised examples (DEFAULT_EXAMPLES); `make test-differential`
(HOTBENCH_DIFF_EXAMPLES=200) runs many more with fresh randomness. A failing example is
written to differential/found/ as a playbook; every playbook in differential/ (and found/)
is replayed by `test_regression_playbooks_agree`, so a failure found once stays a test.
"""

from __future__ import annotations

import hashlib
import math
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from loadgen.format.playbook import Playbook, load_playbook, parse_playbook
from loadgen.results.records import PlaybookResult
from loadgen.simulation.simulate import simulate
from tests.loadgen.virtual_live import PhaseCounts, Runs, run_on_endpoint, simulated_runs

SCALE = 1.0
"""Full scale, as the simulation: the virtual clock makes it cost CPU time only, and a
scaled run is a different experiment when items repeat (at scale s each item of a finite
key space is written 1/s times less often, so more of the writes are of new items, which
cost a KEYS_ONLY index a write where a rewrite costs none; the first example the
generated test found, differential/found/, was exactly that at scale 0.25)."""
TICK_S = 0.01
"""The simulation's tick here: 10 ms, not its default 50 ms. The simulation admits a
tick's requests at the tick's end; where a table partition and an index partition run
out together under heavy load, 50 ms ticks over-throttle by a few points (found:
47 % vs 41 % on the endpoint; 41 % at 1 ms ticks: differential/found/
found-tick-cobinding.yaml, docs/model.md#known-limits-of-the-model). That is the
simulation's time resolution, not its charging, which is what this test compares."""
TOLERANCE_POINTS = 3.0
MIN_ITEMS = 20
"""Generated tables have at least this many items (see `generated_playbook`)."""
DEFAULT_EXAMPLES = 4
EXAMPLES = int(os.environ.get("HOTBENCH_DIFF_EXAMPLES", DEFAULT_EXAMPLES))
HERE = Path(__file__).resolve().parent / "differential"
FOUND = Path(os.environ.get("HOTBENCH_DIFF_FOUND", HERE / "found"))


def tolerance(live: PhaseCounts, rate: float) -> float:
    """TOLERANCE_POINTS plus three binomial standard deviations of the endpoint's count."""
    n = max(1.0, live.offered * SCALE)
    return TOLERANCE_POINTS / 100 + 3 * math.sqrt(max(rate * (1 - rate), 0.0) / n)


def disagreements(sim: Runs, live: Runs) -> list[str]:
    """Every (run, phase) whose throttle rate or a reason's share differs beyond the
    tolerance, and every endpoint error (a generated request must never be refused as
    invalid)."""
    out = []
    assert sim.keys() == live.keys()
    for key in sorted(sim):
        s, e = sim[key], live[key]
        if e.errors:
            out.append(f"{key}: the endpoint answered {e.errors:.0f} requests with an error")
        rate = max(s.throttle_rate, e.throttle_rate)
        tol = tolerance(e, rate)
        if abs(s.throttle_rate - e.throttle_rate) > tol:
            out.append(
                f"{key}: throttled {s.throttle_rate:.1%} simulated vs {e.throttle_rate:.1%} "
                f"on the endpoint (tolerance {tol:.1%})"
            )
        share_s = {r: v / max(s.offered, 1.0) for r, v in s.by_reason.items() if v > 0}
        share_e = {r: v / max(e.offered, 1.0) for r, v in e.by_reason.items() if v > 0}
        # Limits exhausted together: which one names a refusal is decided by arrival order
        # within milliseconds (the endpoint: the first on the route a request finds empty;
        # the simulation: the one with the least room at the tick's end), not by what the
        # requests cost, so reasons both paths give are compared as one share.
        both = sorted(set(share_s) & set(share_e))
        groups = [both] if len(both) > 1 else [[r] for r in both]
        groups += [[r] for r in sorted(set(share_s) ^ set(share_e))]
        for reasons in groups:
            a = sum(share_s.get(r, 0.0) for r in reasons)
            b = sum(share_e.get(r, 0.0) for r in reasons)
            tol = tolerance(e, max(a, b))
            if abs(a - b) > tol:
                out.append(
                    f"{key}: {' + '.join(reasons)} {a:.1%} simulated vs {b:.1%} on the "
                    f"endpoint (tolerance {tol:.1%})"
                )
    return out


def compare(playbook: Playbook) -> tuple[Runs, Runs, list[str]]:
    result = simulate(playbook, tick_s=TICK_S)
    sim = simulated_runs(result)
    outcomes: dict[tuple[str, int, int], Any] = {}
    live = run_on_endpoint(playbook, SCALE, outcomes)
    return sim, live, disagreements(sim, live) + change_disagreements(result, outcomes)


def change_disagreements(
    result: PlaybookResult, outcomes: dict[tuple[str, int, int], Any]
) -> list[str]:
    """Capacity changes the two paths decided differently (applied or refused, and with
    which of DynamoDB's errors)."""
    out = []
    for run in result.runs:
        for index, phase in enumerate(run.phases):
            if phase.change is None:
                continue
            key = (run.table, run.repeat, index)
            live = outcomes[key]
            if phase.change.error != live.error:
                out.append(
                    f"{key}: the change was {phase.change.words()} simulated, "
                    f"{live.words()} on the endpoint"
                )
    return out


# --- the judged pair: index keys that move, and a control whose keys never move ------------


def test_updates_that_move_gsi_keys_throttle_alike_in_simulation_and_on_the_endpoint() -> None:
    sim, live, problems = compare(load_playbook(HERE / "gsi-key-moves.yaml"))
    assert not problems, problems
    s, e = sim[("moves", 1, 0)], live[("moves", 1, 0)]
    # 700 updates/s x 2 index writes against 1,000: about 28 % refused, less the grace.
    assert 0.2 < s.throttle_rate < 0.3
    assert abs(s.throttle_rate - e.throttle_rate) < 0.01  # within 1 point
    assert set(s.by_reason) == set(e.by_reason) == {"IndexWriteMaxOnDemandThroughputExceeded"}


def test_the_control_whose_index_keys_never_move_throttles_neither() -> None:
    sim, live, problems = compare(load_playbook(HERE / "gsi-key-fixed.yaml"))
    assert not problems, problems
    assert sim[("moves", 1, 0)].throttled == 0
    assert live[("moves", 1, 0)].throttled == 0


def test_a_per_minute_curve_throttles_alike_in_simulation_and_on_the_endpoint() -> None:
    sim, live, problems = compare(load_playbook(HERE / "rate-curve.yaml"))
    assert not problems, problems
    s, e = sim[("hot", 1, 0)], live[("hot", 1, 0)]
    assert s.offered == e.offered == (20 + 130) * 60  # one schedule for both
    # the second minute's ~1,300 WCU/s against a partition's 1,000: about a fifth refused
    assert 0.1 < s.throttle_rate < 0.25
    assert set(s.by_reason) == set(e.by_reason) == {"TableWriteKeyRangeThroughputExceeded"}


@pytest.mark.parametrize(
    "path",
    sorted(FOUND.glob("*.yaml")),
    ids=lambda p: p.stem,
)
def test_regression_playbooks_agree(path: Path) -> None:
    """Examples the generated test once found disagreeing, kept as playbooks."""
    _, _, problems = compare(load_playbook(path))
    assert not problems, problems


# --- generated playbooks -------------------------------------------------------------------

ATTRIBUTES = ("g0", "g1")
"""Attributes the generated GSIs are keyed by (and an INCLUDE may project)."""


@st.composite
def key_distribution(draw: st.DrawFn, fixed_allowed: bool = True) -> dict[str, Any]:
    kind = draw(st.sampled_from(["hot", "uniform", "few"]))
    if kind == "hot":
        top = draw(st.integers(40, 90))
        out: dict[str, Any] = {
            "dist": "weighted",
            "weights": {"H": top, "A": (100 - top) / 2, "B": (100 - top) / 2},
        }
    elif kind == "few":
        out = {"dist": "uniform", "count": draw(st.integers(2, 6)), "format": "F{:d}"}
    else:
        out = {"dist": "uniform", "count": draw(st.integers(20, 400)), "format": "U{:04d}"}
    if fixed_allowed and draw(st.booleans()):
        out["per_item"] = True
    return out


@st.composite
def generated_playbook(draw: st.DrawFn) -> dict[str, Any]:
    has_sk = draw(st.booleans())
    provisioned = draw(st.booleans())
    item_size = draw(st.sampled_from([300, 900, 1500, 2600, 5000]))
    units = math.ceil(item_size / 1024)
    rate = draw(st.integers(150, 1600))
    phases = []
    for i in range(draw(st.integers(1, 2))):
        op = draw(st.sampled_from(["put", "update", "get", "query"]))
        phases.append(
            {
                "name": f"p{i}-{op}",
                "operation": op,
                "rate": float(draw(st.integers(max(40, rate // 3), rate))),
                "duration_s": float(draw(st.integers(3, 5))),
                "consistent_read": draw(st.booleans()),
            }
        )
    rate = max(int(p["rate"]) for p in phases)  # the limits are set around the peak phase
    table: dict[str, Any] = {
        "name": "gen",
        "partition_key": {"name": "pk"},
        "billing_mode": "PROVISIONED" if provisioned else "PAY_PER_REQUEST",
        "item_size_bytes": item_size,
    }
    attributes: dict[str, Any] = {"pk": draw(key_distribution(fixed_allowed=False))}
    pk = attributes["pk"]
    pk_values = len(pk["weights"]) if pk["dist"] == "weighted" else int(pk["count"])
    # At least MIN_ITEMS items: on fewer, successive writes to one item are so correlated
    # (each move's cost depends on the last) that a phase's throttle rate varies by +-5
    # points from seed to seed, in both paths alike, beyond a count-based tolerance.
    sk_min = max(2, math.ceil(MIN_ITEMS / pk_values))
    if has_sk or pk_values < MIN_ITEMS:
        table["sort_key"] = {"name": "sk"}
        attributes["sk"] = {"dist": "uniform", "count": draw(st.integers(sk_min, 40))}

    # Rates around the limits: each limit a factor of 0.3-1.3 of what the peak phase asks
    # (a phase of a few seconds absorbs about a second of excess: the grace).
    def near(units_per_s: float) -> int:
        return max(1, round(units_per_s * draw(st.floats(0.3, 1.3))))

    if provisioned:
        table["write_capacity"] = near(rate * units)
        table["read_capacity"] = near(rate * units / 2)
    elif draw(st.integers(0, 3)) > 0:  # the new-table ceiling (4,130/s) is rarely near
        table["on_demand_max"] = {"write": near(rate * units), "read": near(rate * units / 2)}
    gsis = []
    for g in range(draw(st.integers(0, 2))):
        name = ATTRIBUTES[g]
        attributes[name] = draw(key_distribution())
        projection = draw(st.sampled_from(["ALL", "KEYS_ONLY", "INCLUDE"]))
        gsi: dict[str, Any] = {
            "name": f"by_{name}",
            "partition_key": {"name": name},
            "projection": projection,
        }
        if draw(st.booleans()):
            gsi["sort_key"] = {"name": "pk"}
        if projection == "INCLUDE":
            gsi["non_key_attributes"] = draw(st.sampled_from([["hbpad"], ["g1"], ["g0"], []]))
        entry_units = units if projection == "ALL" else 1
        if provisioned:
            gsi["write_capacity"] = near(rate * entry_units * 1.5)
            gsi["read_capacity"] = near(rate)
        elif draw(st.integers(0, 3)) > 0:
            gsi["on_demand_max"] = {"write": near(rate * entry_units * 1.5)}
        gsis.append(gsi)
    # An INCLUDE of an attribute no GSI is keyed by projects nothing the writes carry
    # (kept: it is still a name); one with no name at all is KEYS_ONLY.
    for gsi in gsis:
        if gsi["projection"] == "INCLUDE" and not gsi["non_key_attributes"]:
            gsi["projection"] = "KEYS_ONLY"
            del gsi["non_key_attributes"]
    if gsis:
        table["gsis"] = gsis
    if draw(st.booleans()):
        table["seed_items"] = draw(st.integers(1, 400))
    if draw(st.integers(0, 2)) == 0:
        phases = _with_capacity_change(draw, phases, table, gsis, provisioned, rate * units)
    return {
        "name": "generated",
        "tables": [table],
        "load": {"attributes": attributes, "phases": phases, "seed": draw(st.integers(1, 10**6))},
    }


def _with_capacity_change(
    draw: st.DrawFn,
    phases: list[dict[str, Any]],
    table: dict[str, Any],
    gsis: list[dict[str, Any]],
    provisioned: bool,
    units_per_s: float,
) -> list[dict[str, Any]]:
    """The phases with a phase-level UpdateTable before the last one (a first phase is
    added when there is one only): provisioned units up or down (a GSI's too), a switch of
    billing mode, a new on-demand maximum, with `wait` active or none; a change DynamoDB
    refuses (the same units again) is as much a case as one it takes."""
    change: dict[str, Any]
    if provisioned:
        choice = draw(st.sampled_from(["units", "units", "gsi", "switch", "same"]))
        if choice == "gsi" and gsis:
            gsi = gsis[0]
            change = {"gsis": {gsi["name"]: {"write_capacity": gsi["write_capacity"] * 2}}}
        elif choice == "switch":
            change = {"billing_mode": "PAY_PER_REQUEST"}
        elif choice == "same":
            change = {"write_capacity": table["write_capacity"]}  # refused: no change
        else:
            factor = draw(st.sampled_from([0.5, 2.0, 4.0]))
            change = {"write_capacity": max(1, round(table["write_capacity"] * factor))}
    else:
        change = {"on_demand_max": {"write": max(1, round(units_per_s * 0.5))}}
    control = {"name": "change", "update_table": change}
    if draw(st.booleans()):
        control["wait"] = "none"
    if len(phases) == 1:
        first = {**phases[0], "name": "p-before"}
        return [first, control, phases[0]]
    return [phases[0], control, *phases[1:]]


def test_phase_level_capacity_changes_agree_in_simulation_and_on_the_endpoint() -> None:
    """A raise of provisioned capacity between two phases: the same outcome (applied,
    ACTIVE after the model's time) and the same throttling before and after it."""
    playbook = load_playbook(HERE / "capacity-change.yaml")
    sim_result = simulate(playbook, tick_s=TICK_S)
    outcomes: dict[tuple[str, int, int], Any] = {}
    live = run_on_endpoint(playbook, SCALE, outcomes)
    sim = simulated_runs(sim_result)
    assert not disagreements(sim, live)
    simulated = sim_result.runs[0].phases[1].change
    assert simulated is not None and simulated.accepted
    assert outcomes[("raise", 1, 1)].accepted
    assert sim[("raise", 1, 2)].throttle_rate == live[("raise", 1, 2)].throttle_rate == 0
    capacity = sim_result.runs[0].capacity
    assert capacity is not None
    assert [p["write"] for p in capacity["$table"]["series"]] == [1000.0, 2000.0]


def test_a_refused_change_is_refused_alike_and_leaves_the_capacity() -> None:
    data = yaml.safe_load((HERE / "capacity-change.yaml").read_text())
    data["load"]["phases"][1]["update_table"] = {"write_capacity": 1000}  # as it is
    playbook = parse_playbook(data, "<same>")
    result = simulate(playbook, tick_s=TICK_S)
    outcomes: dict[tuple[str, int, int], Any] = {}
    live = run_on_endpoint(playbook, SCALE, outcomes)
    change = result.runs[0].phases[1].change
    assert change is not None and change.error == outcomes[("raise", 1, 1)].error
    assert change.error == "ValidationException"
    assert "will not change" in (change.message or "")
    assert not disagreements(simulated_runs(result), live)


def _keep(data: dict[str, Any], problems: list[str]) -> Path:
    """A failing example, written as a playbook the regression test replays."""
    text = yaml.safe_dump(data, sort_keys=False)
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    FOUND.mkdir(parents=True, exist_ok=True)
    path = FOUND / f"found-{digest}.yaml"
    header = "".join(f"# {p}\n" for p in problems)
    path.write_text(f"# Found by tests/loadgen/test_differential.py:\n{header}{text}")
    return path


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES == DEFAULT_EXAMPLES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
    # No shrinking: an example costs seconds, and each failing one is kept as it is.
    phases=[Phase.explicit, Phase.generate],
)
@given(generated_playbook())
def test_generated_playbooks_throttle_alike(data: dict[str, Any]) -> None:
    playbook = parse_playbook(data, "<generated>")
    _, _, problems = compare(playbook)
    if problems:
        path = _keep(data, problems)
        raise AssertionError(f"kept as {path}:\n" + "\n".join(problems))
