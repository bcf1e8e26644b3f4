"""The Lambda fleet's own parts: its sizing, its preflight against the account's
concurrency (botocore's Stubber, on GetAccountSettings' real shape), and its package,
built without Docker from pinned wheels for the runtime's platform."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from console.run.errors import ConfigError, InfraError
from console.run.models import PlannedFleet, PlanReport
from console.run.options import UpOptions
from console.targets.fleets import lambda_package
from console.targets.fleets.lambda_fleet import (
    MAX_WINDOW_S,
    LambdaFleetKind,
    check_account,
    sized,
)
from loadgen.format.playbook import load_playbook, parse_playbook

ROOT = Path(__file__).resolve().parents[2]
M1 = ROOT / "playbooks" / "hot-partition.yaml"
KEYS = {"region_name": "us-east-1", "aws_access_key_id": "a", "aws_secret_access_key": "b"}


def report_with(workers: int, in_flight: int, memory_mb: int = 1792) -> PlanReport:
    plan = PlanReport.model_construct(
        fleet=PlannedFleet(
            workers=workers, vcpu=1.0, memory_gb=memory_mb / 1024, in_flight=in_flight
        )
    )
    return plan


def settings_answer(unreserved: int, total: int = 1000) -> dict[str, Any]:
    return {
        "AccountLimit": {
            "ConcurrentExecutions": total,
            "UnreservedConcurrentExecutions": unreserved,
            "CodeSizeZipped": 52428800,
            "CodeSizeUnzipped": 262144000,
            "TotalCodeSize": 80530636800,
        },
        "AccountUsage": {"FunctionCount": 0, "TotalCodeSize": 0},
    }


def checked(answer: dict[str, Any] | None, report: PlanReport) -> list[Any]:
    client = boto3.client("lambda", **KEYS)
    with Stubber(client) as stub:
        if answer is None:
            stub.add_client_error(
                "get_account_settings", "AccessDeniedException", http_status_code=403
            )
        else:
            stub.add_response("get_account_settings", answer, {})
        return check_account(client, report)


def test_a_new_accounts_concurrency_is_a_quota_to_raise() -> None:
    """New accounts start far below the default 1,000 concurrent executions: a run that
    keeps more invocations in flight than are unreserved is refused before anything
    exists, naming the quota and the fix."""
    (finding,) = checked(settings_answer(unreserved=3, total=10), report_with(4, 4))
    assert finding.kind == "quota" and finding.blocks
    assert "4 Lambda invocations in flight" in finding.message
    assert "3 unreserved" in finding.message and "(of 10;" in finding.message
    assert "Concurrent executions" in finding.message
    assert checked(settings_answer(unreserved=990), report_with(4, 4)) == []


def test_a_split_run_needs_twice_the_workers_while_windows_hand_over() -> None:
    (finding,) = checked(settings_answer(unreserved=6), report_with(4, 8))
    assert "8 Lambda invocations in flight (twice the workers" in finding.message


def test_what_could_not_be_checked_is_said_not_guessed() -> None:
    (finding,) = checked(None, report_with(4, 4))
    assert finding.kind == "not-checked" and not finding.blocks
    assert "AccessDeniedException" in finding.message
    (memory,) = checked(settings_answer(unreserved=990), report_with(4, 4, memory_mb=4096))
    assert memory.kind == "not-checked" and "reduced memory quota" in memory.message


def test_workers_and_memory_are_sized_to_the_rate() -> None:
    """M1's 4,000 writes/s: one worker offers at most 1,000/s, so four at least; each
    gets 1,769 MB (one vCPU) for its 1,000/s, rounded up to 64 MB."""
    m1 = load_playbook(M1)
    assert sized(UpOptions(workers=2), m1) == (4, 1792)
    assert sized(UpOptions(workers=10), m1) == (10, 1024)  # 400/s each: the floor
    assert sized(UpOptions(workers=2, lambda_memory_mb=2048), m1) == (4, 2048)
    with pytest.raises(ConfigError, match="takes 128 to 10,240 MB"):
        LambdaFleetKind().check_options(UpOptions(lambda_memory_mb=20000), m1)


def test_a_phase_of_users_longer_than_a_window_is_refused_with_the_way_out() -> None:
    long_users = parse_playbook(
        {
            "name": "long",
            "tables": [
                {"name": "t", "partition_key": {"name": "pk"}, "billing_mode": "PAY_PER_REQUEST"}
            ],
            "load": {
                "attributes": {"pk": {"dist": "uniform", "count": 10}},
                "phases": [
                    {
                        "name": "users",
                        "users": 4,
                        "duration_s": MAX_WINDOW_S + 60,
                        "mix": [{"op": "put", "weight": 1}],
                    }
                ],
            },
        },
        "long",
    )
    with pytest.raises(ConfigError, match="--fleet ecs"):
        LambdaFleetKind().check_options(UpOptions(), long_users)


# -- the package ---------------------------------------------------------------------------


def fake_pip(tmp_path: Path, exit_code: int = 0) -> list[str]:
    """A `pip` that records its argv and "installs" one module into --target."""
    log = tmp_path / "pip-argv.txt"
    script = tmp_path / "pip.py"
    script.write_text(
        "import sys, pathlib\n"
        f"pathlib.Path({str(log)!r}).write_text(' '.join(sys.argv[1:]))\n"
        f"if {exit_code}:\n"
        "    print('ERROR: No matching distribution found for numpy==2.4.6', file=sys.stderr)\n"
        f"    sys.exit({exit_code})\n"
        "target = pathlib.Path(sys.argv[sys.argv.index('--target') + 1])\n"
        "(target / 'numpy').mkdir(parents=True)\n"
        "(target / 'numpy' / '__init__.py').write_text('# the wheel')\n"
        "(target / 'numpy' / '_core.cpython-312-x86_64-linux-gnu.so').write_bytes(b'ELF')\n"
    )
    return [sys.executable, str(script)]


def test_the_package_is_the_code_and_the_pinned_wheels_for_the_runtime(tmp_path: Path) -> None:
    """pip fetches manylinux wheels for Python 3.12 only (no build here, no Docker); the
    zip holds them and loadgen/ and emulator/ as Python sources, deterministically, with
    modes Lambda can read."""
    pip = fake_pip(tmp_path)
    said: list[str] = []
    first = lambda_package.build_package(
        tmp_path / "a" / "worker.zip", "X86_64", tmp_path / "cache", said.append, pip
    )
    argv = (tmp_path / "pip-argv.txt").read_text()
    for flag in (
        "--only-binary=:all:",
        "--python-version 3.12",
        "--implementation cp",
        "--platform manylinux2014_x86_64",
        "--no-deps",
        "-r " + str(ROOT / "loadgen" / "requirements-worker.txt"),
    ):
        assert flag in argv, argv
    with zipfile.ZipFile(first.path) as archive:
        names = archive.namelist()
        modes = {stat.S_IMODE(i.external_attr >> 16) for i in archive.infolist()}
    assert "loadgen/live/lambda_handler.py" in names and "emulator/eventloop.py" in names
    assert "numpy/_core.cpython-312-x86_64-linux-gnu.so" in names  # the wheel's, not ours
    assert not any(n.endswith(".pyc") or n.startswith("console/") for n in names)
    assert names == sorted(names) and modes <= {0o644, 0o755}
    # the second build downloads nothing and makes the same bytes
    (tmp_path / "pip-argv.txt").unlink()
    again = lambda_package.build_package(
        tmp_path / "b" / "worker.zip", "X86_64", tmp_path / "cache", said.append, pip
    )
    assert not (tmp_path / "pip-argv.txt").exists()
    assert again.sha256 == first.sha256 and again.base64_sha256 == first.base64_sha256


def test_a_failed_download_says_why_and_the_way_out(tmp_path: Path) -> None:
    with pytest.raises(InfraError, match=r"No matching distribution.*--fleet ecs"):
        lambda_package.build_package(
            tmp_path / "worker.zip", "ARM64", tmp_path / "cache", print, fake_pip(tmp_path, 1)
        )


def test_a_package_over_lambdas_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lambda_package, "ZIPPED_LIMIT", 1000)
    with pytest.raises(ConfigError, match=r"over Lambda.s 50 MB / 250 MB.*--fleet ecs"):
        lambda_package.build_package(
            tmp_path / "worker.zip", "X86_64", tmp_path / "cache", print, fake_pip(tmp_path)
        )


def test_the_handler_imports_nothing_of_the_repository_but_the_package(tmp_path: Path) -> None:
    """The zip's first-party code is loadgen/ and emulator/: the handler, unpacked alone
    (with this venv's third-party packages standing for the wheels), imports no console/
    and no tests/ module."""
    site = tmp_path / "site"
    site.mkdir()
    package = lambda_package.write_zip(tmp_path / "worker.zip", lambda_package.package_files(site))
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(package.path) as archive:
        archive.extractall(unpacked)
    code = (
        "import sys, loadgen.live.lambda_handler as h; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'console', 'tests'}))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=unpacked,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_sweep_finds_a_left_function_its_role_and_log_group(aws: None) -> None:
    """A Lambda fleet `terraform destroy` missed: the function the Tagging API lists is
    confirmed by GetFunction and named with the command that deletes it (its versions go
    with it); one the API still lists after its deletion is not a leftover; the role and
    log group are found as every fleet's are."""
    import io
    import json

    from console.targets.sweep import RESOURCE_TYPES, sweep

    run_id = "hb-swept"
    tags = {"hotbench:run-id": run_id}
    iam = boto3.client("iam")
    role = iam.create_role(
        RoleName=f"hotbench-{run_id}-function",
        AssumeRolePolicyDocument=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Principal": {"Service": "lambda.amazonaws.com"},
                        "Action": "sts:AssumeRole",
                    }
                ],
            }
        ),
        Tags=[{"Key": k, "Value": v} for k, v in tags.items()],
    )["Role"]
    package = io.BytesIO()
    with zipfile.ZipFile(package, "w") as zf:
        zf.writestr("handler.py", "def handler(event, context):\n    return {}\n")
    function = boto3.client("lambda").create_function(
        FunctionName=f"hotbench-{run_id}-worker",
        Runtime="python3.12",
        Role=role["Arn"],
        Handler="handler.handler",
        Code={"ZipFile": package.getvalue()},
        Publish=True,  # a version, which goes with the function
        Tags=tags,
    )
    group = f"/aws/lambda/hotbench-{run_id}-worker"
    boto3.client("logs").create_log_group(logGroupName=group, tags=tags)
    arn = "arn:aws:{}:us-east-1:123456789012:{}"
    listed = [
        function["FunctionArn"].removesuffix(f":{function['Version']}"),
        arn.format("lambda", f"function:hotbench-{run_id}-gone"),  # deleted a minute ago
        arn.format("logs", f"log-group:{group}"),
    ]
    tagging = boto3.client("resourcegroupstaggingapi")
    stub = Stubber(tagging)
    stub.add_response(
        "get_resources",
        {
            "ResourceTagMappingList": [
                {"ResourceARN": a, "Tags": [{"Key": "hotbench:run-id", "Value": run_id}]}
                for a in listed
            ]
        },
        {
            "TagFilters": [{"Key": "hotbench:run-id", "Values": [run_id]}],
            "ResourceTypeFilters": RESOURCE_TYPES,
            "ResourcesPerPage": 100,
        },
    )

    def client(name: str) -> Any:
        return tagging if name == "resourcegroupstaggingapi" else boto3.client(name)

    with stub:
        leftovers = sweep(client, "hotbench:run-id", run_id, "us-east-1")
    found = {x.kind: x for x in leftovers}
    assert sorted(found) == ["iam:role", "lambda:function", "logs:log-group"], leftovers
    assert found["lambda:function"].delete_command == (
        f"aws lambda delete-function --function-name hotbench-{run_id}-worker --region us-east-1"
    )
    assert not any("gone" in x.id for x in leftovers)
    assert found["iam:role"].id.endswith(f"role/hotbench-{run_id}-function")
