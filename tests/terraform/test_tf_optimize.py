"""`hotbench optimize --out DIR` writes best.tfvars.json for terraform/examples/own-table:
every variable it sets is one the example (and the root stack) declares, and Terraform,
given the file as is, reads best.yaml's tables into the settings the Python reading of
the same YAML gives (table class and reservation included). Offline: the provider-free
spec module, fed exactly as the example feeds it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import hcl2
import pytest
import yaml
from tfkit import TERRAFORM, expected_settings

from console.infra import LibterraformRunner
from console.infra.tfvars import run_id_for, tfvars
from loadgen.analysis.optimize import playbook_text
from loadgen.format.playbook import parse_playbook

pytestmark = pytest.mark.usefixtures("offline_terraform_env")

EXAMPLE = TERRAFORM / "examples" / "own-table"

BEST = {
    "name": "best",
    "tables": [
        {
            "name": "orders",
            "partition_key": {"name": "id", "type": "S"},
            "sort_key": {"name": "n", "type": "N"},
            "billing_mode": "PROVISIONED",
            "write_capacity": 6000,
            "read_capacity": 1,
            "reserved_capacity": {"write": 6000, "read": 0, "term_years": 1},
            "gsis": [
                {"name": "byN", "partition_key": {"name": "n", "type": "N"},
                 "projection": "KEYS_ONLY", "write_capacity": 100, "read_capacity": 1}
            ],
        },
        {
            "name": "archive",
            "partition_key": {"name": "id", "type": "S"},
            "billing_mode": "PAY_PER_REQUEST",
            "table_class": "STANDARD_INFREQUENT_ACCESS",
            "warm_throughput": {"write": 6000},
        },
    ],
    "load": {
        "attributes": {"id": {"dist": "uuid"}, "n": {"dist": "uniform", "count": 10, "type": "N"}},
        "phases": [{"operation": "put", "rate": 10, "duration_s": 1}],
    },
}


def _variables(path: Path) -> set[str]:
    with path.open() as handle:
        parsed = hcl2.load(handle)
    return {name.strip("\"") for block in parsed.get("variable", []) for name in block}


def test_every_variable_is_declared_by_the_example_and_the_root(tmp_path: Path) -> None:
    written = tfvars(tmp_path / "best.yaml", run_id_for("Warm Throughput!"), "me", 24, "us-east-1")
    assert written["run_id"] == "opt-warm-throughput"
    assert set(written) <= _variables(EXAMPLE / "variables.tf")
    assert set(written) <= _variables(TERRAFORM / "variables.tf")
    assert Path(written["spec_file"]).is_absolute()


def test_terraform_reads_best_yaml_through_the_tfvars_as_is(tmp_path: Path) -> None:
    text = playbook_text(BEST)
    parse_playbook(yaml.safe_load(text))  # a valid playbook
    best = tmp_path / "out" / "best.yaml"
    best.parent.mkdir()
    best.write_text(text)
    var_file = tmp_path / "out" / "best.tfvars.json"
    var_file.write_text(json.dumps(tfvars(best, "opt-ci", "ci", 24, "us-east-1")))
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(EXAMPLE / "variables.tf", root / "variables.tf")
    shutil.copytree(TERRAFORM / "modules" / "spec", root / "spec")
    # what examples/own-table/main.tf hands the root stack, and the root stack's reading
    (root / "main.tf").write_text(
        """
locals {
  spec_file = coalesce(var.spec_file, "${path.module}/my-table.yaml")
}
module "spec" {
  source     = "./spec"
  tables     = yamldecode(file(local.spec_file)).tables
  run_id     = var.run_id
  owner      = var.owner
  expires_at = var.expires_at
}
output "tables" { value = module.spec.tables }
"""
    )
    runner = LibterraformRunner()
    assert runner.run(["init", "-input=false", "-no-color"], root).returncode == 0
    applied = runner.run(
        ["apply", "-input=false", "-auto-approve", "-no-color", f"-var-file={var_file}"], root
    )
    assert applied.returncode == 0, applied.stdout + applied.stderr
    out = runner.run(["output", "-json", "-no-color"], root)
    tables: dict[str, Any] = json.loads(out.stdout)["tables"]["value"]
    for entry in yaml.safe_load(text)["tables"]:
        assert tables[entry["name"]] == expected_settings(entry, "opt-ci"), entry["name"]
    assert tables["archive"]["table_class"] == "STANDARD_INFREQUENT_ACCESS"
    assert tables["orders"]["table_class"] == "STANDARD"
    assert '"N"' in text  # quoted: Terraform's yamldecode reads a bare N as false
