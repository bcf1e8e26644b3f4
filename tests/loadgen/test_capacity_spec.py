"""A table variant's `auto_scaling:` and `history:`: validated with line and field, and
turned into the emulator's own AutoScalingSpec / TableHistory (one set of rules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.autoscaling import AutoScalingSpec, TargetTracking
from emulator.model import CapacityModel
from emulator.tableconfig import HISTORY_TAG, TableHistory
from loadgen.format.playbook import PlaybookError, load_playbook

PLAYBOOK = """\
name: as
tables:
  - name: t
    partition_key: {name: pk}
    billing_mode: PROVISIONED
    read_capacity: 10
    write_capacity: 100
    auto_scaling:
      write: {target_pct: 70, min: 100, max: 4000, scale_in_cooldown_s: 60}
    history:
      previous_on_demand_peak: {write: 3000}
      previous_provisioned: {read: 500}
    gsis:
      - name: g
        partition_key: {name: gk}
        read_capacity: 5
        write_capacity: 5
        auto_scaling: {read: {target_pct: 50, min: 5, max: 50, disable_scale_in: true}}
load:
  attributes:
    pk: {dist: uuid}
    gk: {dist: uuid}
  phases:
    - {operation: put, rate: 10, duration_s: 1}
"""


def _load(tmp_path: Path, text: str = PLAYBOOK):  # type: ignore[no-untyped-def]
    path = tmp_path / "pb.yaml"
    path.write_text(text)
    return load_playbook(path)


def _error(tmp_path: Path, text: str) -> str:
    with pytest.raises(PlaybookError) as info:
        _load(tmp_path, text)
    return str(info.value)


def test_the_blocks_become_the_emulators_own_classes(tmp_path: Path) -> None:
    spec = _load(tmp_path).table("t")
    assert spec.auto_scaling_specs() == {
        None: AutoScalingSpec(write=TargetTracking(70.0, 100, 4000, scale_in_cooldown_s=60.0)),
        "g": AutoScalingSpec(read=TargetTracking(50.0, 5, 50, disable_scale_in=True)),
    }
    assert spec.table_history() == TableHistory(
        previous_on_demand_peak_write=3000.0, previous_provisioned_read=500.0
    )


def test_the_history_travels_in_the_create_table_tag_and_the_model_reads_it(
    tmp_path: Path,
) -> None:
    spec = _load(tmp_path).table("t")
    request = spec.create_table_request("T", tags={"hotbench:run": "r1"})
    assert request["Tags"][0] == {"Key": "hotbench:run", "Value": "r1"}
    assert request["Tags"][1]["Key"] == HISTORY_TAG
    model = CapacityModel()
    table = model.create_table(request, 0.0, auto_scaling=spec.auto_scaling_specs())
    assert table.config.history == spec.table_history()
    assert table.config.auto_scaling == spec.auto_scaling_specs()[None]
    assert [(s.index, s.dimension) for s in table.scalers] == [(None, "write"), ("g", "read")]


def test_a_variant_without_them_makes_the_same_request_as_before(tmp_path: Path) -> None:
    text = PLAYBOOK.split("    auto_scaling:\n", 1)[0] + "load:" + PLAYBOOK.split("load:", 1)[1]
    spec = _load(tmp_path, text).table("t")
    assert spec.auto_scaling_specs() == {}
    assert spec.table_history() is None
    assert "Tags" not in spec.create_table_request("T")


@pytest.mark.parametrize(
    ("old", "new", "where", "says"),
    [
        (
            "target_pct: 70",
            "target_pct: 95",
            "line 9: tables[0].auto_scaling.write:",
            "target_pct must be from 20 to 90 (percent), got 95",
        ),
        (
            "max: 4000",
            "max: 50",
            "line 9: tables[0].auto_scaling.write:",
            "max (50) must be at least min (100)",
        ),
        (
            "min: 5,",
            "min: 0,",
            "line 18: tables[0].gsis[0].auto_scaling.read:",
            "min must be at least 1, got 0",
        ),
        (
            "scale_in_cooldown_s: 60",
            "scale_in_cooldown_s: -1",
            "line 9: tables[0].auto_scaling.write:",
            "scale_in_cooldown_s must be 0 or more seconds",
        ),
        (
            "scale_in_cooldown_s: 60",
            "scale_in_cooldown: 60",
            "line 9: tables[0].auto_scaling.write.scale_in_cooldown:",
            "unknown field 'scale_in_cooldown' (did you mean 'scale_in_cooldown_s'?)",
        ),
        (
            "write: {target_pct: 70, min: 100, max: 4000, scale_in_cooldown_s: 60}",
            "{}",
            "line 8: tables[0].auto_scaling:",
            "auto_scaling needs read, write or both",
        ),
        (
            "{write: 3000}",
            "{write: -5}",
            "line 11: tables[0].history.previous_on_demand_peak.write:",
            "greater than or equal to 0",
        ),
        (
            "previous_provisioned: {read: 500}",
            "previous_provisoned: {read: 500}",
            "line 12: tables[0].history.previous_provisoned:",
            "did you mean 'previous_provisioned'?",
        ),
    ],
)
def test_errors_name_the_line_and_the_field(
    tmp_path: Path, old: str, new: str, where: str, says: str
) -> None:
    assert old in PLAYBOOK
    message = _error(tmp_path, PLAYBOOK.replace(old, new, 1))
    assert where in message
    assert says in message


def test_an_empty_history_is_refused(tmp_path: Path) -> None:
    text = PLAYBOOK.replace(
        "      previous_on_demand_peak: {write: 3000}\n      previous_provisioned: {read: 500}\n",
        "      previous_warm: {}\n",
    )
    assert "history needs at least one of" in _error(tmp_path, text)


def test_auto_scaling_on_an_on_demand_table_is_refused(tmp_path: Path) -> None:
    text = (
        PLAYBOOK.replace("PROVISIONED", "PAY_PER_REQUEST")
        .replace("    read_capacity: 10\n    write_capacity: 100\n", "")
        .replace("        read_capacity: 5\n        write_capacity: 5\n", "")
    )
    message = _error(tmp_path, text)
    assert "table: auto_scaling applies to PROVISIONED capacity" in message
