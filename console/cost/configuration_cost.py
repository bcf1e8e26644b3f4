"""What one configuration of a playbook's tables costs: a month of its traffic and the run
itself, from the one usage record and the one price function (`hotbench optimize`'s
objective: loadgen.analysis.optimize.Pricing)."""

from __future__ import annotations

from console.cost.measured_usage import record_of_result
from console.cost.month_usage import month_record
from console.cost.price import NoClassPrices, price, upfront_usd
from console.cost.prices import PriceTable
from loadgen.analysis.optimize import Costs, Pricing
from loadgen.format.optimize_spec import OptimizeSpec
from loadgen.format.playbook import Playbook
from loadgen.results.records import PlaybookResult


def configuration_pricing(prices: PriceTable) -> Pricing:
    """Prices a candidate: its month (the playbook's `optimize.month` rule) and its run
    (the tables standing through their runs and pauses, the units they consumed: what
    `check`'s cost_usd adds up); None for a table class `prices` has no figures of."""

    def costs(playbook: Playbook, result: PlaybookResult, tables: list[str]) -> Costs | None:
        month = (playbook.optimize or OptimizeSpec()).month
        runs = PlaybookResult(
            result.playbook, result.mode, runs=[r for r in result.runs if r.table in tables]
        )
        try:
            record = month_record(playbook, result, tables, month)
            month_bill = price(record, prices)
            run_bill = price(record_of_result(playbook, runs), prices)
        except NoClassPrices:
            return None
        return Costs(
            month_bill.total_usd,
            run_bill.total_usd,
            upfront_usd(record, prices),
            tuple((line.what, line.usd) for line in month_bill.lines),
            tuple(month_bill.notes),
        )

    return costs
