"""Parameters as data: a params file changes only what it names, inside declared bounds."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from emulator.params import DEFAULT_PARAMS, SOURCES, CapacityParams, settable
from emulator.paramsfile import ParamsFileError, dump_params, load_params


def test_every_parameter_but_scale_has_a_source_tag_and_bounds_around_its_default() -> None:
    known = settable()
    assert set(known) == {f.name for f in fields(CapacityParams)} - {"scale"}
    for info in known.values():
        assert info.source in SOURCES
        assert info.low <= info.default <= info.high, info.name
        assert info.low < info.high, info.name


def test_a_file_changes_only_what_it_names(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("# calibrated\ngrace_s: 1.5\ngsi_backlog_s: 100\n")
    loaded = load_params(path)
    assert loaded.params.grace_s == 1.5 and loaded.params.gsi_backlog_s == 100.0
    assert loaded.changed == {"grace_s": 1.5, "gsi_backlog_s": 100.0}
    assert loaded.origin("grace_s") == str(path) and loaded.origin("burst_s") == "default"
    for name in settable():
        if name not in loaded.changed:
            assert getattr(loaded.params, name) == getattr(DEFAULT_PARAMS, name), name


def test_dump_then_load_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(dump_params({"split_delay_s": 400.0, "write_unit_bytes": 1024}, ["fit"]))
    assert load_params(path).changed == {"split_delay_s": 400.0, "write_unit_bytes": 1024}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("grace: 1\n", "unknown parameter 'grace' (did you mean grace_s?)"),
        ("grace_s: 50\n", "grace_s = 50 is out of bounds: grace_s must be from 0.05 to 10"),
        ("split_delay_s: -1\n", "split_delay_s must be from 0 to 3600"),
        ("grace_s: fast\n", "grace_s must be a number from 0.05 to 10, got 'fast'"),
        ("write_unit_bytes: 1000.5\n", "write_unit_bytes must be a whole number"),
        ("- grace_s\n", "a params file is a mapping"),
        ("grace_s: [1\n", "line 2: not valid YAML"),
        ("scale: 0.5\n", "unknown parameter 'scale'"),
    ],
)
def test_a_bad_file_is_an_error_naming_the_parameter_and_its_bounds(
    tmp_path: Path, text: str, expected: str
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(ParamsFileError, match=None) as info:
        load_params(path)
    assert expected in str(info.value)
    assert str(path) in str(info.value)


def test_a_missing_file_names_itself(tmp_path: Path) -> None:
    with pytest.raises(ParamsFileError, match="cannot read params file"):
        load_params(tmp_path / "none.yaml")
