"""The Python driver against a fake `terraform` binary replaying recorded output."""

from __future__ import annotations

import gc
import shutil
from pathlib import Path
from typing import Any

import pytest

from console.infra import (
    BinaryRunner,
    LibterraformRunner,
    Terraform,
    TerraformApplyError,
    TerraformError,
    progress_line,
    runner_from_env,
)
from console.render.cost_table import plan_review

VARIABLES = {
    "run_id": "m1-demo",
    "owner": "platform@example.com",
    "expires_at": "2030-01-01T00:00:00Z",
    "variants": ["bad", "goodGsi"],
}


def make(fake: dict[str, Any]) -> Terraform:
    return Terraform(fake["workdir"], VARIABLES, runner=BinaryRunner(fake["binary"]))


def kept_var_file(error: TerraformApplyError) -> Path:
    """The var file a failed rollback's remove command names, which the driver keeps for
    the user; a test that made one removes it after, or each run left it in /tmp."""
    return Path(str(error).split("-var-file=")[1].split()[0])


def commands(fake: dict[str, Any]) -> list[str]:
    return [call["argv"][0] for call in fake["calls"]()]


def test_binary_is_chosen_by_env(
    fake_terraform: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOTBENCH_TERRAFORM_BINARY", fake_terraform["binary"])
    runner = runner_from_env()
    assert isinstance(runner, BinaryRunner) and runner.binary == fake_terraform["binary"]
    monkeypatch.delenv("HOTBENCH_TERRAFORM_BINARY")
    assert isinstance(runner_from_env(), LibterraformRunner)


def test_missing_binary_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOTBENCH_TERRAFORM_BINARY", "/nonexistent/terraform")
    with pytest.raises(TerraformError, match="HOTBENCH_TERRAFORM_BINARY='/nonexistent/terraform'"):
        runner_from_env()


def test_plan_runs_plan_then_show_and_summarises(fake_terraform: dict[str, Any]) -> None:
    tf = make(fake_terraform)
    tf.init()
    plan = tf.plan(fake_terraform["tmp"] / "run.tfplan")
    calls = fake_terraform["calls"]()
    assert [c["argv"][0] for c in calls] == ["init", "plan", "show"]
    plan_call = calls[1]
    assert f"-out={fake_terraform['tmp'] / 'run.tfplan'}" in plan_call["argv"]
    assert "-input=false" in plan_call["argv"]
    assert plan_call["variables"] == VARIABLES  # lists survive through the JSON var file
    assert plan_call["cwd"] == str(fake_terraform["workdir"])
    assert calls[2]["argv"][:2] == ["show", "-json"]
    assert plan.summary.totals.create == 15
    text = "\n".join(plan_review(plan))
    assert "Plan: 15 to create" in text and "$39.78/h while up" in text


def test_plan_error_carries_command_and_stderr_tail(
    fake_terraform: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_TF_SCENARIO", "plan_error")
    with pytest.raises(TerraformError) as err:
        make(fake_terraform).plan()
    assert err.value.returncode == 1
    assert err.value.command[0] == "plan"
    message = str(err.value)
    assert message.startswith("terraform plan failed")
    assert "run_id must be 1-24 characters" in message
    assert "Traceback" not in message


def test_apply_streams_progress_while_running_and_returns_outputs(
    fake_terraform: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The fake blocks after its first line until this file exists: if the driver only
    # read output after the process ended, the fake would give up and the apply fail.
    handshake = fake_terraform["tmp"] / "seen-first-line"
    monkeypatch.setenv("FAKE_TF_HANDSHAKE", str(handshake))
    seen: list[str] = []

    def on_progress(line: str) -> None:
        seen.append(line)
        handshake.touch()

    outputs = make(fake_terraform).apply(on_progress=on_progress)
    assert seen[0] == 'module.table["bad"].aws_dynamodb_table.this: Creating...'
    assert "Terraform 1.11.4" not in seen  # the version event is noise
    assert seen[-2] == "Apply complete! Resources: 4 added, 0 changed, 0 destroyed."
    assert commands(fake_terraform) == ["apply", "output"]
    apply_argv = fake_terraform["calls"]()[0]["argv"]
    assert "-auto-approve" in apply_argv and "-json" in apply_argv
    assert outputs.run_id == "m1-demo"
    assert outputs.tables["goodGsi"].gsis == ("byWarehouse", "byWarehouseShelf", "byWarehousePrice")


def test_apply_of_saved_plan_passes_plan_file_without_vars(
    fake_terraform: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_TF_HANDSHAKE", str(fake_terraform["tmp"] / "h"))
    (fake_terraform["tmp"] / "h").touch()
    tf = make(fake_terraform)
    plan = tf.plan()
    tf.apply(plan)
    apply_argv = fake_terraform["calls"]()[2]["argv"]
    assert apply_argv[-1] == str(plan.path)
    assert not any(a.startswith("-var-file") for a in apply_argv)  # Terraform forbids it


def test_output_is_parsed_into_typed_object(fake_terraform: dict[str, Any]) -> None:
    out = make(fake_terraform).output()
    assert set(out.tables) == {"bad", "good", "goodGsi", "badOnDemand"}
    assert out.tables["bad"].arn.endswith(":table/hotbench-m1-demo-bad")
    assert out.results_table == "hotbench-m1-demo-results"
    assert out.subnets == ("subnet-0a1b2c3d", "subnet-0e4f5a6b")
    assert out.security_group_id == "sg-0123456789abcdef0"
    assert out.assign_public_ip is True
    assert out.task_count == 4
    assert out.has_fleet
    assert out.dashboard_url is not None and out.dashboard_url.endswith(
        "dashboard/hotbench-m1-demo"
    )


def test_unparseable_output_is_a_terraform_error(
    fake_terraform: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_TF_SCENARIO", "bad_output")
    with pytest.raises(TerraformError, match="no valid JSON"):
        make(fake_terraform).output()


def test_destroy_streams_and_passes_vars(fake_terraform: dict[str, Any]) -> None:
    seen: list[str] = []
    make(fake_terraform).destroy(seen.append)
    assert seen[-1] == "Destroy complete! Resources: 1 destroyed."
    call = fake_terraform["calls"]()[0]
    assert call["argv"][:2] == ["destroy", "-json"] and "-auto-approve" in call["argv"]
    assert call["variables"]["run_id"] == "m1-demo"


def test_failed_apply_still_destroys(
    fake_terraform: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_TF_SCENARIO", "apply_fail")
    seen: list[str] = []
    with pytest.raises(TerraformApplyError) as err:
        make(fake_terraform).apply(on_progress=seen.append)
    assert commands(fake_terraform) == ["apply", "destroy"]
    assert err.value.destroyed is True
    message = str(err.value)
    assert "AccessDenied" in message and "not authorized to perform: iam:CreateRole" in message
    assert "was destroyed" in message
    assert "apply failed: destroying what it created" in seen
    assert "Destroy complete! Resources: 1 destroyed." in seen


def test_failed_apply_and_failed_destroy_points_at_leftovers(
    fake_terraform: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_TF_SCENARIO", "apply_fail,destroy_fail")
    with pytest.raises(TerraformApplyError) as err:
        make(fake_terraform).apply()
    assert err.value.destroyed is False
    assert err.value.destroy_error is not None
    message = str(err.value)
    assert "rollback destroy FAILED" in message
    assert "--tag-filters Key=hotbench:run-id,Values=m1-demo" in message
    shutil.rmtree(kept_var_file(err.value).parent)


def test_interrupted_apply_still_destroys(
    fake_terraform: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_TF_HANDSHAKE", str(fake_terraform["tmp"] / "h"))
    (fake_terraform["tmp"] / "h").touch()

    def interrupt(line: str) -> None:
        if "Creating" in line:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        make(fake_terraform).apply(on_progress=interrupt)
    assert commands(fake_terraform) == ["apply", "destroy"]


def test_interrupted_apply_whose_destroy_fails_says_what_is_left(
    fake_terraform: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C during apply, then the rollback destroy fails: the error must reach the
    user with how to find and remove what is left, not vanish behind the interrupt."""
    monkeypatch.setenv("FAKE_TF_HANDSHAKE", str(fake_terraform["tmp"] / "h"))
    monkeypatch.setenv("FAKE_TF_SCENARIO", "destroy_fail")
    (fake_terraform["tmp"] / "h").touch()

    def interrupt(line: str) -> None:
        if "Creating" in line:
            raise KeyboardInterrupt

    with pytest.raises(TerraformApplyError) as err:
        make(fake_terraform).apply(on_progress=interrupt)
    assert commands(fake_terraform) == ["apply", "destroy"]
    assert isinstance(err.value.__cause__, KeyboardInterrupt)
    assert err.value.destroyed is False and err.value.destroy_error is not None
    message = str(err.value)
    assert message.startswith("terraform apply was interrupted (KeyboardInterrupt)")
    assert "rollback destroy FAILED: terraform destroy failed" in message
    assert "--tag-filters Key=hotbench:run-id,Values=m1-demo" in message
    assert f"terraform -chdir={fake_terraform['workdir']} destroy -var-file=" in message
    shutil.rmtree(kept_var_file(err.value).parent)


def test_the_scratch_folder_goes_with_the_driver(fake_terraform: dict[str, Any]) -> None:
    """The var file and plan live in a folder of the driver's own, removed when it goes:
    every run once left one in /tmp."""
    terraform = make(fake_terraform)
    plan = terraform.plan()
    scratch = plan.path.parent
    assert scratch.name.startswith("hotbench-tf-") and plan.path.is_file()
    del terraform, plan
    gc.collect()
    assert not scratch.exists()


def test_a_printed_remove_command_keeps_its_var_file(
    fake_terraform: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the rollback fails, the error names a var file the user runs by hand later."""
    monkeypatch.setenv("FAKE_TF_SCENARIO", "apply_fail,destroy_fail")
    terraform = make(fake_terraform)
    with pytest.raises(TerraformApplyError) as err:
        terraform.apply()
    var_file = kept_var_file(err.value)
    del terraform, err
    gc.collect()
    assert var_file.is_file()
    shutil.rmtree(var_file.parent)


def test_apply_without_rollback_leaves_state_alone(
    fake_terraform: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_TF_SCENARIO", "apply_fail")
    with pytest.raises(TerraformApplyError):
        make(fake_terraform).apply(destroy_on_failure=False)
    assert commands(fake_terraform) == ["apply"]


def test_missing_workdir_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TerraformError, match="does not exist"):
        Terraform(tmp_path / "nope", runner=BinaryRunner("sh"))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('{"@message": "x: Creating...", "type": "apply_start"}', ("x: Creating...", None)),
        ('{"@message": "Terraform 1.9", "type": "version"}', (None, None)),
        ("plain text", ("plain text", None)),
        ("", (None, None)),
        (
            '{"@level": "error", "@message": "Error: boom", "type": "diagnostic",'
            ' "diagnostic": {"summary": "boom", "detail": "why"}}',
            ("Error: boom", "Error: boom: why"),
        ),
    ],
)
def test_progress_line(line: str, expected: tuple[str | None, str | None]) -> None:
    assert progress_line(line) == expected
