"""--store and --max-memory on every command that runs an emulator, and a run stopped by
the emulator's memory bound ending as a partial run (exit 10) that says why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from console import exitcodes
from console.cli import build_parser, main
from console.commands.emulator import emulator_options
from console.commands.run import live_options
from console.commands.workflow import up_options
from console.targets.emulator_process import emulator_argv
from emulator.emulator_options import EmulatorOptions
from emulator.server import EmulatorServer

FRESH_KEYS = """
name: fresh-keys
tables:
  - name: fresh
    partition_key: {name: id}
    billing_mode: PAY_PER_REQUEST
    item_size_bytes: 1000
load:
  attributes:
    id: {dist: uuid}
  phases:
    - {name: w, operation: put, rate: 200, duration_s: 40}
"""


def test_run_and_check_give_the_built_in_emulator_keys_by_default_and_the_flags() -> None:
    parser = build_parser()
    for command in (["run", "pb.yaml"], ["check", "pb.yaml", "--mode", "live"]):
        default = live_options(parser.parse_args(command)).emulator
        assert (default.store, default.max_memory) == ("keys", None)
        chosen = live_options(
            parser.parse_args([*command, "--store", "full", "--max-memory", "1.5G"])
        ).emulator
        assert (chosen.store, chosen.max_memory) == ("full", int(1.5 * 1024**3))


def test_up_local_starts_emulator_serve_with_the_store_and_the_bound() -> None:
    parser = build_parser()
    default = emulator_argv(8123, up_options(parser.parse_args(["up", "pb.yaml"])).emulator)
    assert default[default.index("--store") + 1] == "keys"
    assert "--max-memory" not in default
    args = parser.parse_args(["up", "pb.yaml", "--store", "full", "--max-memory", "3G"])
    options = up_options(args).emulator
    argv = emulator_argv(8123, options)
    assert argv[argv.index("--store") + 1] == "full"
    # What `up` passes, `emulator serve` takes: the same options, the bound in bytes.
    served = emulator_options(parser.parse_args(argv[2:]))
    assert (served.store, served.max_memory) == ("full", 3 * 1024**3)
    assert served == options


def test_a_bad_max_memory_is_one_message_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    playbook = tmp_path / "fresh.yaml"
    playbook.write_text(FRESH_KEYS)
    for command in (
        ["plan", str(playbook), "--target", "local"],
        ["run", str(playbook), "--target", "local"],
    ):
        code = main([*command, "--max-memory", "lots"])
        assert code == exitcodes.USAGE
        printed = capsys.readouterr().out
        assert "--max-memory 'lots' is not a size" in printed and "Traceback" not in printed


def test_a_run_stopped_by_the_memory_bound_exits_partial_with_the_emulators_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    playbook = tmp_path / "fresh.yaml"
    playbook.write_text(FRESH_KEYS)
    out = tmp_path / "r.json"
    # Any process is past 1 byte: the load's table is refused new items once it holds 200
    # (the results table, smaller, keeps working, so the run ends cleanly).
    with EmulatorServer(EmulatorOptions(create_delay_s=0, store="keys", max_memory=1)) as emu:
        emu.service.state.memory.small_table_items = 200
        code = main(
            [
                "run",
                str(playbook),
                "--target",
                "local",
                "--endpoint",
                emu.endpoint_url,
                "--workers",
                "1",
                "--scale",
                "1",
                "--json",
                str(out),
                "--quiet",
            ]
        )
    assert code == exitcodes.RUN_PARTIAL
    printed = capsys.readouterr().out
    assert "The hotbench emulator reached its memory bound" in printed
    assert f"exit {exitcodes.RUN_PARTIAL}:" in printed
    (run,) = json.loads(out.read_text())["runs"]
    assert run["partial"] is True
    assert run["notes"][0].startswith("stopped at t=") and "--max-memory" in run["notes"][0]
