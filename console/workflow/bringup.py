"""`up`'s parts every target shares: the cost question and the deadline's reaper (each
target's provisioning: console/targets/)."""

from __future__ import annotations

from console.run import processes
from console.run.errors import CostRefused
from console.run.hooks import Hooks
from console.run.models import PlanReport
from console.run.settings import Settings
from console.run.state import (
    RunState,
    StateStore,
)
from console.workflow.run_context import run_settings

REAPER_MODULE = "console.workflow.reaper"


def where(report: PlanReport) -> str:
    return "would cost on AWS" if report.hypothetical else "is estimated at"


def refuse_over_limit(report: PlanReport, settings: Settings) -> str | None:
    """--max-cost-usd against what the run costs on its target (a local run: nothing),
    or, with --max-cost-of aws, against what it would cost on AWS, local runs included.
    Returns the line to show when the limit has nothing to guard (a local run compared
    with its own cost): a limit the user set must not look as if it held anything."""
    limit = settings.max_cost_usd
    if limit is None:
        return None
    local_but_aws_asked = report.hypothetical and settings.max_cost_of == "aws"
    if report.hypothetical and not local_but_aws_asked:
        # free where it runs: the limit guards money, and there is none to guard
        return (
            f"--max-cost-usd ${limit:,.2f} guards nothing here: the {report.target} target "
            f"costs nothing (the same run would cost ${report.estimated_cost_usd:,.2f} on "
            "AWS; --max-cost-of aws compares the limit with that)"
        )
    cost = report.estimated_cost_usd
    if cost > limit:
        basis = " (--max-cost-of aws)" if local_but_aws_asked else ""
        raise CostRefused(
            f"the run {where(report)} ${cost:,.2f}, over --max-cost-usd "
            f"${limit:,.2f}{basis}; nothing was created (fewer tables, a shorter "
            "playbook or a higher limit)"
        )
    return None


def confirm_cost(report: PlanReport, hooks: Hooks) -> None:
    question = (
        f"Create {len(report.tables)} table(s) and {report.fleet.workers} worker(s) on "
        f"{report.target}? The run {where(report)} ${report.estimated_cost_usd:,.2f} "
        f"(${report.per_hour_while_up:,.2f}/h while up, "
        f"+${report.per_hour_while_running:,.2f}/h while workers run; prices "
        f"{report.prices_region} as of {report.prices_as_of})"
    )
    if not hooks.confirm(question):
        raise CostRefused("not confirmed; nothing was created (--yes skips the question)")


def start_reaper(store: StateStore, state: RunState, settings: Settings) -> None:
    """A detached process that runs `down` at the deadline if the run is still up: the
    hard wall-clock limit holds even when the terminal that started the run is gone."""
    if state.reaper_pid is not None and processes.is_ours(state.reaper_pid, state.run_id):
        return
    argv = [
        "-m",
        REAPER_MODULE,
        state.run_id,
        "--settings",
        run_settings(state, settings).model_dump_json(),
        "--runs-dir",
        str(store.runs_dir.resolve()),
    ]
    state.reaper_pid = processes.spawn_detached(argv, store.run_dir(state.run_id) / "reaper.log")
    store.save(state)
