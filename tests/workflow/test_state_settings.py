"""The run state file and the settings object."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from console.run.errors import EXIT_STATE, StateError
from console.run.settings import Settings, SettingsFileError, load_settings
from console.run.state import (
    EmulatorProcess,
    RunState,
    StateStore,
    Status,
    Step,
    TableState,
)


def a_state(run_id: str = "hb-1") -> RunState:
    return RunState(
        run_id=run_id,
        target="local",
        region="us-east-1",
        playbook_path="p.yaml",
        playbook_name="p",
    )


def test_save_is_atomic_and_round_trips(tmp_path: Path) -> None:
    store = StateStore(tmp_path)
    state = a_state()
    state.tables["hot"] = TableState(
        variant="hot",
        name="hb-1-hot",
        billing_mode="PROVISIONED",
        read_capacity=1,
        write_capacity=2,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    )
    store.save(state)
    assert store.load("hb-1") == state
    # no temporary file is left beside it
    assert sorted(p.name for p in store.run_dir("hb-1").iterdir()) == ["state.json"]


def test_a_crash_while_writing_leaves_the_previous_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = StateStore(tmp_path)
    state = a_state()
    store.save(state)
    state.results_table = "new"

    def crash(self: Path, target: Path) -> None:
        raise KeyboardInterrupt  # killed between writing the temp file and the rename

    monkeypatch.setattr(Path, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        store.save(state)
    monkeypatch.undo()
    assert store.load("hb-1").results_table is None


def test_unknown_run_and_unreadable_state_are_state_errors(tmp_path: Path) -> None:
    store = StateStore(tmp_path)
    store.save(a_state("hb-known"))
    with pytest.raises(StateError) as err:
        store.load("hb-nope")
    assert err.value.code == EXIT_STATE
    assert "hb-known" in str(err.value) and "hotbench runs" in str(err.value)
    (tmp_path / "hb-bad").mkdir()
    (tmp_path / "hb-bad" / "state.json").write_text("{not json")
    with pytest.raises(StateError):
        store.load("hb-bad")
    assert [s.run_id for s in store.all_runs()] == ["hb-known"]  # the broken one skipped


def test_next_step_and_billable_up_follow_the_steps() -> None:
    state = a_state()
    assert state.next_step == Step.PLAN and not state.billable_up
    state.record(Step.PLAN).status = Status.DONE
    state.record(Step.UP).status = Status.RUNNING  # killed while coming up
    state.emulator = EmulatorProcess(
        pid=os.getpid(), port=1, scale=0.1, started_at=datetime.now(UTC), log_path="x"
    )
    assert state.next_step == Step.UP and state.billable_up
    state.record(Step.UP).status = Status.DONE
    assert state.next_step == Step.PREWARM
    state.record(Step.DOWN).status = Status.DONE
    state.emulator.stopped_at = datetime.now(UTC)
    assert state.next_step is None and not state.billable_up
    state.leftovers = ["process 1"]
    assert state.billable_up  # a leftover keeps it on the list


def test_settings_from_environment_toml_and_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("HOTBENCH_"):
            monkeypatch.delenv(name)
    assert Settings().target == "local" and Settings().runs_dir == tmp_path.resolve() / "runs"
    (tmp_path / "hotbench.toml").write_text(
        'target = "aws"\nregion = "eu-west-1"\nmax_cost_usd = 5\n'
    )
    assert (Settings().target, Settings().region, Settings().max_cost_usd) == (
        "aws",
        "eu-west-1",
        5.0,
    )
    monkeypatch.setenv("HOTBENCH_REGION", "us-west-2")
    monkeypatch.setenv("HOTBENCH_PURE", "1")  # belongs to the emulator: ignored here
    assert Settings().region == "us-west-2"  # the environment beats the file
    flags = load_settings(region="ap-south-1", target=None)
    assert flags.region == "ap-south-1" and flags.target == "aws"  # None: not given
    assert flags.prices_region == "ap-south-1"


def test_an_unknown_key_in_hotbench_toml_is_an_error_naming_file_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A misspelt key in the file must not be dropped (max_cost would leave the run
    without its cost guard); the CLI exits 2 with the file, the key and a suggestion."""
    import subprocess
    import sys

    monkeypatch.chdir(tmp_path)
    (tmp_path / "hotbench.toml").write_text('region = "eu-west-1"\nmax_costs_usd = 5\n')
    with pytest.raises(SettingsFileError, match="unknown key 'max_costs_usd'"):
        Settings()
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-m", "console.cli", "runs"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(root)},
        timeout=120,
    )
    out = " ".join(proc.stdout.split())
    assert proc.returncode == 2, out + proc.stderr
    assert f"{tmp_path / 'hotbench.toml'}: unknown key 'max_costs_usd'" in out
    assert "(did you mean 'max_cost_usd'?)" in out and "Traceback" not in proc.stderr


def test_state_json_is_plain_json_for_other_tools(tmp_path: Path) -> None:
    store = StateStore(tmp_path)
    store.save(a_state())
    data = json.loads(store.path("hb-1").read_text())
    assert data["format"] == "hotbench.run-state/1"
    assert [s["step"] for s in data["steps"]] == [s.value for s in Step]


def test_the_region_comes_from_aws_region_then_the_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No --region / HOTBENCH_REGION: the region the AWS SDKs would use, AWS_REGION,
    then AWS_DEFAULT_REGION, then the profile's in the config file; us-east-1 last."""
    for name in list(os.environ):
        if name.startswith(("AWS_", "HOTBENCH_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no hotbench.toml
    config = tmp_path / "config"
    config.write_text("[default]\nregion = eu-west-1\n[profile bench]\nregion = ap-south-1\n")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    assert Settings().region == "eu-west-1"
    assert Settings(aws_profile="bench").region == "ap-south-1"
    monkeypatch.setenv("AWS_PROFILE", "bench")
    assert Settings().region == "ap-south-1"
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")
    assert Settings().region == "us-west-2"
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    assert Settings().region == "eu-central-1"
    monkeypatch.setenv("HOTBENCH_REGION", "sa-east-1")
    assert Settings().region == "sa-east-1"
    assert Settings(region="us-east-2").region == "us-east-2"
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "HOTBENCH_REGION"):
        monkeypatch.delenv(name)
    assert Settings().region == "us-east-1"


def test_the_runs_folder_is_absolute_wherever_a_command_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`runs` is read relative to the folder a command starts in, and recorded absolute:
    the reaper, Terraform and every later record name the same folder."""
    monkeypatch.delenv("HOTBENCH_RUNS_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert Settings().runs_dir == tmp_path.resolve() / "runs"
    monkeypatch.setenv("HOTBENCH_RUNS_DIR", "~/elsewhere")
    assert Settings().runs_dir == Path.home().resolve() / "elsewhere"
    assert Settings(terraform_plugin_cache=tmp_path / "c").plugin_cache == tmp_path.resolve() / "c"
