"""`hotbench plan|up|prewarm|watch|tally|down|runs`: the operator workflow, step by step.

Thin over console.workflow: parse flags into Settings and options, call the step, print
what it returns (rich text, or JSON with --json). `run --run RUN_ID` lives in run.py.
docs/workflow.md describes every verb and its output.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console

from console.commands.arg_types import (
    non_negative_float,
    non_negative_int,
    positive_float,
    positive_int,
    scale_fraction,
)
from console.commands.emulator import add_store_arguments, emulator_options
from console.commands.params import add_params_argument
from console.commands.trim_args import add_trim_arguments, trim_of
from console.output import print_progress
from console.render.runs_table import ListedRun, runs_table
from console.render.workflow_output import print_down, print_frame, print_plan, print_tally
from console.run.errors import EXIT_LEFTOVERS
from console.run.settings import SettingsFileError
from console.targets import billed_up, target_class, target_named
from console.workflow import (
    ConfigError,
    Hooks,
    PlanReport,
    RunState,
    Settings,
    UpOptions,
    WarmTarget,
    load_settings,
)
from emulator.emulator_options import EmulatorOptions

DEFAULTS = Settings.model_fields


def _default(name: str) -> str:
    """A setting's default for --help, with its environment variable."""
    return f"default: {DEFAULTS[name].default}, or HOTBENCH_{name.upper()}"


# -- shared flags --------------------------------------------------------------------------


def add_settings_arguments(parser: argparse._ActionsContainer, target: bool = True) -> None:
    """Flags that override a setting; None (not given) leaves the environment's or
    hotbench.toml's value."""
    if target:
        parser.add_argument(
            "--target",
            choices=["local", "aws"],
            default=None,
            help=f"where the tables live ({_default('target')})",
        )
        parser.add_argument("--region", default=None, help=f"AWS region ({_default('region')})")
    parser.add_argument(
        "--profile",
        dest="aws_profile",
        default=None,
        help="AWS profile (default: the standard credential chain, or HOTBENCH_AWS_PROFILE)",
    )
    parser.add_argument(
        "--runs-dir", default=None, help=f"the runs folder ({_default('runs_dir')})"
    )


def settings_from(args: argparse.Namespace) -> Settings:
    fields = (
        "target",
        "region",
        "aws_profile",
        "runs_dir",
        "max_cost_usd",
        "max_cost_of",
        "price_region",
        "subnet_ids",
        "security_group_ids",
        "assign_public_ip",
        "image_builder",
        "fleet",
    )
    try:
        return load_settings(**{f: getattr(args, f, None) for f in fields})
    except SettingsFileError as exc:
        raise ConfigError(f"{exc}; fix or remove that line") from None
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise ConfigError(
            f"invalid settings ({problems}); check the flags, HOTBENCH_* variables and "
            "hotbench.toml"
        ) from None


def hooks_for(console: Console, args: argparse.Namespace) -> Hooks:
    quiet = getattr(args, "quiet", False) or getattr(args, "json", False) is True

    def say(line: str) -> None:
        if not quiet:
            print_progress(console, line)

    def confirm(question: str) -> bool:
        if getattr(args, "yes", False):
            return True
        if not sys.stdin.isatty():
            console.print(f"{question}\n[yellow]no terminal to ask: pass --yes to go ahead[/]")
            return False
        from rich.prompt import Confirm

        return Confirm.ask(question, console=console, default=False)

    return Hooks(say=say, confirm=confirm)


def print_json(payload: Any) -> None:
    sys.stdout.write(json.dumps(payload, indent=2, default=str) + "\n")


def state_json(state: RunState) -> dict[str, Any]:
    """A run's state as --json prints it: the state file, and what follows from it."""
    data: dict[str, Any] = json.loads(state.model_dump_json())
    data["next_step"] = state.next_step
    data["current_step"] = state.current_step
    data["up"] = state.billable_up  # anything exists: tables, an emulator, leftovers
    data["billable_up"] = billed_up(state)  # and costs money (never for a local run)
    return data


def show_plan(report: PlanReport, console: Console) -> None:
    """The plan as `plan`, `up` and `run --target aws` print it."""
    print_plan(report, console)


def up_options(args: argparse.Namespace) -> UpOptions:
    return UpOptions(
        workers=args.workers,
        scale=args.scale,
        task_cpu=args.task_cpu,
        task_memory=args.task_memory,
        cpu_architecture=args.cpu_architecture,
        lambda_memory_mb=getattr(args, "lambda_memory", None),
        emulator=_local_emulator(args),
        seed_items=getattr(args, "seed_items", None),  # run's and the console's
        trim=trim_of(args),
    )


def _local_emulator(args: argparse.Namespace) -> EmulatorOptions:
    """The emulator a local `up` starts, from the flags; its --params file as an absolute
    path (the emulator, in its own folder, reads it again), and refused where the tables
    are AWS's own."""
    import dataclasses
    from pathlib import Path

    options = emulator_options(args)
    loaded = options.params
    if loaded.path is None:
        return options
    if not target_named(settings_from(args)).tables_are_modelled:
        raise ConfigError(
            "--params sets the emulator's and the simulation's parameters; on AWS the tables "
            "meet AWS's own capacity: drop --params (calibrate from the AWS result instead: "
            "docs/model.md#calibrating-to-your-own-tables)"
        )
    absolute = dataclasses.replace(loaded, path=str(Path(loaded.path).resolve()))
    return dataclasses.replace(options, params=absolute)


def add_seed_items_argument(parser: argparse._ActionsContainer) -> None:
    """--seed-items, one definition for `hotbench run`, `check --mode live` and `console`."""
    parser.add_argument(
        "--seed-items",
        type=non_negative_int,
        default=None,
        metavar="N",
        help="seed at most N items per table (default: the playbook's seed_items)",
    )


def add_pause_scale_argument(parser: argparse._ActionsContainer) -> None:
    """--pause-scale, one definition for `hotbench run`, `check --mode live` and `console`
    (what it does depends on whether the tables' clock can be skipped, which the help
    says for each case)."""
    parser.add_argument(
        "--pause-scale",
        type=non_negative_float,
        default=1.0,
        help="share of each pause between repeats waited in real time (default 1). "
        "Locally (the built-in emulator, or a run made by `up --target local`) the rest "
        "is skipped on the emulator's clock: 0 runs without waiting and the physics "
        "still sees the whole pause. On AWS, or with --endpoint, time cannot be "
        "skipped: a shorter pause shortens the physics too",
    )


def add_up_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=2,
        help="worker processes / Fargate tasks / Lambda invocations at a time (Lambda: at "
        "least one per 1,000 requests/s of the peak)",
    )
    parser.add_argument(
        "--scale",
        type=scale_fraction,
        default=0.1,
        help="local: fraction of the playbook's rates offered, and the emulator's scale "
        "(default 0.1; figures are reported in full-scale units)",
    )
    add_fleet_and_cost_arguments(parser)
    add_create_delay_argument(parser)
    add_params_argument(parser)
    add_store_arguments(
        parser,
        default="keys",
        note="; local: the emulator `up` starts, or a one-shot `run`'s built-in one "
        "(an --endpoint one has its own)",
    )


def add_fleet_and_cost_arguments(parser: argparse._ActionsContainer) -> None:
    """What `up` needs beyond --workers and --scale: the fleet (Lambda or Fargate) and its
    workers' size, the cost ceiling, the prices (also `hotbench check --mode live --target
    aws`, which goes up)."""
    parser.add_argument(
        "--fleet",
        choices=["lambda", "ecs"],
        default=None,
        help="aws: what runs the workers, Lambda invocations or ECS Fargate tasks; locally: "
        "the fleet a run's cost on AWS is priced as (default: the playbook's `fleet`, else "
        "lambda, or HOTBENCH_FLEET)",
    )
    parser.add_argument(
        "--lambda-memory",
        type=positive_int,
        default=None,
        metavar="MB",
        help="aws lambda: each function's memory, 128-10240 MB (default: sized to each "
        "worker's share of the peak rate)",
    )
    parser.add_argument(
        "--task-cpu", type=positive_int, default=1024, help="aws ecs: task CPU units"
    )
    parser.add_argument(
        "--task-memory", type=positive_int, default=2048, help="aws ecs: task memory MiB"
    )
    parser.add_argument(
        "--cpu-architecture",
        choices=["X86_64", "ARM64"],
        default="X86_64",
        help="aws: the workers' CPU architecture (Fargate tasks and Lambda functions)",
    )
    add_image_builder_argument(parser)
    parser.add_argument(
        "--max-cost-usd",
        type=non_negative_float,
        default=None,
        help="refuse (exit 3, nothing created) a run whose cost is above this, as "
        "--max-cost-of says (default: none, or HOTBENCH_MAX_COST_USD)",
    )
    parser.add_argument(
        "--max-cost-of",
        choices=["target", "aws"],
        default=None,
        help="what --max-cost-usd is compared with: target = what the run costs where it "
        "runs (a local run costs nothing and is never refused), aws = what it would cost "
        "on AWS, local runs too (default: target, or HOTBENCH_MAX_COST_OF)",
    )
    parser.add_argument(
        "--price-region",
        default=None,
        help="region whose prices the plan and the cost guard use (default: --region)",
    )


def add_image_builder_argument(parser: argparse._ActionsContainer) -> None:
    parser.add_argument(
        "--image-builder",
        choices=["auto", "docker", "podman", "finch", "codebuild"],
        default=None,
        help="aws: how the worker image is built: auto = the first of docker, podman, finch "
        "on PATH, else CodeBuild in the account (default: auto, or HOTBENCH_IMAGE_BUILDER; "
        "HOTBENCH_WORKER_IMAGE skips the build)",
    )


def add_create_delay_argument(parser: argparse._ActionsContainer) -> None:
    """--create-delay: local only (the emulator `up` starts), so not in the AWS group."""
    parser.add_argument(
        "--subnet-ids",
        default=None,
        metavar="IDS",
        help="aws: worker subnets, comma-separated (default: the default VPC's; or "
        "HOTBENCH_SUBNET_IDS)",
    )
    parser.add_argument(
        "--security-group-ids",
        default=None,
        metavar="IDS",
        help="aws: worker security groups, comma-separated (default: the kit's own, HTTPS out)",
    )
    parser.add_argument(
        "--assign-public-ip",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="aws: a public IP per task (default: yes on the default VPC, no on given subnets)",
    )
    parser.add_argument(
        "--create-delay",
        type=non_negative_float,
        default=0.0,
        metavar="S",
        help="local: the emulator's CreateTable -> ACTIVE delay (default 0; AWS: ~7 s)",
    )


# -- handlers ------------------------------------------------------------------------------


def handle_plan(args: argparse.Namespace, console: Console) -> int:
    from console.run.errors import PreflightFailed
    from console.workflow import plan
    from console.workflow.steps import check_credentials, preflight

    settings = settings_from(args)
    report = plan(args.playbook, settings, up_options(args))
    if args.json:
        print_json(report.model_dump(mode="json"))
    else:
        show_plan(report, console)
    who = check_credentials(settings)  # the plan is useful without; `up` is not
    if who is None:
        return 0  # a target without identities (local) has nothing to check before up
    findings = preflight(report, settings)
    if not args.json:
        console.print(f"AWS identity: {who}", highlight=False)
        for finding in findings:
            mark = "[yellow]not checked[/]" if not finding.blocks else "[red]FAIL[/]"
            console.print(f"preflight {mark} {finding.message}", highlight=False)
        if not any(f.blocks for f in findings):
            chosen = next((f.name for f in report.fleets if f.chosen), report.fleet.name)
            console.print(
                f"preflight: permissions, quotas and the {chosen} fleet's checks OK",
                highlight=False,
            )
    blocking = [f for f in findings if f.blocks]
    if blocking:
        raise PreflightFailed(blocking)
    return 0


def handle_up(args: argparse.Namespace, console: Console) -> int:
    from console.workflow import plan, up

    settings = settings_from(args)
    options = up_options(args)
    if args.run is None:
        report = plan(args.playbook, settings, options)
        if not args.json:
            show_plan(report, console)
    try:
        state = up(args.playbook, settings, hooks_for(console, args), options, run_id=args.run)
    except KeyboardInterrupt:
        console.print(
            "[yellow]interrupted: what was created is in the run's state; "
            "`hotbench runs` shows it, `hotbench down RUN_ID` removes it[/]"
        )
        raise
    if args.json:
        print_json(state_json(state))
        return 0
    where = state.emulator.endpoint if state.emulator else state.region
    console.print(
        f"run [bold]{state.run_id}[/] is up on {state.target} ({where}); "
        f"down by itself at {state.deadline:%Y-%m-%d %H:%M} UTC"
    )
    console.print(
        f"next: hotbench prewarm {state.run_id} | hotbench run --run {state.run_id} | "
        f"hotbench down {state.run_id}",
        highlight=False,
    )
    console.print(state.run_id, highlight=False)
    return 0


def handle_prewarm(args: argparse.Namespace, console: Console) -> int:
    from console.workflow import prewarm

    targets = None
    if args.table is not None:
        if args.read is None and args.write is None:
            raise ConfigError("--table needs --read and/or --write (units per second)")
        targets = [WarmTarget(args.table, args.index, args.read, args.write)]
    elif args.index or args.read or args.write:
        raise ConfigError("--index, --read and --write go with --table VARIANT")
    settings = settings_from(args)
    hooks = hooks_for(console, args)
    from rich.progress import BarColumn, Progress, TextColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        console=console,
        transient=True,
        disable=args.json,
    ) as bar:
        task = bar.add_task("warming", total=1.0)
        hooks.progress = lambda what, f: bar.update(task, description=what, completed=f or 0)
        state = prewarm(args.run_id, settings, hooks, targets, timeout_s=args.timeout)
    if args.json:
        print_json(state_json(state))
    else:
        console.print(f"run {state.run_id}: prewarmed")
    return 0


JOIN_S = 2.0
"""A watch joining a run under way shows the seconds from this long before it joined."""
IDLE_EVERY_S = 30.0
"""How often `watch` repeats its "waiting for the run step" line while nothing runs."""


def handle_watch(args: argparse.Namespace, console: Console) -> int:
    import threading
    import time
    from datetime import UTC, datetime, timedelta

    from console.run.samples import TimeOrder
    from console.workflow import watch

    settings = settings_from(args)
    stop = threading.Event()
    started = time.monotonic()
    joined = datetime.now(UTC)
    # a watch joining a run under way starts at its join, not with the run's backlog
    order = TimeOrder(since=None if args.from_start else joined - timedelta(seconds=JOIN_S))
    said_joined = False
    idle_said = -IDLE_EVERY_S
    frames = watch(args.run_id, settings, interval_s=args.interval, stop=stop)
    try:
        for frame in frames:
            if args.json:  # a script reads the fleet's status as of now, beside the samples
                shown = frame.model_copy(update={"samples": order.release(frame)})
                sys.stdout.write(shown.model_dump_json() + "\n")
                sys.stdout.flush()
            else:
                parts = order.release_frames(frame)  # samples and status in time order
                idle = frame.run_label is None and not frame.finished and not frame.samples
                if idle and time.monotonic() - idle_said >= IDLE_EVERY_S:
                    idle_said = time.monotonic()
                    console.print(
                        f"[dim]{frame.at:%H:%M:%S} waiting for the run step "
                        f"(hotbench run --run {args.run_id})[/]",
                        highlight=False,
                    )
                if order.skipped and not said_joined:
                    said_joined = True
                    console.print(
                        f"[dim]{joined:%H:%M:%S} joined {frame.run_label or 'the run'} under "
                        "way: showing from now (--from-start shows it from its start)[/]",
                        highlight=False,
                    )
                for part in parts:
                    print_frame(part, console)
                # Line by line through a pipe too (`watch RUN | tee log`): a piped stdout
                # is block-buffered and would hold every line until the watch ended.
                console.file.flush()
            if args.seconds is not None and time.monotonic() - started >= args.seconds:
                stop.set()
    except BrokenPipeError:
        # the reader went away (`watch --json | head -3`): stop quietly, and point
        # stdout at nothing so the interpreter's final flush cannot fail again
        stop.set()
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    finally:
        close = getattr(frames, "close", None)  # a generator: run the watcher's finally
        if close is not None:
            close()
    return 0


def handle_tally(args: argparse.Namespace, console: Console) -> int:
    from console.workflow import tally

    result = tally(args.run_id, settings_from(args), refresh_prices=args.refresh_prices)
    if args.json:
        print_json(result.model_dump(mode="json"))
    else:
        print_tally(result, console)
    return 0


def handle_down(args: argparse.Namespace, console: Console) -> int:
    from console.workflow import down

    report = down(args.run_id, settings_from(args), hooks_for(console, args))
    if args.json:
        payload = report.model_dump(mode="json")
        payload["nothing_left"] = report.nothing_left
        print_json(payload)
    else:
        print_down(report, console)
    return 0 if report.nothing_left else EXIT_LEFTOVERS


def _cost_so_far(state: RunState, price_region: str | None) -> float:
    """The tally of the state as it is; in a region without recorded prices, the figure
    the run's last step recorded (its prices were chosen then)."""
    from console.cost import PricesUnknown
    from console.workflow.run_cost import tally_state

    try:
        return tally_state(state, price_region).total_usd
    except PricesUnknown:
        return state.cost_so_far_usd


def handle_runs(args: argparse.Namespace, console: Console) -> int:
    from console.workflow import runs

    settings = settings_from(args)
    found = runs(settings)
    costs = {s.run_id: _cost_so_far(s, settings.price_region) for s in found}
    if args.json:
        print_json([{**state_json(s), "cost_so_far_usd": costs[s.run_id]} for s in found])
        return 0
    if not found:
        console.print(f"no runs in {settings.runs_dir_shown}/")
        return 0
    from console.run.lock import held

    store = settings.runs_dir
    listed = [
        ListedRun(
            s,
            costs[s.run_id],
            bool(target_class(s.target).billed),
            held(Path(store) / s.run_id),
        )
        for s in found
    ]
    for table in runs_table(listed, Path(settings.runs_dir_shown), console.width):
        console.print(table)
    return 0


# -- registration --------------------------------------------------------------------------


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("plan", help="what a playbook's run would create and cost; creates nothing")
    p.add_argument("playbook", help="playbook YAML")
    add_settings_arguments(p)
    add_up_arguments(p)
    add_trim_arguments(p)
    p.add_argument("--json", action="store_true", help="print the plan as JSON")
    p.set_defaults(handler=handle_plan)

    p = sub.add_parser("up", help="create a run's tables (emulator or Terraform); prints its id")
    p.add_argument("playbook", help="playbook YAML")
    add_settings_arguments(p)
    add_up_arguments(p)
    add_trim_arguments(p)
    p.add_argument(
        "--run",
        metavar="RUN_ID",
        help="resume an interrupted up of this run (default: a new run)",
    )
    p.add_argument("--yes", action="store_true", help="do not ask before creating")
    p.add_argument("--json", action="store_true", help="print the run's state as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.set_defaults(handler=handle_up)

    p = sub.add_parser("prewarm", help="raise warm throughput (UpdateTable) and wait for ACTIVE")
    p.add_argument("run_id")
    add_settings_arguments(p, target=False)
    p.add_argument("--table", metavar="VARIANT", help="one table (default: the playbook's)")
    p.add_argument("--index", metavar="GSI", help="a GSI of --table (default: the table itself)")
    p.add_argument(
        "--read", type=positive_int, help="read units per second (default: left as it is)"
    )
    p.add_argument(
        "--write", type=positive_int, help="write units per second (default: left as it is)"
    )
    p.add_argument(
        "--timeout", type=positive_float, default=1800.0, help="seconds to wait for ACTIVE"
    )
    p.add_argument("--json", action="store_true", help="print the run's state as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.set_defaults(handler=handle_prewarm)

    p = sub.add_parser("watch", help="per-second samples of a run while it is up")
    p.add_argument("run_id")
    add_settings_arguments(p, target=False)
    p.add_argument("--interval", type=positive_float, default=1.0, help="seconds between frames")
    p.add_argument(
        "--seconds",
        type=positive_float,
        default=None,
        help="stop after this long (default: when the run step ends)",
    )
    p.add_argument(
        "--from-start",
        action="store_true",
        help="joining a run under way, show its samples from its start (default: from now)",
    )
    p.add_argument("--json", action="store_true", help="one JSON frame per line")
    p.set_defaults(handler=handle_watch)

    p = sub.add_parser("tally", help="what a run cost (locally: would have cost on AWS)")
    p.add_argument("run_id")
    add_settings_arguments(p, target=False)
    p.add_argument(
        "--price-region",
        default=None,
        help="region whose prices to use (default: the run's region, or HOTBENCH_PRICE_REGION)",
    )
    p.add_argument(
        "--refresh-prices",
        action="store_true",
        help="fetch prices from the AWS Price List API first",
    )
    p.add_argument("--json", action="store_true", help="print the tally as JSON")
    p.set_defaults(handler=handle_tally)

    p = sub.add_parser("down", help="destroy a run and check that nothing is left")
    p.add_argument("run_id")
    add_settings_arguments(p, target=False)
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.set_defaults(handler=handle_down)

    p = sub.add_parser("runs", help="every run in the runs folder, its step and what is up")
    add_settings_arguments(p, target=False)
    p.add_argument("--json", action="store_true", help="print the runs as JSON")
    p.set_defaults(handler=handle_runs)
