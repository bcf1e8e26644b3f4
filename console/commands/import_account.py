"""`hotbench import TABLE... [--last 24h | --from T --to T] [--save DIR] [--out FILE]`:
read tables and their traffic from an account (or a saved snapshot) and turn them into
numbers and a playbook (docs/import.md). The work is console/importer/; this parses,
prints and writes."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from rich.console import Console
from rich.text import Text

from console import exitcodes
from console.output import UserError, print_progress, write_json


def _out_path(out: str, table: str, several: bool) -> Path:
    path = Path(out)
    return path.with_name(f"{path.stem}-{table}{path.suffix}") if several else path


def handle(args: argparse.Namespace, console: Console) -> int:
    from console.importer.import_result import to_jsonable
    from console.importer.import_run import ImportOptions, run_import
    from console.importer.playbook_draft import WhatIf, render
    from console.importer.recorded import recorded
    from console.importer.summary import lines
    from loadgen.format.kinds.rate_curve import write_rate_csv

    options = ImportOptions(
        tables=tuple(args.tables),
        region=args.region,
        profile=args.profile,
        last=args.last,
        start=args.start,
        end=args.end,
        save=Path(args.save) if args.save else None,
        from_saved=Path(args.from_saved) if args.from_saved else None,
        anonymize=args.anonymize,
        salt=args.anonymize_salt or os.environ.get("HOTBENCH_ANONYMIZE_SALT"),
    )

    def progress(line: str) -> None:
        if not args.quiet:
            print_progress(console, line)

    result = run_import(options, progress)
    for line in lines(result):
        console.print(Text(line), soft_wrap=True, highlight=False)
    if args.json:
        write_json(args.json, json.loads(json.dumps(to_jsonable(result))))
        console.print(Text(f"wrote {args.json} (the import result)"), highlight=False)
    what_if = WhatIf(scale=args.scale, peak=args.peak)
    if args.out:
        several = len(result.tables) > 1
        for table in result.tables:
            name = table.definition.name
            path = _out_path(args.out, name, several)
            rendered = render(result, name, what_if, csv_stem=path.stem)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(rendered.text, encoding="utf-8")
                for csv_name, rates in rendered.csvs.items():
                    write_rate_csv(path.parent / csv_name, rates)
                write_json(
                    str(recorded_path(path)), recorded(result, table, what_if.words()).to_json()
                )
            except OSError as exc:
                raise UserError(
                    f"cannot write {path}: {exc.strerror}; choose another --out", exitcodes.USAGE
                ) from None
            phases = len(rendered.playbook.load.phases)
            files = f" and {len(rendered.csvs)} rate CSV(s)" if rendered.csvs else ""
            console.print(
                Text(
                    f"wrote {path}: the window as per-minute curves in {phases} phase(s){files}"
                    f" ({what_if.words()}); {recorded_path(path)}: the recorded minutes for "
                    f"hotbench backtest {path}"
                ),
                highlight=False,
                soft_wrap=True,
            )
    return exitcodes.OK


def recorded_path(playbook: Path) -> Path:
    """Where an imported playbook's recorded minutes sit: beside it, `<stem>.recorded.json`."""
    return playbook.with_name(f"{playbook.stem}.recorded.json")


def _factor(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (e.g. 3 or 1.5)") from None
    if not 0 < value <= 1000:
        raise argparse.ArgumentTypeError(f"{value:g} is not a factor from above 0 to 1000")
    return value


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "import",
        help="read tables, their auto scaling, traffic per minute and hot keys from an "
        "account or a saved snapshot (docs/import.md)",
    )
    parser.add_argument(
        "tables",
        nargs="*",
        metavar="TABLE",
        help="table names (default with --from-saved: every table of the snapshot)",
    )
    parser.add_argument("--region", help="AWS region (default: the profile's, or AWS_REGION)")
    parser.add_argument(
        "--profile", help="AWS profile (default: the standard credential chain, or AWS_PROFILE)"
    )
    parser.add_argument(
        "--last",
        metavar="DURATION",
        help="the window: the last 90m, 24h, 2d... up to the last published minute (default: 24h)",
    )
    parser.add_argument(
        "--from",
        dest="start",
        metavar="TIME",
        help="window start, ISO 8601 with an offset, e.g. 2026-11-29T00:00:00Z",
    )
    parser.add_argument(
        "--to",
        dest="end",
        metavar="TIME",
        help="window end, ISO 8601 with an offset (default: the last published minute)",
    )
    parser.add_argument(
        "--save", metavar="DIR", help="keep every raw AWS answer as JSON in DIR (a snapshot)"
    )
    parser.add_argument(
        "--from-saved", metavar="DIR", help="import from a snapshot instead: no credentials"
    )
    parser.add_argument(
        "--anonymize",
        action="store_true",
        help="replace Contributor Insights key values by keyed hashes (HMAC-SHA256) before "
        "anything keeps or prints them",
    )
    parser.add_argument(
        "--anonymize-salt",
        metavar="TEXT",
        help="the hash key, for hashes stable across imports (default: "
        "HOTBENCH_ANONYMIZE_SALT, else a random one per run)",
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="write the playbook that replays the window (one per table), its rate CSVs and "
        "FILE's .recorded.json beside it",
    )
    parser.add_argument(
        "--scale",
        type=_factor,
        default=1.0,
        metavar="X",
        help="launch what-if: every minute's requests times X (3: three of these days at once)",
    )
    parser.add_argument(
        "--peak",
        type=_factor,
        default=1.0,
        metavar="X",
        help="launch what-if: the busiest minute X times as high, each minute raised in "
        "proportion to how far it stands above the quietest",
    )
    parser.add_argument("--json", metavar="FILE", help="write the import result as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    parser.set_defaults(handler=handle)
