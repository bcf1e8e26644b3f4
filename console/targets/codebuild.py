"""The worker image built inside the account: the source archive to the run's S3 bucket,
a build of the run's CodeBuild project (terraform/modules/image-build), polled until it
ends, and on failure the phase that failed, its reason and the build's log link.

For an operator without a container engine: nothing but credentials and the Terraform
kit are needed (docs/terraform.md#the-worker-image). The build's shape is CodeBuild's
Build object (https://docs.aws.amazon.com/codebuild/latest/APIReference/API_Build.html):
`buildStatus` SUCCEEDED | FAILED | FAULT | TIMED_OUT | IN_PROGRESS | STOPPED, `phases`
with `phaseType`, `phaseStatus` and `contexts[].message`, `logs.deepLink`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from console.targets.awserrors import aws_errors
from console.targets.image_builders import ImageBuildFailed
from console.targets.worker_source import SourceArchive

POLL_S: Final = 10.0
"""Between two BatchGetBuilds: a build takes minutes, and each call is free."""
MAX_POLLS: Final = 360
"""An hour of polls; the project's own timeout (30 min, modules/image-build) ends the
build first. Counted in polls, not read off a clock, so a test's build ends by count."""
DONE: Final = {"SUCCEEDED", "FAILED", "FAULT", "TIMED_OUT", "STOPPED"}


@dataclass(frozen=True)
class BuildDone:
    """A finished, successful build."""

    build_id: str
    started_at: datetime | None
    finished_at: datetime | None
    log_url: str | None


@dataclass
class CodeBuildRun:
    """One build of the run's project from `archive`, tagging the image `archive.tag`."""

    codebuild: Any
    s3: Any
    project: str
    bucket: str
    region: str
    say: Callable[[str], None] = print

    def upload(self, archive: SourceArchive) -> None:
        with aws_errors("s3:PutObject", self.region):
            self.s3.put_object(Bucket=self.bucket, Key=archive.key, Body=archive.data)
        self.say(
            f"image: uploaded the worker's sources ({len(archive.data) / 1e6:.1f} MB) to "
            f"s3://{self.bucket}/{archive.key}"
        )

    def start(self, archive: SourceArchive) -> str:
        with aws_errors("codebuild:StartBuild", self.region):
            build = self.codebuild.start_build(
                projectName=self.project,
                sourceTypeOverride="S3",
                sourceLocationOverride=f"{self.bucket}/{archive.key}",
                environmentVariablesOverride=[
                    {"name": "IMAGE_TAG", "value": archive.tag, "type": "PLAINTEXT"}
                ],
            )["build"]
        build_id = str(build["id"])
        self.say(f"image: CodeBuild build {build_id} started")
        return build_id

    def wait(self, build_id: str) -> BuildDone:
        """Poll until the build ends; ImageBuildFailed (exit 7) unless it SUCCEEDED."""
        seen_phase = None
        build: dict[str, Any] = {}
        for i in range(MAX_POLLS):
            if i:
                time.sleep(POLL_S)  # POLL_S looked up here: a test sets it to 0
            with aws_errors("codebuild:BatchGetBuilds", self.region):
                found = self.codebuild.batch_get_builds(ids=[build_id]).get("builds", [])
            if not found:
                raise ImageBuildFailed(
                    f"CodeBuild does not know build {build_id} (deleted project?); run "
                    "`hotbench image build RUN_ID` again"
                )
            build = found[0]
            phase = build.get("currentPhase")
            if phase and phase != seen_phase:
                self.say(f"image: CodeBuild {str(phase).lower()}")
                seen_phase = phase
            if build.get("buildStatus") in DONE:
                break
        else:
            raise ImageBuildFailed(
                f"CodeBuild build {build_id} still runs after {MAX_POLLS} polls; see its "
                f"log ({log_link(build, self.region)}) and stop it with `aws codebuild "
                f"stop-build --id {build_id}`"
            )
        if build.get("buildStatus") != "SUCCEEDED":
            raise ImageBuildFailed(failure_message(build, self.region))
        return BuildDone(
            build_id,
            build.get("startTime"),
            build.get("endTime"),
            log_link(build, self.region),
        )


def log_link(build: dict[str, Any], region: str) -> str:
    """The build's console log link (`logs.deepLink`), else the build's console page."""
    link = (build.get("logs") or {}).get("deepLink")
    if link:
        return str(link)
    build_id = str(build.get("id", ""))
    project = build_id.split(":", 1)[0]
    return (
        f"https://{region}.console.aws.amazon.com/codesuite/codebuild/projects/{project}"
        f"/build/{build_id.replace(':', '%3A')}/log"
    )


def failure_message(build: dict[str, Any], region: str) -> str:
    """Which phase failed and why, in CodeBuild's own words, and where the log is."""
    status = build.get("buildStatus", "?")
    failed = [
        p
        for p in build.get("phases") or []
        if p.get("phaseStatus") not in (None, "SUCCEEDED", "IN_PROGRESS")
    ]
    if failed:
        phase = failed[0]
        why = "; ".join(
            str(c.get("message") or c.get("statusCode"))
            for c in phase.get("contexts") or []
            if c.get("message") or c.get("statusCode")
        )
        where = f"in phase {phase.get('phaseType')} ({phase.get('phaseStatus')}" + (
            f": {why})" if why else ")"
        )
    else:
        where = f"in phase {build.get('currentPhase', '?')}"
    return (
        f"the in-account image build {build.get('id')} ended {status} {where}; its log: "
        f"{log_link(build, region)}. Fix what the log says, then `hotbench image build "
        "RUN_ID`, or give a built image (HOTBENCH_WORKER_IMAGE)"
    )
