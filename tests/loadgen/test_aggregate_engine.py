"""The aggregate engine against the per-request engine: the same playbook, the same
counts within their statistical spread.

The two engines draw the same distribution differently: the per-request engine draws each
request's keys and groups them by route, the aggregate engine draws each route's count
(loadgen/simulation/aggregate.py). They are the same random process, so a phase's counts
differ by what two independent runs of one process differ by, never by a bias.

Tolerance (docs/model.md#the-aggregate-engine): a count k of n requests (throttled, or
throttled for one reason) is binomial at most, variance n p (1 - p), p estimated as
(k + 1) / (n + 2) so that a count of zero still has a spread; two independent runs differ
by the square root of the sum of their variances. They must agree within Z of those
standard deviations plus SLACK_TICKS ticks of the phase's rate: a quiet second ends
with its buckets where arrivals spread over the second leave them, the per-request engine
with what its last tick's end admission leaves (a tick's worth of a resource's demand at
most), which a burst right after a quiet second inherits. Z is 4.5: each comparison
fails by chance with a probability under 1e-5, so a hundred examples of a dozen figures
each fail by chance about once in a hundred long runs.

Playbooks are generated (hypothesis) among those the aggregate engine runs: open
arrivals (rates, ramps and per-minute curves) of puts, updates, gets and queries whose
charges need no item state, keys hot, uniform, few, Zipf, uuid or monotonic, with and
without sort keys, GSIs keyed per item or on never-repeating items, provisioned and
on-demand limits at 0.3-1.3x what the load asks. `make test` runs a few derandomised
examples; `make test-differential` (HOTBENCH_DIFF_EXAMPLES) many fresh ones.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from emulator.params import DEFAULT_PARAMS
from loadgen.format.playbook import Playbook, load_playbook, parse_playbook
from loadgen.results.records import PlaybookResult
from loadgen.simulation.simulate import EngineUnavailable, Simulation, simulate

Z = 4.5
SLACK_TICKS = 1.0
DEFAULT_EXAMPLES = 4
EXAMPLES = int(os.environ.get("HOTBENCH_DIFF_EXAMPLES", DEFAULT_EXAMPLES))
ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"

Figures = dict[tuple[str, int, str, str], tuple[float, float, float]]
"""(table, repeat, phase, what) -> (count, requests, slack): `what` is "throttled" or a
throttle reason."""


def figures(result: PlaybookResult | dict[str, Any], tick_s: float = 0.05) -> Figures:
    """Every count the comparison judges, from a result or its JSON."""
    data = result if isinstance(result, dict) else result.to_json()
    out: Figures = {}
    for run in data["runs"]:
        for phase in run["phases"]:
            key = (run["table"], run["repeat"], phase["name"])
            n = float(phase["offered"])
            slack = SLACK_TICKS * tick_s * n / phase["duration_s"] if phase["duration_s"] else 0
            out[(*key, "throttled")] = (float(phase["throttled"]), n, slack)
            for reason, count in phase["throttles_by_reason"].items():
                out[(*key, reason)] = (float(count), n, slack)
    return out


def spread(count: float, n: float) -> float:
    """The variance of a binomial count, at the estimate (k + 1) / (n + 2)."""
    p = (count + 1) / (n + 2)
    return n * p * (1 - p)


def disagreements(a: Figures, b: Figures) -> list[str]:
    """Every figure of either side outside Z standard deviations (plus slack) of the
    other; a figure one side lacks counts as zero there."""
    out = []
    for key in sorted(set(a) | set(b)):
        ka, na, slack_a = a.get(key, (0.0, 0.0, 0.0))
        kb, nb, slack_b = b.get(key, (0.0, 0.0, 0.0))
        n = max(na, nb)
        tolerance = Z * math.sqrt(spread(ka, n) + spread(kb, n)) + max(slack_a, slack_b)
        if abs(ka - kb) > tolerance:
            out.append(f"{key}: {ka:,.0f} vs {kb:,.0f} of {n:,.0f} (tolerance {tolerance:,.0f})")
    return out


def both(playbook: Playbook, tick_s: float = 0.05) -> tuple[PlaybookResult, PlaybookResult]:
    return (
        simulate(playbook, engine="aggregate", tick_s=tick_s),
        simulate(playbook, engine="per-request", tick_s=tick_s),
    )


# --- generated playbooks -------------------------------------------------------------------


@st.composite
def key_distribution(draw: st.DrawFn, never_repeating: bool = True) -> dict[str, Any]:
    kinds = ["hot", "few", "uniform", "zipf"] + (["uuid"] if never_repeating else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "hot":
        top = draw(st.integers(40, 90))
        return {
            "dist": "weighted",
            "weights": {"H": top, "A": (100 - top) / 2, "B": (100 - top) / 2},
        }
    if kind == "few":
        return {"dist": "uniform", "count": draw(st.integers(2, 6)), "format": "F{:d}"}
    if kind == "zipf":
        return {
            "dist": "zipf",
            "count": draw(st.integers(50, 5000)),
            "s": draw(st.floats(0.6, 1.3)),
        }
    if kind == "uuid":
        return {"dist": "uuid"}
    return {"dist": "uniform", "count": draw(st.integers(20, 400)), "format": "U{:04d}"}


@st.composite
def open_arrival_playbook(draw: st.DrawFn) -> dict[str, Any]:
    provisioned = draw(st.booleans())
    item_size = draw(st.sampled_from([300, 900, 1500, 2600]))
    units = math.ceil(item_size / 1024)
    rate = draw(st.integers(150, 3000))
    writes = draw(st.booleans())
    phases = []
    for i in range(draw(st.integers(1, 2))):
        op = draw(st.sampled_from(["put", "update"] if writes else ["get", "query"]))
        phase: dict[str, Any] = {
            "name": f"p{i}-{op}",
            "operation": op,
            "duration_s": float(draw(st.integers(3, 12))),
            # Eventually consistent: a strongly consistent read runs per request only
            # (test_a_strongly_consistent_read_falls_back_to_the_per_request_engine).
            "consistent_read": False,
        }
        low = max(40, rate // 4)
        form = draw(st.sampled_from(["rate", "ramp", "per_minute"]))
        if form == "rate":
            phase["rate"] = float(draw(st.integers(low, rate)))
        elif form == "ramp":
            phase["ramp"] = {"start": float(draw(st.integers(low, rate))), "end": float(rate)}
        else:  # a recorded curve: a minute or two, each minute its own rate
            minutes = draw(st.lists(st.integers(low, rate), min_size=1, max_size=2))
            phase["rate"] = {"per_minute": minutes}
            del phase["duration_s"]
        phases.append(phase)
    attributes: dict[str, Any] = {"pk": draw(key_distribution())}
    table: dict[str, Any] = {
        "name": "gen",
        "partition_key": {"name": "pk"},
        "billing_mode": "PROVISIONED" if provisioned else "PAY_PER_REQUEST",
        "item_size_bytes": item_size,
    }
    sk = draw(st.sampled_from([None, "uniform", "uuid", "monotonic"]))
    if sk is not None:
        table["sort_key"] = {"name": "sk"}
        attributes["sk"] = (
            {"dist": "uniform", "count": draw(st.integers(2, 200))}
            if sk == "uniform"
            else {"dist": sk}
        )

    def near(units_per_s: float) -> int:
        return max(1, round(units_per_s * draw(st.floats(0.3, 1.3))))

    if provisioned:
        table["write_capacity"] = near(rate * units)
        table["read_capacity"] = near(rate * units / 2)
    elif draw(st.integers(0, 3)) > 0:
        table["on_demand_max"] = {"write": near(rate * units), "read": near(rate * units / 2)}
    never_repeating = attributes["pk"]["dist"] == "uuid" or sk in ("uuid", "monotonic")
    gsis = []
    for g in range(draw(st.integers(0, 2)) if writes else 0):
        name = f"g{g}"
        attributes[name] = draw(key_distribution(never_repeating=False))
        # Charges that need no item state: an index written in full on every write (ALL),
        # keyed per item; or any index when every write is of a new item.
        if not never_repeating:
            attributes[name]["per_item"] = True
        gsi: dict[str, Any] = {
            "name": f"by_{name}",
            "partition_key": {"name": name},
            "projection": "ALL"
            if not never_repeating
            else draw(st.sampled_from(["ALL", "KEYS_ONLY"])),
        }
        if draw(st.booleans()):
            gsi["sort_key"] = {"name": "pk"}
        if provisioned:
            gsi["write_capacity"] = near(rate * units * 1.5)
            gsi["read_capacity"] = near(rate)
        elif draw(st.integers(0, 3)) > 0:
            gsi["on_demand_max"] = {"write": near(rate * units * 1.5)}
        gsis.append(gsi)
    if gsis:
        table["gsis"] = gsis
    return {
        "name": "generated",
        "tables": [table],
        "load": {
            "attributes": attributes,
            "phases": phases,
            "runs": [{"table": "gen", "repeats": draw(st.integers(1, 2)), "pause_s": 30}],
            "seed": draw(st.integers(1, 10**6)),
        },
    }


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=EXAMPLES == DEFAULT_EXAMPLES,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
    phases=[Phase.explicit, Phase.generate],
)
@given(open_arrival_playbook())
def test_generated_open_arrivals_agree_between_the_engines(data: dict[str, Any]) -> None:
    playbook = parse_playbook(data, "<generated>")
    aggregate, per_request = both(playbook)
    assert {p.engine for r in aggregate.runs for p in r.phases} == {"aggregate"}
    problems = disagreements(figures(aggregate), figures(per_request))
    assert not problems, "\n".join([json.dumps(data), *problems])


# --- the reference experiments -------------------------------------------------------------


@pytest.mark.parametrize("name", ["hot-partition", "new-table-ceiling", "ondemand-growth"])
def test_the_golden_m1_m3_figures_agree_within_the_tolerance(name: str) -> None:
    """The aggregate engine on M1-M3 against the golden results (the per-request
    engine's, tests/golden, to the last digit), run by run, phase by phase, reason by
    reason."""
    golden = json.loads((GOLDEN / f"simulate-{name}.json").read_text())
    result = simulate(load_playbook(ROOT / "playbooks" / f"{name}.yaml"), engine="aggregate")
    problems = disagreements(figures(result), figures(golden))
    assert not problems, problems
    # and the peaks the published figures are compared on, within 2 %
    for run, gold in zip(result.to_json()["runs"], golden["runs"], strict=True):
        assert run["consumed_wcu_peak_1min"] == pytest.approx(
            gold["consumed_wcu_peak_1min"], rel=0.02
        )


def test_a_phase_that_needs_item_state_runs_per_request_and_forcing_it_is_refused() -> None:
    playbook = parse_playbook(
        {
            "name": "state",
            "tables": [
                {
                    "name": "t",
                    "partition_key": {"name": "pk"},
                    "billing_mode": "PAY_PER_REQUEST",
                    "gsis": [
                        {"name": "byG", "partition_key": {"name": "g"}, "projection": "KEYS_ONLY"}
                    ],
                }
            ],
            "load": {
                "attributes": {
                    "pk": {"dist": "uniform", "count": 50},
                    "g": {"dist": "uniform", "count": 5},
                },
                "phases": [{"name": "moves", "operation": "update", "rate": 100, "duration_s": 2}],
            },
        }
    )
    result = simulate(playbook)
    assert result.runs[0].phases[0].engine == "per-request"
    assert result.to_json()["runs"][0]["engine"] == "per-request"
    with pytest.raises(EngineUnavailable, match="item's past"):
        simulate(playbook, engine="aggregate")


# --- capacity that moves mid-run -----------------------------------------------------------


def _scaled_simulation(playbook: Playbook, engine: str) -> tuple[PlaybookResult, list[Any]]:
    """The result and the table's capacity changes (when asked, from, to, when in force)
    under the playbook's auto scaling."""
    # The alarm's delay and the split's time off the minute, so that the datapoint and
    # the change land inside what would otherwise be one block of quiet seconds.
    params = replace(DEFAULT_PARAMS, autoscale_alarm_delay_s=25.0, update_split_s=37.0)
    sim = Simulation(playbook, params, engine=engine)
    result = sim.run()
    events = [
        (e.t, e.what, e.before, e.after, e.effective_at)
        for table in sim.model.tables.values()
        for e in table.base.record.events
    ]
    return result, events


def test_auto_scaling_moving_capacity_mid_phase_agrees_between_the_engines() -> None:
    """A per-minute curve that outgrows a provisioned table under auto scaling: throttles
    until the scale-out lands, then none. The aggregate engine cuts its blocks of quiet
    seconds at every datapoint and change (`CapacityModel.settled_until`), so both
    engines see the same datapoints, ask for the same changes at the same times, and
    throttle the same within the tolerance."""
    playbook = parse_playbook(
        {
            "name": "scaled",
            "tables": [
                {
                    "name": "t",
                    "partition_key": {"name": "pk"},
                    "billing_mode": "PROVISIONED",
                    "write_capacity": 400,
                    "read_capacity": 100,
                    # target tracking on the writes, as Terraform's scaling policy puts on
                    "auto_scaling": {"write": {"target_pct": 70, "min": 100, "max": 4000}},
                }
            ],
            "load": {
                "attributes": {"pk": {"dist": "uuid"}},
                "phases": [
                    {
                        "name": "curve",
                        "operation": "put",
                        "rate": {"per_minute": [200] * 3 + [1200] * 9 + [300] * 6},
                    }
                ],
                "seed": 7,
            },
        }
    )
    aggregate, scaled_a = _scaled_simulation(playbook, "aggregate")
    per_request, scaled_p = _scaled_simulation(playbook, "per-request")
    assert aggregate.runs[0].phases[0].engine == "aggregate"
    assert any(e[1] == "write" and float(e[3] or 0) > 400 for e in scaled_a)  # scaled out
    # the same changes at the same times, to capacities from sums of throttled traffic
    assert [(e[0], e[1], e[4]) for e in scaled_a] == [(e[0], e[1], e[4]) for e in scaled_p]
    for a, b in zip(scaled_a, scaled_p, strict=True):
        if isinstance(a[3], float):
            assert a[3] == pytest.approx(b[3], rel=0.02), (a, b)
    assert per_request.runs[0].totals().throttled > 0
    problems = disagreements(figures(aggregate), figures(per_request))
    assert not problems, problems


def test_a_strongly_consistent_read_falls_back_to_the_per_request_engine() -> None:
    """The leader alone serves it, at 3,000 RCU a partition, where admit_in_full meets a
    read at any replica's 4,500: auto runs it per request, `aggregate` refuses it."""
    doc = {
        "name": "consistent",
        "tables": [
            {"name": "t", "partition_key": {"name": "pk"}, "billing_mode": "PAY_PER_REQUEST"}
        ],
        "load": {
            "attributes": {"pk": {"dist": "uniform", "count": 100}},
            "phases": [{"operation": "get", "consistent_read": True, "rate": 100, "duration_s": 3}],
        },
    }
    playbook = parse_playbook(doc, "<test>")
    run = Simulation(playbook, engine="auto").run().runs[0]
    assert run.phases[0].engine == "per-request"
    with pytest.raises(EngineUnavailable, match="strongly consistent"):
        Simulation(playbook, engine="aggregate").run()
