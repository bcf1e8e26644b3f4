"""`hotbench simulate`'s tables of iterations: a row per phase with iterations, and the
rate per hour for a phase longer than an hour (cheap: a couple of users in virtual time)."""

from __future__ import annotations

import io

import yaml
from rich.console import Console

from console.render.results_table import print_results
from loadgen.format.playbook import parse_playbook
from loadgen.simulation.simulate import simulate

PLAYBOOK = """
name: tables
tables:
  - {name: t, partition_key: {name: pk}, billing_mode: PAY_PER_REQUEST}
load:
  attributes: {pk: {dist: uniform, count: 100}}
  scenarios:
    locked:
      steps:
        - {name: acquire, op: lock, key: {pk: LOCK}, wait_s: 1}
        - {name: work, op: think, seconds: 60}
        - {name: release, op: release, lock: acquire}
  phases:
    - {name: plain, operation: put, rate: 5, duration_s: 10}
    - {name: contended, users: 3, think_s: 10, scenario: locked, duration_s: 3900}
"""


def test_a_scenario_phase_gets_a_row_and_an_hourly_series() -> None:
    result = simulate(parse_playbook(yaml.safe_load(PLAYBOOK)))
    out = io.StringIO()
    print_results(result, Console(file=out, width=250))
    text = out.getvalue()
    assert "iterations (the application's view)" in text
    section = text[text.index("iterations (the application's view)") :]
    row = next(line for line in section.splitlines() if "contended" in line)
    assert "lock_timeout" in row  # three users, one lock held 20 s, waits of 1 s
    assert "work" in row  # the slowest step
    hourly = text[text.index("iterations per hour") :]
    assert (
        len([ln for ln in hourly.splitlines() if "contended" in ln]) == 2
    )  # hours 1, 2 (the second partial)
    assert "plain" not in hourly  # no iterations: no series
