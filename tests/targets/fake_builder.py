"""A stand-in for docker, podman or finch on PATH (this machine has none): it records
each call's argv (and whether a password came on stdin) as a JSON line in
$FAKE_BUILDER_LOG, checks what a real engine would refuse (no Dockerfile, a platform it
cannot name), and on `push` stores a manifest in moto's ECR with PutImage, as a real push
ends, printing the digest line docker prints ("TAG: digest: sha256:... size: N").

$FAKE_BUILDER_FAIL=<verb> makes that verb fail with exit 1 and an engine-like message.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from pathlib import Path


def record(argv: list[str], stdin: str | None) -> None:
    if argv[:1] == ["info"]:
        return  # the probe: not a build step
    with open(os.environ["FAKE_BUILDER_LOG"], "a", encoding="utf-8") as fh:
        entry = {"argv": argv, "tool": Path(sys.argv[0]).name, "stdin": bool(stdin)}
        fh.write(json.dumps(entry) + "\n")


def option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def image_manifest(reference: str) -> str:
    """The manifest a push of `reference` (`<registry>/<repository>:<tag>`) stores: one
    layer whose digest names the reference, so each tag gets its own image digest. The
    in-account build's fake (faults.CodeBuild) stores the same."""
    layer = "sha256:" + hashlib.sha256(reference.encode()).hexdigest()
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
        "config": {
            "mediaType": "application/vnd.docker.container.image.v1+json",
            "size": 1200,
            "digest": layer,
        },
        "layers": [
            {
                "mediaType": "application/vnd.docker.image.rootfs.diff.tar.gzip",
                "size": 52_000_000,
                "digest": layer,
            }
        ],
    }
    return json.dumps(manifest)


def push(reference: str) -> int:
    registry_repo, _, tag = reference.rpartition(":")
    host, _, repository = registry_repo.partition("/")
    region = host.split(".")[3]
    import boto3  # only a push calls AWS: `info`, `login` and `build` start without it

    ecr = boto3.client("ecr", region_name=region)
    # a push of layers the registry has is a no-op for a real engine too
    with contextlib.suppress(ecr.exceptions.ImageAlreadyExistsException):
        ecr.put_image(
            repositoryName=repository, imageTag=tag, imageManifest=image_manifest(reference)
        )
    found = ecr.describe_images(repositoryName=repository, imageIds=[{"imageTag": tag}])
    print(f"{tag}: digest: {found['imageDetails'][0]['imageDigest']} size: 1234")
    return 0


def main() -> int:
    argv = sys.argv[1:]
    verb = argv[0] if argv else ""
    stdin = sys.stdin.read() if verb == "login" else None
    record(argv, stdin)
    if os.environ.get("FAKE_BUILDER_FAIL") == verb:
        print(f"ERROR: failed to solve: {verb} refused by the fake engine", flush=True)
        return 1
    if verb == "info":
        print("Server Version: fake")
        return 0
    if verb == "build":
        dockerfile = Path(option(argv, "-f"))
        if not dockerfile.is_file():
            print(f"ERROR: failed to read dockerfile: open {dockerfile}: no such file")
            return 1
        if option(argv, "--platform") not in ("linux/amd64", "linux/arm64"):
            return 1
        print("#1 [internal] load build definition from Dockerfile")
        print(f"#9 naming to {option(argv, '-t')} done")
        return 0
    if verb == "login":
        if not stdin:
            print("Error: no password on stdin")
            return 1
        print("Login Succeeded")
        return 0
    if verb == "push":
        return push(argv[1])
    print(f"fake builder: unsupported {verb!r}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
