"""`hotbench calibrate`'s tables: each figure measured, simulated at the prior and
fitted; each parameter fitted with its uncertainty and profile; and each result held
out of the fit, as the others predict it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table

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


def fitted_params_table(result: Calibration) -> Table:
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
