"""The load-model format: users, mixes, scenarios and retry policies validate, and a
mistake in them is named with its line, its field and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from loadgen.format.playbook import PlaybookError, load_playbook

BASE = """
name: sync
tables:
  - name: t
    partition_key: {name: pk, type: S}
    sort_key: {name: sk, type: S}
    billing_mode: PAY_PER_REQUEST
    gsis:
      - name: byChange
        partition_key: {name: gsiPk, type: S}
        sort_key: {name: updatedAt, type: "N"}
load:
  attributes:
    pk: {dist: uniform, count: 100}
    sk: {dist: uniform, count: 10}
    gsiPk: {dist: constant, value: FILE}
    updatedAt: {dist: monotonic, type: "N"}
  scenarios:
    work:
      vars:
        ns: "ns-{user}"
      steps:
        - {name: acquire, op: lock, key: {pk: LOCK, sk: L}, ttl_s: 30, wait_s: 60, heartbeat_s: 10}
        - {name: pull, op: query, index: byChange, key: {gsiPk: FILE}, collection: true,
           since: wm, capture: {wm: now}}
        - {name: push, op: batch_write, items: 6, key: {pk: "{ns}", sk: "f{n}"}}
        - {name: release, op: release, lock: acquire}
  phases:
    - {name: closed, users: 10, think_s: 1, scenario: work, duration_s: 3600, retry: standard}
"""


def _load(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "pb.yaml"
    path.write_text(text)
    return load_playbook(path)


def _error(tmp_path: Path, text: str) -> str:
    with pytest.raises(PlaybookError) as info:
        _load(tmp_path, text)
    message = str(info.value)
    assert "pb.yaml" in message
    return message


def test_a_closed_scenario_phase_validates_with_its_defaults(tmp_path: Path) -> None:
    playbook = _load(tmp_path, BASE)
    phase = playbook.load.phases[0]
    assert phase.users == 10 and phase.kind.name == "users x scenario"
    assert phase.retry.mode == "standard" and phase.retry.max_attempts is None
    assert phase.kind.engine == "iterations"  # the closed-loop engine, not the golden one
    steps = playbook.load.scenarios["work"].steps
    assert [s.op for s in steps] == ["lock", "query", "batch_write", "release"]
    assert steps[0].poll.initial_s == 0.05  # type: ignore[union-attr]


def test_todays_phase_is_still_an_open_loop_operation(tmp_path: Path) -> None:
    text = BASE.replace(
        "{name: closed, users: 10, think_s: 1, scenario: work, duration_s: 3600, retry: standard}",
        "{name: open, rate: 100, duration_s: 60, operation: get}",
    )
    phase = _load(tmp_path, text).load.phases[0]
    assert phase.kind.engine == "requests" and phase.retry.mode == "none"
    assert phase.kind.name == "constant rate x one operation"


def test_a_users_ramp_and_a_mix_at_a_rate(tmp_path: Path) -> None:
    closed = (
        "{name: closed, users: 10, think_s: 1, scenario: work, duration_s: 3600, retry: standard}"
    )
    text = BASE.replace(
        f"- {closed}",
        "- {name: ramp, users: {start: 1, end: 20, steps: 4}, pacing_s: 2, duration_s: 60,"
        " operation: get}\n"
        "    - {name: mixed, rate: 50, max_users: 20, duration_s: 60,"
        " mix: [{op: get, weight: 95}, {op: put, weight: 5}]}",
    )
    ramp, mixed = _load(tmp_path, text).load.phases
    assert ramp.users.end == 20 and ramp.pacing_s == 2  # type: ignore[union-attr]
    assert ramp.kind.name == "users x one operation" and ramp.kind.engine == "iterations"
    assert [e.weight for e in mixed.mix or []] == [95, 5]
    assert mixed.kind.name == "constant rate x mix" and mixed.kind.user_pool == 20


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "users: 10, think_s: 1,",
            "users: 10, rate: 5, think_s: 1,",
            "exactly one of rate, ramp or users (got rate and users)",
        ),
        (
            "scenario: work, duration_s",
            "scenario: work, operation: get, duration_s",
            "one of operation, mix or scenario, not operation and scenario",
        ),
        (
            "users: 10, think_s: 1,",
            "rate: 10, think_s: 1,",
            "think_s and pacing_s pace a closed loop: they need users",
        ),
        ("retry: standard", "retry: {mode: standrd}", "'none', 'standard', 'legacy' or 'adaptive'"),
        ("items: 6", "items: 30", "less than or equal to 25"),
        ("op: release", "op: relase", "op must be one of: get, put, update, delete, query"),
    ],
)
def test_a_bad_load_model_says_what_is_wrong(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    assert old in BASE
    assert expected in _error(tmp_path, BASE.replace(old, new))


def test_an_unknown_step_field_lists_that_operations_fields_with_a_guess(tmp_path: Path) -> None:
    message = _error(tmp_path, BASE.replace("wait_s: 60", "wiat_s: 60"))
    line = next(ln for ln in message.splitlines() if "wiat_s" in ln)
    lock_line = BASE.splitlines().index(next(x for x in BASE.splitlines() if "op: lock" in x)) + 1
    assert line.startswith(
        f"  line {lock_line}: load.scenarios.work.steps[0].wiat_s: unknown field"
    )
    assert "did you mean 'wait_s'?" in line
    assert "heartbeat_s" in line and "collection" not in line  # the lock's fields only


def test_an_unknown_field_of_a_users_ramp_is_named_without_union_noise(tmp_path: Path) -> None:
    message = _error(tmp_path, BASE.replace("users: 10", "users: {start: 1, edn: 5}"))
    assert "users.edn: unknown field 'edn' (did you mean 'end'?)" in message
    assert "valid integer" not in message


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "scenario: work,",
            "scenario: wrok,",
            "load.phases[0].scenario: no scenario 'wrok' (did you mean 'work'?)",
        ),
        (
            "lock: acquire}",
            "lock: acquir}",
            "releases 'acquir', which is no earlier lock step (did you mean 'acquire'?)",
        ),
        ('pk: "{ns}"', 'pk: "{nss}"', "uses {nss}, which is not a variable (did you mean 'ns'?)"),
        (
            "index: byChange",
            "index: byChang",
            "table t has no GSI 'byChang' (did you mean 'byChange'?)",
        ),
        (
            "since: wm, capture: {wm: now}",
            "since: mark",
            "since names 'mark', which no step captures",
        ),
        ("key: {pk: LOCK, sk: L}", "key: {sk: L}", None),
    ],
)
def test_a_bad_reference_in_a_scenario_is_located(
    tmp_path: Path, old: str, new: str, expected: str | None
) -> None:
    assert old in BASE
    message = _error(tmp_path, BASE.replace(old, new)) if expected else None
    if expected is None:
        # pk is drawn from load.attributes when the key leaves it out: valid
        _load(tmp_path, BASE.replace(old, new))
        text = BASE.replace(old, new).replace("    pk: {dist: uniform, count: 100}\n", "")
        message = _error(tmp_path, text)
        expected = "load.scenarios.work.steps[0].key: table t needs key attribute 'pk'"
    assert expected in message
    assert "line " in message


def test_a_mix_entry_needs_a_weight_and_no_lock(tmp_path: Path) -> None:
    text = BASE.replace(
        "scenario: work, duration_s: 3600, retry: standard}",
        "duration_s: 60, mix: [{op: get}, {op: lock, weight: 1, key: {pk: L, sk: L}}]}",
    )
    message = _error(tmp_path, text)
    assert "mix[0].weight: each mix entry needs a weight" in message
    assert "mix[1].op: lock belongs in a scenario" in message
