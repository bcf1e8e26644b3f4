"""The Fargate fleet: workers as ECS tasks, started with RunTask and stopped with StopTask.

The tasks run the worker image (loadgen/Dockerfile), the same `python -m
loadgen.live.worker` as a local process; everything of the run comes from the results
table, so a task's overrides stay small.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

RUN_TASK_BATCH = 10
"""RunTask starts at most 10 tasks per call [AWS reference.md#fargate-and-ecs]."""
DESCRIBE_BATCH = 100
"""DescribeTasks takes at most 100 tasks per call [AWS reference.md#fargate-and-ecs]."""
MISSING_GRACE_S = 60.0
"""A task DescribeTasks answers MISSING for within this long of its RunTask is starting,
not gone: "The Amazon ECS API follows an eventual consistency model ... the result of an
API command you run that affects your Amazon ECS resources might not be immediately
visible to all subsequent commands" (RunTask,
https://docs.aws.amazon.com/AmazonECS/latest/APIReference/API_RunTask.html), which advises
DescribeTasks with backoff after RunTask."""


def stop_reasons(task: dict[str, Any]) -> str:
    """Why a task stopped, as DescribeTasks says: `stoppedReason`, then each container's
    `reason` (e.g. CannotPullContainerError: ...) or exit code
    (https://docs.aws.amazon.com/AmazonECS/latest/developerguide/stopped-task-errors.html)."""
    parts = [str(task.get("stoppedReason") or "").strip()]
    for c in task.get("containers", []):
        why = str(c.get("reason") or "").strip()
        code = c.get("exitCode")
        if why or code not in (None, 0):
            parts.append(f"{c.get('name', 'container')}: {why or f'exit code {code}'}")
    return "; ".join(p for p in parts if p) or "no reason given"


@dataclass
class EcsNetwork:
    """awsvpcConfiguration from the Terraform outputs."""

    subnets: list[str]
    security_groups: list[str]
    assign_public_ip: bool = False

    def to_api(self) -> dict[str, Any]:
        return {
            "awsvpcConfiguration": {
                "subnets": list(self.subnets),
                "securityGroups": list(self.security_groups),
                "assignPublicIp": "ENABLED" if self.assign_public_ip else "DISABLED",
            }
        }


@dataclass
class EcsFleet:
    """Workers as Fargate tasks: RunTask in batches of 10, tagged with the run id.

    One RunTask call starts up to 10 tasks with the same overrides, so a batch's tasks are
    told a range of worker indices (HOTBENCH_WORKER_BASE/COUNT) and each claims the first
    free one in the results table; a task started twice finds its range claimed and
    refuses (loadgen.live.barrier.claim_worker).
    """

    client: Any
    """boto3 ECS client."""
    cluster: str
    task_definition: str
    container: str
    network: EcsNetwork
    launch_type: str = "FARGATE"
    tags: dict[str, str] = field(default_factory=dict)
    task_arns: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    start_attempts: int = 3
    """RunTask calls per batch: the first and up to two retries of what did not start."""
    retry_delay_s: float = 2.0
    """Wait before a retry, times the attempt number (capacity errors clear in seconds)."""
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    """When a task was started, for MISSING_GRACE_S."""
    statuses: dict[str, str] = field(default_factory=dict)
    """Each task's lastStatus when last described (the task lifecycle)."""
    started_at: dict[str, float] = field(default_factory=dict)
    _stopped: dict[str, str] = field(default_factory=dict)

    def start(self, run_id: str, workers: int, env: dict[str, str]) -> None:
        tags = [{"key": k, "value": v} for k, v in {**self.tags, "hotbench:run": run_id}.items()]
        for base in range(0, workers, RUN_TASK_BATCH):
            count = min(RUN_TASK_BATCH, workers - base)
            task_env = {
                **env,
                "HOTBENCH_WORKER_BASE": str(base),
                "HOTBENCH_WORKER_COUNT": str(count),
            }
            self._start_batch(run_id, base, count, task_env, tags)

    def _start_batch(
        self,
        run_id: str,
        base: int,
        count: int,
        task_env: dict[str, str],
        tags: list[dict[str, str]],
    ) -> None:
        """RunTask for one batch, retrying only the tasks that did not start: a retry
        asks for the missing count with the same worker range, and the new tasks claim
        the indices left free (relaunching the whole batch would start duplicates,
        which refuse, and leave the lost indices unfilled)."""
        missing = count
        for attempt in range(self.start_attempts):
            if attempt:
                self.sleep(self.retry_delay_s * attempt)
            out = self.client.run_task(
                cluster=self.cluster,
                taskDefinition=self.task_definition,
                count=missing,
                launchType=self.launch_type,
                networkConfiguration=self.network.to_api(),
                tags=tags,
                propagateTags="TASK_DEFINITION",
                startedBy=f"hotbench-{run_id}"[:128],
                overrides={
                    "containerOverrides": [
                        {
                            "name": self.container,
                            "environment": [
                                {"name": k, "value": v} for k, v in sorted(task_env.items())
                            ],
                        }
                    ]
                },
            )
            started = [t["taskArn"] for t in out.get("tasks", [])]
            self.task_arns += started
            self.started_at.update({arn: self.clock() for arn in started})
            missing -= len(started)
            if missing <= 0:
                return
            reasons = "; ".join(
                f"{f.get('reason')} {f.get('detail', '')}".strip() for f in out.get("failures", [])
            )
            last = attempt == self.start_attempts - 1
            self.failures.append(
                f"RunTask batch at worker {base}: {missing} of {count} task(s) did not "
                f"start ({reasons or 'no reason given'})" + ("" if last else "; retrying those")
            )

    def _describe(self) -> list[dict[str, Any]]:
        return self._describe_all()[0]

    def _describe_all(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """(tasks, failures) of DescribeTasks over every task started."""
        tasks: list[dict[str, Any]] = []
        failures: list[dict[str, Any]] = []
        for i in range(0, len(self.task_arns), DESCRIBE_BATCH):
            out = self.client.describe_tasks(
                cluster=self.cluster, tasks=self.task_arns[i : i + DESCRIBE_BATCH]
            )
            tasks += out.get("tasks", [])
            failures += out.get("failures", [])
        return tasks, failures

    def running(self) -> int:
        """Tasks starting or running; one DescribeTasks answers MISSING for within
        MISSING_GRACE_S of its RunTask counts as starting (eventual consistency)."""
        tasks, failures = self._describe_all()
        alive = 0
        for failure in failures:
            arn = str(failure.get("arn", ""))
            if failure.get("reason") == "MISSING" and arn in self.started_at:
                if self.clock() - self.started_at[arn] < MISSING_GRACE_S:
                    self.statuses[arn] = "MISSING (just started)"
                    alive += 1
                else:
                    self.statuses[arn] = "MISSING"
                    self._stopped[arn] = "ECS does not know the task (DescribeTasks: MISSING)"
        for task in tasks:
            self.statuses[task["taskArn"]] = str(task.get("lastStatus", ""))
            if task.get("lastStatus") == "STOPPED":
                codes = [c.get("exitCode") for c in task.get("containers", [])]
                if any(code != 0 for code in codes) or not codes:
                    self._stopped[task["taskArn"]] = f"{stop_reasons(task)} (exit codes {codes})"
            else:
                alive += 1
        return alive

    def released(self, t0: float, admitted: list[int]) -> None:
        return None  # a task measures the whole run: nothing starts later

    def stop(self, reason: str) -> None:
        for task in self._describe():
            if task.get("lastStatus") != "STOPPED":
                self.client.stop_task(
                    cluster=self.cluster, task=task["taskArn"], reason=reason[:255]
                )

    def leftovers(self) -> list[tuple[str, str]]:
        # Every task started: after a failed StopTask, DescribeTasks may fail as well.
        return [
            (f"task {arn}", f"aws ecs stop-task --cluster {self.cluster} --task {arn}")
            for arn in self.task_arns
        ]

    def notes(self) -> list[str]:
        return list(self.failures) + [
            f"task {arn.rsplit('/', 1)[-1]} stopped: {why}"
            for arn, why in self._stopped.items()
            if why
        ]
