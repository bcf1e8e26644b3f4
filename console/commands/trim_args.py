"""`--duration-scale`, `--table` and `--phase`: a long playbook run short for a first
try, the same three flags on `simulate`, `run`, `check` and `plan` (and `up`, which
keeps the trimmed playbook as its run's copy). loadgen.format.trim does the trimming."""

from __future__ import annotations

import argparse

from console.commands.arg_types import positive_float
from loadgen.format.playbook import Playbook
from loadgen.format.trim import Trim, Trimmed, load_trimmed


def add_trim_arguments(parser: argparse._ActionsContainer) -> None:
    parser.add_argument(
        "--duration-scale",
        type=positive_float,
        default=1.0,
        metavar="F",
        help="multiply every phase's duration by F, e.g. 0.01 for a first try of a "
        "playbook of hours (pauses between repeats are kept: --pause-scale shortens a "
        "live wait) (default: 1, the playbook as written)",
    )
    parser.add_argument(
        "--table",
        dest="only_tables",
        action="append",
        default=[],
        metavar="NAME",
        help="only this table's runs; repeatable (default: every table)",
    )
    parser.add_argument(
        "--phase",
        dest="only_phases",
        action="append",
        default=[],
        metavar="NAME",
        help="only this phase; repeatable (default: every phase)",
    )


def trim_of(args: argparse.Namespace) -> Trim:
    return Trim(
        getattr(args, "duration_scale", 1.0),
        tuple(getattr(args, "only_tables", ())),
        tuple(getattr(args, "only_phases", ())),
    )


def playbook_of(args: argparse.Namespace) -> tuple[Playbook, Trimmed | None]:
    """The playbook `args.playbook` names, trimmed as the flags say (None: as written)."""
    trim = trim_of(args)
    if not trim:
        from loadgen.format.playbook import load_playbook

        return load_playbook(args.playbook), None
    trimmed = load_trimmed(args.playbook, trim)
    return trimmed.playbook, trimmed
