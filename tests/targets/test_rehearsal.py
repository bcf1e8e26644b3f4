"""The AWS rehearsal's cases (fixtures in conftest.py, faults in faults.py): what a first
run on a real account meets, end to end through the AWS target."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import boto3
import pytest

from console.run.state import Status, Step
from console.workflow import (
    Hooks,
    InfraError,
    RunOptions,
    UpOptions,
    down,
    run,
    tally,
    up,
    watch,
)
from tests.targets.conftest import Rehearsal

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
    """Tasks take 2.5 minutes (virtual) from RunTask to RUNNING: the barrier waits for
    them, the run completes, each task's lifecycle and billed span are recorded, and
    `down` leaves nothing."""
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
