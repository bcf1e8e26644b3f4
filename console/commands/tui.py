"""`hotbench console [PLAYBOOK | --run RUN_ID] [--target local|aws]`: the operator console,
a Textual app over the workflow (docs/console.md)."""

from __future__ import annotations

import argparse

from rich.console import Console

from console.commands.params import params_from
from console.commands.workflow import (
    add_pause_scale_argument,
    add_seed_items_argument,
    add_settings_arguments,
    add_up_arguments,
    settings_from,
    up_options,
)
from console.output import UserError


def handle(args: argparse.Namespace, console: Console) -> int:
    try:
        from console.tui.app import HotbenchApp
        from console.tui.backend import Backend
    except ImportError as exc:
        raise UserError(
            f"the console needs Textual ({exc.name} is missing): pip install 'hotbench[tui]'"
        ) from None
    from console.workflow import RunOptions
    from loadgen.format.playbook import load_playbook

    if args.playbook and args.run:
        raise UserError("give a PLAYBOOK or --run RUN_ID, not both")
    backend = Backend(settings_from(args), params_from(args).params)
    if args.playbook:
        load_playbook(args.playbook)  # a bad playbook is reported here, before the screen
    if args.run:
        backend.state(args.run)  # an unknown run id too (exit 5)
    app = HotbenchApp(
        backend,
        playbook_path=args.playbook,
        run_id=args.run,
        up_options=up_options(args),
        run_options=RunOptions(pause_scale=args.pause_scale, seed_items=args.seed_items),
    )
    code = app.run()
    session = app.session
    if session.busy:
        console.print(
            f"waiting for `{session.busy}` to stop at its next safe point (a run stops its "
            "fleet; `hotbench console --run` resumes it)…"
        )
    if session.run_id is not None and backend.state(session.run_id).billable_up:
        console.print(
            f"{session.run_id} is still up: `hotbench console --run {session.run_id}` comes "
            f"back to it, `hotbench down {session.run_id}` destroys it"
        )
    return code or 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "console",
        help="the operator console: plan, up, prewarm, run, watch, results, destroy (Textual)",
    )
    parser.add_argument("playbook", nargs="?", help="playbook YAML to plan (omit to pick a run)")
    parser.add_argument(
        "--run", metavar="RUN_ID", help="take up an existing run instead (default: none)"
    )
    add_settings_arguments(parser)
    add_up_arguments(parser)
    add_pause_scale_argument(parser)
    add_seed_items_argument(parser)
    parser.set_defaults(handler=handle)
