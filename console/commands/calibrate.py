"""`hotbench calibrate RESULT... [--fit NAME...] [--out params.yaml]`: fit the capacity
model's parameters to result files (the published ones in docs/reference-results/, or a
team's own `--target aws` run) by simulating each result's playbook (docs/model.md,
"Calibration")."""

from __future__ import annotations

import argparse
import shlex
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from console.commands.params import add_params_argument, params_from
from console.output import UserError, print_progress
from emulator.paramsfile import dump_params

if TYPE_CHECKING:
    from loadgen.analysis.calibrate import Calibration


def _v(value: float | None) -> str:
    if value is None:
        return "none"
    return f"{value:,.4g}" if abs(value) < 1e5 else f"{value:,.0f}"


def figures_table(result: Calibration) -> Table:
    table = Table(
        title="figures (residual = (simulated - measured) / tolerance)",
        title_justify="left",
        header_style="bold",
    )
    for name in ("result", "figure", "measured", "prior", "fitted", "residual", "tolerance"):
        table.add_column(name, justify="left" if name in ("result", "figure") else "right")
    for row in result.figures:
        style = "" if abs(row.residual) <= 1 else "red"
        table.add_row(
            row.target,
            f"{row.figure.run} | {row.figure.scope} | {row.figure.name}",
            _v(row.figure.value),
            _v(row.simulated_prior),
            _v(row.simulated),
            f"[{style}]{row.residual:+.2f}[/]" if style else f"{row.residual:+.2f}",
            row.tolerance.describe(),
        )
    return table


def params_table(result: Calibration) -> Table:
    table = Table(title="parameters", title_justify="left", header_style="bold")
    for name in (
        "parameter",
        "source",
        "prior",
        "fitted",
        "± 1 sd",
        "moves",
        "profile (value: distance)",
        "status",
    ):
        table.add_column(name, justify="right" if name in ("prior", "fitted", "± 1 sd") else "left")
    for f in result.fits:
        profile = "  ".join(f"{_v(v)}: {c:.3g}" for v, c in f.profile)
        table.add_row(
            f.name,
            f.source,
            _v(f.prior),
            _v(f.value) if f.constrained else "-",
            _v(f.sigma) if f.sigma is not None else "-",
            ", ".join(f.moves) or "-",
            profile,
            f.status if f.constrained else f"[yellow]{f.status}[/]",
        )
    return table


def loo_table(result: Calibration) -> Table:
    table = Table(
        title="leave one result out (RMS residual in tolerances)",
        title_justify="left",
        header_style="bold",
    )
    for name in ("held out", "prior", "in the fit", "predicted by the others", "worst predicted"):
        table.add_column(name, justify="left" if name == "held out" else "right")
    for row in result.leave_one_out:
        table.add_row(
            row.target,
            f"{row.rms_prior:.2f}",
            f"{row.rms_in_fit:.2f}",
            f"{row.rms_predicted:.2f}",
            f"{row.max_predicted:.2f}",
        )
    return table


def handle(args: argparse.Namespace, console: Console) -> int:
    # Imported here, not at the top: the fit needs scipy.optimize (about 1 s of CPU to
    # import), and every `hotbench` process registers this command, including the
    # emulator, the reaper and each command the test suite starts.
    from loadgen.analysis.calibrate import CalibrationOptions, TargetError, calibrate, load_target
    from loadgen.analysis.calibrate.fit import CalibrationError

    prior = params_from(args)
    playbooks = {}
    for path in args.playbook:
        from loadgen.format.playbook import load_playbook

        playbooks[load_playbook(path).name] = path
    try:
        targets = [load_target(path, playbooks) for path in args.results]
    except TargetError as exc:
        raise UserError(str(exc)) from None

    def progress(message: str) -> None:
        if not args.quiet:
            print_progress(console, message)

    options = CalibrationOptions(
        fit=tuple(args.fit or ()),
        prior=prior.params,
        max_evaluations=args.max_evaluations,
        leave_one_out=not args.no_leave_one_out,
        progress=progress,
    )
    n_figures = sum(len(t.figures) for t in targets)
    console.print(
        f"calibrating to {n_figures} figures of {len(targets)} result(s): "
        + ", ".join(f"{t.label} ({t.playbook_path}, {len(t.figures)})" for t in targets),
        highlight=False,
    )
    try:
        result = calibrate(targets, options)
    except CalibrationError as exc:
        raise UserError(str(exc)) from None
    console.print(figures_table(result))
    console.print(params_table(result))
    if result.leave_one_out:
        console.print(loo_table(result))
    outside = sum(abs(f.residual) > 1 for f in result.figures)
    console.print(
        f"distance {result.distance_prior:.3g} at the prior -> {result.distance:.3g} fitted; "
        f"{outside} of {len(result.figures)} figures outside tolerance; "
        f"{result.simulations} simulations in {result.wall_s:.0f} s",
        highlight=False,
    )
    if args.out:
        command = "hotbench calibrate " + " ".join(shlex.quote(a) for a in sys.argv[2:])
        header = [
            f"written by: {command}",
            f"on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, from {', '.join(args.results)}",
            f"distance {result.distance_prior:.3g} -> {result.distance:.3g}; "
            f"{outside} of {len(result.figures)} figures outside tolerance",
        ]
        for f in result.fits:
            if f.constrained:
                header.append(f"{f.name}: {f.value:.4g} +/- {f.sigma or 0:.2g} (prior {f.prior:g})")
            else:
                header.append(f"{f.name}: {f.status}")
        changed = result.changed()
        if not changed:
            header.append("every fitted value is within 0.1 % of its default: nothing to change")
        text = dump_params(changed, header)
        try:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as exc:
            raise UserError(f"cannot write {args.out}: {exc.strerror}") from None
        console.print(f"params written to {args.out} ({len(changed)} changed)", highlight=False)
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "calibrate",
        help="fit the model's parameters to result files by simulating their playbooks "
        "(docs/model.md#calibration-fitting-the-parameters-to-results)",
    )
    parser.add_argument("results", nargs="+", metavar="RESULT", help="result JSON files")
    parser.add_argument(
        "--fit",
        nargs="+",
        metavar="NAME",
        help="parameters to fit (default: every parameter tagged [fit] in emulator/params.py)",
    )
    parser.add_argument("--out", metavar="FILE", help="write the fitted values as a params file")
    parser.add_argument(
        "--playbook",
        action="append",
        default=[],
        metavar="FILE",
        help="the playbook of a result (matched by name; default: the result's "
        "reference.playbook_file, <name>.yaml beside it, or playbooks/<name>.yaml)",
    )
    parser.add_argument(
        "--max-evaluations",
        type=int,
        default=60,
        metavar="N",
        help="evaluations of the distance by the fit (each simulates the results the "
        "moved parameters affect; default 60)",
    )
    parser.add_argument(
        "--no-leave-one-out", action="store_true", help="skip the leave-one-result-out errors"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    add_params_argument(parser)
    parser.set_defaults(handler=handle)
