"""`hotbench image build RUN_ID`: build the worker image of an AWS run and pin it by digest.

Thin over console.workflow.build_image (the AWS target's worker_image): `up` does the same
when the run's repository has no image of the current sources; this rebuilds on demand
(after a change to the worker, or after a failed build). docs/terraform.md#the-worker-image.
"""

from __future__ import annotations

import argparse

from rich.console import Console

from console.commands.workflow import (
    add_image_builder_argument,
    add_settings_arguments,
    hooks_for,
    print_json,
    settings_from,
)


def handle_build(args: argparse.Namespace, console: Console) -> int:
    from console.workflow import build_image

    state = build_image(
        args.run_id, settings_from(args), hooks_for(console, args), rebuild=not args.reuse
    )
    image = state.image
    assert image is not None  # build_image raises when there is none
    if args.json:
        print_json(image.model_dump(mode="json"))
        return 0
    how = f"built by {image.builder}" if image.builder != "given" else "given"
    console.print(f"run {state.run_id}: the workers run {image.reference} ({how})")
    if image.build_log_url:
        console.print(f"build log: {image.build_log_url}", highlight=False)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("image", help="the worker image of an AWS run")
    verbs = p.add_subparsers(dest="image_verb", required=True, metavar="VERB")
    b = verbs.add_parser(
        "build",
        help="build the worker image (docker/podman/finch, else CodeBuild in the account), "
        "push it to the run's repository and pin it by digest",
    )
    b.add_argument("run_id")
    add_settings_arguments(b, target=False)
    add_image_builder_argument(b)
    b.add_argument(
        "--reuse",
        action="store_true",
        help="keep an image of the same sources already in the repository (default: build)",
    )
    b.add_argument("--json", action="store_true", help="print the pinned image as JSON")
    b.add_argument("--quiet", action="store_true", help="no progress lines")
    b.set_defaults(handler=handle_build)
