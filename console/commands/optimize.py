"""`hotbench optimize PLAYBOOK`: the cheapest configuration of the playbook's tables that
passes its criteria in simulation, priced for a month and for the run (docs/optimize.md).

The search is loadgen.analysis.optimize (pure: it simulates); the pricing is the one cost
record's (console.cost.configuration_cost); what prints is console.render.optimize_report.
This module reads the options into the playbook's `optimize:` section, prints, and writes
the files. Exit 0 when a configuration passes (best.yaml then passes `hotbench check`),
1 when none does within the bounds, 2 for bad input.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any, get_args

import yaml
from rich.console import Console
from rich.text import Text

from console import exitcodes
from console.commands.arg_types import positive_float, positive_int
from console.commands.params import add_params_argument, params_from
from console.output import UserError
from loadgen.format.optimize_spec import Dimension
from loadgen.format.playbook import load_playbook, parse_playbook

DIMENSIONS = get_args(Dimension)
"""What --keep may name: the optimize section's `keep:` values."""


def with_options(data: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """The playbook's data with the command line's choices written into its `optimize:`
    section (an option wins over the section; the section over the defaults)."""
    out = copy.deepcopy(data)
    section = dict(out.get("optimize") or {})
    tables: dict[str, Any] | None = (
        {k: dict(v or {}) for k, v in section["tables"].items()} if section.get("tables") else None
    )
    if args.table:
        tables = {name: (tables or {}).get(name, {}) for name in args.table}
    per_table = _per_table_options(args)
    if per_table:
        if tables is None:
            names = [t["name"] for t in out.get("tables") or []]
            runs = (out.get("load") or {}).get("runs")
            loaded = [r["table"] for r in runs] if runs else names
            tables = {name: {} for name in dict.fromkeys(loaded)}
        for name, entry in tables.items():
            for key, value in per_table.items():
                # --shard without --table marks the tables that have the key; a table
                # named by --table takes it (and validation names a key it lacks)
                if (
                    key == "write_shards"
                    and not args.table
                    and not _has_key(out, name, value["key"])
                ):
                    continue
                entry[key] = value
    if tables is not None:
        section["tables"] = tables
    month = dict(section.get("month") or {})
    for option, key in (
        ("peak_hours", "peak_hours_per_day"),
        ("off_peak", "off_peak_fraction"),
        ("days", "days"),
        ("stored_gb", "stored_gb"),
    ):
        if getattr(args, option) is not None:
            month[key] = getattr(args, option)
    if month:
        section["month"] = month
    for option in ("trials", "seed", "max_throttle_rate"):
        if getattr(args, option) is not None:
            section[option] = getattr(args, option)
    if section:
        out["optimize"] = section
    return out


def _per_table_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.keep:
        options["keep"] = list(args.keep)
    if args.billing_mode:
        options["billing_modes"] = list(args.billing_mode)
    if args.reserved_terms is not None:
        options["reserved_terms_years"] = (
            []
            if args.reserved_terms == "none"
            else [int(t) for t in args.reserved_terms.split(",")]
        )
    if args.shard:
        options["write_shards"] = {
            "key": args.shard,
            "max_shards": args.max_shards,
            "suffix": args.shard_suffix,
        }
    return options


def _has_key(data: dict[str, Any], table: str, key: str) -> bool:
    """Whether `key` is a partition key of the table or one of its GSIs (--shard without
    --table applies to those tables only)."""
    entry = next((t for t in data.get("tables") or [] if t.get("name") == table), None)
    if entry is None:
        return True  # validation names the unknown table
    owners = [entry, *(entry.get("gsis") or [])]
    return any((o.get("partition_key") or {}).get("name") == key for o in owners)


def handle(args: argparse.Namespace, console: Console) -> int:
    from console.cost.configuration_cost import configuration_pricing
    from console.cost.measured_usage import run_cost_at
    from console.cost.prices import price_table
    from console.render.check_reports import CheckOutcome, verdict_tables
    from console.render.optimize_report import (
        criteria_legend,
        final_lines,
        frontier_svg,
        frontier_text,
        ranked_table,
        report_json,
        stats_line,
        summary_lines,
    )
    from console.run.settings import load_settings
    from loadgen.analysis.advise import advise
    from loadgen.analysis.optimize import OptimizeOptions, optimize
    from loadgen.analysis.optimize_search import cores

    load_playbook(args.playbook)  # the file alone first: its errors name their lines
    data = yaml.safe_load(Path(args.playbook).read_text(encoding="utf-8"))
    data = with_options(data, args)
    playbook = parse_playbook(data, f"{args.playbook} with the command line's options")
    params = params_from(args).params
    region = args.region or load_settings().prices_region
    prices = price_table(region)
    out_dir = Path(args.out) if args.out else None
    if out_dir is not None:
        _writable(out_dir)
    jobs = args.jobs or cores()

    def progress(message: str) -> None:
        if not args.quiet:
            print(message, file=sys.stderr, flush=True)

    console.print(
        f"{playbook.name}: optimize (simulate; {prices.region} prices of {prices.as_of}; "
        f"{jobs} process{'es' if jobs > 1 else ''})",
        highlight=False,
    )
    report = optimize(
        data,
        configuration_pricing(prices),
        run_cost_at(prices),
        OptimizeOptions(
            trials=(playbook.optimize.trials if playbook.optimize else 40),
            seed=(playbook.optimize.seed if playbook.optimize else 1),
            jobs=jobs,
            budget_s=args.budget_s,
            params=params,
            progress=progress,
        ),
        args.playbook,
    )
    for group in report.groups:
        console.print(ranked_table(group, args.top))
        for line in criteria_legend(group):
            console.print(f"  {line}", highlight=False, soft_wrap=True)
        console.print("  ~: passes by less than the model's known tolerance (docs/model.md)")
        if not args.no_chart:
            console.print(Text(frontier_text(group)))
    for line in summary_lines(report):
        console.print(line, highlight=False, soft_wrap=True)
    if report.final is not None and report.final_result is not None and report.best_data:
        best = parse_playbook(report.best_data, "<best>")
        outcome = CheckOutcome(
            playbook.name,
            "best.yaml",
            report.final_result,
            report.final.verdicts,
            advise(best, params),
        )
        for table in verdict_tables(outcome, console.width):
            console.print(table)
        for line in final_lines(report):
            style = "green" if report.passed else "red"
            console.print(f"[bold {style}]{line}[/]", highlight=False, soft_wrap=True)
    console.print(stats_line(report), highlight=False)
    if out_dir is not None:
        _write_out(out_dir, report, args, region, console, frontier_svg)
    if args.json:
        Path(args.json).write_text(json.dumps(report_json(report), indent=2, default=str) + "\n")
        console.print(f"report written to {args.json}")
    return exitcodes.OK if report.passed else exitcodes.CHECK_FAILED


def _writable(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--out {folder}: cannot create the folder ({exc.strerror})") from None


def _write_out(
    folder: Path,
    report: Any,
    args: argparse.Namespace,
    region: str,
    console: Console,
    frontier_svg: Any,
) -> None:
    """best.yaml (when a configuration passed), best.tfvars.json beside it, and one
    frontier SVG per group of tables."""
    from console.infra.tfvars import run_id_for, tfvars

    written = []
    for group in report.groups:
        name = (
            "frontier.svg" if len(report.groups) == 1 else f"frontier-{'-'.join(group.tables)}.svg"
        )
        (folder / name).write_text(frontier_svg(group), encoding="utf-8")
        written.append(name)
    if report.passed and report.best_text is not None:
        header = (
            f"# The cheapest configuration of {report.playbook} that passes its criteria in\n"
            f"# simulation, found by `hotbench optimize {args.playbook}`\n"
            f"# ({report.final.words}; ${report.final.costs.month_usd:,.2f} a month by the "
            "optimize.month rule).\n"
            "#   hotbench check best.yaml   # passes\n"
        )
        best = folder / "best.yaml"
        best.write_text(header + report.best_text, encoding="utf-8")
        variables = tfvars(
            best,
            args.run_id or run_id_for(report.playbook),
            args.owner,
            args.expires_in_h,
            region,
        )
        (folder / "best.tfvars.json").write_text(json.dumps(variables, indent=2) + "\n")
        written += ["best.yaml", "best.tfvars.json"]
    console.print(f"written to {folder}: {', '.join(written)}", highlight=False)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "optimize",
        help="the cheapest configuration that passes the playbook's criteria in simulation, "
        "priced for a month and for the run: exit 0 found, 1 none within the bounds "
        "(docs/optimize.md)",
    )
    parser.add_argument(
        "playbook", help="playbook YAML (criteria, and an optional optimize: section)"
    )
    parser.add_argument(
        "--out", metavar="DIR", help="write best.yaml, best.tfvars.json and frontier.svg there"
    )
    parser.add_argument("--json", metavar="FILE", help="write the whole report as JSON")
    parser.add_argument(
        "--budget-s",
        type=positive_float,
        default=None,
        metavar="N",
        help="stop starting new configurations after N seconds (the result may then "
        "depend on the machine's speed; --trials alone does not)",
    )
    parser.add_argument(
        "--trials",
        type=positive_int,
        default=None,
        help="configurations to simulate per group of tables (default: optimize.trials, 40)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="the search's seed (default: optimize.seed, 1)"
    )
    parser.add_argument(
        "--jobs",
        type=positive_int,
        default=None,
        help="simulations at once (default: the machine's cores)",
    )
    parser.add_argument("--top", type=positive_int, default=10, help="rows of the ranked table")
    parser.add_argument("--no-chart", action="store_true", help="no terminal chart")
    parser.add_argument("--quiet", action="store_true", help="no progress lines (stderr)")
    parser.add_argument(
        "--region",
        default=None,
        help="prices of this region (default: HOTBENCH_PRICE_REGION or HOTBENCH_REGION)",
    )
    add_params_argument(parser)
    space = parser.add_argument_group(
        "what may vary (over the playbook's optimize: section; docs/optimize.md)"
    )
    space.add_argument(
        "--table",
        action="append",
        default=[],
        metavar="NAME",
        help="a table to vary (repeatable; default: the optimize section's, else every "
        "table that takes load)",
    )
    space.add_argument(
        "--keep",
        action="append",
        default=[],
        choices=DIMENSIONS,
        help="leave a dimension as the playbook has it (repeatable)",
    )
    space.add_argument(
        "--billing-mode",
        action="append",
        default=[],
        choices=["PROVISIONED", "PAY_PER_REQUEST"],
        help="billing modes to consider (repeatable; default both)",
    )
    space.add_argument(
        "--shard", metavar="KEY", help="a partition key the application may write-shard"
    )
    space.add_argument(
        "--max-shards",
        type=positive_int,
        default=10,
        help="the most shards the application accepts",
    )
    space.add_argument("--shard-suffix", default="#{shard}", help="what the application appends")
    space.add_argument(
        "--reserved-terms",
        default=None,
        metavar="1,3|none",
        help="terms of reserved capacity to consider (default: optimize section's, else 1)",
    )
    space.add_argument(
        "--max-throttle-rate",
        type=float,
        default=None,
        help="without criteria: the throttle rate each varied table must stay under (default 0.01)",
    )
    month = parser.add_argument_group("the month (optimize.month; docs/optimize.md#the-month)")
    month.add_argument(
        "--peak-hours",
        type=float,
        default=None,
        help="hours a day at the playbook's load (default 24)",
    )
    month.add_argument(
        "--off-peak",
        type=float,
        default=None,
        help="the rest of the day, as a fraction of it (default 0)",
    )
    month.add_argument(
        "--days", type=float, default=None, help="days in the month (default 30.42: 730 h)"
    )
    month.add_argument(
        "--stored-gb",
        type=float,
        default=None,
        help="the table's size (default: what the run leaves)",
    )
    tf = parser.add_argument_group("best.tfvars.json (terraform/examples/own-table)")
    tf.add_argument("--run-id", default=None, help="its run_id (default: opt-<playbook name>)")
    tf.add_argument("--owner", default="hotbench-optimize", help="its owner tag")
    tf.add_argument(
        "--expires-in-h", type=positive_float, default=24.0, help="its expires_at, hours from now"
    )
    parser.set_defaults(handler=handle)
