"""Every run in the runs folder, its step, what is up and its cost so far, one row a
run: as `hotbench runs` prints it, and as the TUI's runs screen lists it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table

from console.render.cells import Cells
from console.render.fitted_tables import Column, fit
from console.run.models import CostTally
from console.run.state import RunState


@dataclass(frozen=True)
class ListedRun:
    """A run as `runs` lists it: its state and what only its target can say of it."""

    state: RunState
    cost_so_far_usd: float
    billed: bool
    """Its target charges for what stands (AWS); a local run's cost is what the same run
    would cost on AWS."""
    busy: bool = False
    """A live command holds the run now (console.run.lock.held): a step that says
    `running` without one was killed, and is shown interrupted."""

    @property
    def up(self) -> str:
        if not self.state.billable_up:
            return "no"
        return "[red]yes, billed[/]" if self.billed else "yes"


RUNS_COLUMNS = (
    Column("run", justify="left", key=True),
    Column("step", justify="left", rank=0),
    Column("up", justify="left", rank=1),
    Column("next", justify="left", rank=2),
    Column("playbook", justify="left", rank=3),
    Column("target", justify="left", rank=4),
    Column("cost so far", "cost", justify="left", rank=5, fold_to=6),
    Column("created", justify="left", rank=6),
)
"""The run id is the key, whole in every part (every command takes it; at 80 columns
rich cut it to `hb-12031…`); then what a reader acts on: its step, whether it is up."""


def runs_table(runs: Sequence[ListedRun], runs_dir: Path, width: int) -> list[Table]:
    """The runs, laid out for `width` (render.fitted_tables)."""
    rows = []
    for listed in runs:
        s = listed.state
        rows.append(
            [
                s.run_id,
                s.step_words(listed.busy),
                listed.up,
                str(s.next_step or "-"),
                s.playbook_name,
                s.target,
                f"${listed.cost_so_far_usd:,.2f}" + ("" if listed.billed else " (on AWS)"),
                f"{s.created_at:%m-%d %H:%M}",  # no year: the column stays narrow
            ]
        )
    # the columns in the order a row reads (run, target, playbook, step, ...)
    order = [0, 5, 4, 1, 3, 2, 6, 7]
    return fit(
        f"runs in {runs_dir}/",
        [RUNS_COLUMNS[i] for i in order],
        [[row[i] for i in order] for row in rows],
        width,
    )


def _tally_cell(tally: CostTally | None) -> str:
    if tally is None:
        return "-"
    return f"${tally.total_usd:,.4f}" + (" on AWS" if tally.hypothetical else "")


def runs_cells(runs: Sequence[RunState], tallies: dict[str, CostTally | None]) -> Cells:
    """The TUI's runs screen: one row a run, in the order given, with its tally so far."""
    return (
        ("run", "playbook", "target", "step", "next", "up", "cost"),
        [
            (
                state.run_id,
                state.playbook_name,
                state.target,
                state.current_step.value,
                state.next_step.value if state.next_step else "-",
                "UP" if state.billable_up else "-",
                _tally_cell(tallies.get(state.run_id)),
            )
            for state in runs
        ],
    )
