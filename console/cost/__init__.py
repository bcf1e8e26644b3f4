"""Cost: one usage record, priced once, so the plan, the check and the tally agree with
AWS's bill.

- `record`: the usage record (tables and the spans they stood, request units by table
  and GSI, tasks with pull start and stop, dashboard, GetMetricData, Contributor Insights).
- `rules`: each billing rule once, with its AWS source.
- `price.price(record, prices)`: the one function that prices a record.
- `prices`: dated price tables per region; `pricelist`: the Price List refresh.
- `expected_usage` / `measured_usage` / `tally` / `tf_estimate`: the record a plan
  expects, a check's run produced, a run's state holds, a Terraform plan leaves standing.
- `estimate`: what a run would cost on its target, and what a local run would cost on AWS.

The cost table at 80 columns is drawn by console.render.cost_table, with everything else
the CLI and the TUI print. Importing this package imports no workflow module (the tally's
record builder is `console.workflow.run_cost`, imported where it is used).
"""

from console.cost.lines import CostLine
from console.cost.price import Bill, price, while_running_per_hour, while_up_per_hour
from console.cost.prices import PricesUnknown, PriceTable, price_table
from console.cost.record import (
    ImageUse,
    IndexUse,
    RequestUnits,
    Span,
    TableUse,
    TaskUse,
    UsageRecord,
)

__all__ = [
    "Bill",
    "CostLine",
    "ImageUse",
    "IndexUse",
    "PriceTable",
    "PricesUnknown",
    "RequestUnits",
    "Span",
    "TableUse",
    "TaskUse",
    "UsageRecord",
    "price",
    "price_table",
    "while_running_per_hour",
    "while_up_per_hour",
]
