"""The worker image cannot be built here (no Docker engine): check what it promises."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def instructions() -> list[tuple[str, str]]:
    text = (ROOT / "loadgen" / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_pinned_slim_base_from_a_registry_without_anonymous_limits() -> None:
    """The base comes from ECR Public's mirror of the Docker official image, not Docker
    Hub, whose anonymous pull limit CodeBuild's shared addresses reach (the Dockerfile
    says why); a build argument may name another."""
    bases = [rest for word, rest in instructions() if word == "FROM"]
    assert bases == ["${BASE_IMAGE}"]
    (default,) = [rest for word, rest in instructions() if word == "ARG" and "BASE_IMAGE=" in rest]
    image = default.split("=", 1)[1]
    assert re.fullmatch(
        r"public\.ecr\.aws/docker/library/python:3\.11\.\d+-slim(-\w+)?(@sha256:[0-9a-f]{64})?",
        image,
    )


def test_runs_as_non_root() -> None:
    users = [rest for word, rest in instructions() if word == "USER"]
    assert users, "no USER instruction: the worker would run as root"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0")
    # USER comes after the last RUN, so nothing later switches back.
    words = [w for w, _ in instructions()]
    assert max(i for i, w in enumerate(words) if w == "USER") > max(
        i for i, w in enumerate(words) if w == "RUN"
    )


def test_entrypoint_is_the_worker() -> None:
    entry = [rest for word, rest in instructions() if word == "ENTRYPOINT"]
    assert len(entry) == 1 and json.loads(entry[0]) == ["python", "-m", "loadgen.live.worker"]


def test_dependencies_are_pinned_and_cover_the_worker() -> None:
    runs = " ".join(rest for word, rest in instructions() if word == "RUN")
    assert "pip install -r loadgen/requirements-worker.txt" in runs
    assert "pip install --no-deps ." in runs
    reqs = [
        line
        for line in (ROOT / "loadgen" / "requirements-worker.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert reqs and all(re.fullmatch(r"[A-Za-z0-9_.-]+==[\w.]+", r) for r in reqs), reqs
    names = {r.split("==")[0].lower().replace("_", "-") for r in reqs}
    assert {"boto3", "botocore", "numpy", "pydantic", "pyyaml", "httptools", "uvloop"} <= names
