"""Static checks of the HCL with python-hcl2: layout, variables, the shared spec file,
least-privilege task role and run-id tags."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import hcl2
import pytest
from tfkit import TERRAFORM

MODULES = sorted(p for p in (TERRAFORM / "modules").iterdir() if p.is_dir())
STACKS = [TERRAFORM, *MODULES]
EXAMPLES = sorted(p for p in (TERRAFORM / "examples").iterdir() if p.is_dir())
PROVIDER_FREE = {"spec", "dashboard-body", "fargate-task", "worker-data-plane"}
# The one AWS provider constraint of the kit; terraform/versions.tf says why (6.41.0: the
# first release with every aws_dynamodb_table fix the kit needs; below the next major).
AWS_PROVIDER = ">= 6.41.0, < 7.0.0"

# Resource types that accept `tags` and therefore must carry the run's tags.
UNTAGGABLE = {
    "aws_cloudwatch_dashboard",
    "aws_scheduler_schedule",
    "aws_dynamodb_contributor_insights",
    "aws_appautoscaling_policy",
    "aws_iam_role_policy",
    "aws_s3_bucket_public_access_block",
}
DATA_PLANE = {
    "dynamodb:ConditionCheckItem",
    "dynamodb:PutItem",
    "dynamodb:GetItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:BatchWriteItem",
    "dynamodb:BatchGetItem",
    "dynamodb:Query",
    "dynamodb:Scan",
    "dynamodb:DescribeTable",
}


def unq(value: Any) -> Any:
    """python-hcl2 keeps the quotes of string literals: drop them."""
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def load_dir(path: Path) -> dict[str, list[Any]]:
    """All top-level blocks of a directory's .tf files, merged by block type."""
    merged: dict[str, list[Any]] = {}
    for tf in sorted(path.glob("*.tf")):
        with tf.open() as fh:
            for key, blocks in hcl2.load(fh).items():
                merged.setdefault(key, []).extend(blocks)
    return merged


def named(blocks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {unq(k): v for block in blocks for k, v in block.items()}


def resources(path: Path, kind: str = "resource") -> list[tuple[str, str, dict[str, Any]]]:
    """(type, name, body) of every resource (or data source, kind="data")."""
    out = []
    for block in load_dir(path).get(kind, []):
        for rtype, bodies in block.items():
            for name, body in bodies.items():
                out.append((unq(rtype), unq(name), body))
    return out


@pytest.mark.parametrize("stack", STACKS, ids=lambda p: p.name)
def test_module_layout(stack: Path) -> None:
    for name in ("main.tf", "variables.tf", "outputs.tf", "versions.tf"):
        assert (stack / name).is_file(), f"{stack.name} lacks {name}"
    if stack != TERRAFORM:
        readme = stack / "README.md"
        assert readme.is_file() and readme.read_text().startswith("# "), stack.name


@pytest.mark.parametrize("stack", STACKS, ids=lambda p: p.name)
def test_variables_are_typed_and_described(stack: Path) -> None:
    variables = named(load_dir(stack).get("variable", []))
    assert variables, stack.name
    for name, body in variables.items():
        assert "type" in body, f"{stack.name}: variable {name} has no type"
        assert len(unq(body.get("description", ""))) > 15, f"{stack.name}: {name} undescribed"
    validated = [n for n, b in variables.items() if b.get("validation")]
    assert validated, f"{stack.name}: no variable is validated"


@pytest.mark.parametrize("stack", STACKS + EXAMPLES, ids=lambda p: p.name)
def test_provider_requirements(stack: Path) -> None:
    terraform = load_dir(stack)["terraform"][0]
    assert re.fullmatch(r">= 1\.(9|1\d)", unq(terraform["required_version"]))
    providers = terraform.get("required_providers", [{}])[0]
    if stack.name in PROVIDER_FREE:
        assert not providers, f"{stack.name} must stay provider-free (offline tests)"
        assert not resources(stack)
    else:
        assert unq(providers["aws"]["version"]) == AWS_PROVIDER


def test_every_required_providers_block_has_the_same_bounded_constraint() -> None:
    constraints = set()
    for tf in sorted(TERRAFORM.rglob("*.tf")):
        if ".terraform" in tf.parts:
            continue
        with tf.open() as fh:
            for block in hcl2.load(fh).get("terraform", []):
                for providers in block.get("required_providers", []):
                    constraints |= {
                        unq(p["version"]) for p in providers.values() if isinstance(p, dict)
                    }
    assert constraints == {AWS_PROVIDER}
    floor, ceiling = (c.strip() for c in AWS_PROVIDER.split(","))
    assert floor.startswith(">= 6.") and ceiling == "< 7.0.0"  # bounded below the next major
    # The reason for the floor is written next to it.
    reason = (TERRAFORM / "versions.tf").read_text()
    for fix in ("#46094", "#46195", "#46442", "#46602", "#47427", "6.41.0"):
        assert fix in reason, fix


def gsi_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    """global_secondary_index blocks of a table body, static or `dynamic` (their content)."""
    blocks = list(body.get("global_secondary_index", []))
    for dyn in body.get("dynamic", []):
        for name, spec in dyn.items():
            if unq(name) == "global_secondary_index":
                blocks += spec["content"]
    return blocks


def test_no_gsi_uses_the_deprecated_hash_key_or_range_key() -> None:
    tables = [
        body
        for stack in STACKS + EXAMPLES
        for rtype, _, body in resources(stack)
        if rtype == "aws_dynamodb_table"
    ]
    gsis = [g for body in tables for g in gsi_blocks(body)]
    assert gsis  # the table module has one
    for gsi in gsis:
        assert "hash_key" not in gsi and "range_key" not in gsi, gsi
        key_schema = [d for d in gsi.get("dynamic", []) if '"key_schema"' in d]
        assert key_schema or "key_schema" in gsi, gsi
    spec_main = (TERRAFORM / "modules" / "spec" / "main.tf").read_text()
    assert 'key_type = "HASH"' in spec_main and 'key_type = "RANGE"' in spec_main


def test_table_ignores_warm_throughput_changes_after_creation() -> None:
    """Re-apply safety: warm throughput raised by DynamoDB or `hotbench prewarm` must never
    plan a table replacement or an index re-creation."""
    for stack in STACKS + EXAMPLES:
        for rtype, name, body in resources(stack):
            if rtype != "aws_dynamodb_table" or not (
                "warm_throughput" in body
                or any('"warm_throughput"' in d for d in body.get("dynamic", []))
                or any(
                    "warm_throughput" in g
                    or any('"warm_throughput"' in d for d in g.get("dynamic", []))
                    for g in gsi_blocks(body)
                )
            ):
                continue
            ignored = {i for lc in body.get("lifecycle", []) for i in lc.get("ignore_changes", [])}
            assert {"warm_throughput", "global_secondary_index"} <= ignored, (stack.name, name)
    readme = (TERRAFORM / "modules" / "table" / "README.md").read_text()
    assert "ignore_changes" in readme and "hotbench prewarm" in readme


def test_spec_module_and_playbook_share_the_warm_minimum() -> None:
    from loadgen.format.playbook import WARM_MINIMUM

    spec = load_dir(TERRAFORM / "modules" / "spec")
    local = {k: v for block in spec["locals"] for k, v in block.items()}
    assert local["warm_minimum"] == WARM_MINIMUM == {"read": 12000, "write": 4000}


def test_run_id_validation_matches_documented_rule() -> None:
    body = named(load_dir(TERRAFORM)["variable"])["run_id"]
    condition = body["validation"][0]["condition"]
    pattern = re.search(r'regex\("(.+?)", var\.run_id\)', condition)
    assert pattern, condition
    rx = re.compile(pattern.group(1).replace("\\\\", "\\"))
    assert rx.fullmatch("m1-2025-06-01")
    assert rx.fullmatch("a" * 24)
    for bad in ("a" * 25, "Upper", "under_score", "-lead", "trail-", ""):
        assert not rx.fullmatch(bad), bad


def test_root_reads_the_shared_spec_file_and_instantiates_every_entry() -> None:
    root = load_dir(TERRAFORM)
    local = {k: v for block in root["locals"] for k, v in block.items()}
    assert "../playbooks/hot-partition.yaml" in local["spec_file"]
    assert local["spec"] == "${yamldecode(file(local.spec_file))}"
    modules = named(root["module"])
    assert modules["spec"]["tables"] == "${local.spec.tables}"
    assert modules["table"]["for_each"] == "${module.spec.entries}"
    assert modules["table"]["table"] == "${each.value}"
    assert unq(modules["table"]["source"]) == "./modules/table"


def test_task_role_is_data_plane_only_on_this_runs_tables() -> None:
    fleet = load_dir(TERRAFORM / "modules" / "loadgen-fleet")
    shared = load_dir(TERRAFORM / "modules" / "worker-data-plane")
    local = {k: v for block in shared["locals"] for k, v in block.items()}
    assert {unq(a) for a in local["data_plane_actions"]} == DATA_PLANE
    assert local["data_plane_resources"] == (
        '${concat(var.table_arns, [for arn in var.table_arns : "${arn}/index/*"], '
        "[var.results_table_arn])}"
    )
    outputs = named(shared["output"])
    assert outputs["actions"]["value"] == "${local.data_plane_actions}"
    assert outputs["resources"]["value"] == "${local.data_plane_resources}"
    data_plane = named(fleet["module"])["data_plane"]
    assert unq(data_plane["source"]) == "../worker-data-plane"
    assert data_plane["table_arns"] == "${var.table_arns}"
    assert data_plane["results_table_arn"] == "${var.results_table_arn}"
    data = {(t, n): b for t, n, b in resources(TERRAFORM / "modules" / "loadgen-fleet", "data")}
    task_statements = data[("aws_iam_policy_document", "task")]["statement"]
    assert len(task_statements) == 1
    assert task_statements[0]["actions"] == "${module.data_plane.actions}"
    assert task_statements[0]["resources"] == "${module.data_plane.resources}"
    # The ARNs handed in by the root are exactly the run's tables and results table.
    fleet_call = named(load_dir(TERRAFORM)["module"])["fleet"]
    assert fleet_call["table_arns"] == "${[for v in module.spec.variants : module.table[v].arn]}"
    assert fleet_call["results_table_arn"] == "${module.results_table.arn}"
    # The variable rejects wildcards.
    variables = named(fleet["variable"])
    assert "no wildcards" in variables["table_arns"]["validation"][0]["error_message"]


def test_only_the_execution_role_has_a_star_and_only_for_ecr_login() -> None:
    text = (TERRAFORM / "modules" / "loadgen-fleet" / "main.tf").read_text()
    stars = [m.start() for m in re.finditer(r'resources\s*=\s*\["\*"\]', text)]
    assert len(stars) == 1
    assert 'actions   = ["ecr:GetAuthorizationToken"]' in text[stars[0] - 80 : stars[0]]


def test_provider_default_tags_carry_run_tags() -> None:
    provider = named(load_dir(TERRAFORM)["provider"])["aws"]
    assert provider["default_tags"][0]["tags"] == "${module.spec.tags}"
    spec_main = (TERRAFORM / "modules" / "spec" / "main.tf").read_text()
    assert '"hotbench:run-id"     = var.run_id' in spec_main


@pytest.mark.parametrize(
    "module", [m for m in MODULES if m.name not in PROVIDER_FREE], ids=lambda p: p.name
)
def test_every_taggable_resource_sets_tags(module: Path) -> None:
    for rtype, name, body in resources(module):
        if rtype in UNTAGGABLE:
            continue
        tags = body.get("tags")
        assert tags, f"{module.name}: {rtype}.{name} has no tags"
        assert "var.tags" in tags or "module.spec.tags" in tags, f"{rtype}.{name}: {tags}"


def test_table_module_optional_blocks_are_dynamic_and_conditional() -> None:
    table = dict(((t, n), b) for t, n, b in resources(TERRAFORM / "modules" / "table"))
    body = table[("aws_dynamodb_table", "this")]
    dynamics = {unq(k): v for d in body["dynamic"] for k, v in d.items()}
    assert set(dynamics) == {
        "attribute",
        "on_demand_throughput",
        "warm_throughput",
        "global_secondary_index",
    }
    warm = dynamics["warm_throughput"]
    assert warm["for_each"] == "${local.s.warm_throughput != null ? [local.s.warm_throughput] : []}"
    assert body["deletion_protection_enabled"] is False
    insights = table[("aws_dynamodb_contributor_insights", "this")]
    assert insights["mode"] == "${local.s.contributor_insights_mode}"


def test_table_module_creates_target_tracking_per_scalable_dimension() -> None:
    """aws_appautoscaling_target and _policy for each entry of the spec's auto_scaling
    (none for a fixed-capacity variant), on the table or its GSI, target tracking on
    DynamoDB's predefined utilization metric."""
    table = dict(((t, n), b) for t, n, b in resources(TERRAFORM / "modules" / "table"))
    target = table[("aws_appautoscaling_target", "this")]
    policy = table[("aws_appautoscaling_policy", "this")]
    assert target["for_each"] == policy["for_each"] == "${local.scaling}"
    assert unq(target["service_namespace"]) == "dynamodb"
    assert unq(target["resource_id"]) == (
        "table/${aws_dynamodb_table.this.name}${each.value.resource_suffix}"
    )
    assert target["scalable_dimension"] == "${each.value.scalable_dimension}"
    assert (target["min_capacity"], target["max_capacity"]) == (
        "${each.value.min_capacity}",
        "${each.value.max_capacity}",
    )
    assert unq(policy["policy_type"]) == "TargetTrackingScaling"
    assert policy["resource_id"] == "${aws_appautoscaling_target.this[each.key].resource_id}"
    [config] = policy["target_tracking_scaling_policy_configuration"]
    assert config["target_value"] == "${each.value.target_value}"
    assert config["disable_scale_in"] == "${each.value.disable_scale_in}"
    [metric] = config["predefined_metric_specification"]
    assert metric["predefined_metric_type"] == "${each.value.predefined_metric_type}"
    main = (TERRAFORM / "modules" / "table" / "main.tf").read_text()
    assert "scaling = { for a in local.s.auto_scaling : a.key => a }" in main
    body = table[("aws_dynamodb_table", "this")]
    ignored = {i for lc in body.get("lifecycle", []) for i in lc.get("ignore_changes", [])}
    assert {"read_capacity", "write_capacity"} <= ignored  # auto scaling's to move


def test_checkov_skips_have_reasons() -> None:
    for tf in TERRAFORM.rglob("*.tf"):
        for line in tf.read_text().splitlines():
            if "checkov:skip=" in line:
                match = re.search(r"checkov:skip=(CKV2?_AWS_\d+):(.{20,})", line)
                assert match, f"{tf}: skip without a reason: {line.strip()}"


@pytest.mark.parametrize("example", ["four-variants", "own-table"])
def test_examples_say_what_they_create_and_cost(example: str) -> None:
    path = TERRAFORM / "examples" / example
    for name in ("main.tf", "variables.tf", "outputs.tf", "versions.tf"):
        assert (path / name).is_file()
    readme = (path / "README.md").read_text()
    opening = readme.split("\n\n", 2)[1]
    assert opening.startswith("Creates"), opening
    assert re.search(r"costs money: about \$[\d.,]+ per hour", readme)
    assert "terraform destroy" in readme
    module = named(load_dir(path)["module"])["hotbench"]
    assert unq(module["source"]) == "../.."


def test_four_variants_readme_cost_is_the_arithmetic() -> None:
    readme = (TERRAFORM / "examples" / "four-variants" / "README.md").read_text()
    per_table = 10_000 * 0.00065 + 1_000 * 0.00013
    assert f"${6 * per_table:.2f} per hour" in readme


def test_fargate_pair_is_validated_by_the_provider_free_module() -> None:
    fleet = load_dir(TERRAFORM / "modules" / "loadgen-fleet")
    task = named(fleet["module"])["task"]
    assert unq(task["source"]) == "../fargate-task"
    assert (task["cpu"], task["memory"]) == ("${var.cpu}", "${var.memory}")
    definition = {(t, n): b for t, n, b in resources(TERRAFORM / "modules" / "loadgen-fleet")}[
        ("aws_ecs_task_definition", "this")
    ]
    assert (definition["cpu"], definition["memory"]) == (
        "${module.task.cpu}",
        "${module.task.memory}",
    )
    sizes = load_dir(TERRAFORM / "modules" / "fargate-task")
    memory = named(sizes["variable"])["memory"]
    assert "local.fargate_memory_mib" in memory["validation"][0]["condition"]
    main = (TERRAFORM / "modules" / "fargate-task" / "main.tf").read_text()
    assert "API_RegisterTaskDefinition.html" in main  # the table names its source
    # The root passes its task size to the fleet.
    call = named(load_dir(TERRAFORM)["module"])["fleet"]
    assert (call["cpu"], call["memory"]) == ("${var.task_cpu}", "${var.task_memory}")


def test_execution_role_may_pull_from_the_repository_worker_image_names() -> None:
    fleet = load_dir(TERRAFORM / "modules" / "loadgen-fleet")
    local = {k: v for block in fleet["locals"] for k, v in block.items()}
    assert "aws_ecr_repository.this.arn" in local["pull_repository_arns"]
    assert "module.task.ecr_repository_arn" in local["pull_repository_arns"]
    assert named(fleet["module"])["task"]["image"] == "${var.image}"
    data = {(t, n): b for t, n, b in resources(TERRAFORM / "modules" / "loadgen-fleet", "data")}
    pull = [
        st
        for st in data[("aws_iam_policy_document", "execution")]["statement"]
        if unq(st["sid"]) == "PullWorkerImage"
    ]
    assert pull[0]["resources"] == "${local.pull_repository_arns}"
    assert named(load_dir(TERRAFORM)["module"])["fleet"]["image"] == "${var.worker_image}"


def test_no_default_vpc_without_subnets_fails_plan_with_a_clear_message() -> None:
    data = {(t, n): b for t, n, b in resources(TERRAFORM / "modules" / "loadgen-fleet", "data")}
    assert ("aws_vpc", "default") not in data  # the singular lookup fails with a vague error
    vpcs = data[("aws_vpcs", "default")]
    assert [unq(v) for v in vpcs["filter"][0]["values"]] == ["true"] and unq(
        vpcs["filter"][0]["name"]
    ) == "is-default"
    (precondition,) = data[("aws_subnets", "default")]["lifecycle"][0]["precondition"]
    assert precondition["condition"] == "${length(data.aws_vpcs.default[0].ids) == 1}"
    message = unq(precondition["error_message"])
    assert "no default VPC" in message and "subnet_ids" in message


def test_worker_environment_is_what_the_worker_reads() -> None:
    """The task definition passes exactly the settings loadgen/live/worker.py reads."""
    from loadgen.live.worker import parse_config

    call = named(load_dir(TERRAFORM)["module"])["fleet"]
    passed = set(re.findall(r"(\w+) = ", call["environment"]))
    assert passed == {"HOTBENCH_RUN_ID", "HOTBENCH_RESULTS_TABLE", "AWS_REGION"}
    env = {
        "HOTBENCH_RUN_ID": "m1",
        "HOTBENCH_RESULTS_TABLE": "hb-m1-results",
        "AWS_REGION": "eu-west-1",
    }
    config = parse_config([], env | {"HOTBENCH_WORKER": "0"})
    assert (config.run_id, config.results_table, config.region) == (
        "m1",
        "hb-m1-results",
        "eu-west-1",
    )


def test_the_backstop_is_created_first_and_may_only_remove_this_run() -> None:
    """modules/backstop: one-time schedules calling Scheduler's universal targets, a role
    only this account's Scheduler may assume, allowed to delete this run's tables and
    dashboard and stop its tasks and nothing else; the root creates it before the tables
    (they depend on it), so it is destroyed after them."""
    module = TERRAFORM / "modules" / "backstop"
    made = {(t, n): b for t, n, b in resources(module)}
    data = {(t, n): b for t, n, b in resources(module, "data")}
    trust = data[("aws_iam_policy_document", "assume_scheduler")]["statement"][0]
    principals = trust["principals"][0]
    assert [unq(x) for x in principals["identifiers"]] == ["scheduler.amazonaws.com"]
    condition = trust["condition"][0]
    assert (unq(condition["test"]), unq(condition["variable"])) == (
        "StringEquals",
        "aws:SourceAccount",
    )
    policy = data[("aws_iam_policy_document", "this")]
    statements = {unq(s["sid"]): s for s in policy["statement"]}
    assert [unq(x) for x in statements["DeleteRunTables"]["actions"]] == ["dynamodb:DeleteTable"]
    assert statements["DeleteRunTables"]["resources"] == "${values(local.table_arns)}"
    assert [unq(x) for x in statements["StopRunTasks"]["actions"]] == ["ecs:StopTask"]
    assert "task/${var.cluster_name}/*" in statements["StopRunTasks"]["resources"][0]
    text = (module / "main.tf").read_text()
    assert '"*"' not in text.split('data "aws_iam_policy_document" "this"')[1]
    schedule = made[("aws_scheduler_schedule", "delete_table")]
    target = schedule["target"][0]
    assert "aws-sdk:dynamodb:deleteTable" in target["arn"]
    assert target["input"] == "${jsonencode({TableName = each.value})}"
    assert schedule["schedule_expression"] == "${local.at}"
    assert unq(schedule["schedule_expression_timezone"]) == "UTC"
    assert unq(schedule["flexible_time_window"][0]["mode"]) == "OFF"
    root = named(load_dir(TERRAFORM)["module"])
    assert root["table"]["depends_on"] == ["${module.backstop}"]
    assert root["results_table"]["depends_on"] == ["${module.backstop}"]
    assert "module.spec.names.results_table" in root["backstop"]["tables"]
    assert "timeadd(var.expires_at" in root["backstop"]["at"]
