"""`hotbench check PLAYBOOK`: run a playbook and judge its criteria, for CI.

Exit 0 when every criterion holds, 1 when one fails, 2 when the check could not be
made (a malformed playbook, an unknown report type, a target that is not available).
`--validate` only reads and validates the playbook. The verdicts are pure
(loadgen.analysis.criteria); this module picks the runner, prints and writes the reports.
"""

from __future__ import annotations

import argparse

from rich.console import Console

from console import exitcodes
from console.commands.params import add_params_argument, params_from
from console.commands.trim_args import add_trim_arguments, playbook_of
from console.output import UserError, check_writable, print_progress
from console.render.check_reports import (
    CheckOutcome,
    check_reports,
    verdict_tables,
    write_report,
)
from console.render.live_vs_simulated import (
    LiveVsSimulated,
    live_vs_simulated,
    print_live_vs_simulated,
)
from console.render.results_table import report_result
from emulator.params import CapacityParams
from loadgen.analysis.advise import advise
from loadgen.analysis.criteria import evaluate
from loadgen.format.playbook import Playbook
from loadgen.results.records import PlaybookResult


def handle(args: argparse.Namespace, console: Console) -> int:
    playbook, trimmed = playbook_of(args)
    params = refuse_what_check_cannot_judge(playbook, args)
    if trimmed is not None:
        console.print(f"[yellow]{trimmed.words()}[/]", highlight=False)
    if args.validate:
        console.print(
            f"{args.playbook}: valid playbook {playbook.name!r}: {len(playbook.tables)} "
            f"table(s), {len(playbook.load.phases)} phase(s), {len(playbook.runs())} "
            f"run(s), {len(playbook.criteria)} criteria",
            highlight=False,
        )
        return exitcodes.OK
    advice = advise(playbook, params)
    if not args.quiet:
        for table_advice in advice:
            console.print(f"[dim]advice: {table_advice.verdict()}[/]", highlight=False)
    result = obtain_result(playbook, args, console, params)
    if trimmed is not None:  # the report and the results say so too
        result.notes.append(trimmed.words())
    from console.cost.measured_usage import run_cost_in
    from console.run.settings import load_settings

    region = getattr(args, "region", None) or load_settings().prices_region
    outcome = CheckOutcome(
        playbook.name,
        args.playbook,
        result,
        evaluate(playbook, result, run_cost_in(region)),
        advice,
    )
    report_result(result, args.json, console)  # the results table, partial runs' notes
    if args.mode == "live":
        print_live_vs_simulated(simulated_beside(playbook, result, params), console)
    for table in verdict_tables(outcome, console.width):
        console.print(table)
    style = "green" if outcome.passed else "red"
    console.print(f"[bold {style}]{outcome.headline()}[/]", highlight=False)
    for path in args.report:
        write_report(path, outcome)
        console.print(f"report written to {path}")
    if args.mode == "simulate" and any(run.partial for run in result.runs):
        return exitcodes.INTERRUPTED  # Ctrl-C stopped the simulation: judged on a part
    return exitcodes.OK if outcome.passed else exitcodes.CHECK_FAILED


def simulated_beside(
    playbook: Playbook, live: PlaybookResult, params: CapacityParams
) -> LiveVsSimulated:
    """After a live check: the same playbook simulated (seconds) and compared with the
    live result, so a check on AWS says at once where the model and the tables differ."""
    from loadgen.runners import SimulatedRunner

    return live_vs_simulated(live, SimulatedRunner(params).run(playbook))


def refuse_what_check_cannot_judge(playbook: Playbook, args: argparse.Namespace) -> CapacityParams:
    """Everything `check` refuses before it runs anything, in one place, so that
    `check --validate` refuses exactly what `check` would (a playbook without criteria,
    an unknown report type, a bad --params file, a target given to a simulation).
    Returns the --params file's parameters, loaded once here for the whole check."""
    if not playbook.criteria:
        raise UserError(
            f"{args.playbook}: no criteria to check; add a `criteria:` list (docs/checks.md, "
            "playbooks/prelaunch-template.yaml) or use `hotbench simulate`"
        )
    check_reports(args.report)
    for path in args.report:  # written after the run: found unwritable before it
        check_writable(path, "--report")
    if args.json:
        check_writable(args.json, "--json")
    params = params_from(args).params  # a bad --params file is refused before anything runs
    if args.mode == "simulate" and args.target is not None:
        raise UserError("--target applies to --mode live; a simulation needs no target")
    return params


def obtain_result(
    playbook: Playbook,
    args: argparse.Namespace,
    console: Console,
    params: CapacityParams,
) -> PlaybookResult:
    """The playbook's result in the mode and target asked for.

    The one place a check gets its measurements: when the operator workflow (plan, up,
    run, down) is on main, live checks are routed through it here, AWS included.
    """
    if args.mode == "simulate":
        from console.commands.simulate import simulate_with_progress

        return simulate_with_progress(playbook, console, args.quiet, params)
    from console.commands.workflow import settings_from
    from console.targets import target_named

    if target_named(settings_from(args)).runs_through_workflow:
        return _live_on_aws(args, console)
    from console.commands.run import live_options, run_one_shot, warn_of_scale

    def notify(message: str) -> None:
        if not args.quiet:
            print_progress(console, message)

    options = live_options(args)
    warnings = warn_of_scale(playbook, options.scale, console)
    result = run_one_shot(options, notify, playbook, "run --mode simulate")
    result.notes += warnings
    return result


def _live_on_aws(args: argparse.Namespace, console: Console) -> PlaybookResult:
    """Through the operator workflow: plan (printed with its cost), up (asks first unless
    --yes), run, and down in a `finally`. Leftovers after down make the check an error,
    whatever the criteria say: the check could not clean up after itself."""
    from console.commands.run import up_run_down

    results: list[PlaybookResult] = []
    if not up_run_down(args, console, results.append):
        raise UserError(
            "the check ran, but `down` could not confirm that nothing is left (listed "
            "above with the commands that delete each)",
            code=exitcodes.LEFT_BEHIND,
        )
    return results[0]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from console.commands.emulator import add_store_arguments
    from console.commands.run import add_live_arguments
    from console.commands.workflow import add_fleet_and_cost_arguments, add_settings_arguments

    parser = sub.add_parser(
        "check",
        help="run a playbook and judge its criteria: exit 0 pass, 1 fail, 2 error (docs/checks.md)",
    )
    parser.add_argument("playbook", help="playbook YAML with a criteria list")
    parser.add_argument(
        "--validate",
        action="store_true",
        help="only validate the playbook and the options, refusing what a check would "
        "refuse (errors name the line and the field); run nothing",
    )
    parser.add_argument(
        "--mode",
        choices=["simulate", "live"],
        default="simulate",
        help="simulate (default: the capacity model in virtual time, seconds, no AWS) or "
        "live (worker processes against --target)",
    )
    parser.add_argument(
        "--target",
        choices=["local", "aws"],
        default=None,
        help="live only: local (the emulator, the default) or aws",
    )
    parser.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="FILE",
        help="write a report: FILE.json (verdicts + results), FILE.md (for a pull request), "
        "FILE.xml (JUnit, one test case per criterion); repeatable",
    )
    parser.add_argument(
        "--json", metavar="FILE", help="also write the results alone (docs/results.md)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress or advice lines")
    add_params_argument(parser)
    add_trim_arguments(parser)
    live = parser.add_argument_group("live runs (--mode live)")
    add_live_arguments(live)
    add_store_arguments(
        live, default="keys", note="; for the built-in emulator (an --endpoint one has its own)"
    )
    aws = parser.add_argument_group("live runs on AWS (--mode live --target aws)")
    aws.add_argument("--region", default=None, help="AWS region (default: HOTBENCH_REGION)")
    add_settings_arguments(aws, target=False)
    add_fleet_and_cost_arguments(aws)
    aws.add_argument("--yes", action="store_true", help="go up without asking")
    parser.set_defaults(handler=handle, create_delay=0.0)  # local only: not offered here
