"""`hotbench advise` on a scenario's steps (loadgen.analysis.scenario_advice): M5's migrating
bottlenecks named before any run: a constant GSI key read whole as it grows (v1), one
lock item for every user (v2), and none of them once the key is per namespace (v3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from emulator.params import DEFAULT_LATENCY
from emulator.params import DEFAULT_PARAMS as P
from loadgen.analysis.advise import advise
from loadgen.analysis.scenario_advice import FixedTimes, constant_value
from loadgen.format.playbook import load_playbook

TIMES = FixedTimes(write_s=0.004, read_s=0.003)
"""A stand-in for the simulation's latency model (4 ms writes, 3 ms reads)."""

PLAYBOOK = """
name: sync
tables:
  - name: files
    partition_key: {{name: pk, type: S}}
    sort_key: {{name: sk, type: S}}
    billing_mode: PAY_PER_REQUEST
    item_size_bytes: 400
    gsis:
      - name: byChange
        partition_key: {{name: gsiPk, type: S}}
        sort_key: {{name: updatedAt, type: S}}
load:
  attributes:
    pk: {{dist: uniform, count: 100}}
    sk: {{dist: uniform, count: 10}}
    gsiPk: {{dist: uniform, count: 10}}
    updatedAt: {{dist: uniform, count: 10}}
  scenarios:
    work:
      vars:
        ns: "{ns}"
        lockKey: "{lock}"
      steps:
        - {{name: acquire, op: lock, key: {{pk: "LOCK#{{lockKey}}", sk: L}}, wait_s: 60}}
        - {{name: pull, op: query, index: byChange, key: {{gsiPk: "{gsi}"}},
           collection: true{since}}}
        - {{name: command, op: think, seconds: 14}}
        - {{name: push, op: put, repeat: 6, key: {{pk: "{{ns}}", sk: "f{{seq}}"}},
           attributes: {{gsiPk: "{gsi}", updatedAt: "{{now}}|f{{seq}}"}}}}
        - {{name: release, op: release, lock: acquire}}
  phases:
    - {{name: v, users: 10, think_s: 1, scenario: work, duration_s: 25200, retry: standard}}
"""


SINCE = ", since: wm, capture: {wm: now}"
"""The pull reads only what changed since the user's watermark (M5 v2 on)."""


def _advice(tmp_path: Path, since: str = SINCE, **names: str) -> list[str]:
    path = tmp_path / "pb.yaml"
    path.write_text(PLAYBOOK.format(since=since, **names))
    (advice,) = advise(load_playbook(path), P, TIMES)
    return advice.notes


def test_v1_a_constant_gsi_key_read_whole_as_it_grows(tmp_path: Path) -> None:
    notes = _advice(tmp_path, since="", ns="ns-{user}", lock="{user}", gsi="FILE")
    kinds = [n.split(":")[0] for n in notes]
    assert kinds == ["[v] constant index key", "[v] growing collection"]
    index, growth = notes
    # 6 puts of 400 B per iteration on one GSI partition: 1 WCU each, 1,000 writes/s
    assert "every entry has the key 'FILE'" in index
    assert "at most 1,000 writes/s of 1 WCU" in index
    # the pull reads FILE whole: 6 more entries every iteration
    assert "query pull reads gsiPk=FILE whole" in growth
    assert "0.5 RCU in 1 page at iteration 1 (6 entries)" in growth
    assert "294.0 RCU in 3 pages at iteration 1,000 (6,000 entries)" in growth
    assert "2,940.5 RCU in 23 pages at iteration 10,000 (60,000 entries)" in growth
    # 10 users, a 14 s command and 1 s think: 0.665 iterations/s in all; 3,000 RCU/s of
    # queries once the collection holds 3,000 / 0.665 / (400 / 8,192) entries
    assert "at 0.665 iterations/s its reads alone pass one partition's 3,000 RCU/s" in growth
    assert growth.endswith(
        "Fix: read only what changed since a watermark (a sort key that "
        "starts with the time of the write)"
    )
    assert "lock" not in " ".join(kinds)  # one lock per user: no shared ceiling


def test_v2_one_lock_item_for_every_user(tmp_path: Path) -> None:
    notes = _advice(tmp_path, ns="ns-{user}", lock="global", gsi="FILE#{ns}")
    assert len(notes) == 1
    (lock,) = notes
    assert lock.startswith("[v] lock: lock acquire (pk=LOCK#global, sk=L) is one item")
    # held from acquire to release: 14 s of command, the acquire, the pull, 6 puts and
    # the release at 3-4 ms each
    assert "at most 1 / 14.035 s = 0.0713 iterations/s in all" in lock
    assert "10 users" in lock
    assert "most iterations fail on the lock timeout" in lock
    # 9 waiters polling every 50 ms with a 100-byte conditional put
    assert "polls cost it about 180 WCU/s (a failed conditional put is charged)" in lock
    assert lock.endswith("Fix: one lock per namespace (per user), or a shorter hold")


def test_v3_keys_per_namespace_have_no_shared_ceiling(tmp_path: Path) -> None:
    assert _advice(tmp_path, ns="ns-{user}", lock="{ns}", gsi="FILE#{ns}") == []


@pytest.mark.parametrize(
    ("template", "variables", "expected"),
    [
        ("LOCK", {}, "LOCK"),
        ("LOCK#{ns}", {"ns": "global"}, "LOCK#global"),
        ("LOCK#{ns}", {"ns": "ns-{user}"}, None),
        ("f{seq}", {}, None),
        ("x{undeclared}", {}, None),
        ({"dist": "uniform", "count": 3}, {}, None),
        (7, {}, "7"),
    ],
)
def test_a_key_is_constant_only_when_nothing_in_it_varies(
    template: Any, variables: dict[str, Any], expected: str | None
) -> None:
    assert constant_value(template, variables) == expected


def test_by_default_the_hold_takes_the_simulations_request_times(tmp_path: Path) -> None:
    path = tmp_path / "pb.yaml"
    path.write_text(PLAYBOOK.format(since=SINCE, ns="ns-{user}", lock="global", gsi="x{ns}"))
    (advice,) = advise(load_playbook(path))
    # 14 s, 8 writes of 3.7 ms and a read of 3 ms (emulator.params.DEFAULT_LATENCY)
    hold = 14 + 8 * DEFAULT_LATENCY.write_s + DEFAULT_LATENCY.read_s
    assert f"at most 1 / {hold:g} s" in advice.notes[0]
