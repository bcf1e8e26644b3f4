"""A thin fault layer over moto: AWS's documented behaviours that moto lacks.

Each patch names its source. They are applied per test (monkeypatch), in this process,
so they also hold for a moto server started in a thread of this process.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

DYNAMODB_DEFAULT_QUOTAS = {
    "AccountMaxReadCapacityUnits": 80000,
    "AccountMaxWriteCapacityUnits": 80000,
    "TableMaxReadCapacityUnits": 40000,
    "TableMaxWriteCapacityUnits": 40000,
}
"""DynamoDB's default throughput quotas per Region: 40,000 read and write units per table
(its GSIs included) and 80,000 per account
(https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html);
moto's DescribeLimits answers 10,000 / 20,000, below what the M1 playbook provisions."""


def aws_quotas(monkeypatch: pytest.MonkeyPatch, quotas: dict[str, int] | None = None) -> None:
    """DescribeLimits answers AWS's default quotas (or `quotas`)."""
    from moto.core.responses import ActionResult
    from moto.dynamodb.responses import DynamoHandler

    answer = dict(quotas or DYNAMODB_DEFAULT_QUOTAS)

    def describe_limits(self: Any) -> Any:
        return ActionResult(dict(answer))

    monkeypatch.setattr(DynamoHandler, "describe_limits", describe_limits)


@dataclass
class TaskLife:
    """One task as the fault layer drives it, on the virtual clock."""

    arn: str
    created: float
    env: dict[str, str]
    proc: subprocess.Popen[bytes] | None = None
    stopped: float | None = None
    described: int = 0


@dataclass
class Fargate:
    """ECS tasks that behave as Fargate's do, where moto starts them RUNNING at once and
    never forgets them. Virtual time advances `step_s` at each DescribeTasks call (the
    callers poll; nothing here reads the wall clock), so "minutes to RUNNING" is a count
    of polls, the same on a fast or a loaded machine.

    - PROVISIONING (ENI attach) for `provision_s`, PENDING (image pull, Fargate keeps no
      image cache) for `pull_s`, then RUNNING: task lifecycle,
      https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-lifecycle-explanation.html
    - `pull_error`: the task stops at the end of its pull with stoppedReason and the
      container's reason CannotPullContainerError,
      https://docs.aws.amazon.com/AmazonECS/latest/developerguide/stopped-task-error-codes.html
    - a RUNNING task runs the real worker (`python -m loadgen.live.worker`) with the task
      definition's and the overrides' environment, against the rehearsal's DynamoDB; it
      STOPS when the process exits, with its exit code;
    - `forget_after_s` after it stopped, ECS forgets a task: DescribeTasks answers a
      MISSING failure and StopTask InvalidParameterException (ECS staff in
      https://github.com/aws/amazon-ecs-cli/issues/332);
    - `missing_first`: DescribeTasks answers MISSING for a task this many times right
      after its RunTask ("The Amazon ECS API follows an eventual consistency model",
      https://docs.aws.amazon.com/AmazonECS/latest/APIReference/API_RunTask.html);
    - tagging results that list deleted resources: `ghosts` are added to every
      GetResources answer ("tagged or previously tagged",
      https://docs.aws.amazon.com/resourcegroupstagging/latest/APIReference/API_GetResources.html).
    """

    worker_env: dict[str, str]
    provision_s: float = 45.0
    pull_s: float = 105.0
    step_s: float = 30.0
    pull_error: str | None = None
    forget_after_s: float = 3600.0
    missing_first: int = 0
    now: float = field(default_factory=time.time)
    tasks: dict[str, TaskLife] = field(default_factory=dict)
    ghosts: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    describes: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def advance(self, seconds: float) -> None:
        with self.lock:
            self.now += seconds

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from moto.ecs.exceptions import InvalidParameterException
        from moto.ecs.models import EC2ContainerServiceBackend
        from moto.ecs.responses import EC2ContainerServiceResponse
        from moto.resourcegroupstaggingapi.responses import ResourceGroupsTaggingAPIResponse

        fargate = self
        run_task = EC2ContainerServiceBackend.run_task
        stop_task = EC2ContainerServiceBackend.stop_task
        get_resources = ResourceGroupsTaggingAPIResponse.get_resources

        def patched_run_task(backend: Any, *args: Any, **kwargs: Any) -> Any:
            tasks = run_task(backend, *args, **kwargs)
            with fargate.lock:
                for task in tasks:
                    env = {
                        e["name"]: e["value"]
                        for c in backend.describe_task_definition(
                            task.task_definition_arn
                        ).container_definitions
                        for e in c.get("environment") or []
                    }
                    for override in (task.overrides or {}).get("containerOverrides", []):
                        env.update({e["name"]: e["value"] for e in override.get("environment", [])})
                    fargate.tasks[task.task_arn] = TaskLife(task.task_arn, fargate.now, env)
                    task.status = "PROVISIONING"
                    task.created_at = _dt(fargate.now)
            return tasks

        def patched_stop_task(backend: Any, cluster: str, task_str: str, reason: str) -> Any:
            life = fargate.tasks.get(task_str)
            if life is not None and fargate.forgotten(life):
                raise InvalidParameterException("The referenced task was not found.")
            task = stop_task(backend, cluster, task_str, reason)
            if life is not None:
                with fargate.lock:
                    fargate.stop(life, task, reason)
            return task

        def patched_describe_tasks(response: Any) -> Any:
            from moto.core.responses import ActionResult

            cluster = response._get_param("cluster", "default")
            wanted = response._get_param("tasks", [])
            with fargate.lock:
                fargate.now += fargate.step_s
                fargate.describes += 1
                found = response.ecs_backend.describe_tasks(cluster, wanted)
                tasks, failures = [], []
                for task in found:
                    life = fargate.tasks.get(task.task_arn)
                    if life is not None:
                        life.described += 1
                        if life.described <= fargate.missing_first:
                            failures.append({"arn": task.task_arn, "reason": "MISSING"})
                            continue
                        fargate.live(life, task)
                        if fargate.forgotten(life):
                            failures.append({"arn": task.task_arn, "reason": "MISSING"})
                            continue
                    tasks.append(task)
                seen = {t.task_arn for t in found}
                failures += [{"arn": a, "reason": "MISSING"} for a in wanted if a not in seen]
            return ActionResult({"tasks": tasks, "failures": failures})

        def patched_get_resources(response: Any) -> Any:
            result = get_resources(response)
            listed = result.result["ResourceTagMappingList"]
            wanted = {
                (f["Key"], v)
                for f in response._get_param("TagFilters", [])
                for v in f.get("Values", [])
            }
            for arn, tags in fargate.ghosts:
                if any((k, v) in wanted for k, v in tags.items()):
                    listed.append(
                        {
                            "ResourceARN": arn,
                            "Tags": [{"Key": k, "Value": v} for k, v in tags.items()],
                        }
                    )
            return result

        monkeypatch.setattr(EC2ContainerServiceBackend, "run_task", patched_run_task)
        monkeypatch.setattr(EC2ContainerServiceBackend, "stop_task", patched_stop_task)
        monkeypatch.setattr(EC2ContainerServiceResponse, "describe_tasks", patched_describe_tasks)
        monkeypatch.setattr(
            ResourceGroupsTaggingAPIResponse, "get_resources", patched_get_resources
        )

    # -- the lifecycle -------------------------------------------------------------------

    def forgotten(self, life: TaskLife) -> bool:
        return life.stopped is not None and self.now - life.stopped > self.forget_after_s

    def live(self, life: TaskLife, task: Any) -> None:
        """Bring `task` to where it is at `self.now`."""
        if life.stopped is not None or task.status == "STOPPED":
            if life.stopped is None:
                self.stop(life, task, task.stopped_reason)
            return
        age = self.now - life.created
        if age < self.provision_s:
            task.status = "PROVISIONING"
            return
        task.pull_started_at = _dt(life.created + self.provision_s)
        if age < self.provision_s + self.pull_s:
            task.status = "PENDING"
            return
        if self.pull_error is not None:
            task.stopped_reason = "CannotPullContainerError: " + self.pull_error
            task.containers[0].reason = "CannotPullContainerError: " + self.pull_error
            task.containers[0].exitCode = None
            self.stop(
                life, task, task.stopped_reason, life.created + self.provision_s + self.pull_s
            )
            return
        task.pull_stopped_at = _dt(life.created + self.provision_s + self.pull_s)
        if life.proc is None:
            task.started_at = _dt(self.now)
            life.proc = subprocess.Popen(
                [sys.executable, "-m", "loadgen.live.worker"],
                env={**os.environ, **self.worker_env, **life.env},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                stdin=subprocess.DEVNULL,
            )
        code = life.proc.poll()
        if code is None:
            task.status = "RUNNING"
            return
        task.containers[0].exitCode = code
        self.stop(life, task, "Essential container in task exited")

    def stop(self, life: TaskLife, task: Any, reason: str, at: float | None = None) -> None:
        if life.proc is not None and life.proc.poll() is None:
            life.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                life.proc.wait(10)
        life.stopped = at if at is not None else self.now
        task.status = "STOPPED"
        task.desired_status = "STOPPED"
        task.stopped_reason = task.stopped_reason or reason
        task.stopped_at = _dt(life.stopped)

    def close(self) -> None:
        """Kill what the fault layer started (test teardown)."""
        for life in self.tasks.values():
            if life.proc is not None and life.proc.poll() is None:
                life.proc.kill()
                life.proc.wait(10)


def _dt(t: float) -> datetime:
    return datetime.fromtimestamp(t, UTC)


BUILD_PHASES = (
    "SUBMITTED",
    "QUEUED",
    "PROVISIONING",
    "DOWNLOAD_SOURCE",
    "INSTALL",
    "PRE_BUILD",
    "BUILD",
    "POST_BUILD",
    "UPLOAD_ARTIFACTS",
    "FINALIZING",
    "COMPLETED",
)
"""A build's phases in order (https://docs.aws.amazon.com/codebuild/latest/userguide/view-build-details.html#view-build-details-phases)."""


@dataclass
class CodeBuild:
    """CodeBuild builds as the API documents them, where moto answers SUCCEEDED at the
    first BatchGetBuilds, ignores StartBuild's overrides and pushes nothing:

    - a build goes through BUILD_PHASES, one phase per BatchGetBuilds poll, IN_PROGRESS
      with `currentPhase` until it ends (Build object:
      https://docs.aws.amazon.com/codebuild/latest/APIReference/API_Build.html);
    - DOWNLOAD_SOURCE fails (CLIENT_ERROR, as CodeBuild reports a missing S3 source) when
      the archive StartBuild's sourceLocationOverride names is not in the bucket;
    - `fail_phase`: that phase ends FAILED with `fail_message` in its `contexts`
      (BuildPhase: https://docs.aws.amazon.com/codebuild/latest/APIReference/API_BuildPhase.html),
      the build FAILED, its `logs.deepLink` set;
    - a build that SUCCEEDED has pushed `$REPOSITORY_URI:$IMAGE_TAG` (the buildspec of
      terraform/modules/image-build): the image is put into moto's ECR.
    """

    fail_phase: str | None = None
    fail_message: str = "COMMAND_EXECUTION_ERROR: Error while executing command: docker build"
    builds: dict[str, dict[str, Any]] = field(default_factory=dict)
    started: list[dict[str, Any]] = field(default_factory=list)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from moto.codebuild.models import CodeBuildBackend
        from moto.codebuild.responses import CodeBuildResponse

        fault = self
        start_build = CodeBuildResponse.start_build

        def patched_start_build(response: Any) -> Any:
            result = start_build(response)
            build = result.result["build"]
            overrides = {
                e["name"]: e["value"]
                for e in response._get_param("environmentVariablesOverride", [])
            }
            project = response.codebuild_backend.codebuild_projects[
                response._get_param("projectName")
            ]
            env = {
                e["name"]: e["value"]
                for e in project.project_metadata["environment"].get("environmentVariables", [])
            }
            life = {
                "env": env | overrides,
                "source": response._get_param("sourceLocationOverride"),
                "polls": 0,
                "account": response.current_account,
                "region": response.region,
            }
            fault.builds[build["id"]] = life
            fault.started.append(life)
            build["buildStatus"] = "IN_PROGRESS"
            build["currentPhase"] = "SUBMITTED"
            return result

        def patched_batch_get_builds(backend: Any, ids: list[str]) -> list[dict[str, Any]]:
            out = []
            for metadata in backend.build_metadata_history.values():
                for build in metadata:
                    if build["id"] in ids:
                        fault.advance(build)
                        out.append(build)
            return out

        monkeypatch.setattr(CodeBuildResponse, "start_build", patched_start_build)
        monkeypatch.setattr(CodeBuildBackend, "batch_get_builds", patched_batch_get_builds)

    def advance(self, build: dict[str, Any]) -> None:
        life = self.builds.get(build["id"])
        if life is None or build["buildStatus"] != "IN_PROGRESS":
            return
        life["polls"] += 1
        phase = BUILD_PHASES[min(life["polls"], len(BUILD_PHASES) - 1)]
        build["currentPhase"] = phase
        build["phases"] = [
            {"phaseType": p, "phaseStatus": "SUCCEEDED"}
            for p in BUILD_PHASES[: BUILD_PHASES.index(phase)]
        ]
        failed = self.fail_phase
        message = self.fail_message
        if phase == "DOWNLOAD_SOURCE" and not self._source_exists(life):
            failed, message = phase, f"CLIENT_ERROR: no such key: {life['source']}"
        if phase == "BUILD" and from_docker_hub(self._base_image(life)):
            # the buildspec's docker build pulls the Dockerfile's base anonymously from
            # CodeBuild's shared addresses
            failed, message = phase, f"COMMAND_EXECUTION_ERROR: {DOCKER_HUB_LIMIT}"
        if failed == phase:
            build["phases"].append(
                {
                    "phaseType": phase,
                    "phaseStatus": "FAILED",
                    "contexts": [{"statusCode": message.split(":")[0], "message": message}],
                }
            )
            build["buildStatus"] = "FAILED"
            build["logs"] = {
                "deepLink": f"https://console.aws.amazon.com/cloudwatch/home#logEvent:build={build['id']}"
            }
            return
        if phase == "COMPLETED":
            build["buildStatus"] = "SUCCEEDED"
            self._push(life)

    def _base_image(self, life: dict[str, Any]) -> str:
        """The base image of the Dockerfile in the uploaded source archive, with the
        build argument the buildspec passes ($BASE_IMAGE, when the project sets it)."""
        import io
        import zipfile

        from moto.s3.models import s3_backends

        bucket, _, key = str(life["source"] or "").partition("/")
        found = s3_backends[life["account"]]["aws"].buckets[bucket].keys[key]
        with zipfile.ZipFile(io.BytesIO(found.value)) as archive:
            dockerfile = archive.read("loadgen/Dockerfile").decode()
        build_args = (
            {"BASE_IMAGE": life["env"]["BASE_IMAGE"]} if "BASE_IMAGE" in life["env"] else {}
        )
        return dockerfile_base(dockerfile, build_args)

    def _source_exists(self, life: dict[str, Any]) -> bool:
        from moto.s3.models import s3_backends

        bucket, _, key = str(life["source"] or "").partition("/")
        backend = s3_backends[life["account"]]["aws"]
        found = backend.buckets.get(bucket)
        return found is not None and key in found.keys

    def _push(self, life: dict[str, Any]) -> None:
        from moto.ecr.models import ecr_backends

        from tests.targets.fake_builder import image_manifest

        uri, tag = life["env"]["REPOSITORY_URI"], life["env"]["IMAGE_TAG"]
        ecr_backends[life["account"]][life["region"]].put_image(
            uri.split("/", 1)[1], image_manifest(f"{uri}:{tag}"), tag
        )


# -- IAM, as AWS enforces it -----------------------------------------------------------------

SIGNING_TO_IAM = {"tagging": "tag", "monitoring": "cloudwatch"}
"""moto names an action by the request's SigV4 signing name; IAM by the service prefix of
the Service Authorization Reference, which differs for two services the run calls: the
Resource Groups Tagging API signs as `tagging` and is `tag:` in IAM, CloudWatch signs as
`monitoring` and is `cloudwatch:`
(https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html)."""


ACTION_TO_IAM = {"s3:HeadBucket": "s3:ListBucket", "lambda:Invoke": "lambda:InvokeFunction"}
"""moto names S3's HeadBucket and Lambda's Invoke after the operation; IAM authorizes them
as s3:ListBucket ("you must have permissions to perform the s3:ListBucket action",
https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadBucket.html) and
lambda:InvokeFunction (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awslambda.html)."""


def enforce_iam(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every request to moto from here on is authenticated and authorized against the
    caller's IAM policies, as AWS does (moto's IAM enforcement,
    https://docs.getmoto.org/en/latest/docs/iam.html), with IAM's service prefixes."""
    from moto import settings
    from moto.core.authorization import ActionAuthenticatorMixin
    from moto.iam.access_control import IAMRequestBase

    init = IAMRequestBase.__init__

    def with_iam_prefix(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        service, _, action = self._action.partition(":")
        named = f"{SIGNING_TO_IAM.get(service, service)}:{action}"
        self._action = ACTION_TO_IAM.get(named, named)

    monkeypatch.setattr(IAMRequestBase, "__init__", with_iam_prefix)
    check_signature = IAMRequestBase.check_signature

    def signature(self: Any) -> None:
        # moto recomputes the signature of Scheduler's and Lambda's requests that carry a
        # name in the path (GET, DELETE; a clientToken or a qualifier in the query)
        # differently from botocore, and answers SignatureDoesNotMatch to correctly
        # signed ones: a moto limitation, so their signature is not checked (who calls,
        # and what they may do, still is)
        if self._service in ("scheduler", "lambda"):
            return
        check_signature(self)

    monkeypatch.setattr(IAMRequestBase, "check_signature", signature)
    monkeypatch.setattr(settings, "INITIAL_NO_AUTH_ACTION_COUNT", 0)
    monkeypatch.setattr(ActionAuthenticatorMixin, "request_count", 0)


def caller_may(response: Any, action: str, resource: str, context: dict[str, str]) -> bool:
    """Whether the caller of a moto request may call `action` on `resource` with the
    request context `context`, by moto's evaluation of the caller's policies."""
    from moto.iam.access_control import IAMPolicy, PermissionResult, create_access_key

    authorization = response.headers.get("Authorization", "")
    key_id = authorization.split("Credential=", 1)[1].split("/", 1)[0]
    key = create_access_key(response.current_account, "aws", key_id, response.headers)
    permitted = False
    for policy in key.collect_policies():
        result = IAMPolicy(policy).is_action_permitted(action, resource, None, context)
        if result == PermissionResult.DENIED:
            return False
        permitted = permitted or result == PermissionResult.PERMITTED
    return permitted


def service_linked_roles(monkeypatch: pytest.MonkeyPatch) -> None:
    """An account that never used ECS has no AWSServiceRoleForECS: the first CreateCluster
    creates it, as its caller, who must be allowed iam:CreateServiceLinkedRole for
    ecs.amazonaws.com, or the call fails with AccessDenied
    (https://docs.aws.amazon.com/AmazonECS/latest/developerguide/using-service-linked-roles.html)."""
    from moto.core.exceptions import JsonRESTError
    from moto.ecs.responses import EC2ContainerServiceResponse
    from moto.iam.models import iam_backends

    create_cluster = EC2ContainerServiceResponse.create_cluster
    service, role = "ecs.amazonaws.com", "AWSServiceRoleForECS"

    def patched(response: Any) -> Any:
        iam = iam_backends[response.current_account]["aws"]
        # moto names the role after the service (AWSServiceRoleForecs); IAM names are
        # case-insensitive
        if not any(r.name.lower() == role.lower() for r in iam.roles.values()):
            arn = f"arn:aws:iam::{response.current_account}:role/aws-service-role/{service}/{role}"
            if not caller_may(
                response, "iam:CreateServiceLinkedRole", arn, {"iam:AWSServiceName": service}
            ):
                raise JsonRESTError(
                    "AccessDeniedException",
                    f"Unable to assume the service linked role. Please verify that the ECS "
                    f"service linked role exists: the caller is not authorized to perform: "
                    f"iam:CreateServiceLinkedRole on resource: {arn}",
                )
            iam.create_service_linked_role(service, "ECS", "")
        return create_cluster(response)

    monkeypatch.setattr(EC2ContainerServiceResponse, "create_cluster", patched)


# -- DynamoDB: one change of a table at a time -------------------------------------------------


def updates_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The emulator (the rehearsal's DynamoDB) refuses an UpdateTable while a raise of
    the table's or an index's warm throughput is UPDATING, as DynamoDB does: "While it's
    UPDATING, you can't issue another UpdateTable request" (ResourceInUseException,
    https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTable.html)."""
    from emulator.server import control, service

    key = service.TARGET_PREFIX + "UpdateTable"
    update_table = service.HANDLERS[key]

    def patched(state: Any, req: dict[str, Any]) -> Any:
        described = control.describe_table(state, {"TableName": req.get("TableName")})["Table"]
        statuses = [(described.get("WarmThroughput") or {}).get("Status", "ACTIVE")] + [
            (g.get("WarmThroughput") or {}).get("Status", "ACTIVE")
            for g in described.get("GlobalSecondaryIndexes", [])
        ]
        if "UPDATING" in statuses:
            from emulator.server.protocol import in_use

            raise in_use(
                "Attempt to change a resource which is still in use: Table is being "
                f"updated: {req.get('TableName')}"
            )
        return update_table(state, req)

    monkeypatch.setitem(service.HANDLERS, key, patched)


# -- the backstop: EventBridge Scheduler acting at its time ------------------------------------


@dataclass
class Backstop:
    """EventBridge Scheduler invoking the run's one-time schedules (moto stores them and
    never acts): each `at(...)` schedule due at `now` calls its universal target,
    `arn:aws:scheduler:::aws-sdk:SERVICE:apiAction`, with its Input as the request
    (https://docs.aws.amazon.com/scheduler/latest/UserGuide/managing-targets-universal.html),
    as its role: the role must trust scheduler.amazonaws.com and its policy allow the
    action on the resource, or the invocation fails (recorded in `failed`)."""

    invoked: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def fire(self, now: datetime, client: Any) -> None:
        """Invoke every schedule due at `now`; `client(service)` makes an admin client
        (the role's permissions are checked here, from moto's IAM)."""
        from moto.iam.access_control import IAMPolicy, PermissionResult
        from moto.iam.models import iam_backends
        from moto.scheduler.models import scheduler_backends

        for account, regions in scheduler_backends.items():
            for region, backend in regions.items():
                for group in list(backend.schedule_groups.values()):
                    for schedule in list(group.schedules.values()):
                        expression = schedule.schedule_expression
                        if not expression.startswith("at("):
                            continue
                        at = datetime.fromisoformat(expression[3:-1]).replace(tzinfo=UTC)
                        if at > now or schedule.state != "ENABLED":
                            continue
                        schedule.state = "DISABLED"  # a one-time schedule acts once
                        target = schedule.target
                        *_, service, action = target["Arn"].split(":")
                        request = json.loads(target.get("Input") or "{}")
                        role_name = target["RoleArn"].rsplit("/", 1)[1]
                        iam = iam_backends[account]["aws"]
                        role = iam.get_role(role_name)
                        trusted = "scheduler.amazonaws.com" in role.assume_role_policy_document
                        iam_action = f"{service}:{action[0].upper()}{action[1:]}"
                        resource = _resource_of(service, request, region, account)
                        allowed = trusted and any(
                            IAMPolicy({"policy_document": doc}).is_action_permitted(
                                iam_action, resource
                            )
                            == PermissionResult.PERMITTED
                            for _, doc in (
                                iam.get_role_policy(role_name, p)
                                for p in iam.list_role_policies(role_name)
                            )
                        )
                        if not allowed:
                            self.failed.append(f"{iam_action} on {resource}: not allowed")
                            continue
                        api = client(service)
                        operation = api.meta.service_model.operation_model(
                            action[0].upper() + action[1:]
                        )
                        members = {m.lower(): m for m in operation.input_shape.members}
                        kwargs = {members[k.lower()]: v for k, v in request.items()}
                        try:
                            getattr(api, _snake(action))(**kwargs)
                            self.invoked.append((iam_action, kwargs))
                        except Exception as exc:
                            self.failed.append(f"{iam_action}: {exc}")


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


def _resource_of(service: str, request: dict[str, Any], region: str, account: str) -> str:
    if service == "dynamodb":
        return f"arn:aws:dynamodb:{region}:{account}:table/{request['TableName']}"
    if service == "ecs":
        return str(request["Task"])
    if service == "cloudwatch":
        return f"arn:aws:cloudwatch::{account}:dashboard/{request['DashboardNames'][0]}"
    return "*"


# -- a base image pulled anonymously from Docker Hub by CodeBuild -------------------------------


def dockerfile_base(dockerfile: str, build_args: dict[str, str] | None = None) -> str:
    """The image a Dockerfile's (only) FROM names, with its ARG defaults and `build_args`."""
    args: dict[str, str] = {}
    for raw in dockerfile.replace("\\\n", " ").splitlines():
        line = raw.strip()
        word, _, rest = line.partition(" ")
        if word.upper() == "ARG" and "=" in rest:
            name, _, default = rest.partition("=")
            args[name.strip()] = (build_args or {}).get(name.strip(), default.strip())
        if word.upper() == "FROM":
            return re.sub(r"\$\{?(\w+)\}?", lambda m: args.get(m.group(1), ""), rest.split()[0])
    return ""


def from_docker_hub(image: str) -> bool:
    """An image reference Docker resolves on Docker Hub: no registry host before the first
    `/` (a host has a `.` or `:`, or is localhost), or docker.io itself."""
    first = image.split("/", 1)[0]
    if "/" not in image or not ("." in first or ":" in first or first == "localhost"):
        return True
    return first in ("docker.io", "registry-1.docker.io", "index.docker.io")


DOCKER_HUB_LIMIT = (
    "toomanyrequests: You have reached your unauthenticated pull rate limit. "
    "https://www.docker.com/increase-rate-limit"
)
"""Docker Hub's answer to an anonymous pull past its per-address limit
(https://docs.docker.com/docker-hub/usage/); CodeBuild's addresses are shared by every
account building in the region, so anonymous pulls from them commonly get it."""


# -- Lambda: invocations that run the handler, as Lambda runs it ------------------------------


@dataclass
class LambdaFaults:
    """Lambda as the API documents it, where moto runs a function's code only in Docker
    (none here) and has no GetAccountSettings:

    - Invoke runs the real handler in a local execution environment of the stand-in
      (tests/fakes/fake_lambda.py: cold starts, throttling at the concurrency limit, the
      function's timeout, a runtime killed mid-phase, each with its source there), with
      the function's environment, Timeout and MemorySize as the stack created them, and
      answers as Invoke does: FunctionError, the log tail (LogType=Tail) with its REPORT
      line, HTTP 429 TooManyRequestsException with its Reason when throttled
      (https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html);
    - GetAccountSettings answers `account` (AccountLimit: ConcurrentExecutions,
      UnreservedConcurrentExecutions, CodeSizeZipped, CodeSizeUnzipped;
      https://docs.aws.amazon.com/lambda/latest/api/API_GetAccountSettings.html); a new
      account's concurrency can be far below the default 1,000
      (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html).
    """

    standin: Any
    """tests.fakes.fake_lambda.LambdaStandIn."""
    account: dict[str, int] = field(
        default_factory=lambda: {
            "ConcurrentExecutions": 1000,
            "UnreservedConcurrentExecutions": 1000,
            "CodeSizeZipped": 52428800,
            "CodeSizeUnzipped": 262144000,
            "TotalCodeSize": 80530636800,
        }
    )

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import base64

        from moto.awslambda import urls
        from moto.awslambda.models import LambdaFunction
        from moto.awslambda.responses import LambdaResponse
        from moto.core.exceptions import JsonRESTError

        from tests.fakes.fake_lambda import Throttled

        faults = self

        class TooManyRequests(JsonRESTError):
            code = 429

            def __init__(self, reason: str) -> None:
                super().__init__("TooManyRequestsException", "Rate Exceeded.")
                self.description = json.dumps(
                    {
                        "__type": "TooManyRequestsException",
                        "message": "Rate Exceeded.",
                        "Reason": reason,
                        "Type": "User",
                    }
                )

        def invoke(fn: Any, body: str, request_headers: Any, response_headers: Any) -> bytes:
            event = json.loads(body) if body else {}
            try:
                answer = faults.standin.invoke(
                    dict(fn.environment_vars or {}),
                    float(fn.timeout),
                    int(fn.memory_size),
                    event,
                )
            except Throttled as exc:
                raise TooManyRequests(exc.reason) from None
            if answer.function_error:
                response_headers["x-amz-function-error"] = answer.function_error
            if request_headers.get("x-amz-log-type") == "Tail":
                tail = answer.log_tail.encode()[-4096:]
                response_headers["x-amz-log-result"] = base64.b64encode(tail).decode()
            payload: bytes = answer.payload
            return payload

        def get_account_settings(response: Any) -> str:
            return json.dumps(
                {"AccountLimit": dict(faults.account), "AccountUsage": {"FunctionCount": 1}}
            )

        monkeypatch.setattr(LambdaFunction, "invoke", invoke)
        monkeypatch.setattr(
            LambdaResponse, "get_account_settings", get_account_settings, raising=False
        )
        monkeypatch.setitem(
            urls.url_paths,
            r"{0}/(?P<api_version>[^/]+)/account-settings/?$",
            LambdaResponse.dispatch,
        )
