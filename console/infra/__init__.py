"""Terraform driver for the hotbench AWS stack (terraform/ at the repository root).

``Terraform(workdir, variables).plan()`` gives a reviewable summary and hourly cost;
``apply()`` streams progress and rolls back on failure; ``output()`` returns typed data.
"""

from console.cost.lines import CostLine
from console.cost.tf_estimate import TerraformEstimate, estimate
from console.infra.outputs import HotbenchOutputs, TableOutput, parse_outputs
from console.infra.plan_summary import PlanSummary, summarize
from console.infra.terraform import DEFAULT_WORKDIR, Plan, Terraform, progress_line
from console.infra.tf_errors import TerraformApplyError, TerraformError
from console.infra.tf_exec import (
    BINARY_ENV,
    BinaryRunner,
    CommandResult,
    LibterraformRunner,
    TerraformRunner,
    runner_from_env,
)

__all__ = [
    "BINARY_ENV",
    "DEFAULT_WORKDIR",
    "BinaryRunner",
    "CommandResult",
    "CostLine",
    "HotbenchOutputs",
    "LibterraformRunner",
    "Plan",
    "PlanSummary",
    "TableOutput",
    "Terraform",
    "TerraformApplyError",
    "TerraformError",
    "TerraformEstimate",
    "TerraformRunner",
    "estimate",
    "parse_outputs",
    "progress_line",
    "runner_from_env",
    "summarize",
]
