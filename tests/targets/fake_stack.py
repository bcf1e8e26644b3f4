"""A terraform stand-in for the AWS rehearsal: `apply` creates what the kit's outputs name
(the tables and results table in the DynamoDB endpoint, the cluster, task definition,
log group, image repository, task role and security group in moto), tagged with the run
id as the kit tags them; `destroy` deletes each, tolerating what is already gone.

It runs as the `terraform` binary (BinaryRunner), with the environment the console gives
it: AWS_ENDPOINT_URL (moto's server) and AWS_ENDPOINT_URL_DYNAMODB (the emulator) from
the rehearsal, and the run's credentials, region and plugin cache. Each command is
logged (FAKE_STACK_LOG: the command, the identity it ran as, its region, its plugin
cache, whether `init` downloaded a provider). What Terraform does that the console meets
is rehearsed: the spec file is read at every plan, apply and destroy (the root stack's
`file(var.spec_file)`), `init` downloads the provider unless the lock file and the plugin
cache hold it, and destroy lists a security group's network interfaces before deleting
it (the provider's `deleteLingeringENIs`, internal/service/ec2/vpc_security_group.go).
Plans, drift and the provider's other calls are not: docs/terraform.md.

boto3 is imported by the commands that call AWS (apply, destroy), not by init, plan,
show and output: a rehearsal runs this script a dozen times, and the import was most of
each of those four's 0.4 s of CPU.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

VARS = "fake-stack.vars.json"
STATE = "fake-stack.state.json"
PLAN = ROOT / "tests" / "terraform" / "fixtures" / "plan_create.json"
TAG = "hotbench:run-id"


def _client(service: str, **kwargs: Any) -> Any:
    import boto3  # here, not at the top: see the module's docstring

    return boto3.client(service, **kwargs)


def _code(exc: Exception) -> str:
    return str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))


def image_build(variables: dict[str, Any], made: dict[str, Any]) -> dict[str, Any]:
    """modules/image-build: the source bucket and the CodeBuild project, tagged."""
    run_id, region = variables["run_id"], variables["region"]
    prefix = f"hotbench-{run_id}"
    tags = {TAG: run_id, "hotbench:owner": str(variables.get("owner", ""))}
    account = _client("sts", region_name=region).get_caller_identity()["Account"]
    bucket = f"{prefix}-src-{account}"
    s3 = _client("s3", region_name=region)
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_tagging(
        Bucket=bucket, Tagging={"TagSet": [{"Key": k, "Value": v} for k, v in tags.items()]}
    )
    iam = _client("iam", region_name=region)
    role = iam.create_role(
        RoleName=f"{prefix}-build",
        AssumeRolePolicyDocument="{}",
        Tags=[{"Key": k, "Value": v} for k, v in tags.items()],
    )["Role"]
    project = _client("codebuild", region_name=region).create_project(
        name=f"{prefix}-image",
        source={"type": "S3", "location": f"{bucket}/worker-source/"},
        artifacts={"type": "NO_ARTIFACTS"},
        environment={
            "type": "LINUX_CONTAINER",
            "image": "aws/codebuild/amazonlinux2-x86_64-standard:5.0",
            "computeType": "BUILD_GENERAL1_SMALL",
            "privilegedMode": True,
            "environmentVariables": [
                {"name": "REPOSITORY_URI", "value": made["ecr_repository_url"]},
                {"name": "IMAGE_TAG", "value": "latest"},
            ],
        },
        serviceRole=role["Arn"],
        tags=[{"key": k, "value": v} for k, v in tags.items()],
    )["project"]
    print("module.image_build[0].aws_codebuild_project.image: Creating...", flush=True)
    return {
        "image_build_project": project["name"],
        "image_source_bucket": bucket,
        "build_role_name": role["RoleName"],
    }


def register_task_definition(variables: dict[str, Any], made: dict[str, Any]) -> str:
    run_id, region = variables["run_id"], variables["region"]
    prefix = f"hotbench-{run_id}"
    tags = {TAG: run_id, "hotbench:owner": str(variables.get("owner", ""))}
    image = variables.get("worker_image") or f"{made['ecr_repository_url']}:latest"
    made["image"] = image
    return str(
        _client("ecs", region_name=region).register_task_definition(
            family=f"{prefix}-worker",
            taskRoleArn=made["task_role_arn"],
            containerDefinitions=[
                {
                    "name": "worker",
                    "image": image,
                    "memory": int(variables.get("task_memory", 2048)),
                    "essential": True,
                    "environment": [
                        {"name": "HOTBENCH_RUN_ID", "value": run_id},
                        {"name": "HOTBENCH_RESULTS_TABLE", "value": made["results_table"]["name"]},
                        {"name": "AWS_REGION", "value": region},
                    ],
                }
            ],
            requiresCompatibilities=["FARGATE"],
            networkMode="awsvpc",
            cpu=str(variables.get("task_cpu", 1024)),
            memory=str(variables.get("task_memory", 2048)),
            tags=[{"key": k, "value": v} for k, v in tags.items()],
        )["taskDefinition"]["taskDefinitionArn"]
    )


def make_backstop(variables: dict[str, Any], playbook: Any) -> dict[str, Any]:
    """modules/backstop: the schedule group, its role (trusting Scheduler, allowed to
    delete the run's tables and stop its tasks only) and a deleteTable schedule per
    table, at expires_at + backstop_delay_minutes."""
    from datetime import datetime, timedelta

    run_id, region = variables["run_id"], variables["region"]
    prefix = f"hotbench-{run_id}"
    tags = {TAG: run_id, "hotbench:owner": str(variables.get("owner", ""))}
    account = _client("sts", region_name=region).get_caller_identity()["Account"]
    expires = datetime.fromisoformat(variables["expires_at"].replace("Z", "+00:00"))
    at = expires + timedelta(minutes=float(variables.get("backstop_delay_minutes", 15)))
    scheduler = _client("scheduler", region_name=region)
    group = f"{prefix}-backstop"
    scheduler.create_schedule_group(
        Name=group, Tags=[{"Key": k, "Value": v} for k, v in tags.items()]
    )
    iam = _client("iam", region_name=region)
    trust = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": "scheduler.amazonaws.com"},
                "Action": "sts:AssumeRole",
                "Condition": {"StringEquals": {"aws:SourceAccount": account}},
            }
        ],
    }
    role = iam.create_role(
        RoleName=f"{prefix}-backstop",
        AssumeRolePolicyDocument=json.dumps(trust),
        Tags=[{"Key": k, "Value": v} for k, v in tags.items()],
    )["Role"]
    tables = {
        spec.name: f"{prefix}-{spec.name}"
        for spec in playbook.tables
        if not variables.get("variants") or spec.name in variables["variants"]
    } | {"results": f"{prefix}-results"}
    policy = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": "dynamodb:DeleteTable",
                "Resource": [
                    f"arn:aws:dynamodb:{region}:{account}:table/{t}" for t in tables.values()
                ],
            },
            {
                "Effect": "Allow",
                "Action": "ecs:StopTask",
                "Resource": f"arn:aws:ecs:{region}:{account}:task/{prefix}-fleet/*",
            },
        ],
    }
    iam.put_role_policy(
        RoleName=role["RoleName"],
        PolicyName="delete-run-at-deadline",
        PolicyDocument=json.dumps(policy),
    )
    for key, table in tables.items():
        scheduler.create_schedule(
            Name=f"delete-{key}",
            GroupName=group,
            ScheduleExpression=f"at({at:%Y-%m-%dT%H:%M:%S})",
            ScheduleExpressionTimezone="UTC",
            FlexibleTimeWindow={"Mode": "OFF"},
            Target={
                "Arn": "arn:aws:scheduler:::aws-sdk:dynamodb:deleteTable",
                "RoleArn": role["Arn"],
                "Input": json.dumps({"TableName": table}),
            },
        )
    print("module.backstop[0].aws_scheduler_schedule_group.this: Creating...", flush=True)
    return {
        "backstop_group": group,
        "backstop_role_arn": role["Arn"],
        "backstop_role_name": role["RoleName"],
        "backstop_at": f"{at:%Y-%m-%dT%H:%M:%SZ}",
    }


def reapply(variables: dict[str, Any], made: dict[str, Any]) -> dict[str, Any]:
    """A second apply of the same run: what changed is the image (a new task definition
    revision, the old one deregistered, as Terraform replaces it) and the image build; a
    Lambda fleet's stack has neither."""
    if made.get("lambda_function_name"):
        print("Apply complete! Resources: 0 added, 0 changed, 0 destroyed.", flush=True)
        return made
    if variables.get("image_build") and not made.get("image_build_project"):
        made.update(image_build(variables, made))
    image = variables.get("worker_image") or f"{made['ecr_repository_url']}:latest"
    if image != made.get("image"):
        print("module.fleet[0].aws_ecs_task_definition.this: Modifying...", flush=True)
        old = made["task_definition_arn"]
        made["task_definition_arn"] = register_task_definition(variables, made)
        _client("ecs", region_name=variables["region"]).deregister_task_definition(
            taskDefinition=old
        )
    print("Apply complete! Resources: 0 added, 1 changed, 0 destroyed.", flush=True)
    return made


def apply(variables: dict[str, Any]) -> dict[str, Any]:
    from loadgen.format.playbook import load_playbook
    from loadgen.live.resultstore import ResultStore

    run_id, region = variables["run_id"], variables["region"]
    prefix = f"hotbench-{run_id}"
    tags = {TAG: run_id, "hotbench:owner": str(variables.get("owner", ""))}
    ddb = _client("dynamodb", region_name=region)
    playbook = load_playbook(variables["spec_file"])
    # modules/backstop, first (the tables depend on it)
    backstop = make_backstop(variables, playbook) if variables.get("create_backstop", True) else {}
    tables: dict[str, Any] = {}
    for spec in playbook.tables:
        if variables.get("variants") and spec.name not in variables["variants"]:
            continue
        name = f"{prefix}-{spec.name}"
        print(f'module.table["{spec.name}"].aws_dynamodb_table.this: Creating...', flush=True)
        arn = ddb.create_table(**spec.create_table_request(name, tags={TAG: run_id}))[
            "TableDescription"
        ]["TableArn"]
        tables[spec.name] = {"name": name, "arn": arn, "gsis": [g.name for g in spec.gsis]}
    results = f"{prefix}-results"
    ResultStore(ddb, results, run_id).create_table()
    results_arn = ddb.describe_table(TableName=results)["Table"]["TableArn"]
    base = {
        "run_id": run_id,
        "region": region,
        "tables": tables,
        "results_table": {"name": results, "arn": results_arn},
        "task_count": variables.get("task_count", 1),
        "dashboard_url": None,
    }
    if variables.get("fleet", "lambda") == "lambda":
        made = lambda_fleet(variables, results)
        print("Apply complete! Resources: 9 added, 0 changed, 0 destroyed.", flush=True)
        return backstop | base | made
    ecs = _client("ecs", region_name=region)
    ecs_tags = [{"key": k, "value": v} for k, v in tags.items()]
    cluster = ecs.create_cluster(clusterName=f"{prefix}-fleet", tags=ecs_tags)["cluster"]
    iam = _client("iam", region_name=region)
    role = iam.create_role(
        RoleName=f"{prefix}-task",
        AssumeRolePolicyDocument="{}",
        Tags=[{"Key": k, "Value": v} for k, v in tags.items()],
    )["Role"]
    logs = _client("logs", region_name=region)
    logs.create_log_group(logGroupName=f"/hotbench/{run_id}", tags=tags)
    ecr = _client("ecr", region_name=region)
    repo = ecr.create_repository(
        repositoryName=f"{prefix}-worker", tags=[{"Key": k, "Value": v} for k, v in tags.items()]
    )["repository"]
    made: dict[str, Any] = {
        "ecr_repository_url": repo["repositoryUri"],
        "task_role_arn": role["Arn"],
        "results_table": {"name": results, "arn": results_arn},
    }
    task_definition_arn = register_task_definition(variables, made)
    ec2 = _client("ec2", region_name=region)
    subnets = variables.get("subnet_ids") or [
        s["SubnetId"]
        for s in ec2.describe_subnets(Filters=[{"Name": "default-for-az", "Values": ["true"]}])[
            "Subnets"
        ]
    ]
    vpc = ec2.describe_subnets(SubnetIds=subnets[:1])["Subnets"][0]["VpcId"]
    group = ec2.create_security_group(
        GroupName=f"{prefix}-workers",
        Description="hotbench workers",
        VpcId=vpc,
        TagSpecifications=[
            {
                "ResourceType": "security-group",
                "Tags": [{"Key": k, "Value": v} for k, v in tags.items()],
            }
        ],
    )["GroupId"]
    built = image_build(variables, made) if variables.get("image_build") else {}
    print("Apply complete! Resources: 12 added, 0 changed, 0 destroyed.", flush=True)
    return (
        built
        | backstop
        | {
            "run_id": run_id,
            "region": region,
            "tables": tables,
            "results_table": {"name": results, "arn": results_arn},
            "cluster_arn": cluster["clusterArn"],
            "task_definition_arn": task_definition_arn,
            "container_name": "worker",
            "image": made["image"],
            "task_role_arn": role["Arn"],
            "ecr_repository_url": repo["repositoryUri"],
            "subnets": subnets[:2],
            "security_group_id": group,
            "security_group_ids": variables.get("security_group_ids") or [group],
            "assign_public_ip": bool(variables.get("assign_public_ip", True)),
            "log_group_name": f"/hotbench/{run_id}",
            "task_count": variables.get("task_count", 1),
            "dashboard_url": None,
            "role_name": role["RoleName"],
            "repository_name": repo["repositoryName"],
        }
    )


def lambda_fleet(variables: dict[str, Any], results_table: str) -> dict[str, Any]:
    """modules/lambda-fleet: the function's log group and role (tagged), then the function
    with the package `hotbench up` built, its memory, timeout and environment."""
    run_id, region = variables["run_id"], variables["region"]
    prefix = f"hotbench-{run_id}"
    tags = {TAG: run_id, "hotbench:owner": str(variables.get("owner", ""))}
    log_group = f"/aws/lambda/{prefix}-worker"
    _client("logs", region_name=region).create_log_group(logGroupName=log_group, tags=tags)
    iam = _client("iam", region_name=region)
    trust = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": "lambda.amazonaws.com"},
                "Action": "sts:AssumeRole",
            }
        ],
    }
    role = iam.create_role(
        RoleName=f"{prefix}-function",
        AssumeRolePolicyDocument=json.dumps(trust),
        Tags=[{"Key": k, "Value": v} for k, v in tags.items()],
    )["Role"]
    iam.put_role_policy(
        RoleName=role["RoleName"],
        PolicyName="dynamodb-data-plane-and-logs",
        PolicyDocument=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [{"Effect": "Allow", "Action": "dynamodb:PutItem", "Resource": "*"}],
            }
        ),
    )
    package = Path(variables["lambda_package"])
    function = _client("lambda", region_name=region).create_function(
        FunctionName=f"{prefix}-worker",
        Runtime="python3.12",
        Role=role["Arn"],
        Handler="loadgen.live.lambda_handler.handler",
        Code={"ZipFile": package.read_bytes()},
        MemorySize=int(variables.get("lambda_memory", 1792)),
        Timeout=int(variables.get("lambda_timeout", 900)),
        Architectures=["arm64" if variables.get("cpu_architecture") == "ARM64" else "x86_64"],
        Environment={
            "Variables": {"HOTBENCH_RUN_ID": run_id, "HOTBENCH_RESULTS_TABLE": results_table}
        },
        Tags=tags,
    )
    print("module.lambda_fleet[0].aws_lambda_function.worker: Creating...", flush=True)
    return {
        "lambda_function_name": function["FunctionName"],
        "lambda_function_arn": function["FunctionArn"],
        "lambda_role_name": role["RoleName"],
        "lambda_log_group": log_group,
        "log_group_name": log_group,
    }


def _quietly(call: Any, *args: Any, **kwargs: Any) -> None:
    """Terraform treats a resource already gone as destroyed."""
    try:
        call(*args, **kwargs)
    except Exception as exc:
        if not any(w in _code(exc) for w in ("NotFound", "NoSuchEntity", "InvalidGroup")):
            raise


def destroy(made: dict[str, Any]) -> None:
    region = made["region"]
    ddb = _client("dynamodb", region_name=region)
    for table in [*(t["name"] for t in made["tables"].values()), made["results_table"]["name"]]:
        _quietly(ddb.delete_table, TableName=table)
    if made.get("lambda_function_name"):
        _quietly(
            _client("lambda", region_name=region).delete_function,
            FunctionName=made["lambda_function_name"],
        )
        iam = _client("iam", region_name=region)
        _quietly(
            iam.delete_role_policy,
            RoleName=made["lambda_role_name"],
            PolicyName="dynamodb-data-plane-and-logs",
        )
        _quietly(iam.delete_role, RoleName=made["lambda_role_name"])
        _quietly(
            _client("logs", region_name=region).delete_log_group,
            logGroupName=made["lambda_log_group"],
        )
        _destroy_backstop(made)
        print("Destroy complete! Resources: 9 destroyed.", flush=True)
        return
    ecs = _client("ecs", region_name=region)
    _quietly(ecs.deregister_task_definition, taskDefinition=made["task_definition_arn"])
    _quietly(ecs.delete_cluster, cluster=made["cluster_arn"])
    _quietly(_client("iam", region_name=region).delete_role, RoleName=made["role_name"])
    if made.get("image_build_project"):
        _quietly(
            _client("codebuild", region_name=region).delete_project,
            name=made["image_build_project"],
        )
        s3 = _client("s3", region_name=region)
        bucket = made["image_source_bucket"]
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            for item in page.get("Contents", []):  # force_destroy
                s3.delete_object(Bucket=bucket, Key=item["Key"])
        _quietly(s3.delete_bucket, Bucket=bucket)
        _quietly(_client("iam", region_name=region).delete_role, RoleName=made["build_role_name"])
    _quietly(
        _client("logs", region_name=region).delete_log_group,
        logGroupName=made["log_group_name"],
    )
    _quietly(
        _client("ecr", region_name=region).delete_repository,
        repositoryName=made["repository_name"],
        force=True,
    )
    ec2 = _client("ec2", region_name=region)
    # the provider lists the group's network interfaces (lingering task ENIs) first
    ec2.describe_network_interfaces(
        Filters=[{"Name": "group-id", "Values": [made["security_group_id"]]}]
    )
    _quietly(ec2.delete_security_group, GroupId=made["security_group_id"])
    _destroy_backstop(made)
    print("Destroy complete! Resources: 12 destroyed.", flush=True)


def _destroy_backstop(made: dict[str, Any]) -> None:
    """Last: it depends on nothing, the tables on it."""
    region = made["region"]
    if made.get("backstop_group"):
        _quietly(
            _client("scheduler", region_name=region).delete_schedule_group,
            Name=made["backstop_group"],
        )
        iam = _client("iam", region_name=region)
        _quietly(
            iam.delete_role_policy,
            RoleName=made["backstop_role_name"],
            PolicyName="delete-run-at-deadline",
        )
        _quietly(iam.delete_role, RoleName=made["backstop_role_name"])


PROVIDER = "registry.terraform.io/hashicorp/aws/6.41.0/linux_amd64"
LOCK = """# This file is maintained automatically by "terraform init".
provider "registry.terraform.io/hashicorp/aws" {
  version     = "6.41.0"
  constraints = ">= 6.41.0, < 7.0.0"
  hashes      = ["h1:fake"]
}
"""


def init() -> dict[str, Any]:
    """`terraform init`: with the lock file here and the provider in the plugin cache,
    nothing is downloaded and `.terraform` links to the cache; otherwise the provider is
    "downloaded" into the cache (or, without one, into `.terraform`: a copy per run) and
    the lock file written."""
    cache = os.environ.get("TF_PLUGIN_CACHE_DIR")
    installed = Path(".terraform/providers") / PROVIDER
    cached = Path(cache) / PROVIDER if cache else None
    downloaded = not (Path(".terraform.lock.hcl").is_file() and cached and cached.is_dir())
    if downloaded:
        target = cached or installed
        target.mkdir(parents=True, exist_ok=True)
        (target / "terraform-provider-aws_v6.41.0_x5").write_bytes(b"\0" * 4096)
        Path(".terraform.lock.hcl").write_text(LOCK)
    if cached is not None:
        installed.parent.mkdir(parents=True, exist_ok=True)
        if not installed.exists():
            installed.symlink_to(cached)
    print("Terraform has been successfully initialized!")
    return {"downloaded": downloaded, "lock_file_before": not downloaded}


def spec_file_readable(argv: list[str]) -> bool:
    """Terraform evaluates `file(var.spec_file)` at every plan, apply and destroy."""
    var_file = next((a.split("=", 1)[1] for a in argv if a.startswith("-var-file=")), None)
    source = Path(var_file) if var_file else Path(VARS)
    if not source.is_file():
        return True
    spec = json.loads(source.read_text()).get("spec_file")
    if spec and not Path(spec).is_file():
        print(
            "Error: Invalid function argument\n\n  on main.tf line 7, in locals:\n"
            f"   7:   spec      = yamldecode(file(local.spec_file))\n\nInvalid value for "
            f'"path" parameter: no file exists at "{spec}"',
            file=sys.stderr,
        )
        return False
    return True


def log(command: str, **extra: Any) -> None:
    """One line per command: what it ran as (apply and destroy ask STS), where."""
    path = os.environ.get("FAKE_STACK_LOG")
    if not path:
        return
    entry = {
        "command": command,
        "cwd": os.getcwd(),
        "region": os.environ.get("AWS_REGION"),
        "profile": os.environ.get("AWS_PROFILE"),
        "plugin_cache": os.environ.get("TF_PLUGIN_CACHE_DIR"),
        **extra,
    }
    if command in ("apply", "destroy"):
        entry["caller"] = _client("sts").get_caller_identity()["Arn"]
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")


def failing_destroy() -> bool:
    """FAKE_STACK_FAIL_DESTROYS=N: the first N destroys fail, as a throttled or refused
    delete does (the provider's error), leaving everything in place."""
    allowed = int(os.environ.get("FAKE_STACK_FAIL_DESTROYS", "0"))
    counter = Path("fake-stack.destroy-failures")
    done = int(counter.read_text()) if counter.exists() else 0
    if done >= allowed:
        return False
    counter.write_text(str(done + 1))
    print(
        "Error: deleting DynamoDB Table: operation error DynamoDB: DeleteTable, "
        "exceeded maximum number of attempts, 25, https response error StatusCode: 400, "
        "api error ThrottlingException: Rate exceeded",
        file=sys.stderr,
    )
    return True


def main() -> int:
    argv = sys.argv[1:]
    command = argv[0] if argv else ""
    if command == "init":
        log("init", **init())
        return 0
    if command in ("plan", "apply", "destroy") and not spec_file_readable(argv):
        return 1
    if command == "plan":
        var_file = next((a.split("=", 1)[1] for a in argv if a.startswith("-var-file=")), None)
        if var_file:
            Path(VARS).write_text(Path(var_file).read_text())
        out = next((a.split("=", 1)[1] for a in argv if a.startswith("-out=")), None)
        if out:
            Path(out).write_text("fake plan file")
        print("Plan: 12 to add, 0 to change, 0 to destroy.")
        return 0
    if command == "show":
        print(PLAN.read_text())
        return 0
    if command == "apply":
        log("apply")
        variables = json.loads(Path(VARS).read_text())
        if Path(STATE).exists():
            made = reapply(variables, json.loads(Path(STATE).read_text()))
        else:
            made = apply(variables)
        Path(STATE).write_text(json.dumps(made))
        return 0
    if command == "output":
        made = json.loads(Path(STATE).read_text())
        print(json.dumps({"hotbench": {"value": made, "type": "object", "sensitive": False}}))
        return 0
    if command == "destroy":
        log("destroy")
        if Path(STATE).exists() and failing_destroy():
            return 1
        if Path(STATE).exists():
            destroy(json.loads(Path(STATE).read_text()))
            Path(STATE).unlink()
        else:
            print("No changes. No objects need to be destroyed.")
        return 0
    print(f"fake stack: unsupported command {command!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
