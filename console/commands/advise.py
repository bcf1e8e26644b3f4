"""`hotbench advise PLAYBOOK`: before any run, the first limit each table will hit.

Prints loadgen.analysis.advise's arithmetic: per table and phase, the hottest partition key's
share of the traffic and its units per second against one partition's limit, the same
for each GSI, the table-level limits, and the first limit hit with what would fix it.
"""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console

from console.commands.params import add_params_argument, params_from
from loadgen.analysis.advise import advise
from loadgen.format.playbook import load_playbook


def handle(args: argparse.Namespace, console: Console) -> int:
    playbook = load_playbook(args.playbook)
    advice = advise(playbook, params_from(args).params)
    if args.json:
        from console.render.check_reports import advice_json

        # The same objects as the check report's `advice` (docs/check-report.schema.json).
        sys.stdout.write(json.dumps([advice_json(a) for a in advice], indent=2) + "\n")
        return 0
    from console.render.advice_text import advice_text

    for table_advice in advice:
        for line in advice_text(table_advice, console.width):
            console.print(line, soft_wrap=True)  # wrapped already, with its indent
        console.print()
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "advise",
        help="before any run: the hottest keys, the table limits, and the first limit each "
        "table will hit, with the fix (docs/checks.md)",
    )
    parser.add_argument("playbook", help="playbook YAML, e.g. playbooks/hot-partition.yaml")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the advice as JSON: one object per table, as in the check report",
    )
    add_params_argument(parser)
    parser.set_defaults(handler=handle)
