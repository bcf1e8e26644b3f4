"""The AWS rehearsal's cases (fixtures in conftest.py, faults in faults.py): what a first
run on a real account meets, end to end through the AWS target."""

from __future__ import annotations

import json
import os
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import boto3
import pytest

from console.run import processes
from console.run.errors import CredentialsError
from console.run.state import Status, Step
from console.targets.preflight import operator_policy
from console.workflow import (
    Hooks,
    InfraError,
    RunOptions,
    UpOptions,
    WarmTarget,
    down,
    prewarm,
    run,
    tally,
    up,
    watch,
)
from tests.targets.conftest import TINY, Rehearsal

RUN_ID = "hb-rehearsal"


def hooks(said: list[str]) -> Hooks:
    return Hooks(say=said.append, confirm=lambda _q: True)


def leftovers_in_moto(run_id: str) -> list[str]:
    """What of the run moto still holds, by its own listings (not the kit's sweep)."""
    left = []
    ecs = boto3.client("ecs")
    ours = [a for a in ecs.list_clusters()["clusterArns"] if run_id in a]
    if ours:  # a deleted cluster stays listed a while, INACTIVE
        left += [
            c["clusterArn"]
            for c in ecs.describe_clusters(clusters=ours)["clusters"]
            if c["status"] != "INACTIVE"
        ]
    left += [
        r["RoleName"] for r in boto3.client("iam").list_roles()["Roles"] if run_id in r["RoleName"]
    ]
    groups = boto3.client("ec2").describe_security_groups()["SecurityGroups"]
    left += [g["GroupId"] for g in groups if run_id in g.get("GroupName", "")]
    left += [
        r["repositoryName"]
        for r in boto3.client("ecr").describe_repositories()["repositories"]
        if run_id in r["repositoryName"]
    ]
    left += [t for t in boto3.client("dynamodb").list_tables()["TableNames"] if run_id in t]
    return left


@pytest.mark.e2e  # up, run and down on the rehearsal: ~20 s
def test_a_fleet_that_starts_late_still_runs(rehearsal: Rehearsal) -> None:
    """Tasks take 2.5 minutes (virtual) from RunTask to RUNNING, and DescribeTasks answers
    MISSING for them right after RunTask (eventual consistency: once read as "every
    worker stopped before the start barrier: no reason given"): the barrier waits for
    them, the run completes, each task's lifecycle and billed span are recorded, and
    `down` leaves nothing."""
    rehearsal.fargate.missing_first = 1
    said: list[str] = []
    state = up(
        str(rehearsal.playbook), rehearsal.settings, hooks(said), UpOptions(workers=2), RUN_ID
    )
    assert state.terraform is not None and state.terraform.applied_at is not None
    # the given image (HOTBENCH_WORKER_IMAGE, by digest) is what the task definition runs
    assert state.image is not None and state.image.builder == "given"
    assert state.terraform.outputs is not None
    task_definition = boto3.client("ecs").describe_task_definition(
        taskDefinition=state.terraform.outputs["task_definition_arn"]
    )["taskDefinition"]
    assert task_definition["containerDefinitions"][0]["image"] == rehearsal.settings.worker_image
    seen: list[dict[str, int]] = []
    stop = threading.Event()

    def watching() -> None:  # what `hotbench watch` shows while the barrier waits
        for frame in watch(RUN_ID, rehearsal.settings, interval_s=0.5, stop=stop):
            if frame.workers is not None and frame.workers.tasks:
                seen.append(dict(frame.workers.tasks))

    watcher = threading.Thread(target=watching)
    watcher.start()
    try:
        result = run(RUN_ID, rehearsal.settings, hooks(said), RunOptions())
    finally:
        stop.set()
        watcher.join(60)
    # (what the watch showed while waiting is in `seen`; its timing is the watcher's,
    # not asserted here)
    assert [r.table for r in result.runs] == ["hot"]
    (only,) = result.runs
    assert only.offered == 120 and not only.partial, only.notes
    assert only.totals().succeeded == 120
    after = rehearsal.store.load(RUN_ID)
    assert len(after.tasks) == 2
    for task in after.tasks:
        assert task.pull_started_at is not None and task.stopped_at is not None
        assert task.last_status == "STOPPED"
    # started minutes after RunTask, on the fault layer's clock: more than the old 60 s
    assert rehearsal.fargate.describes * rehearsal.fargate.step_s >= 150
    cost = tally(RUN_ID, rehearsal.settings)
    assert cost.total_usd > 0 and not cost.hypothetical
    report = down(RUN_ID, rehearsal.settings, hooks(said))
    assert report.nothing_left, report.leftovers
    assert leftovers_in_moto(RUN_ID) == []


@pytest.mark.e2e  # up, run and down on the rehearsal: ~20 s
def test_a_fleet_that_never_starts_fails_at_once_with_the_reason(rehearsal: Rehearsal) -> None:
    """Every task stops with CannotPullContainerError (the image was never pushed): the
    run fails as soon as all have stopped, long before the 300 s barrier, with the
    reason in the message (exit 7) and in the state; `down` leaves nothing."""
    rehearsal.fargate.pull_error = (
        "pull image manifest has been retried 5 time(s): failed to resolve ref "
        "123456789012.dkr.ecr.us-east-1.amazonaws.com/hotbench-hb-rehearsal-worker:latest: "
        "not found"
    )
    said: list[str] = []
    up(str(rehearsal.playbook), rehearsal.settings, hooks(said), UpOptions(workers=2), RUN_ID)
    started = time.monotonic()
    with pytest.raises(InfraError) as failed:
        run(RUN_ID, rehearsal.settings, hooks(said), RunOptions())
    assert time.monotonic() - started < 250  # the barrier did not wait out its 300 s
    assert failed.value.code == 7
    message = str(failed.value)
    assert "every worker stopped before the start barrier" in message
    assert "CannotPullContainerError" in message
    state = rehearsal.store.load(RUN_ID)
    assert state.record(Step.RUN).status == Status.FAILED
    assert all("CannotPullContainerError" in (t.stopped_reason or "") for t in state.tasks)
    report = down(RUN_ID, rehearsal.settings, hooks(said))
    assert report.nothing_left, report.leftovers
    assert leftovers_in_moto(RUN_ID) == []


@pytest.mark.e2e  # up, a killed run and down on the rehearsal: ~20 s
def test_down_two_hours_after_a_killed_run(rehearsal: Rehearsal) -> None:
    """A command killed while its tasks ran recorded no stop; two hours later ECS has
    forgotten them (MISSING, StopTask InvalidParameterException): `down` still destroys
    the stack, leaves nothing, and the tally bills each task to when it was last seen."""
    said: list[str] = []
    up(str(rehearsal.playbook), rehearsal.settings, hooks(said), UpOptions(workers=2), RUN_ID)
    run(RUN_ID, rehearsal.settings, hooks(said), RunOptions())
    state = rehearsal.store.load(RUN_ID)
    for task in state.tasks:  # as a SIGKILL before the tasks were described leaves it
        task.stopped_at = None
        task.last_seen_at = task.pull_started_at
    rehearsal.store.save(state)
    rehearsal.fargate.advance(2 * 3600)
    report = down(RUN_ID, rehearsal.settings, hooks(said))
    assert "terraform stack" in report.removed
    assert report.nothing_left, report.leftovers
    assert leftovers_in_moto(RUN_ID) == []
    after = rehearsal.store.load(RUN_ID)
    assert all(t.stopped_at is not None for t in after.tasks)
    assert not after.billable_up
    # what the tally bills each task to: when it was last seen, not two hours later
    for task in after.tasks:
        assert task.stopped_at is not None and task.pull_started_at is not None
        assert (task.stopped_at - task.pull_started_at).total_seconds() < 1800


@pytest.mark.e2e  # up and down on the rehearsal (test_aws has the sweep's own case): ~13 s
def test_the_sweep_after_a_destroy_trusts_describe_over_the_tagging_api(
    rehearsal: Rehearsal,
) -> None:
    """After a successful destroy the Tagging API still lists the deleted table, cluster
    and security group, and the cluster is gone: the sweep confirms each by its own
    Describe and says nothing is left."""
    said: list[str] = []
    state = up(
        str(rehearsal.playbook), rehearsal.settings, hooks(said), UpOptions(workers=1), RUN_ID
    )
    assert state.terraform is not None and state.terraform.outputs is not None
    outputs = state.terraform.outputs
    tag = {"hotbench:run-id": RUN_ID}
    rehearsal.fargate.ghosts += [
        (outputs["tables"]["hot"]["arn"], tag),
        (outputs["cluster_arn"], tag),
        (
            f"arn:aws:ec2:us-east-1:123456789012:security-group/{outputs['security_group_id']}",
            tag,
        ),
        (f"{outputs['cluster_arn'].replace(':cluster/', ':task/')}/0123456789abcdef", tag),
    ]
    report = down(RUN_ID, rehearsal.settings, hooks(said))
    assert report.nothing_left, report.leftovers
    assert leftovers_in_moto(RUN_ID) == []
    # the sweep again, a while later: the ghosts are still listed, still confirmed gone
    from console.targets import target_for

    state = rehearsal.store.load(RUN_ID)
    assert target_for(state, rehearsal.settings).sweep(state) == []


def test_the_reaper_fires_at_the_deadline(rehearsal: Rehearsal) -> None:
    """The detached reaper runs `down` at the run's deadline by itself: the stack is
    destroyed and nothing is left, with no command of ours running."""
    said: list[str] = []
    up(str(rehearsal.playbook), rehearsal.settings, hooks(said), UpOptions(workers=1), RUN_ID)
    state = rehearsal.store.load(RUN_ID)
    assert state.reaper_pid is not None
    state.deadline = state.created_at + timedelta(seconds=1)  # already passed
    rehearsal.store.save(state)
    give_up = time.monotonic() + 180  # the reaper re-reads the state when it changes
    while time.monotonic() < give_up:
        state = rehearsal.store.load(RUN_ID)
        if state.record(Step.DOWN).status in (Status.DONE, Status.FAILED):
            break
        time.sleep(0.5)
    assert state.record(Step.DOWN).status == Status.DONE, state.record(Step.DOWN)
    assert not state.billable_up
    assert leftovers_in_moto(RUN_ID) == []


# -- issue 39: what a first run meets, each "why" a case -------------------------------------


def profile_file(rehearsal: Rehearsal, tmp_path: Path, name: str) -> None:
    """A shared credentials file with profile `name` holding the operator's keys, while
    the environment holds another identity's keys (the administrator's): a run started
    with `--profile name` must act as the operator everywhere."""
    creds = tmp_path / "credentials"
    creds.write_text(
        f"[{name}]\naws_access_key_id = {rehearsal.operator_keys['aws_access_key_id']}\n"
        f"aws_secret_access_key = {rehearsal.operator_keys['aws_secret_access_key']}\n"
    )
    os.environ["AWS_SHARED_CREDENTIALS_FILE"] = str(creds)
    os.environ["AWS_ACCESS_KEY_ID"] = rehearsal.admin_keys["aws_access_key_id"]
    os.environ["AWS_SECRET_ACCESS_KEY"] = rehearsal.admin_keys["aws_secret_access_key"]


def run_tables_left(rehearsal: Rehearsal, run_id: str) -> list[str]:
    client = boto3.client("dynamodb", endpoint_url=rehearsal.dynamodb_endpoint)
    return [t for t in client.list_tables()["TableNames"] if run_id in t]


@pytest.mark.e2e  # two runs up and down on the rehearsal: ~25 s
def test_a_profile_run_is_self_contained_and_shares_its_providers(
    rehearsal: Rehearsal, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Why: --profile reached boto3 only (Terraform took the environment's keys); the
    stack read the original playbook, so a moved one broke `down`; every run downloaded
    the provider and kept a copy. Now Terraform runs as the profile, in the run's region,
    from the run's own copy of the playbook, with one plugin cache and lock file."""
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", os.environ["AWS_SHARED_CREDENTIALS_FILE"])
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", os.environ["AWS_ACCESS_KEY_ID"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", os.environ["AWS_SECRET_ACCESS_KEY"])
    profile_file(rehearsal, tmp_path, "bench")
    settings = rehearsal.settings.model_copy(update={"aws_profile": "bench"})
    said: list[str] = []
    for run_id in ("hb-first", "hb-second"):
        playbook = tmp_path / f"{run_id}.yaml"
        playbook.write_text(TINY)
        up(str(playbook), settings, hooks(said), UpOptions(workers=1), run_id)
        playbook.unlink()  # moved, deleted: the run has its own copy
        report = down(run_id, rehearsal.settings, hooks(said))  # no --profile: the run's
        assert report.nothing_left, (report.leftovers, report.notes)
        assert run_tables_left(rehearsal, run_id) == []
        workdir = rehearsal.store.run_dir(run_id) / "terraform"
        assert not (workdir / ".terraform").exists()  # no provider copy left behind
    calls = rehearsal.stack_calls()
    cache = str(settings.plugin_cache / "plugins")
    assert {c["plugin_cache"] for c in calls} == {cache}
    assert {c["region"] for c in calls} == {"us-east-1"}
    assert {c["caller"] for c in calls if "caller" in c} == {rehearsal.operator_arn}
    inits = [c for c in calls if c["command"] == "init"]
    assert [c["downloaded"] for c in inits] == [True, False]  # the second from the cache
    assert (settings.plugin_cache / ".terraform.lock.hcl").is_file()


@pytest.mark.e2e  # up, a failed down, the reaper's retries: ~25 s
def test_the_reaper_tries_again_until_nothing_is_left(
    rehearsal: Rehearsal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Why: the reaper tried `down` once. A destroy that fails (throttled) leaves the
    run listed with what is left (the sweep counts the repository's images: the operator
    policy now has ecr:ListImages), and the reaper tries again, with backoff, until
    nothing is left."""
    monkeypatch.setenv("FAKE_STACK_FAIL_DESTROYS", "2")
    said: list[str] = []
    up(str(rehearsal.playbook), rehearsal.settings, hooks(said), UpOptions(workers=1), RUN_ID)
    repository = f"arn:aws:ecr:us-east-1:123456789012:repository/hotbench-{RUN_ID}-worker"
    # the Tagging API lists the repository (moto's does not list ECR repositories)
    rehearsal.fargate.ghosts.append((repository, {"hotbench:run-id": RUN_ID}))
    first = down(RUN_ID, rehearsal.settings, hooks(said))
    kinds = {x.kind for x in first.leftovers}
    assert {"ecr:repository", "ec2:security-group", "scheduler:schedule-group"} <= kinds, (
        first.leftovers,
        first.notes,
    )
    state = rehearsal.store.load(RUN_ID)
    assert state.billable_up
    state.deadline = state.created_at + timedelta(seconds=1)  # passed: the reaper acts
    rehearsal.store.save(state)
    give_up = time.monotonic() + 180
    while time.monotonic() < give_up:
        state = rehearsal.store.load(RUN_ID)
        if not state.billable_up:
            break
        time.sleep(0.5)
    assert not state.billable_up, state.leftovers
    destroys = [c for c in rehearsal.stack_calls() if c["command"] == "destroy"]
    assert len(destroys) == 3  # by hand, then the reaper twice
    assert leftovers_in_moto(RUN_ID) == []
    log = (rehearsal.store.run_dir(RUN_ID) / "reaper.log").read_text()
    assert "trying again" in log and "nothing left" in log


@pytest.mark.e2e  # up, run, the backstop, down: ~25 s
def test_the_backstop_removes_the_run_when_the_laptop_is_gone(rehearsal: Rehearsal) -> None:
    """Why: only the laptop could clean up. The stack's backstop (EventBridge Scheduler,
    created first) deletes the run's tables at its time, and each task has a StopTask
    schedule, acting as a role allowed exactly that; `down` then removes the rest and
    the backstop last."""
    said: list[str] = []
    state = up(
        str(rehearsal.playbook), rehearsal.settings, hooks(said), UpOptions(workers=1), RUN_ID
    )
    assert state.reaper_pid is not None
    processes.stop(state.reaper_pid, RUN_ID)  # the laptop is gone
    run(RUN_ID, rehearsal.settings, hooks(said), RunOptions())
    state = rehearsal.store.load(RUN_ID)
    assert [t.backstop for t in state.tasks] == ["scheduled"]
    outputs = state.terraform.outputs if state.terraform else None
    assert outputs is not None and outputs["backstop_at"]
    at = datetime.fromisoformat(outputs["backstop_at"].replace("Z", "+00:00"))
    assert state.deadline is not None and at > state.deadline  # after the reaper's turn
    rehearsal.backstop.fire(at - timedelta(seconds=1), rehearsal.admin)
    assert rehearsal.backstop.invoked == []  # not before its time
    assert run_tables_left(rehearsal, RUN_ID)
    rehearsal.backstop.fire(at, rehearsal.admin)  # DynamoDB's calls reach the emulator
    assert rehearsal.backstop.failed == []
    assert run_tables_left(rehearsal, RUN_ID) == []
    assert sorted(a for a, _ in rehearsal.backstop.invoked) == [
        "dynamodb:DeleteTable",
        "dynamodb:DeleteTable",
        "ecs:StopTask",
    ]
    report = down(RUN_ID, rehearsal.settings, hooks(said))
    assert report.nothing_left, report.leftovers
    assert leftovers_in_moto(RUN_ID) == []
    assert (
        rehearsal.admin("scheduler").list_schedule_groups(NamePrefix="hotbench-")["ScheduleGroups"]
        == []
    )


@pytest.mark.e2e  # two ups, one refused before anything, one shortened, and down: ~15 s
def test_credentials_that_expire_before_the_deadline(
    rehearsal: Rehearsal, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Why: the reaper used credentials that expired before the deadline. Temporary
    credentials with an expiry move the deadline before it, said in one line; too soon
    for a run, `up` is refused (exit 2) with nothing created."""
    # temporary credentials of a role that holds the operator policy, from STS
    iam = rehearsal.admin("iam")
    trust = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}],
    }
    role = iam.create_role(RoleName="operator", AssumeRolePolicyDocument=json.dumps(trust))
    iam.put_role_policy(
        RoleName="operator", PolicyName="operator", PolicyDocument=json.dumps(operator_policy())
    )
    temporary = rehearsal.admin("sts").assume_role(
        RoleArn=role["Role"]["Arn"], RoleSessionName="dev"
    )["Credentials"]
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", temporary["AccessKeyId"])
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", temporary["SecretAccessKey"])
    monkeypatch.setenv("AWS_SESSION_TOKEN", temporary["SessionToken"])
    soon = datetime.now(UTC) + timedelta(minutes=10)
    monkeypatch.setenv("AWS_CREDENTIAL_EXPIRATION", soon.strftime("%Y-%m-%dT%H:%M:%SZ"))
    said: list[str] = []
    with pytest.raises(CredentialsError) as refused:
        up(
            str(rehearsal.playbook),
            rehearsal.settings,
            hooks(said),
            UpOptions(workers=1),
            "hb-soon",
        )
    assert refused.value.code == 2 and "nothing was created" in str(refused.value)
    assert "expire at" in str(refused.value)
    assert run_tables_left(rehearsal, "hb-soon") == []
    later = datetime.now(UTC) + timedelta(hours=2)
    monkeypatch.setenv("AWS_CREDENTIAL_EXPIRATION", later.strftime("%Y-%m-%dT%H:%M:%SZ"))
    state = up(
        str(rehearsal.playbook), rehearsal.settings, hooks(said), UpOptions(workers=1), RUN_ID
    )
    (line,) = [s for s in said if s.startswith("credentials:")]
    assert "the deadline is now" in line
    assert state.deadline is not None
    assert state.deadline <= later.replace(microsecond=0) - timedelta(minutes=15)
    report = down(RUN_ID, rehearsal.settings, hooks(said))
    assert report.nothing_left, report.leftovers


@pytest.mark.e2e  # up, prewarm of a table and its GSI, down: ~15 s
def test_prewarm_waits_for_active_between_updates(rehearsal: Rehearsal, tmp_path: Path) -> None:
    """Why: prewarm sent UpdateTable for a table and then its GSI back to back, and
    DynamoDB refuses an update while the table is UPDATING. Now each waits for ACTIVE,
    and says so."""
    playbook = tmp_path / "warm.yaml"
    playbook.write_text(WARM)
    said: list[str] = []
    up(str(playbook), rehearsal.settings, hooks(said), UpOptions(workers=1), RUN_ID)
    done = threading.Event()

    def skip_when_updating() -> None:  # the minutes DynamoDB takes, on the emulator's clock
        client = boto3.client("dynamodb", endpoint_url=rehearsal.dynamodb_endpoint)
        while not done.wait(0.2):
            for name in client.list_tables()["TableNames"]:
                table = client.describe_table(TableName=name)["Table"]
                states = [(table.get("WarmThroughput") or {}).get("Status")] + [
                    (g.get("WarmThroughput") or {}).get("Status")
                    for g in table.get("GlobalSecondaryIndexes", [])
                ]
                if "UPDATING" in states:
                    time.sleep(1.5)  # prewarm sees it UPDATING first
                    rehearsal.emulator.skip(61)

    helper = threading.Thread(target=skip_when_updating)
    helper.start()
    try:  # above what the kit created the tables with (the playbook's values)
        prewarm(
            RUN_ID,
            rehearsal.settings,
            hooks(said),
            targets=[
                WarmTarget("od", None, read=25_000, write=9_000),
                WarmTarget("od", "byShelf", read=18_000, write=7_000),
            ],
            timeout_s=120,
        )
    finally:
        done.set()
        helper.join()
    assert any("waiting for ACTIVE before the next UpdateTable" in s for s in said), said
    state = rehearsal.store.load(RUN_ID)
    assert state.tables["od"].warm_write == 9_000
    assert state.tables["od"].gsis[0].warm_write == 7_000
    report = down(RUN_ID, rehearsal.settings, hooks(said))
    assert report.nothing_left, report.leftovers


WARM = """\
name: warm
tables:
  - name: od
    partition_key: {name: pk}
    billing_mode: PAY_PER_REQUEST
    warm_throughput: {read: 20000, write: 8000}
    gsis:
      - {name: byShelf, partition_key: {name: shelf}, warm_throughput: {read: 15000, write: 6000}}
load:
  attributes:
    pk: {dist: uniform, count: 10}
    shelf: {dist: uniform, count: 10}
  phases: [{rate: 1, duration_s: 1}]
"""
