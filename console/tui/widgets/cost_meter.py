"""The running cost in the header: what the run has cost so far, from the workflow's tally."""

from __future__ import annotations

from textual.widgets import Static

from console.workflow import CostTally


class CostMeter(Static):
    """`$0.0123 so far` while anything billable is up; the final figure, dimmed, after."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__("", **kwargs)  # type: ignore[arg-type]
        self.usd: float | None = None
        self.billable = False

    def show(self, tally: CostTally | None, billable: bool) -> None:
        self.usd = None if tally is None else tally.total_usd
        self.billable = billable
        self.set_class(billable, "billable")
        if tally is None:
            self.update("up: $ …" if billable else "")
            return
        would = " would be" if tally.hypothetical else ""
        if billable:
            self.update(f"up:{would} ${tally.total_usd:,.4f}")
        else:
            self.update(f"down:{would} ${tally.total_usd:,.4f}")
