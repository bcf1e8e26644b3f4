"""`hotbench calibrate RESULT... [--fit NAME...] [--out params.yaml]`: fit the capacity
model's parameters to result files (the published ones in docs/reference-results/, or a
team's own `--target aws` run) by simulating each result's playbook (docs/model.md,
"Calibration")."""

from __future__ import annotations

import argparse
import shlex
import sys
from datetime import UTC, datetime

from rich.console import Console

from console.commands.params import add_params_argument, params_from
from console.output import UserError, print_progress
from console.render.calibration_tables import figures_table, fitted_params_table, loo_table
from emulator.paramsfile import dump_params


def handle(args: argparse.Namespace, console: Console) -> int:
    # Imported here, not at the top: the fit needs scipy.optimize (about 1 s of CPU to
    # import), and every `hotbench` process registers this command, including the
    # emulator, the reaper and each command the test suite starts.
    from loadgen.analysis.calibrate import (
        CalibrationOptions,
        MeasuredResultError,
        calibrate,
        load_measured,
    )
    from loadgen.analysis.calibrate.fit import CalibrationError

    prior = params_from(args)
    playbooks = {}
    for path in args.playbook:
        from loadgen.format.playbook import load_playbook

        playbooks[load_playbook(path).name] = path
    try:
        targets = [load_measured(path, playbooks) for path in args.results]
    except MeasuredResultError as exc:
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
    console.print(fitted_params_table(result))
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
