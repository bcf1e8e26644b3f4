"""The worker image of an AWS run, pinned by digest: given (HOTBENCH_WORKER_IMAGE), built
on the operator's machine (docker, podman, finch), or built inside the account
(CodeBuild), whichever applies first; then pushed to the run's ECR repository and
named `<repository>@sha256:<digest>` in the run's state and its task definition.

A tag can be moved after the plan was accepted; a digest cannot, so every task of the
run pulls the same bytes (https://docs.aws.amazon.com/AmazonECR/latest/userguide/docker-pull-ecr-image.html).
"""

from __future__ import annotations

import base64
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Final, Literal

from console.run.errors import AwsDenied, ConfigError, StateError
from console.run.settings import Settings
from console.run.state import ImageState, utc_now
from console.targets.awserrors import aws_errors, error_code
from console.targets.codebuild import CodeBuildRun
from console.targets.image_builders import (
    ENGINES,
    ImageBuildFailed,
    LocalBuilder,
    find_local_builder,
)
from console.targets.worker_source import SourceArchive, source_archive, unpack

ECR_IMAGE: Final = re.compile(
    r"^(?P<registry>(?P<account>\d{12})\.dkr\.ecr\.(?P<region>[a-z0-9-]+)\.amazonaws\.com(\.cn)?)"
    r"/(?P<repository>[a-z0-9][a-z0-9._/-]*?)(?::(?P<tag>[A-Za-z0-9_.-]+))?$"
)
"""A private ECR image by tag: `<account>.dkr.ecr.<region>.amazonaws.com/<repo>[:tag]`."""
DIGEST: Final = re.compile(r"@(sha256:[0-9a-f]{64})$")

Kind = Literal["given", "local", "codebuild"]


@dataclass(frozen=True)
class ImagePlan:
    """How this run gets its image, decided before anything is created (the plan prices
    it, the kit creates CodeBuild's project only when it is needed)."""

    kind: Kind
    builder: LocalBuilder | None = None

    @property
    def label(self) -> str:
        if self.kind == "local":
            assert self.builder is not None
            return f"built here with {self.builder.name}"
        if self.kind == "codebuild":
            return "built in the account by CodeBuild"
        return "given (HOTBENCH_WORKER_IMAGE)"


def image_plan(settings: Settings, say: Callable[[str], None] = print) -> ImagePlan:
    """The override, else the engine `image_builder` names (or the first on PATH), else
    CodeBuild. An engine named but not on PATH is a setting to fix (exit 2)."""
    if settings.worker_image:
        return ImagePlan("given")
    wanted = settings.image_builder
    if wanted == "codebuild":
        return ImagePlan("codebuild")
    builder = find_local_builder(None if wanted == "auto" else wanted, say)
    if wanted == "auto":
        return ImagePlan("local", builder) if builder else ImagePlan("codebuild")
    why = f"no `{wanted}` is on PATH" if builder is None else builder.probe()
    if why is not None:
        if builder is not None:
            why = f"`{wanted} info` failed: {why}"
        raise ConfigError(
            f"image_builder is {wanted}, but {why}: install or start it, or --image-builder "
            "auto (the first of docker, podman, finch that answers, else CodeBuild in the "
            "account), or give a built image (HOTBENCH_WORKER_IMAGE)"
        )
    assert builder is not None
    return ImagePlan("local", builder)


# -- a given image -----------------------------------------------------------------------


def resolve_given(image: str, ecr_for: Callable[[str], Any]) -> ImageState:
    """HOTBENCH_WORKER_IMAGE by digest: as given when it names one; a private ECR image
    by tag is looked up (DescribeImages); anything else cannot be pinned (exit 2)."""
    digest = DIGEST.search(image)
    if digest:
        return ImageState(reference=image, digest=digest.group(1), builder="given")
    match = ECR_IMAGE.match(image)
    if match is None:
        raise ConfigError(
            f"HOTBENCH_WORKER_IMAGE={image} names no digest, so the run could not pin "
            "what its tasks pull: give it as NAME@sha256:DIGEST (`docker inspect --format "
            "'{{index .RepoDigests 0}}' NAME` prints it), or a private ECR image by tag"
        )
    tag = match.group("tag") or "latest"
    region = match.group("region")
    found = describe_image(
        ecr_for(region), match.group("repository"), tag, region, match.group("account")
    )
    if found is None:
        raise ConfigError(
            f"HOTBENCH_WORKER_IMAGE={image}: ECR has no image tagged {tag} in "
            f"{match.group('repository')}; push it first, or unset HOTBENCH_WORKER_IMAGE to "
            "let `up` build one"
        )
    digest_value, size, _pushed = found
    return ImageState(
        reference=f"{match.group('registry')}/{match.group('repository')}@{digest_value}",
        digest=digest_value,
        builder="given",
        size_bytes=size,
    )


def describe_image(
    ecr: Any, repository: str, tag: str, region: str, registry_id: str | None = None
) -> tuple[str, int | None, datetime | None] | None:
    """(digest, compressed size, pushed at) of `repository:tag`, or None when absent."""
    where: dict[str, Any] = {"repositoryName": repository, "imageIds": [{"imageTag": tag}]}
    if registry_id:
        where["registryId"] = registry_id
    with aws_errors("ecr:DescribeImages", region):
        try:
            details = ecr.describe_images(**where).get("imageDetails", [])
        except Exception as exc:
            if error_code(exc) == "ImageNotFoundException":
                return None
            raise
    if not details:
        return None
    d = details[0]
    size = d.get("imageSizeInBytes")
    return str(d["imageDigest"]), int(size) if size is not None else None, d.get("imagePushedAt")


# -- a built image -----------------------------------------------------------------------


@dataclass
class BuildContext:
    """What a build needs of the run: where to push, what to build for, its clients."""

    repository_url: str
    """`<account>.dkr.ecr.<region>.amazonaws.com/<name>` (the kit's output)."""
    architecture: str
    region: str
    client: Callable[[str], Any]
    say: Callable[[str], None]
    codebuild_project: str | None = None
    source_bucket: str | None = None

    @property
    def repository(self) -> str:
        return self.repository_url.split("/", 1)[1]


def build_image(
    plan: ImagePlan, ctx: BuildContext, rebuild: bool, archive: SourceArchive | None = None
) -> ImageState:
    """Build the worker's sources with `plan`, push to the run's repository, and return
    the image by digest. Sources already built (their tag is in the repository) are not
    built again unless `rebuild`."""
    archive = archive or source_archive()
    ecr = ctx.client("ecr")
    if not rebuild:
        found = describe_image(ecr, ctx.repository, archive.tag, ctx.region)
        if found is not None:
            ctx.say(f"image: {ctx.repository}:{archive.tag} is already built")
            return _state(ctx, found, plan, archive)
    # what the build itself records on the pinned image (CodeBuild's id, times, log, the
    # source archive); a local build records nothing beyond the image
    recorded: dict[str, Any] = {}
    if plan.kind == "local":
        assert plan.builder is not None
        _build_locally(plan.builder, ctx, archive)
    elif plan.kind == "codebuild":
        recorded = _build_in_account(ctx, archive)
    else:
        raise ValueError("a given image is resolved, not built")
    found = describe_image(ecr, ctx.repository, archive.tag, ctx.region)
    if found is None:
        raise ImageBuildFailed(
            f"the build ended, but the run's repository {ctx.repository} has no image "
            f"tagged {archive.tag}: see the build's output above; `hotbench image build "
            "RUN_ID` tries again"
        )
    return _state(ctx, found, plan, archive).model_copy(update=recorded)


def _state(
    ctx: BuildContext,
    found: tuple[str, int | None, datetime | None],
    plan: ImagePlan,
    archive: SourceArchive,
) -> ImageState:
    digest, size, pushed = found
    return ImageState(
        reference=f"{ctx.repository_url}@{digest}",
        digest=digest,
        builder=plan.builder.name if plan.builder else plan.kind,
        tag=archive.tag,
        size_bytes=size,
        pushed_at=pushed or utc_now(),
    )


def _build_locally(builder: LocalBuilder, ctx: BuildContext, archive: SourceArchive) -> None:
    """Build for the task's platform, log in with an ECR token, push."""
    reference = f"{ctx.repository_url}:{archive.tag}"
    with aws_errors("ecr:GetAuthorizationToken", ctx.region):
        auth = ctx.client("ecr").get_authorization_token()["authorizationData"][0]
    user, _, password = base64.b64decode(auth["authorizationToken"]).decode().partition(":")
    registry = ctx.repository_url.split("/", 1)[0]
    with tempfile.TemporaryDirectory(prefix="hotbench-image-") as tmp:
        context = unpack(archive, Path(tmp))
        ctx.say(f"image: {builder.name} build for {ctx.architecture} as {reference}")
        builder.build(context, reference, ctx.architecture)
    if user != "AWS":  # ECR's tokens are always for the user AWS; say so if not
        ctx.say(f"image: the ECR token is for user {user!r}, logging in as AWS")
    builder.login(registry, password)
    builder.push(reference)


def _build_in_account(ctx: BuildContext, archive: SourceArchive) -> dict[str, Any]:
    """Upload, start, wait; the ImageState fields of the build (source_*, build_*)."""
    if not ctx.codebuild_project or not ctx.source_bucket:
        raise StateError(
            "the run's stack has no image build project (applied with image_build=false); "
            "`hotbench image build RUN_ID` applies it first"
        )
    run = CodeBuildRun(
        ctx.client("codebuild"),
        ctx.client("s3"),
        ctx.codebuild_project,
        ctx.source_bucket,
        ctx.region,
        ctx.say,
    )
    try:
        run.upload(archive)
        recorded: dict[str, Any] = {
            "source_bucket": ctx.source_bucket,
            "source_key": archive.key,
            "source_bytes": len(archive.data),
            "source_uploaded_at": utc_now(),
        }
        build_id = run.start(archive)
    except AwsDenied as exc:
        raise AwsDenied(
            f"{exc}. No docker, podman or finch is on PATH, so the image is built inside the "
            f"account: install one of {', '.join(ENGINES)}, grant the CodeBuild and S3 "
            "actions of the operator policy (docs/terraform.md), or give a built image "
            "(HOTBENCH_WORKER_IMAGE)"
        ) from None
    done = run.wait(build_id)
    return recorded | {
        "build_id": build_id,
        "build_started_at": done.started_at,
        "build_finished_at": done.finished_at,
        "build_log_url": done.log_url,
    }
