"""Every run in the runs folder, its step, what is up and its cost so far, one row a
run: as `hotbench runs` prints it, and as the TUI's runs screen lists it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.table import Table

from console.render.cells import Cells
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


def runs_table(runs: Sequence[ListedRun], runs_dir: Path) -> Table:
    table = Table(title=f"runs in {runs_dir}/", title_justify="left", header_style="bold")
    for col in ("run", "target", "playbook", "step", "next", "up", "cost so far", "created"):
        table.add_column(col)
    for listed in runs:
        s = listed.state
        table.add_row(
            s.run_id,
            s.target,
            s.playbook_name,
            s.step_words(listed.busy),
            str(s.next_step or "-"),
            listed.up,
            f"${listed.cost_so_far_usd:,.2f}" + ("" if listed.billed else " (on AWS)"),
            f"{s.created_at:%Y-%m-%d %H:%M}",
        )
    return table


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
